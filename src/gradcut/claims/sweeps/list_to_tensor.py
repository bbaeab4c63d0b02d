"""One tensor from a list of tensors that require grad: which ways keep the graph.

Every row starts from ``w = torch.tensor([1., 2.], requires_grad=True)``, the 0-d losses
``a = (w * 2).sum()`` and ``b = (w ** 2).sum()``, and runs the label's code once.
``out = torch.zeros(2); out[0] = a; out[1] = b`` fills a tensor made beforehand.

Columns:

* ``reaches``: the gradient of the result's sum with respect to ``w``: "right" (equals
  ``2 + 2 * w``, the gradient of ``a + b``; for the row of ``w * 2`` and ``w ** 2``, the
  gradient of their sum), "none" (the result does not require grad, or requires it as a
  new leaf that ``w`` is not behind), "-" (the code raised);
* ``raises``: "no", or the exception's type and its first words;
* ``warns``: "no", or the first words of each distinct warning, with its count. Warnings
  that torch gives once per process are counted as if each were the first
  (``torch.set_warn_always(True)`` while the row runs).
"""

import warnings

import numpy
import torch

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "list_to_tensor",
    title="One tensor from a list of tensors that require grad",
    columns={
        "Code": None,
        "Gradient of the result reaches w": "reaches",
        "Raises": "raises",
        "Warns": "warns",
    },
)


def _words(text, n=8):
    return " ".join(str(text).split()[:n])


def _case(build, expected=lambda w: 2 + 2 * w):
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = (w * 2).sum(), (w**2).sum()
    always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = build(w, a, b)
            except (RuntimeError, ValueError) as error:
                result, raised = None, f"{type(error).__name__}: {_words(error)}"
            else:
                raised = "no"
    finally:
        torch.set_warn_always(always)
    counts = {}
    for warning in caught:
        key = _words(warning.message)
        counts[key] = counts.get(key, 0) + 1
    warns = "; ".join(f"{n} x {key}" for key, n in counts.items()) or "no"
    if result is None:
        reaches = "-"
    elif not result.requires_grad:
        reaches = "none"
    else:
        (grad,) = torch.autograd.grad(result.sum(), w, allow_unused=True)
        if grad is None:
            reaches = "none"
        else:
            reaches = "right" if torch.allclose(grad, expected(w.detach())) else "wrong"
    return {"reaches": reaches, "raises": raised, "warns": warns}


def _filled(w, a, b):
    out = torch.zeros(2)
    out[0] = a
    out[1] = b
    return out


def _row(label, build, **kwargs):
    SWEEP.row(label)(lambda: _case(build, **kwargs))


_row("torch.tensor([a, b])", lambda w, a, b: torch.tensor([a, b]))
_row("torch.tensor([a, b], requires_grad=True)", lambda w, a, b: torch.tensor([a, b], requires_grad=True))
_row("torch.as_tensor([a, b])", lambda w, a, b: torch.as_tensor([a, b]))
_row("torch.Tensor([a, b])", lambda w, a, b: torch.Tensor([a, b]))
_row("torch.tensor([w * 2, w ** 2])", lambda w, a, b: torch.tensor([w * 2, w**2]))
_row("numpy.array([a, b])", lambda w, a, b: torch.from_numpy(numpy.array([a, b])))
_row("torch.stack([a, b])", lambda w, a, b: torch.stack([a, b]))
_row("torch.cat([w * 2, w ** 2])", lambda w, a, b: torch.cat([w * 2, w**2]), expected=lambda w: 2 + 2 * w)
_row("out = torch.zeros(2); out[0] = a; out[1] = b", _filled)
_row("sum([a, b])", lambda w, a, b: sum([a, b]))

if __name__ == "__main__":
    print(SWEEP.markdown())
