"""``h[:, 0] = f(h[:, 0])`` in a forward pass: which ``f``, on which ``h``, makes the
backward pass refuse, and whether the gradient is right when it does not.

Every cell builds a fresh ``lin = nn.Linear(3, 3)`` and ``x = torch.randn(4, 3)``, makes
``h`` from ``lin(x)`` as the row's label says, assigns ``h[:, 0] = f(h[:, 0])`` with the
column's ``f`` and calls ``h.sum().backward()``. The reference is the same function
written without an in-place change: ``torch.cat([f(h[:, :1]), h[:, 1:]], dim=1)``. In the
row ``lin(x); loss += (h * h).sum()``, ``h`` is also used, before the assignment, by a
product that saves it, and ``(h * h).sum()`` is added to both losses.

Cells: "refused" (backward raises the in-place error), "right" (no error, and
``lin.weight.grad`` equals the reference's), "wrong" (no error, another gradient).
"""

import torch
from torch import nn

from gradcut.claims.sweeps import Sweep

FUNCTIONS = {
    "c * 2": lambda c: c * 2,
    "c + 1": lambda c: c + 1,
    "sigmoid": torch.sigmoid,
    "exp": torch.exp,
    "tanh": torch.tanh,
    "relu": torch.relu,
    "pow(2)": lambda c: c.pow(2),
    "c * c": lambda c: c * c,
    "log": torch.log,
}
MAKES = {
    "lin(x)": lambda t: t,
    "sigmoid(lin(x))": torch.sigmoid,
    "exp(lin(x))": torch.exp,
    "tanh(lin(x))": torch.tanh,
    "relu(lin(x))": torch.relu,
    "softmax(lin(x), dim=1)": lambda t: torch.softmax(t, dim=1),
    "gelu(lin(x))": nn.functional.gelu,
    "lin(x) * 2": lambda t: t * 2,
    "lin(x).clone()": lambda t: t.clone(),
    "lin(x); loss += (h * h).sum()": lambda t: t,
}
#: Rows whose ``h`` another operation of the loss uses (and saves) before the assignment.
ALSO_USED = {"lin(x); loss += (h * h).sum()": lambda h: (h * h).sum()}

SWEEP = Sweep(
    "slice_assign",
    title="h[:, 0] = f(h[:, 0]), then backward: refused, right or wrong",
    columns={"h =": None, **{f"f = {name}": name for name in FUNCTIONS}},
)


def _cell(make, f, also=None):
    lin, x = nn.Linear(3, 3), torch.randn(4, 3).abs() + 0.1  # log needs positive columns
    h = make(lin(x))
    extra = also(h) if also else 0
    column = h[:, 0]
    h[:, 0] = f(column)
    try:
        (h.sum() + extra).backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
        return "refused"
    got = lin.weight.grad.clone()
    lin.zero_grad()
    h = make(lin(x))
    extra = also(h) if also else 0
    (torch.cat([f(h[:, :1]), h[:, 1:]], dim=1).sum() + extra).backward()
    return "right" if torch.allclose(got, lin.weight.grad) else "wrong"


def _row(make, also=None):
    def measure():
        cells = {}
        for name, f in FUNCTIONS.items():
            cells[name] = _cell(make, f, also)
        return cells

    return measure


for _label, _make in MAKES.items():
    SWEEP.row(_label)(_row(_make, ALSO_USED.get(_label)))

if __name__ == "__main__":
    print(SWEEP.markdown())
