"""
Freezing versus detaching
=========================

Network ``A`` feeds network ``B``. Detaching ``A``'s output trains ``B`` alone.
To train ``A`` but not ``B``, freeze ``B``'s parameters instead: the gradient still
flows *through* ``B`` to ``A``, it just is not kept for ``B``.
"""

# %%
import torch
import torch.nn.functional as F
from torch import nn

from gradcut.draw import autograd_graph, draw_graphs

torch.manual_seed(0)
A, B = nn.Linear(3, 4), nn.Linear(4, 1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
names = {"w_A": A.weight, "b_A": A.bias, "w_B": B.weight, "b_B": B.bias}


def has_grad(*modules):
    return {name: p.grad is not None for m in modules for name, p in m.named_parameters()}


# %%
# Detached: the loss reaches ``B`` and stops at the cut.
a = A(x)
a_cut = a.detach()
loss = F.mse_loss(B(a_cut), y)
detached = autograd_graph({**names, "a": a, "a_cut": a_cut, "loss": loss},
                          cuts=[("a", "a_cut")], saved=False)  # fmt: skip
loss.backward()
print("A:", has_grad(A), " B:", has_grad(B))
assert A.weight.grad is None and B.weight.grad is not None

# %%
# Frozen: ``B``'s parameters do not require grad; ``A``'s get their gradient through
# ``B``, the very gradient they get when ``B`` is not frozen.
B.zero_grad(set_to_none=True)
reference = torch.autograd.grad(F.mse_loss(B(A(x)), y), A.weight)[0]
B.requires_grad_(False)
loss = F.mse_loss(B(A(x)), y)
frozen = autograd_graph({**names, "loss": loss}, saved=False)
loss.backward()
print("A:", has_grad(A), " B:", has_grad(B))
assert torch.equal(A.weight.grad, reference)

# %%
# The two graphs (``w_A`` is ``A.weight``, and so on). A frozen weight is still used
# by the backward pass (dotted: saved for backward), but has no ``AccumulateGrad``.
fig = draw_graphs(
    detached, frozen, titles=["B(A(x).detach())", "B.requires_grad_(False); B(A(x))"]
)

# %%
# Training with ``B`` frozen: the loss falls and ``B`` stays exactly as it was.
B_before = [p.clone() for p in B.parameters()]
opt = torch.optim.SGD(A.parameters(), lr=0.1)
for step in range(1, 101):
    loss = F.mse_loss(B(A(x)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 25 == 0:
        print(f"step {step}: loss {loss.item():.4f}")
unchanged = all(torch.equal(p, q) for p, q in zip(B.parameters(), B_before))
print("B unchanged:", unchanged)
assert unchanged
