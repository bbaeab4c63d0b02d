"""Contexts x actions: what each context manager allows, refuses and records.

One row per context (``no context (grad mode)``: the same code outside any block), one
column per action. Every cell runs on fresh tensors: ``a = tensor([1., 2., 3.])``, a leaf
that requires grad, created outside the context.

Columns:

* ``grad``: ``torch.is_grad_enabled()`` inside ("True" / "False");
* ``leaf``: ``a.mul_(2)`` inside: "raises" / "allowed";
* ``view``: ``a[:1].mul_(2)`` inside: "raises" / "allowed";
* ``numpy``: ``y.numpy()`` inside, ``y = a * 2`` made outside: "raises" / "allowed";
* ``requires``: ``(a * 2).requires_grad`` for a result made inside ("True" / "False");
* ``version``: that result's ``_version``, read after the block ("0", or "raises": an
  inference tensor has no version counter);
* ``later``: that result used after the block by an operation that saves it for
  backward, ``(r * w).sum().backward()``: "allowed" / "raises";
* ``view_requires``: ``a[:2].requires_grad`` for a view made inside ("True" / "False");
* ``noop_requires``: ``a.float().requires_grad`` for that call with nothing to do, made
  inside ("True" / "False");
* ``factory_requires``: ``torch.ones(2, requires_grad=True).requires_grad``, made inside;
* ``view_version``: the ``_version`` of ``a[:2]`` made inside, read after the block ("0",
  or "raises");
* ``backward``: ``loss.backward()`` inside, ``loss = (a * a).sum()`` built outside:
  "allowed" / "raises";
* ``built``: ``s = a.sigmoid()`` made inside (sigmoid saves its output), then, after the
  block, ``s`` zeroed in place under ``torch.no_grad()`` and ``s.sum().backward()``:
  "raises" (the version check fires), "silent, wrong" (no error, a gradient computed
  from the zeroed ``s``), "silent, right" (no error, the gradient of sigmoid at ``a``),
  "no graph" (``s`` does not require grad);
* ``changed``: the other way round: ``s = a.sigmoid()`` and ``loss = s.sum()`` made
  outside, ``s.mul_(0)`` inside the block, then ``loss.backward()``: same vocabulary.
"""

import contextlib

import torch

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "contexts",
    title="Contexts x actions",
    columns={
        "Context": None,
        "Grad mode inside": "grad",
        "In-place on a leaf": "leaf",
        "In-place on a view of the leaf": "view",
        "y.numpy()": "numpy",
        "backward() inside": "backward",
        "Result requires grad": "requires",
        "Result's _version": "version",
        "Result saved for backward after the block": "later",
        "View a[:2] requires grad": "view_requires",
        "a.float() requires grad": "noop_requires",
        "torch.ones(2, requires_grad=True) requires grad": "factory_requires",
        "View's _version": "view_version",
        "Saved inside, changed after: backward": "built",
        "Saved before, changed inside: backward": "changed",
    },
)


def _leaf():
    return torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


def _raises(fn):
    try:
        fn()
    except RuntimeError:
        return "raises"
    return "allowed"


def _right_sigmoid_grad():
    s = torch.tensor([1.0, 2.0, 3.0]).sigmoid()
    return s * (1 - s)


def _verdict(backward, a):
    try:
        backward()
    except RuntimeError:
        return "raises"
    return "silent, right" if torch.allclose(a.grad, _right_sigmoid_grad()) else "silent, wrong"


def _measure(context):
    cells = {}
    with context():
        cells["grad"] = str(torch.is_grad_enabled())

    def leaf_inplace():
        a = _leaf()
        with context():
            a.mul_(2)

    def view_inplace():
        a = _leaf()
        with context():
            a[:1].mul_(2)

    def numpy_call():
        y = _leaf() * 2
        with context():
            y.numpy()

    cells["leaf"] = _raises(leaf_inplace)
    cells["view"] = _raises(view_inplace)
    cells["numpy"] = _raises(numpy_call)

    a = _leaf()
    with context():
        r = a * 2
    cells["requires"] = str(r.requires_grad)
    try:
        cells["version"] = str(r._version)
    except RuntimeError:  # "Inference tensors do not track version counter."
        cells["version"] = "raises"
    a = _leaf()
    with context():
        v = a[:2]
        noop = a.float()
        made = torch.ones(2, requires_grad=True)
    cells["view_requires"] = str(v.requires_grad)
    cells["noop_requires"] = str(noop.requires_grad)
    cells["factory_requires"] = str(made.requires_grad)
    try:
        cells["view_version"] = str(v._version)
    except RuntimeError:
        cells["view_version"] = "raises"
    w = _leaf()
    cells["later"] = _raises(lambda: (r * w).sum().backward())

    a = _leaf()
    loss = (a * a).sum()

    def backward_inside():
        with context():
            loss.backward()

    cells["backward"] = _raises(backward_inside)

    a = _leaf()
    with context():
        s = a.sigmoid()
    if not s.requires_grad:
        cells["built"] = "no graph"
    else:
        with torch.no_grad():
            s.zero_()
        cells["built"] = _verdict(lambda: s.sum().backward(), a)

    a = _leaf()
    s = a.sigmoid()
    loss = s.sum()
    try:
        with context():
            s.mul_(0)
    except RuntimeError:
        cells["changed"] = "in-place raises"
    else:
        cells["changed"] = _verdict(loss.backward, a)
    return cells


def _identity_hooks():
    return torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)


def _copying_hooks():
    return torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t)


_CONTEXTS = {
    "no context (grad mode)": contextlib.nullcontext,
    "torch.no_grad()": torch.no_grad,
    "torch.set_grad_enabled(False)": lambda: torch.set_grad_enabled(False),
    "torch.inference_mode()": lambda: torch.inference_mode(),
    "saved_tensors_hooks(lambda t: t, lambda t: t)": _identity_hooks,
    "saved_tensors_hooks(lambda t: t.clone(), lambda t: t)": _copying_hooks,
    "save_on_cpu()": lambda: torch.autograd.graph.save_on_cpu(),
    "save_on_cpu(pin_memory=True)": lambda: torch.autograd.graph.save_on_cpu(pin_memory=True),
}

for _label, _context in _CONTEXTS.items():
    SWEEP.row(_label)(lambda context=_context: _measure(context))


if __name__ == "__main__":
    print(SWEEP.markdown())
