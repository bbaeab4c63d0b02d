"""What autograd knows about a tensor, in one line."""

import torch


def _version(t: torch.Tensor) -> str:
    try:
        return str(t._version)
    except RuntimeError:  # inference tensors have no version counter
        return "n/a"


def describe(t: torch.Tensor) -> str:
    """One line: ``requires_grad``, ``is_leaf``, ``grad_fn`` and the version counter.

    >>> import torch
    >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> describe(x)
    'requires_grad=True is_leaf=True grad_fn=None _version=0'
    >>> describe(x.sigmoid())
    'requires_grad=True is_leaf=False grad_fn=SigmoidBackward0 _version=0'
    >>> describe(x.detach())
    'requires_grad=False is_leaf=True grad_fn=None _version=0'
    """
    grad_fn = t.grad_fn.name() if t.grad_fn is not None else None
    return (
        f"requires_grad={t.requires_grad} is_leaf={t.is_leaf} "
        f"grad_fn={grad_fn} _version={_version(t)}"
    )


def storage_ptr(t: torch.Tensor) -> int:
    """The address of the memory ``t`` looks at (of its storage, not of its first element).

    ``Tensor.untyped_storage()`` appeared in torch 2.0; before, ``Tensor.storage()``
    gave the same address.
    """
    storage = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return storage.data_ptr()


def same_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether ``a`` and ``b`` are views of the same memory.

    >>> import torch
    >>> x = torch.zeros(3)
    >>> same_storage(x, x.detach()), same_storage(x, x[1:]), same_storage(x, x.clone())
    (True, True, False)
    """
    return storage_ptr(a) == storage_ptr(b)
