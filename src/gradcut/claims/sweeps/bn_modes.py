"""What one forward pass does to a batch norm layer's running statistics, by the module's
mode and the grad mode the pass runs in.

Every row builds a fresh ``bn = nn.BatchNorm1d(3)`` (unless the label gives other
arguments) and a batch ``x = torch.randn(8, 3) * 2 + 5``, far from the running mean's
initial zeros, then runs ``bn(x)`` as the label says. ``frozen`` means
``bn.requires_grad_(False)``.

Columns:

* ``stats``: the running mean after the pass: "moves" (it changed), "stays" (it did
  not), "no buffers" (the layer has no running statistics);
* ``norm``: what the pass normalised with: "the batch's statistics" (each output
  column has mean 0 over the batch) or "the running statistics" (the output equals
  ``(x - running_mean) / sqrt(running_var + eps) * weight + bias`` with the statistics
  the layer held before the pass).
"""

import torch
from torch import nn

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "bn_modes",
    title="A forward pass of batch norm: its running statistics, by mode",
    columns={
        "Forward pass": None,
        "Running statistics": "stats",
        "Normalises with": "norm",
    },
)


def _case(train, context=None, frozen=False, **kwargs):
    bn = nn.BatchNorm1d(3, **kwargs).train(train)
    if frozen:
        bn.requires_grad_(False)
    x = torch.randn(8, 3) * 2 + 5
    has_buffers = bn.running_mean is not None
    if has_buffers:
        mean, var = bn.running_mean.clone(), bn.running_var.clone()
    if context is None:
        out = bn(x)
    else:
        with context():
            out = bn(x)
    out = out.detach().clone()
    if not has_buffers:
        stats = "no buffers"
    else:
        stats = "stays" if torch.equal(bn.running_mean, mean) else "moves"
    if torch.allclose(out.mean(dim=0), torch.zeros(3), atol=1e-5):
        norm = "the batch's statistics"
    elif has_buffers and torch.allclose(
        out, (x - mean) / torch.sqrt(var + bn.eps) * bn.weight.detach() + bn.bias.detach(), atol=1e-5
    ):
        norm = "the running statistics"
    else:
        norm = "neither"
    return {"stats": stats, "norm": norm}


def _row(label, *args, **kwargs):
    SWEEP.row(label)(lambda: _case(*args, **kwargs))


_row("bn.train(); bn(x)", True)
_row("bn.train(); with torch.no_grad(): bn(x)", True, torch.no_grad)
_row("bn.train(); with torch.inference_mode(): bn(x)", True, torch.inference_mode)
_row("bn.train(), frozen; bn(x)", True, frozen=True)
_row("bn.train(), momentum=None; with torch.no_grad(): bn(x)", True, torch.no_grad, momentum=None)
_row("bn.eval(); bn(x)", False)
_row("bn.eval(); with torch.no_grad(): bn(x)", False, torch.no_grad)
_row("bn.train(), track_running_stats=False; bn(x)", True, track_running_stats=False)
_row("bn.eval(), track_running_stats=False; bn(x)", False, track_running_stats=False)

if __name__ == "__main__":
    print(SWEEP.markdown())
