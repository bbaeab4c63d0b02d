"""In-place forms and the version counter.

Every row is one way of writing into a tensor ``t`` of 4 floats (``f`` adds 1 to an
element; ``s`` is another tensor of 4 floats). Each form writes values
that differ from the ones ``t`` had, except ``t.add_(0)`` and ``F.relu(t, inplace=True)``
(every value of ``t`` is positive: both write the same values) and the metadata form
``t.unsqueeze_(0)`` (changes the shape only).

Columns
-------
t._version moves by
    ``t`` is ``torch.tensor([1., 2., 3., 4.])`` (no grad); the cell is ``t._version``
    after the form minus before it; ``form raises`` if the form itself raises.
On a view v = b[1:5]: v / b
    The form applied to ``v = b[1:5]`` where ``b = torch.arange(6.)`` (no grad): how far
    ``v._version`` and ``b._version`` moved, as ``v / b``.
Requires grad, non-leaf
    ``t = leaf * 1`` with a leaf that requires grad: how far ``t._version`` moves
    (``form raises`` if autograd refuses the form).
Backward, t saved
    ``loss = (t * t).sum()`` (the multiplication saves ``t``), then the form on ``t``, then
    ``loss.backward()``: ``raises`` (RuntimeError), ``silent, wrong`` (the leaf's gradient
    differs from the one without the form), ``silent, right``, or ``form raises`` (the
    form itself raises on this ``t``).
"""

import torch
import torch.nn.functional as F

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "inplace_forms",
    title="In-place forms and the version counter",
    columns={
        "Form": None,
        "t._version moves by": "plain",
        "On a view v = b[1:5]: v / b": "view",
        "Requires grad, non-leaf": "grad",
        "Backward, t saved": "backward",
    },
)

_VALUES = [1.0, 2.0, 3.0, 4.0]


def _moved(t, form):
    before = t._version
    try:
        form(t)
    except RuntimeError:
        return "form raises"
    return str(t._version - before)


def _on_view(form):
    b = torch.arange(6.0)
    v = b[1:5]
    vb, bb = v._version, b._version
    try:
        form(v)
    except RuntimeError:
        return "form raises"
    return f"{v._version - vb} / {b._version - bb}"


def _backward(form):
    leaf = torch.tensor(_VALUES, requires_grad=True)
    t = leaf * 1
    loss = (t * t).sum()
    try:
        form(t)
    except RuntimeError:
        return "form raises"
    try:
        loss.backward()
    except RuntimeError:
        return "raises"
    expected = 2 * torch.tensor(_VALUES)
    return "silent, right" if torch.equal(leaf.grad, expected) else "silent, wrong"


def measure(form):
    return {
        "plain": _moved(torch.tensor(_VALUES), form),
        "view": _on_view(form),
        "grad": _moved(torch.tensor(_VALUES, requires_grad=True) * 1, form),
        "backward": _backward(form),
    }


def _mask():
    return torch.tensor([True, False, True, False])


@SWEEP.row("t.add_(1)")
def _():
    return measure(lambda t: t.add_(1))


@SWEEP.row("t.add_(0)")
def _():
    return measure(lambda t: t.add_(0))


@SWEEP.row("t.mul_(2)")
def _():
    return measure(lambda t: t.mul_(2))


@SWEEP.row("t.zero_()")
def _():
    return measure(lambda t: t.zero_())


@SWEEP.row("t.fill_(7)")
def _():
    return measure(lambda t: t.fill_(7))


@SWEEP.row("t.copy_(s)")
def _():
    return measure(lambda t: t.copy_(torch.tensor([9.0, 8.0, 7.0, 6.0])))


@SWEEP.row("t.clamp_(max=2.5)")
def _():
    return measure(lambda t: t.clamp_(max=2.5))


@SWEEP.row("F.relu(t, inplace=True)")
def _():
    return measure(lambda t: F.relu(t, inplace=True))


@SWEEP.row("t.masked_fill_(mask, 0)")
def _():
    return measure(lambda t: t.masked_fill_(_mask(), 0))


@SWEEP.row("t.index_put_((i,), s)")
def _():
    return measure(lambda t: t.index_put_((torch.tensor([0, 1]),), torch.tensor([9.0, 8.0])))


@SWEEP.row("t.index_add_(0, i, s)")
def _():
    return measure(lambda t: t.index_add_(0, torch.tensor([0, 1]), torch.tensor([9.0, 8.0])))


@SWEEP.row("t.uniform_()")
def _():
    torch.manual_seed(0)
    return measure(lambda t: t.uniform_())


def _iadd(t):
    t += 1


@SWEEP.row("t += 1")
def _():
    return measure(_iadd)


def _slice_iadd(t):
    t[0:2] += 1


@SWEEP.row("t[0:2] += 1")
def _():
    return measure(_slice_iadd)


@SWEEP.row("t[0:2].add_(1)")
def _():
    return measure(lambda t: t[0:2].add_(1))


def _int_iadd(t):
    t[0] += 1


@SWEEP.row("t[0] += 1")
def _():
    return measure(_int_iadd)


def _list_iadd(t):
    t[[0, 1]] += 1


@SWEEP.row("t[[0, 1]] += 1")
def _():
    return measure(_list_iadd)


def _mask_iadd(t):
    t[_mask()] += 1


@SWEEP.row("t[mask] += 1")
def _():
    return measure(_mask_iadd)


def _mask_set(t):
    t[_mask()] = 0


@SWEEP.row("t[mask] = 0")
def _():
    return measure(_mask_set)


def _slice_set(t):
    t[0:2] = torch.tensor([9.0, 8.0])


@SWEEP.row("t[0:2] = s")
def _():
    return measure(_slice_set)


def _int_set(t):
    t[0] = 5


@SWEEP.row("t[0] = 5")
def _():
    return measure(_int_set)


def _all_set(t):
    t[:] = 5


@SWEEP.row("t[:] = 5")
def _():
    return measure(_all_set)


@SWEEP.row("t.unsqueeze_(0)")
def _():
    return measure(lambda t: t.unsqueeze_(0))


@SWEEP.row("t.set_(s)")
def _():
    return measure(lambda t: t.set_(torch.tensor([9.0, 8.0, 7.0, 6.0])))


@SWEEP.row("t.data.add_(1)")
def _():
    return measure(lambda t: t.data.add_(1))


def _data_assign(t):
    t.data = torch.tensor([9.0, 8.0, 7.0, 6.0])


@SWEEP.row("t.data = s")
def _():
    return measure(_data_assign)


@SWEEP.row("t.detach().add_(1)")
def _():
    return measure(lambda t: t.detach().add_(1))


def _numpy_write(t):
    t.detach().numpy()[0] = 5


@SWEEP.row("t.detach().numpy()[0] = 5")
def _():
    return measure(_numpy_write)


def _plus_one(v):
    return v + 1


@SWEEP.row("t.apply_(f)")
def _():
    return measure(lambda t: t.apply_(_plus_one))


@SWEEP.row("t.detach().apply_(f)")
def _():
    return measure(lambda t: t.detach().apply_(_plus_one))


@SWEEP.row("t.detach().map_(s, f)")
def _():
    return measure(lambda t: t.detach().map_(torch.ones(4), lambda a, b: a + b))


@SWEEP.row("t.detach().map2_(s, s, f)")
def _():
    return measure(lambda t: t.detach().map2_(torch.ones(4), torch.ones(4), lambda a, b, c: a + b + c))


@SWEEP.row("nn.utils.vector_to_parameters(s, [t])")
def _():
    return measure(lambda t: torch.nn.utils.vector_to_parameters(torch.tensor([9.0, 8.0, 7.0, 6.0]), [t]))


@SWEEP.row("torch.nn.init.zeros_(t)")
def _():
    return measure(torch.nn.init.zeros_)


@SWEEP.row("torch.nn.init.normal_(t)")
def _():
    torch.manual_seed(0)
    return measure(torch.nn.init.normal_)


@SWEEP.row("torch.add(a, b, out=t)")
def _():
    return measure(lambda t: torch.add(torch.ones(4), torch.ones(4), out=t))


@SWEEP.row("with torch.no_grad(): torch.add(a, b, out=t)")
def _():
    def form(t):
        with torch.no_grad():
            torch.add(torch.ones(4), torch.ones(4), out=t)
    return measure(form)


@SWEEP.row("with torch.no_grad(): t.add_(1)")
def _():
    def form(t):
        with torch.no_grad():
            t.add_(1)
    return measure(form)


if __name__ == "__main__":
    print(SWEEP.markdown())
