"""How far one optimizer step moves a parameter's version, and what that means for a graph
that saved the parameter before the step.

Every row builds fresh tensors:

* ``p = tensor([1., 2., 3.])`` and ``idle = tensor([1., 2., 3.])``, both leaves that
  require grad, given to the optimizer (lr=0.1, everything else at its default unless the
  label says otherwise);
* ``x = tensor([0.5, -1., 2.])``, a leaf that requires grad, and ``loss = (p * x).sum()``:
  the multiplication saves ``p`` to pass the gradient back to ``x``, so the right
  ``x.grad`` is the value ``p`` had when the loss was built;
* ``p.grad = tensor([1., 1., -1.])``; ``idle.grad`` stays ``None``.

Then the call of the label runs once, and ``loss.backward()``.

Columns:

* ``moved``: ``p._version`` after the call minus before ("0", "1", "2", ...);
* ``idle``: the same for ``idle``, the parameter without a gradient;
* ``saved``: what ``loss.backward()`` does after the call: "raises" (the version check
  fires), "silent, right" (no error and ``x.grad`` equals ``p`` before the call),
  "silent, wrong (post-step value)" (no error and ``x.grad`` equals ``p`` after the
  call), "silent, wrong (neither value)" (no error, and ``x.grad`` is neither);
* ``grad``: what the call leaves in ``p.grad``: "kept" (the same tensor, the same
  values), "changed" (other values), "None", "zeros".

A row whose label is not an optimizer's constructor is a call that runs in its place
(``clip_grad_norm_`` over ``[p, idle]``). A label that ends in ``.step(closure)`` calls
``step`` with a closure, as ``LBFGS`` requires: it zeroes the gradients, computes
``(p * p).sum()``, backpropagates it and returns it; ``LBFGS`` calls it once per inner
iteration.

A release that refuses the configuration (``fused=True`` on a CPU tensor before fused CPU
kernels existed raises ``RuntimeError``) shows "refused" in every cell. A release whose
constructor lacks the keyword or whose ``torch.optim`` lacks the class raises
``TypeError`` / ``AttributeError``, which the framework shows as n.a.
"""

import torch

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "optimizer_versions",
    title="How far one optimizer step moves a parameter's version",
    columns={
        "Call": None,
        "p._version moves by": "moved",
        "idle._version moves by": "idle",
        "Backward of a graph that saved p": "saved",
        "p.grad after the call": "grad",
    },
)

# The first optimizer a process constructs imports torch._dynamo and its dependencies
# (about 1.5 s on torch 2.13.0, once per process); do it at import time so that no row
# carries that cost.
torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)

_REFUSED = {"moved": "refused", "idle": "refused", "saved": "refused", "grad": "refused"}


def _case(make, call="step", matrix=False):
    """Run ``call`` of the optimizer ``make`` builds: "step", "closure" (``step`` with the
    closure of :func:`_closure`), a zero_grad keyword dict, or a function of the
    parameters ``[p, idle]`` (``make`` is then None).

    ``matrix``: 2-D tensors (``[[1., 2.], [3., 4.]]`` etc.), for optimizers that only
    take matrices.
    """
    values, x_values, grad_values = [1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [1.0, 1.0, -1.0]
    if matrix:
        values, x_values = [[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 1.5]]
        grad_values = [[1.0, 1.0], [-1.0, 1.0]]
    p = torch.tensor(values, requires_grad=True)
    idle = torch.tensor(values, requires_grad=True)
    x = torch.tensor(x_values, requires_grad=True)
    try:
        opt = make([p, idle]) if make is not None else None
    except RuntimeError:  # e.g. fused=True on CPU before fused CPU kernels existed
        return dict(_REFUSED)
    loss = (p * x).sum()
    p.grad = torch.tensor(grad_values)
    before = p.detach().clone()
    grad_before = p.grad
    version, idle_version = p._version, idle._version
    try:
        if callable(call):
            call([p, idle])
        elif call == "step":
            opt.step()
        elif call == "closure":
            opt.step(lambda: _closure(opt, p))
        else:
            opt.zero_grad(**call)
    except RuntimeError:
        return dict(_REFUSED)
    cells = {"moved": str(p._version - version), "idle": str(idle._version - idle_version)}
    after = p.detach().clone()
    if p.grad is None:
        cells["grad"] = "None"
    elif p.grad is grad_before and torch.equal(p.grad, torch.tensor(grad_values)):
        cells["grad"] = "kept"
    elif torch.count_nonzero(p.grad) == 0:
        cells["grad"] = "zeros"
    else:
        cells["grad"] = "changed"
    try:
        loss.backward()
    except RuntimeError:
        cells["saved"] = "raises"
        return cells
    if torch.equal(x.grad, before):
        cells["saved"] = "silent, right"
    elif torch.equal(x.grad, after):
        cells["saved"] = "silent, wrong (post-step value)"
    else:
        cells["saved"] = "silent, wrong (neither value)"
    return cells


def _closure(opt, p):
    opt.zero_grad()
    loss = (p * p).sum()
    loss.backward()
    return loss


def _register(label, cls_name, **kwargs):
    @SWEEP.row(label)
    def _():
        cls = getattr(torch.optim, cls_name)  # AttributeError on a release without it: n.a.
        return _case(lambda params: cls(params, lr=0.1, **kwargs))


_OPTIMIZERS = [
    ("SGD", "SGD", {}),
    ("SGD(momentum=0.9)", "SGD", {"momentum": 0.9}),
    ("Adam", "Adam", {}),
    ("Adam(weight_decay=0.1, decoupled_weight_decay=True)", "Adam",
     {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", "AdamW", {}),
    ("AdamW(weight_decay=0)", "AdamW", {"weight_decay": 0.0}),
    ("RMSprop", "RMSprop", {}),
    ("Adagrad", "Adagrad", {}),
    ("Adamax", "Adamax", {}),
    ("NAdam", "NAdam", {}),
    ("NAdam(weight_decay=0.1, decoupled_weight_decay=True)", "NAdam",
     {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", "RAdam", {}),
    ("RAdam(weight_decay=0.1, decoupled_weight_decay=True)", "RAdam",
     {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adadelta", "Adadelta", {}),
    ("ASGD", "ASGD", {}),
    ("Rprop", "Rprop", {}),
    ("Adafactor", "Adafactor", {}),
    ("Adafactor(weight_decay=0.1)", "Adafactor", {"weight_decay": 0.1}),
]

# Which constructors accept fused=True, on torch 2.13.0.
_FUSED = {"SGD", "Adam", "AdamW", "Adagrad"}


def _label(name, extra):
    if "(" in name:
        head, args = name[:-1].split("(", 1)
        return f"{head}(lr=0.1, {args}{extra})"
    return f"{name}(lr=0.1{extra})"


for _name, _cls, _kw in _OPTIMIZERS:
    _register(_label(_name, ""), _cls, **_kw)
    _register(_label(_name, ", foreach=True"), _cls, foreach=True, **_kw)
    if _cls in _FUSED:
        _register(_label(_name, ", fused=True"), _cls, fused=True, **_kw)


# Muon (2-D parameters only) is left out: one step takes 90-260 ms on this CPU (its
# Newton-Schulz iteration multiplies bfloat16 matrices with a transposed operand, about
# 20 ms per product), over the 50 ms budget of a row. Measured once by hand on 2.13.0:
# _case(lambda ps: torch.optim.Muon(ps, lr=0.1), matrix=True) gives moved "2", idle "0",
# saved "raises", grad "kept".


@SWEEP.row("LBFGS(lr=0.1).step(closure)")
def _():
    return _case(lambda params: torch.optim.LBFGS(params, lr=0.1), call="closure")


@SWEEP.row("LBFGS(lr=0.1, max_iter=5).step(closure)")
def _():
    return _case(lambda params: torch.optim.LBFGS(params, lr=0.1, max_iter=5), call="closure")


# With a line search and the default max_iter=20, LBFGS reaches the minimum of this
# closure and goes on until float32 rounding meets its tolerances: how many points the
# line search tries there depends on the CPU's kernels. On torch 2.13.0 the same row moved
# p by 13, 27 and 27 with ATEN_CPU_CAPABILITY=default, avx2 and avx512, and by 24 on
# another machine. With max_iter=2 it stops far from the minimum: 5 with each of them,
# and with the starting values scaled by 1 ± 1e-7 ... 1e-3.
@SWEEP.row("LBFGS(lr=0.1, max_iter=2, line_search_fn='strong_wolfe').step(closure)")
def _():
    return _case(
        lambda params: torch.optim.LBFGS(params, lr=0.1, max_iter=2, line_search_fn="strong_wolfe"),
        call="closure",
    )


# lr=1 is LBFGS's default: on this closure it converges and stops before max_iter.
@SWEEP.row("LBFGS(lr=1).step(closure)")
def _():
    return _case(lambda params: torch.optim.LBFGS(params, lr=1), call="closure")


@SWEEP.row("SGD(lr=0.1).zero_grad()")
def _():
    return _case(lambda params: torch.optim.SGD(params, lr=0.1), call={})


@SWEEP.row("SGD(lr=0.1).zero_grad(set_to_none=False)")
def _():
    return _case(lambda params: torch.optim.SGD(params, lr=0.1), call={"set_to_none": False})


@SWEEP.row("SGD(lr=0.1).zero_grad(set_to_none=True)")
def _():
    return _case(lambda params: torch.optim.SGD(params, lr=0.1), call={"set_to_none": True})



@SWEEP.row("clip_grad_norm_([p, idle], max_norm=0.5)")
def _():
    return _case(None, call=lambda params: torch.nn.utils.clip_grad_norm_(params, max_norm=0.5))


if __name__ == "__main__":
    print(SWEEP.markdown())
