"""The cheat sheet: what each way to cut (or keep) the graph shares and cuts.

Every row is an operation applied to fresh tensors: ``a`` is a leaf that requires grad and
``y = a.sigmoid()`` a non-leaf computed from it (sigmoid saves its output for backward).
Every column is a property measured by running code, never typed by hand:

>>> SWEEP.measure("y.detach()")["storage"], SWEEP.measure("y.detach()")["version"]
('yes', 'yes')
>>> SWEEP.measure("y.data")["version"], SWEEP.measure("y.data")["inplace_backward"]
('no', 'wrong gradient')
"""

import contextlib
import functools
from collections.abc import Callable
from dataclasses import dataclass

import torch

from gradcut.claims.sweeps import Sweep
from gradcut.claims.tensors import same_storage


@dataclass(frozen=True)
class Operation:
    """What a row does: ``apply(input)`` under ``context``, on ``y`` or on the leaf ``a``."""

    apply: Callable[[torch.Tensor], torch.Tensor]
    on_leaf: bool = False
    context: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext


def _detach_(t):
    return t.detach_()


# Keys are the first cell of a row, without backticks.
OPERATIONS: dict[str, Operation] = {
    "y.detach()": Operation(lambda t: t.detach()),
    "y.detach_()": Operation(_detach_),
    "y.data": Operation(lambda t: t.data),
    "y * 2 in torch.no_grad()": Operation(lambda t: t * 2, context=torch.no_grad),
    "y[:] in torch.no_grad()": Operation(lambda t: t[:], context=torch.no_grad),
    "y * 2 in torch.inference_mode()": Operation(lambda t: t * 2, context=torch.inference_mode),
    "y[:] in torch.inference_mode()": Operation(lambda t: t[:], context=torch.inference_mode),
    "a.requires_grad_(False)": Operation(lambda t: t.requires_grad_(False), on_leaf=True),
    "y.clone()": Operation(lambda t: t.clone()),
    "y.detach().clone()": Operation(lambda t: t.detach().clone()),
    "y.clone().detach()": Operation(lambda t: t.clone().detach()),
    "y.cpu()": Operation(lambda t: t.cpu()),
}

SWEEP = Sweep(
        "cheatsheet",
    title="What each operation shares and cuts",
    columns={
        "Operation": None,
        "New tensor": "new",
        "Shares storage": "storage",
        "Shares version counter": "version",
        "requires_grad": "requires_grad",
        "is_leaf": "is_leaf",
        "Gradient reaches a": "tracked",
        "The call raises on": "raises_on",
        "Result saved for backward": "saved",
        "Backward of an earlier graph": "earlier_backward",
        "In-place on the result, then that backward": "inplace_backward",
    },
)


def _fresh():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return a, a.sigmoid()


def _run(op: Operation, source: torch.Tensor) -> torch.Tensor:
    with op.context():
        return op.apply(source)


def _raises(fn: Callable[[], object]) -> bool:
    try:
        fn()
    except RuntimeError:
        return True
    return False


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _shares_version_counter(source: torch.Tensor, result: torch.Tensor) -> str:
    try:
        before = result._version
    except RuntimeError:  # inference tensors have no version counter
        return "no counter"
    with torch.no_grad():
        source.add_(0)  # any in-place op bumps the version, whatever it writes
    return _yes(result._version != before)


def _tracked(a: torch.Tensor, result: torch.Tensor) -> str:
    if not result.requires_grad:
        return "no"
    (grad,) = torch.autograd.grad(result.sum(), a, allow_unused=True)
    return _yes(grad is not None)


def _raises_on(op: Operation) -> str:
    where = []
    if _raises(lambda: _run(op, _fresh()[1])):
        where.append("a non-leaf")
    if _raises(lambda: _run(op, torch.zeros(3)[:2])):
        where.append("a view")
    return ", ".join(where) or "nothing"


def _saved(op: Operation) -> str:
    """Can the result be saved for backward by an op that autograd records?"""
    a, y = _fresh()
    result = _run(op, a if op.on_leaf else y)
    weight = torch.ones(3, requires_grad=True)
    return "raises" if _raises(lambda: weight * result) else "fine"


def _earlier_graph(op: Operation, inplace: bool) -> str:
    """Backward of ``(s * s).sum()``, built before the operation, where ``s`` is its input.

    The multiplication saves ``s`` for backward, so the version check sees any in-place
    change to it; ``inplace`` doubles the result in place before the backward.
    """
    expected = _expected_grad(op)
    a, y = _fresh()
    source = a if op.on_leaf else y
    loss = (source * source).sum()
    result = _run(op, source)
    if inplace and _raises(lambda: result.mul_(2)):
        return "in-place raises"
    if _raises(loss.backward):
        return "raises"
    if a.grad is None:
        return "no gradient"
    return "correct gradient" if torch.allclose(a.grad, expected) else "wrong gradient"


def _expected_grad(op: Operation) -> torch.Tensor:
    a, y = _fresh()
    source = a if op.on_leaf else y
    (source * source).sum().backward()
    return a.grad


def _measure(op: Operation) -> dict[str, str]:
    """Every property of one row, measured on fresh tensors of the installed torch."""
    a, y = _fresh()
    source = a if op.on_leaf else y
    result = _run(op, source)
    return {
        "new": _yes(result is not source),
        "storage": _yes(same_storage(result, source)),
        "requires_grad": str(result.requires_grad),
        "is_leaf": str(result.is_leaf),
        "tracked": _tracked(a, result),
        # last: it writes to the source
        "version": _shares_version_counter(source, result),
        "raises_on": _raises_on(op),
        "saved": _saved(op),
        "earlier_backward": _earlier_graph(op, inplace=False),
        "inplace_backward": _earlier_graph(op, inplace=True),
    }


for _label, _op in OPERATIONS.items():
    SWEEP.row(_label)(functools.partial(_measure, _op))
