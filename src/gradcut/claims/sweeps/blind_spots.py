"""Wrong gradient, no error: the blind spots of the version check, each shown.

Most rows share one set-up, built fresh: ``a = tensor([1., 2., 3.])``, a leaf that
requires grad, ``s = a.sigmoid()`` (sigmoid saves its output ``s`` for backward) and
``loss = s.sum()``. The label is what changes ``s`` (or part of it) after the loss was
built; then ``loss.backward()``. The right gradient is ``sigmoid'(a)``, computed from
the values ``s`` had when the loss was built. Rows about parameters use
``loss = (p * x).sum()``, which saves ``p`` to pass the gradient back to ``x``: the right
``x.grad`` is the value ``p`` had when the loss was built. Two rows change a tensor that
nothing saved, ``x``, while the product in ``loss = (y * y).sum()`` saved its view
``y = x[:2]`` (``x = a * 1``; the right gradient is ``[2., 4., 0.]``). Two rows build
``loss = (bn(x) * c).sum()`` through a fresh ``bn = nn.BatchNorm1d(3)`` (``x`` an 8 x 3
leaf that requires grad, ``c = arange(1., 25.).view(8, 3)``), then run a batch
``x2 = randn(8, 3) * 10`` through it in training mode under ``torch.no_grad()``, as a
teacher's forward pass does: batch norm writes its running statistics inside its kernel
and moves no version counter. The first rows are controls: changes that the version
check sees.

Columns:

* ``raises``: ``backward()`` raises ("yes" / "no");
* ``gradient``: the gradient it gives is right ("right" / "wrong"; "-" when it raises);
* ``matches``: which values that gradient was computed from: "original values" (the
  ones the tensors had when the loss was built: the right gradient), "changed values"
  (the ones the change left: the gradient a fresh forward pass from them would give),
  "both" (the two give the same gradient: the formula does not read what changed),
  "neither", or "-" (backward raised);
* ``got`` and ``right``: the gradient obtained and the right one, 4 decimals.
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "blind_spots",
    title="Wrong gradient, no error: the blind spots of the version check",
    columns={
        "Change after the loss was built": None,
        "Backward raises": "raises",
        "Gradient": "gradient",
        "Computed from": "matches",
        "Got": "got",
        "Right": "right",
    },
)


# The first optimizer a process constructs imports torch._dynamo and its dependencies
# (about 1.5 s on torch 2.13.0, once per process); do it at import time so that no row
# carries that cost.
torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)


def _fmt(t, n=3):
    values = t.detach().flatten().tolist()
    text = ", ".join(f"{v:.4f}" for v in values[:n])
    return f"[{text}{', ...' if len(values) > n else ''}]"


def _verdict(backward, got, right, after):
    """Run ``backward``; compare ``got()`` with the right gradient and the post-change one."""
    try:
        backward()
    except RuntimeError:
        return {"raises": "yes", "gradient": "-", "matches": "-", "got": "-", "right": _fmt(right)}
    g = got()
    if torch.allclose(g, right) and torch.allclose(g, after):
        matches = "both"
    elif torch.allclose(g, right):
        matches = "original values"
    elif torch.allclose(g, after):
        matches = "changed values"
    else:
        matches = "neither"
    return {
        "raises": "no",
        "gradient": "right" if matches in ("original values", "both") else "wrong",
        "matches": matches,
        "got": _fmt(g),
        "right": _fmt(right),
    }


def _sigmoid_grad(s):
    return s * (1 - s)


def _sigmoid_case(change):
    """``change(s)`` after ``loss = a.sigmoid().sum()``; then backward."""
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = a.sigmoid()
    loss = s.sum()
    right = _sigmoid_grad(s.detach().clone())
    change(s)
    after = _sigmoid_grad(s.detach().clone())
    return _verdict(loss.backward, lambda: a.grad, right, after)


def _row(label):
    def register(change):
        SWEEP.row(label)(lambda: _sigmoid_case(change))
        return change
    return register


# --- controls: the version check sees these ------------------------------------------

@_row("with torch.no_grad(): s.zero_()")
def _(s):
    with torch.no_grad():
        s.zero_()


@_row("s.detach().zero_()")
def _(s):
    s.detach().zero_()


@_row("s.detach()[1:].zero_()")
def _(s):
    s.detach()[1:].zero_()


@_row("s.detach().as_strided((2,), (1,), 1).zero_()")
def _(s):
    s.detach().as_strided((2,), (1,), 1).zero_()


# --- through .data --------------------------------------------------------------------

@_row("s.data.zero_()")
def _(s):
    s.data.zero_()


@_row("s[1:].data.zero_()")
def _(s):
    s[1:].data.zero_()


@_row("s.data.copy_(torch.zeros(3))")
def _(s):
    s.data.copy_(torch.zeros(3))


@_row("s.data = torch.zeros(3)")
def _(s):
    s.data = torch.zeros(3)


# --- through NumPy ----------------------------------------------------------------------

@_row("s.detach().numpy()[:] = 0")
def _(s):
    s.detach().numpy()[:] = 0


@_row("with torch.no_grad(): s.numpy()[1:] = 0")
def _(s):
    with torch.no_grad():
        array = s.numpy()
    array[1:] = 0


@_row("torch.from_numpy(s.detach().numpy()).zero_()")
def _(s):
    torch.from_numpy(s.detach().numpy()).zero_()


# --- another tensor on the same memory --------------------------------------------------

@_row("torch.from_dlpack(s.detach()).zero_()")
def _(s):
    torch.from_dlpack(s.detach()).zero_()


@_row("torch.empty(0).set_(s.detach()).zero_()")
def _(s):
    torch.empty(0).set_(s.detach()).zero_()


@_row("s.untyped_storage().fill_(0)")
def _(s):
    s.untyped_storage().fill_(0)


# --- backward formulas that read only signs or positions ----------------------------------
#
# ``x = tensor([-1., 0.5, 2.])``, a leaf that requires grad. ReLU saves its output ``r``
# and its backward reads only whether ``r > 0``; ``abs`` saves its input and reads its
# signs; ``max()`` saves its input and output and reads where they are equal. A change
# that keeps what the formula reads gives the right gradient, computed from the changed
# values all the same.

def _formula_case(forward, change, formula):
    """``loss = forward(x)``; ``change(saved)``; the right gradient is ``formula`` of the
    saved tensor before the change, the post-change one ``formula`` after it."""
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    loss, saved = forward(x)
    right = formula(saved.detach().clone())
    change(saved)
    return _verdict(loss.backward, lambda: x.grad, right, formula(saved.detach().clone()))


def _relu(x):
    r = x.relu()
    return r.sum(), r


def _relu_grad(r):
    return (r > 0).float()


@SWEEP.row("r = x.relu() saved; r.data.mul_(5)")
def _():
    return _formula_case(_relu, lambda r: r.data.mul_(5), _relu_grad)


@SWEEP.row("r = x.relu() saved; r.data.sub_(1)")
def _():
    return _formula_case(_relu, lambda r: r.data.sub_(1), _relu_grad)


@SWEEP.row("save_on_cpu(); r = x.relu() saved; r scaled by 5")
def _():
    def forward(x):
        with torch.autograd.graph.save_on_cpu():
            return _relu(x)

    def change(r):
        with torch.no_grad():
            r.mul_(5)
    return _formula_case(forward, change, _relu_grad)


@SWEEP.row("x.abs() saved x; x.detach().numpy()[:] *= 3")
def _():
    def forward(x):
        return x.abs().sum(), x

    def change(x):
        x.detach().numpy()[:] *= 3
    return _formula_case(forward, change, torch.sign)


@SWEEP.row("x.max() saved x; x.data[0] = -5")
def _():
    def forward(x):
        return x.max(), x

    def change(x):
        x.data[0] = -5.0

    def formula(h):
        return (h == h.max()).float()
    return _formula_case(forward, change, formula)


# --- a tensor that nothing saved, sharing a counter or memory with a saved view ----------
#
# ``x = a * 1``, ``y = x[:2]``, ``loss = (y * y).sum()``: the product saves ``y``, a view
# of the first two entries of ``x``; nothing saves ``x`` itself. The right gradient is
# ``2 * y`` and 0 for the third entry, ``[2., 4., 0.]``.

def _slice_case(change):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = a * 1
    y = x[:2]
    loss = (y * y).sum()

    def grad_from(x_values):
        return torch.cat([2 * x_values[:2], torch.zeros(1)])

    right = grad_from(x.detach().clone())
    change(x)
    return _verdict(loss.backward, lambda: a.grad, right, grad_from(x.detach().clone()))


@SWEEP.row("y = x[:2] saved; x[2:].detach().add_(100)")
def _():
    return _slice_case(lambda x: x[2:].detach().add_(100))


@SWEEP.row("y = x[:2] saved; x[1:].data.zero_()")
def _():
    return _slice_case(lambda x: x[1:].data.zero_())


# --- parameters: loss = (p * x).sum() saves p ---------------------------------------------

def _param_case(change):
    p = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    loss = (p * x).sum()
    right = p.detach().clone()
    change(p)
    after = p.detach().clone()
    return _verdict(loss.backward, lambda: x.grad, right, after)


@SWEEP.row("with torch.no_grad(): p.sub_(0.1)")
def _():
    def change(p):
        with torch.no_grad():
            p.sub_(0.1)
    return _param_case(change)


@SWEEP.row("p.data.sub_(0.1)")
def _():
    return _param_case(lambda p: p.data.sub_(0.1))


@SWEEP.row("p.data = torch.tensor([10., 20., 30.])")
def _():
    def change(p):
        p.data = torch.tensor([10.0, 20.0, 30.0])
    return _param_case(change)


@SWEEP.row("torch.optim.SGD([p], lr=0.1).step()")
def _():
    def change(p):
        p.grad = torch.ones(3)
        torch.optim.SGD([p], lr=0.1).step()
    return _param_case(change)


@SWEEP.row("torch.optim.SGD([p], lr=0.1, fused=True).step()")
def _():
    def change(p):
        p.grad = torch.ones(3)
        torch.optim.SGD([p], lr=0.1, fused=True).step()
    return _param_case(change)


@SWEEP.row("torch.optim.AdamW([p], lr=0.1, fused=True).step()")
def _():
    def change(p):
        p.grad = torch.ones(3)
        torch.optim.AdamW([p], lr=0.1, fused=True).step()
    return _param_case(change)


@SWEEP.row("GAN order: D's fused SGD step between g_loss and its backward")
def _():
    """The failing order of the GAN how-to, with ``fused=True`` for D's optimizer.

    The right gradient of G is the one at D before the step; "changed values" would be
    the one from a new forward pass through the stepped D.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        G = nn.Linear(2, 4)
        D = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        z, real = torch.randn(5, 2), torch.randn(5, 4)
    opt_d = torch.optim.SGD(D.parameters(), lr=0.1, fused=True)

    def g_grad(D_now):
        (grad,) = torch.autograd.grad(F.softplus(-D_now(G(z))).mean(), G.weight)
        return grad

    right = g_grad(D)
    fake = G(z)
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    g_loss = F.softplus(-D(fake)).mean()
    opt_d.zero_grad()
    d_loss.backward(retain_graph=True)
    opt_d.step()
    after = g_grad(D)
    G.zero_grad()
    return _verdict(g_loss.backward, lambda: G.weight.grad, right, after)


# --- an operation's own writes into its buffers: batch norm's running statistics ---------
#
# ``loss = (bn(x) * c).sum()``; then a training-mode pass of another batch under
# ``torch.no_grad()``, which writes ``running_mean`` and ``running_var`` in place inside the
# kernel without moving their version counters. A graph built in eval mode saved them and
# reads ``running_var`` at backward (the right ``x.grad`` is ``c / sqrt(1 + eps)``, from the
# initial running variance); one built in training mode normalised with the batch's own
# statistics and does not read them.

def _batch_norm_case(build_in_train_mode):
    bn = nn.BatchNorm1d(3).train(build_in_train_mode)
    x = torch.randn(8, 3, requires_grad=True)
    c = torch.arange(1.0, 25.0).view(8, 3)
    loss = (bn(x) * c).sum()
    (right,) = torch.autograd.grad(loss, x, retain_graph=True)
    bn.train()
    with torch.no_grad():
        bn(torch.randn(8, 3) * 10)
    bn.train(build_in_train_mode)
    (after,) = torch.autograd.grad((copy.deepcopy(bn)(x) * c).sum(), x)
    return _verdict(loss.backward, lambda: x.grad, right, after)


@SWEEP.row("loss built in bn.train(); with torch.no_grad(): bn(x2)")
def _():
    return _batch_norm_case(True)


@SWEEP.row("loss built in bn.eval(); bn.train(); with torch.no_grad(): bn(x2)")
def _():
    return _batch_norm_case(False)


# --- custom autograd.Function -----------------------------------------------------------

class _SquareSaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return 2 * t * grad


class _SquareOnCtx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.t = t  # kept as an attribute: no SavedVariable, no version check
        return t * t

    @staticmethod
    def backward(ctx, grad):
        return 2 * ctx.t * grad


def _function_case(fn):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    u = a * 1
    loss = fn.apply(u).sum()
    right = 2 * u.detach().clone()
    with torch.no_grad():
        u.zero_()
    return _verdict(loss.backward, lambda: a.grad, right, 2 * u.detach().clone())


@SWEEP.row("Function with ctx.save_for_backward(t); t zeroed")
def _():
    return _function_case(_SquareSaved)


@SWEEP.row("Function with ctx.t = t; t zeroed")
def _():
    return _function_case(_SquareOnCtx)


# --- saved-tensor hooks active while the loss was built ----------------------------------

def _hooked_case(hooks):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with hooks():
        s = a.sigmoid()
        loss = s.sum()
    right = _sigmoid_grad(s.detach().clone())
    with torch.no_grad():
        s.zero_()
    return _verdict(loss.backward, lambda: a.grad, right, _sigmoid_grad(s.detach().clone()))


@SWEEP.row("saved_tensors_hooks(lambda t: t, lambda t: t); s zeroed")
def _():
    return _hooked_case(lambda: torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t))


@SWEEP.row("saved_tensors_hooks(lambda t: t.clone(), lambda t: t); s zeroed")
def _():
    return _hooked_case(
        lambda: torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t)
    )


@SWEEP.row("save_on_cpu(); s zeroed")
def _():
    return _hooked_case(lambda: torch.autograd.graph.save_on_cpu())


if __name__ == "__main__":
    print(SWEEP.markdown())
