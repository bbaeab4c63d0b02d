"""What a teacher's update does to its parameters and to batch norm's buffers.

Every row builds a fresh student ``nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))``
and its teacher, made as the label says (``copy.deepcopy(student).requires_grad_(False)``
for the hand-written updates, the ``AveragedModel`` of the label otherwise), with
``tau = 0.9``: the EMA moves the teacher a tenth of the way towards the student. Then
three rounds: the student's parameters move (a random step under ``torch.no_grad()``),
the student runs a forward pass in training mode on ``torch.randn(16, 2) * 2 + 3`` (which
moves its running statistics), and the teacher is updated. The cells compare the
teacher after the third update with the teacher before it and with the student.

Columns:

* ``params``: the teacher's parameters after the update: "averaged" (equal to
  ``0.9 * before + 0.1 * student``, up to float rounding), "copied" (equal to the
  student's), "unchanged";
* ``buffers``: the same for ``running_mean`` and ``running_var`` (both must agree), with
  "unchanged" meaning they still hold what the teacher was created with.
"""

import copy

import torch
from torch import nn

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "ema_buffers",
    title="A teacher's update: its parameters and batch norm's running statistics",
    columns={
        "Teacher and update": None,
        "Parameters": "params",
        "running_mean, running_var": "buffers",
    },
)

TAU = 0.9


def _ema(avg, new, n):
    return TAU * avg + (1 - TAU) * new


def _state(module, buffers):
    tensors = module.buffers() if buffers else module.parameters()
    return [t.detach().clone() for t in tensors if t.is_floating_point()]


def _compare(before, after, student):
    if all(torch.equal(a, s) for a, s in zip(after, student)):
        return "copied"
    if all(torch.equal(a, b) for a, b in zip(after, before)):
        return "unchanged"
    if all(torch.allclose(a, TAU * b + (1 - TAU) * s) for a, b, s in zip(after, before, student)):
        return "averaged"
    return "other"


def _case(make_teacher, update):
    student = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    teacher = make_teacher(student)
    inner = teacher.module if hasattr(teacher, "module") else teacher
    for _ in range(3):
        with torch.no_grad():
            for p in student.parameters():
                p.add_(torch.randn_like(p))
        student(torch.randn(16, 2) * 2 + 3)
        params, buffers = _state(inner, False), _state(inner, True)
        update(teacher, student)
    return {
        "params": _compare(params, _state(inner, False), _state(student, False)),
        "buffers": _compare(buffers, _state(inner, True), _state(student, True)),
    }


def _frozen_copy(student):
    return copy.deepcopy(student).requires_grad_(False)


@torch.no_grad()
def _lerp_parameters(teacher, student):
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.lerp_(s, 1 - TAU)


@torch.no_grad()
def _lerp_parameters_copy_buffers(teacher, student):
    _lerp_parameters(teacher, student)
    for t, s in zip(teacher.buffers(), student.buffers()):
        t.copy_(s)


def _load_state_dict(teacher, student):
    teacher.load_state_dict(student.state_dict())


def _update_parameters(teacher, student):
    teacher.update_parameters(student)


def _averaged(**kwargs):
    def make(student):
        from torch.optim.swa_utils import AveragedModel

        return AveragedModel(student, **kwargs)

    return make


SWEEP.row("lerp_ over teacher.parameters()")(lambda: _case(_frozen_copy, _lerp_parameters))
SWEEP.row("lerp_ over teacher.parameters(), copy_ over teacher.buffers()")(
    lambda: _case(_frozen_copy, _lerp_parameters_copy_buffers)
)
SWEEP.row("teacher.load_state_dict(student.state_dict())")(lambda: _case(_frozen_copy, _load_state_dict))
SWEEP.row("AveragedModel(student, avg_fn=ema)")(lambda: _case(_averaged(avg_fn=_ema), _update_parameters))
SWEEP.row("AveragedModel(student, avg_fn=ema, use_buffers=True)")(
    lambda: _case(_averaged(avg_fn=_ema, use_buffers=True), _update_parameters)
)


@SWEEP.row("AveragedModel(student, multi_avg_fn=get_ema_multi_avg_fn(0.9), use_buffers=True)")
def _():
    # An ImportError on a release without the function: the framework shows n.a.
    from torch.optim.swa_utils import get_ema_multi_avg_fn

    return _case(_averaged(multi_avg_fn=get_ema_multi_avg_fn(TAU), use_buffers=True), _update_parameters)


if __name__ == "__main__":
    print(SWEEP.markdown())
