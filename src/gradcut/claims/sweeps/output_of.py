"""What "output N of X" names in the in-place error, case by case.

When backward finds a saved tensor changed in place it raises::

    RuntimeError: one of the variables needed for gradient computation has been modified
    by an inplace operation: [torch.FloatTensor [3]], which is output 0 of Sigmoid, is at
    version 1; expected version 0 instead. ...

Every row builds a small graph, changes in place the tensor ``t`` it is about, runs
backward and reads the message with a regular expression.

Columns
-------
t is output
    ``t.output_nr`` right after ``t`` was made (the true N), ``leaf`` for a leaf.
Error
    ``version check`` (the message above), ``multi-output view`` ("Output N of X is a
    view and its base or another view of its base has been modified inplace ..."),
    ``none`` (backward ran).
X
    The name after "of", verbatim (``Sigmoid``, ``AsStrided``, ``torch::autograd::CopySlices``
    ...); ``no clause`` when the message has no ", which is output N of X," part; ``—``
    without error.
N
    The number after "output"; ``—`` when absent.
Versions
    "at version V; expected version E" as ``V; expected E``; ``—`` when absent.
X is
    X compared with two nodes of ``t`` (names compared without the ``Backward0`` suffix):
    the op that made it (``t.grad_fn`` right after it was made) and ``t.grad_fn`` now,
    just before backward (an in-place op tracked by autograd replaces it; a view whose
    data changed gets a new one). Cells: ``the op that made t`` (X is both, nothing
    replaced the node), ``the op that made t, not t.grad_fn now``, ``t.grad_fn now, not
    the op that made t`` (also when reading ``t.grad_fn`` raises), ``neither`` (X names
    a tensor autograd made from ``t``, such as the transposed weight a linear layer
    saves), ``—`` (no X).
"""

import re

import torch
import torch.nn.functional as F

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "output_of",
    title='"output N of X" decoded',
    columns={"Case": None, "t is output": "nr", "Error": "error", "X": "x", "N": "n", "Versions": "versions",
             "X is": "x_is"},
)

_VERSION = re.compile(
    r"modified by an inplace operation: \[[^\]]*\]\](?:, which is output (\d+) of ([^,]+),)?"
    r" is at version (\d+); expected version (\d+) instead"
)
_MULTI = re.compile(r"Output (\d+) of (\S+) is a view and its base or another view of its base has been modified inplace")


def _node(t):
    try:
        grad_fn = t.grad_fn
    except RuntimeError:  # a multi-output view whose data changed: reading grad_fn raises
        return "(reading grad_fn raises)"
    return None if grad_fn is None else grad_fn.name()


def _short(name):
    return None if name is None else re.sub(r"Backward\d*$", "", name)


def _x_is(x, maker, now):
    x, maker, now = _short(x), _short(maker), _short(now)
    if x == maker == now:
        return "the op that made t"
    if x == maker:
        return "the op that made t, not t.grad_fn now"
    if x == now:
        return "t.grad_fn now, not the op that made t"
    return "neither"


def measure(maker, now, backward, nr="leaf"):
    """``maker``/``now``: names of ``t.grad_fn`` after creation / before backward;
    ``nr``: ``t.output_nr`` after creation."""
    cells = _message_cells(maker, now, backward)
    cells["nr"] = str(nr)
    return cells


def _message_cells(maker, now, backward):
    try:
        backward()
    except RuntimeError as e:
        message = str(e)
    else:
        return {"error": "none", "x": "—", "n": "—", "versions": "—", "x_is": "—"}
    m = _VERSION.search(message)
    if m:
        n, x, version, expected = m.groups()
        return {
            "error": "version check",
            "x": x or "no clause",
            "n": n or "—",
            "versions": f"{version}; expected {expected}",
            "x_is": _x_is(x, maker, now) if x else "—",
        }
    m = _MULTI.search(message)
    if m:
        n, x = m.groups()
        return {"error": "multi-output view", "x": x, "n": n, "versions": "—", "x_is": _x_is(x, maker, now)}
    raise AssertionError(message)


def _a():
    return torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


# -- saved outputs ----------------------------------------------------------------------

@SWEEP.row("s = a.sigmoid(); loss = s.sum(); s.detach().zero_()")
def _():
    s = _a().sigmoid()
    maker, nr = _node(s), s.output_nr
    loss = s.sum()
    s.detach().zero_()
    return measure(maker, _node(s), loss.backward, nr)


@SWEEP.row("s = a.sigmoid(); loss = s.sum(); s.mul_(2)")
def _():
    s = _a().sigmoid()
    maker, nr = _node(s), s.output_nr
    loss = s.sum()
    s.mul_(2)
    return measure(maker, _node(s), loss.backward, nr)


@SWEEP.row("s = a.sigmoid(); loss = s.sum(); F.relu(s, inplace=True)")
def _():
    s = _a().sigmoid()
    maker, nr = _node(s), s.output_nr
    loss = s.sum()
    F.relu(s, inplace=True)
    return measure(maker, _node(s), loss.backward, nr)


@SWEEP.row("s = a.exp(); loss = s.sum(); s[:1].mul_(2)")
def _():
    s = _a().exp()
    maker, nr = _node(s), s.output_nr
    loss = s.sum()
    s[:1].mul_(2)
    return measure(maker, _node(s), loss.backward, nr)


@SWEEP.row("Q, R = torch.linalg.qr(A); loss = R.sum(); R.detach().add_(1)")
def _():
    A = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    Q, R = torch.linalg.qr(A)
    maker, nr = _node(R), R.output_nr
    loss = R.sum()
    R.detach().add_(1)
    return measure(maker, _node(R), loss.backward, nr)


# -- saved inputs -----------------------------------------------------------------------

@SWEEP.row("h = a * 1; loss = (h * h).sum(); h.add_(1)")
def _():
    h = _a() * 1
    maker, nr = _node(h), h.output_nr
    loss = (h * h).sum()
    h.add_(1)
    return measure(maker, _node(h), loss.backward, nr)


@SWEEP.row("h = a * 1; loss = (h * h).sum(); h += 1")
def _():
    h = _a() * 1
    maker, nr = _node(h), h.output_nr
    loss = (h * h).sum()
    h += 1
    return measure(maker, _node(h), loss.backward, nr)


@SWEEP.row("h = a * 1; loss = (h * h).sum(); h.zero_()")
def _():
    h = _a() * 1
    maker, nr = _node(h), h.output_nr
    loss = (h * h).sum()
    h.zero_()
    return measure(maker, _node(h), loss.backward, nr)


@SWEEP.row("h = a * 1; loss = (h * h).sum(); h[0] = 5")
def _():
    h = _a() * 1
    maker, nr = _node(h), h.output_nr
    loss = (h * h).sum()
    h[0] = 5
    return measure(maker, _node(h), loss.backward, nr)


@SWEEP.row("h = a * 1; loss = (h * h).sum(); h.detach().add_(1).add_(1)")
def _():
    h = _a() * 1
    maker, nr = _node(h), h.output_nr
    loss = (h * h).sum()
    h.detach().add_(1).add_(1)
    return measure(maker, _node(h), loss.backward, nr)


@SWEEP.row("h = a * 1; loss = (h * h).sum(); h.data.add_(1)")
def _():
    h = _a() * 1
    maker, nr = _node(h), h.output_nr
    loss = (h * h).sum()
    h.data.add_(1)
    return measure(maker, _node(h), loss.backward, nr)


@SWEEP.row("loss = (a * a).sum(); a.add_(1) in no_grad (a leaf)")
def _():
    a = _a()
    loss = (a * a).sum()
    with torch.no_grad():
        a.add_(1)
    return measure(None, None, loss.backward)


@SWEEP.row("std, mean = torch.std_mean(h); loss = mean * mean; mean.detach().add_(1)")
def _():
    h = _a() * 1
    std, mean = torch.std_mean(h)
    maker, nr = _node(mean), mean.output_nr
    loss = mean * mean
    mean.detach().add_(1)
    return measure(maker, _node(mean), loss.backward, nr)


@SWEEP.row("Q, R = torch.linalg.qr(A); loss = (R * R).sum(); R.detach().add_(1)")
def _():
    A = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    Q, R = torch.linalg.qr(A)
    maker, nr = _node(R), R.output_nr
    loss = (R * R).sum()
    R.detach().add_(1)
    return measure(maker, _node(R), loss.backward, nr)


# -- views ------------------------------------------------------------------------------

def _a4():
    return torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)


def _saved_view(base, view, change):
    """``view(base)`` saved by ``v * v`` (the real part summed for a complex view), then
    ``change(base, v)`` in place, then backward."""
    v = view(base)
    maker, nr = _node(v), v.output_nr
    product = v * v
    loss = (product.real if product.is_complex() else product).sum()
    change(base, v)
    return measure(maker, _node(v), loss.backward, nr)


_VIEW_ROWS = [
    ("v = h[:2]; loss = (v * v).sum(); v.detach().add_(1)", _a, lambda h: h[:2], lambda h, v: v.detach().add_(1)),
    ("v = h[:2]; loss = (v * v).sum(); h.detach().add_(1)", _a, lambda h: h[:2], lambda h, v: h.detach().add_(1)),
    ("v = h[:2]; loss = (v * v).sum(); v.add_(1)", _a, lambda h: h[:2], lambda h, v: v.add_(1)),
    ("v = h.view(2, 2).t(); loss = (v * v).sum(); h.detach().add_(1)",
     _a4, lambda h: h.view(2, 2).t(), lambda h, v: h.detach().add_(1)),
    ("v = torch.view_as_complex(h.view(2, 2)); loss = (v * v).real.sum(); v.detach().mul_(2)",
     _a4, lambda h: torch.view_as_complex(h.view(2, 2)), lambda h, v: v.detach().mul_(2)),
    ("v = torch.view_as_complex(h.view(2, 2)); loss = (v * v).real.sum(); h.detach().add_(1)",
     _a4, lambda h: torch.view_as_complex(h.view(2, 2)), lambda h, v: h.detach().add_(1)),
    ("v = torch.view_as_complex(h.view(2, 2)); loss = (v * v).real.sum(); v.mul_(2)",
     _a4, lambda h: torch.view_as_complex(h.view(2, 2)), lambda h, v: v.mul_(2)),
]
for label, leaf, view, change in _VIEW_ROWS:
    SWEEP.row(label)(lambda leaf=leaf, view=view, change=change: _saved_view(leaf() * 1, view, change))


@SWEEP.row("v = torch.view_as_real(c); loss = (v * v).sum(); c.detach().mul_(2)")
def _():
    a = _a4()
    c = torch.complex(a[:2] * 1, a[2:] * 1)
    return _saved_view(c, torch.view_as_real, lambda c, v: c.detach().mul_(2))


@SWEEP.row("p, q = h.split(2); loss = (q * q).sum(); q.detach().add_(1)")
def _():
    h = _a() * 1
    p, q = h.split(2)
    maker, nr = _node(q), q.output_nr
    loss = (q * q).sum()
    q.detach().add_(1)
    return measure(maker, _node(q), loss.backward, nr)


# -- weights ----------------------------------------------------------------------------

@SWEEP.row("loss = F.linear(x, w).sum(); w.add_(1) in no_grad")
def _():
    x = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    w = torch.ones(4, 3, requires_grad=True)
    loss = F.linear(x, w).sum()
    with torch.no_grad():
        w.add_(1)
    return measure(None, None, loss.backward)


@SWEEP.row("loss = (x @ w).sum(); w.add_(1) in no_grad")
def _():
    x = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    w = torch.ones(3, 4, requires_grad=True)
    loss = (x @ w).sum()
    with torch.no_grad():
        w.add_(1)
    return measure(None, None, loss.backward)


def _two_backwards(module, x, optimizer):
    """Forward once, backward, optimizer.step(), then a second backward of the same graph."""
    out = module(x)
    first, second = out.pow(2).sum(), out.pow(3).sum()
    first.backward(retain_graph=True)
    optimizer(module.parameters(), lr=0.1).step()
    return measure(None, None, second.backward)


@SWEEP.row("nn.Linear: backward, SGD step(), second backward")
def _():
    torch.manual_seed(0)
    return _two_backwards(torch.nn.Linear(3, 4), torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True),
                          torch.optim.SGD)


@SWEEP.row("nn.Linear: backward, Adam step(), second backward")
def _():
    torch.manual_seed(0)
    return _two_backwards(torch.nn.Linear(3, 4), torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True),
                          torch.optim.Adam)


@SWEEP.row("nn.Linear: backward, AdamW step(), second backward")
def _():
    torch.manual_seed(0)
    return _two_backwards(torch.nn.Linear(3, 4), torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True),
                          torch.optim.AdamW)


class _TiedEmbedding(torch.nn.Module):
    """An embedding that is also the output layer: ``F.linear(emb(i), emb.weight)``.
    ``padding_idx=0``: its initialisation writes into the weight twice (version 2)."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(5, 3, padding_idx=0)

    def forward(self, i):
        return F.linear(self.emb(i), self.emb.weight)


@SWEEP.row("nn.Embedding(5, 3, padding_idx=0) tied to the output layer: backward, SGD step(), second backward")
def _():
    torch.manual_seed(0)
    return _two_backwards(_TiedEmbedding(), torch.tensor([1, 2]), torch.optim.SGD)


@SWEEP.row("nn.Embedding: backward, SGD step(), second backward")
def _():
    torch.manual_seed(0)
    return _two_backwards(torch.nn.Embedding(5, 3), torch.tensor([0, 2]), torch.optim.SGD)


@SWEEP.row("nn.BatchNorm1d: forward, running_mean.zero_(), backward")
def _():
    bn = torch.nn.BatchNorm1d(3)
    loss = bn(torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -2.0]], requires_grad=True)).pow(2).sum()
    bn.running_mean.zero_()
    return measure(None, None, loss.backward)


@SWEEP.row("nn.BatchNorm1d: forward, second forward, backward of the first")
def _():
    bn = torch.nn.BatchNorm1d(3)
    x = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -2.0]], requires_grad=True)
    loss = bn(x).pow(2).sum()
    bn(x * 2)
    return measure(None, None, loss.backward)


if __name__ == "__main__":
    print(SWEEP.markdown())
