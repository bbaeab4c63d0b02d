"""Which conversions copy, which autograd records, which refuse, which return the tensor
itself or a view.

Every row starts from fresh tensors: the leaf ``a = torch.arange(6.).reshape(2, 3)`` that
requires grad, and the non-leaf ``y = a * 2`` (float32, contiguous, on the CPU). The
label is the conversion, applied to ``y`` unless it names ``a``.

Columns:

* ``same``: the result ``is`` its source ("yes" / "no");
* ``memory``: the result uses the source's memory ("yes" / "no"); "n/a" for a Python
  value (``tolist()``, ``item()``);
* ``node``: the ``grad_fn`` of the result: its name, "none", "same tensor" when the
  result is the source itself (whose ``grad_fn`` it keeps), "n/a" for a result that is
  not a tensor;
* ``reaches``: a gradient of the result reaches ``a`` ("yes" / "no"; "backward raises"
  when the backward pass through the conversion fails);
* ``refuses``: "no", or the exception type and the first sentence of its message (at
  most ten words; " …" where the message goes on);
* ``warns``: "no", or the warning category and the first sentence of its message, cut
  the same way.

A refused conversion shows "-" in the columns about its result.
"""

import copy
import warnings

import numpy
import torch

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "conversions",
    title="Conversions: copy, view or itself; recorded or not; refused or not",
    columns={
        "Conversion": None,
        "Same object": "same",
        "Shares memory": "memory",
        "grad_fn of the result": "node",
        "Gradient reaches a": "reaches",
        "Refuses": "refuses",
        "Warns": "warns",
    },
)


def _storage_ptr(t):
    # Tensor.untyped_storage() appeared in torch 2.0; before, Tensor.storage() gave the
    # same address. (A helper of the measurement, not the API under test.)
    storage = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return storage.data_ptr()


def _words(text, n=10):
    """The message's first sentence, at most ``n`` words; " …" where words were cut."""
    first = str(text).split(". ")[0].split("\n")[0]
    words = first.split()
    return " ".join(words[:n]) + (" …" if len(words) > n or first != str(text).strip() else "")


def _fresh():
    a = torch.arange(6.0).reshape(2, 3).requires_grad_()
    return a, a * 2


def _measure(convert, on_leaf=False, context=None):
    a, y = _fresh()
    source = a if on_leaf else y
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if context is None:
                result = convert(source)
            else:
                with context():
                    result = convert(source)
        except (RuntimeError, ValueError) as error:  # ValueError: y.item() on torch 1.13
            refused = f"{type(error).__name__}: {_words(error)}"
            result = None
    cells = {
        "warns": f"{caught[0].category.__name__}: {_words(caught[0].message)}" if caught else "no",
    }
    if result is None:
        cells.update(same="-", memory="-", node="-", reaches="-", refuses=refused)
        return cells
    cells["refuses"] = "no"
    cells["same"] = "yes" if result is source else "no"
    if isinstance(result, torch.Tensor):
        cells["memory"] = "yes" if _storage_ptr(result) == _storage_ptr(source) else "no"
        if result is source:
            cells["node"] = "same tensor"
        else:
            cells["node"] = type(result.grad_fn).__name__ if result.grad_fn is not None else "none"
        if result.requires_grad:
            try:
                (grad,) = torch.autograd.grad(result.double().sum(), a, allow_unused=True)
            except RuntimeError:  # NotImplementedError too: backward out of "meta"
                cells["reaches"] = "backward raises"
            else:
                cells["reaches"] = "yes" if grad is not None else "no"
        else:
            cells["reaches"] = "no"
    elif isinstance(result, numpy.ndarray):
        pointer = result.__array_interface__["data"][0]
        cells["memory"] = "yes" if pointer == source.data_ptr() else "no"
        cells["node"] = "n/a"
        cells["reaches"] = "no"
    else:  # a Python value: list, float, int, bool
        cells.update(memory="n/a", node="n/a", reaches="no")
    return cells


# The first backward pass out of the "meta" device loads meta kernels (about 0.8 s on torch
# 2.13.0, once per process); do it at import time so that no row carries that cost.
_warm = torch.ones(1, requires_grad=True)
try:
    torch.autograd.grad(_warm.to("meta").sum(), _warm)
except RuntimeError:
    pass
del _warm


def _row(label, convert, **kwargs):
    SWEEP.row(label)(lambda: _measure(convert, **kwargs))


# dtype and device conversions
_row("y.float()", lambda t: t.float())
_row("y.double()", lambda t: t.double())
_row("y.half()", lambda t: t.half())
_row("y.int()", lambda t: t.int())
_row("y.long()", lambda t: t.long())
_row("y.bool()", lambda t: t.bool())
_row("y.to(torch.float32)", lambda t: t.to(torch.float32))
_row("y.to(torch.float64)", lambda t: t.to(torch.float64))
_row("y.to(torch.int64)", lambda t: t.to(torch.int64))
_row("y.to('cpu')", lambda t: t.to("cpu"))
_row("y.to('cpu', copy=True)", lambda t: t.to("cpu", copy=True))
_row("y.cpu()", lambda t: t.cpu())
_row("y.to('meta')", lambda t: t.to("meta"))
_row("y.type(torch.float64)", lambda t: t.type(torch.float64))
_row("y.type(torch.float32)", lambda t: t.type(torch.float32))
_row("a.float()", lambda t: t.float(), on_leaf=True)
_row("a.double()", lambda t: t.double(), on_leaf=True)
_row("a.to('cpu')", lambda t: t.to("cpu"), on_leaf=True)

# leaving torch
_row("y.numpy()", lambda t: t.numpy())
_row("with torch.no_grad(): y.numpy()", lambda t: t.numpy(), context=torch.no_grad)
_row("y.numpy(force=True)", lambda t: t.numpy(force=True))
_row("y.detach().numpy()", lambda t: t.detach().numpy())
_row("y.detach().cpu().numpy()", lambda t: t.detach().cpu().numpy())
_row("numpy.asarray(y)", lambda t: numpy.asarray(t))
_row("y.tolist()", lambda t: t.tolist())
_row("y[0, 1].item()", lambda t: t[0, 1].item())
_row("y.item()", lambda t: t.item())
_row("float(y[0, 1])", lambda t: float(t[0, 1]))
_row("int(y[0, 1])", lambda t: int(t[0, 1]))

# making tensors from tensors
_row("torch.tensor(y)", lambda t: torch.tensor(t))
_row("torch.as_tensor(y)", lambda t: torch.as_tensor(t))
_row("torch.asarray(y)", lambda t: torch.asarray(t))
_row("torch.Tensor(y)", lambda t: torch.Tensor(t))
_row("torch.from_numpy(y.detach().numpy())", lambda t: torch.from_numpy(t.detach().numpy()))
_row("y.new_tensor(y)", lambda t: t.new_tensor(t))
_row("y.clone()", lambda t: t.clone())
_row("copy.deepcopy(y)", lambda t: copy.deepcopy(t))
_row("copy.deepcopy(a)", lambda t: copy.deepcopy(t), on_leaf=True)

# layout
_row("y.contiguous()", lambda t: t.contiguous())
_row("y.t().contiguous()", lambda t: t.t().contiguous())
_row("y.reshape(3, 2)", lambda t: t.reshape(3, 2))
_row("y.t().reshape(6)", lambda t: t.t().reshape(6))
_row("y.reshape(2, 3)", lambda t: t.reshape(2, 3))
_row("y.view(3, 2)", lambda t: t.view(3, 2))
_row("y.view(2, 3)", lambda t: t.view(2, 3))
_row("y.t().view(6)", lambda t: t.t().view(6))
_row("y.T", lambda t: t.T)
_row("y.t()", lambda t: t.t())

# cutting
_row("y.detach()", lambda t: t.detach())
_row("y.data", lambda t: t.data)

if __name__ == "__main__":
    print(SWEEP.markdown())
