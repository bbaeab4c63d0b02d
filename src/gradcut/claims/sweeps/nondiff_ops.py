"""Operations whose result has no gradient to give: integer and boolean results, and float
results whose derivative is zero almost everywhere.

Every row starts from ``w = torch.tensor([0.3, -1.7, 2.2], requires_grad=True)``, applies
the label's operation, and calls ``out.float().sum().backward()`` (``float()`` makes an
integer or boolean result summable; on a float result it changes nothing).

Columns:

* ``rg``: the result's ``requires_grad`` ("True" / "False");
* ``backward``: what the backward pass does: "raises: does not require grad" (the error
  "element 0 of tensors does not require grad and does not have a grad_fn"), "raises:
  not implemented" (the error "the derivative for ... is not implemented"), "zero
  gradient" (no error; ``w.grad`` is all zeros), "gradient" (no error; ``w.grad`` has a
  non-zero element).
"""

import torch

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "nondiff_ops",
    title="Operations without a gradient, or with a zero one",
    columns={
        "Operation": None,
        "Result requires grad": "rg",
        "backward()": "backward",
    },
)


def _case(op):
    w = torch.tensor([0.3, -1.7, 2.2], requires_grad=True)
    out = op(w)
    try:
        out.float().sum().backward()
    except RuntimeError as error:
        text = str(error)
        if "does not require grad" in text:
            backward = "raises: does not require grad"
        elif "is not implemented" in text:
            backward = "raises: not implemented"
        else:
            raise
    else:
        backward = "zero gradient" if torch.count_nonzero(w.grad) == 0 else "gradient"
    return {"rg": str(out.requires_grad), "backward": backward}


def _row(label, op):
    SWEEP.row(label)(lambda: _case(op))


# indices
_row("w.argmax()", lambda w: w.argmax())
_row("w.argmin()", lambda w: w.argmin())
_row("w.max(dim=0).indices", lambda w: w.max(dim=0).indices)
_row("w.topk(2).indices", lambda w: w.topk(2).indices)
_row("w.sort().indices", lambda w: w.sort().indices)
_row("w.argsort()", lambda w: w.argsort())
# comparisons
_row("w > 0", lambda w: w > 0)
_row("w == 1", lambda w: w == 1)
_row("torch.eq(w, 1)", lambda w: torch.eq(w, 1))
_row("torch.isclose(w, w)", lambda w: torch.isclose(w, w))
_row("(w > 0).float()", lambda w: (w > 0).float())
# casts to integers and booleans
_row("w.long()", lambda w: w.long())
_row("w.int()", lambda w: w.int())
_row("w.to(torch.int32)", lambda w: w.to(torch.int32))
_row("w.bool()", lambda w: w.bool())
# float results, derivative zero almost everywhere
_row("w.round()", lambda w: w.round())
_row("w.floor()", lambda w: w.floor())
_row("w.ceil()", lambda w: w.ceil())
_row("w.trunc()", lambda w: w.trunc())
_row("w.sign()", lambda w: w.sign())
# no derivative formula
_row("torch.heaviside(w, torch.tensor(0.0))", lambda w: torch.heaviside(w, torch.tensor(0.0)))
# for comparison: the values, and a comparison used as a mask
_row("w.max(dim=0).values", lambda w: w.max(dim=0).values)
_row("w.topk(2).values", lambda w: w.topk(2).values)
_row("torch.where(w > 0, w, 0.0)", lambda w: torch.where(w > 0, w, 0.0))
_row("w * (w > 0)", lambda w: w * (w > 0))

if __name__ == "__main__":
    print(SWEEP.markdown())
