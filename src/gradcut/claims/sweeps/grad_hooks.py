"""A gradient hook that doubles the gradient of ``a``: written to return a new tensor, or
to change its argument in place, on the graphs a hook meets.

Every row builds ``a = tensor([1., 2.])`` and ``b = tensor([3., 4.])``, both leaves that
require grad, registers the label's hook on ``a`` with ``a.register_hook``, computes the
label's output and calls ``out.backward(seed)`` with ``seed = torch.ones_like(out)``.
The reference is the same graph without the hook.

Columns:

* ``a``: ``a.grad``: "doubled" (twice the reference), or "raises" when the backward
  pass raises;
* ``b``: ``b.grad``: "as without the hook", "doubled too", "none" (the graph does not
  use ``b``), "raises";
* ``seed``: the tensor given to ``backward()`` afterwards: "unchanged", "changed",
  "raises".
"""

import torch

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "grad_hooks",
    title="A hook that doubles a's gradient: new tensor or in place",
    columns={
        "Hook on a; output": None,
        "a.grad": "a",
        "b.grad": "b",
        "Tensor given to backward()": "seed",
    },
)

HOOKS = {
    "return grad * 2": lambda grad: grad * 2,
    "grad.mul_(2)": lambda grad: grad.mul_(2),
}
OUTPUTS = {
    "a + b": lambda a, b: a + b,
    "b + a": lambda a, b: b + a,
    "a * b": lambda a, b: a * b,
    "a.exp() + b": lambda a, b: a.exp() + b,
    "(a + b).sum()": lambda a, b: (a + b).sum(),
    "(a * 3).sum()": lambda a, b: (a * 3).sum(),
}


def _run(hook, output):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    if hook is not None:
        a.register_hook(hook)
    out = output(a, b)
    seed = torch.ones_like(out)
    out.backward(seed)
    return a.grad, b.grad, seed


def _case(hook, output):
    ref_a, ref_b, _ = _run(None, output)
    try:
        got_a, got_b, seed = _run(hook, output)
    except RuntimeError:
        return {"a": "raises", "b": "raises", "seed": "raises"}
    if torch.equal(got_a, 2 * ref_a):
        a = "doubled"
    else:
        a = "not doubled"
    if ref_b is None:
        b = "none"
    elif torch.equal(got_b, ref_b):
        b = "as without the hook"
    elif torch.equal(got_b, 2 * ref_b):
        b = "doubled too"
    else:
        b = "other"
    seed_cell = "unchanged" if torch.equal(seed, torch.ones_like(seed)) else "changed"
    return {"a": a, "b": b, "seed": seed_cell}


for _hook_label, _hook in HOOKS.items():
    for _output_label, _output in OUTPUTS.items():
        SWEEP.row(f"{_hook_label}; {_output_label}")(
            lambda hook=_hook, output=_output: _case(hook, output)
        )

if __name__ == "__main__":
    print(SWEEP.markdown())
