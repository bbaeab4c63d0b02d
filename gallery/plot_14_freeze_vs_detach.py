"""
Freezing versus detaching
=========================

Network ``A`` feeds network ``B``. Detaching ``A``'s output trains ``B`` alone.
To train ``A`` but not ``B``, freeze ``B``'s parameters instead: the gradient still
flows *through* ``B`` to ``A``, it just is not kept for ``B``. Freezing covers
parameters only: a ``B`` with batch norm still updates its running statistics in
training mode and needs ``B.eval()`` as well, as :doc:`/howto/freeze-vs-detach` shows.
Here ``B`` is a single ``Linear`` layer, with no such buffers.
"""

# %%
import torch
import torch.nn.functional as F
from torch import nn

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph, draw_graphs

# sphinx_gallery_end_ignore
torch.manual_seed(0)
A, B = nn.Linear(3, 4), nn.Linear(4, 1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
# sphinx_gallery_start_ignore
names = {"w_A": A.weight, "b_A": A.bias, "w_B": B.weight, "b_B": B.bias}
# sphinx_gallery_end_ignore


def has_grad(*modules):
    return {name: p.grad is not None for m in modules for name, p in m.named_parameters()}


# %%
# Detached: the loss reaches ``B`` and stops at the cut.
a = A(x)
a_cut = a.detach()
loss = F.mse_loss(B(a_cut), y)
# sphinx_gallery_start_ignore
detached = autograd_graph({**names, "a": a, "a_cut": a_cut, "loss": loss},
                          cuts=[("a", "a_cut")], saved=False)  # fmt: skip
# sphinx_gallery_end_ignore
loss.backward()
print("A:", has_grad(A), " B:", has_grad(B))
# sphinx_gallery_start_ignore
assert not any(has_grad(A).values()) and all(has_grad(B).values())
# sphinx_gallery_end_ignore

# %%
# Frozen: ``B``'s parameters do not require grad; ``A``'s get their gradient through
# ``B``, the very gradient they get when ``B`` is not frozen.
B.zero_grad(set_to_none=True)
reference = torch.autograd.grad(F.mse_loss(B(A(x)), y), A.weight)[0]
B.requires_grad_(False)
loss = F.mse_loss(B(A(x)), y)
# sphinx_gallery_start_ignore
frozen = autograd_graph({**names, "loss": loss}, saved=False)
# sphinx_gallery_end_ignore
loss.backward()
print("A:", has_grad(A), " B:", has_grad(B))
print("torch.equal(A.weight.grad, reference) =", torch.equal(A.weight.grad, reference))
# sphinx_gallery_start_ignore
assert all(has_grad(A).values()) and not any(has_grad(B).values())
assert torch.equal(A.weight.grad, reference)
# sphinx_gallery_end_ignore

# %%
# The two graphs (``w_A`` is ``A.weight``, and so on). A frozen weight is still used
# by the backward pass (dotted: saved for backward), but has no ``AccumulateGrad``.
# ``b_node`` is the node of B's layer; its inputs are the bias, the input and the weight.
b_node = loss.grad_fn.next_functions[0][0]
print(b_node.name(), [fn if fn is None else fn.name() for fn, _ in b_node.next_functions])
# sphinx_gallery_start_ignore
assert [fn is None for fn, _ in b_node.next_functions] == [True, False, True]
assert any(e.src == frozen.node("w_B").id and e.kind == "saved" for e in frozen.edges)
fig = draw_graphs(
    detached, frozen, titles=["B(A(x).detach())", "B.requires_grad_(False); B(A(x))"]
)
# sphinx_gallery_end_ignore

# %%
# Training with ``B`` frozen: the loss falls and ``B`` stays exactly as it was.
B_before = [p.clone() for p in B.parameters()]
# sphinx_gallery_start_ignore
loss_before = F.mse_loss(B(A(x)), y).item()
# sphinx_gallery_end_ignore
opt = torch.optim.SGD(A.parameters(), lr=0.1)
for step in range(1, 101):
    loss = F.mse_loss(B(A(x)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 25 == 0:
        print(f"step = {step}, loss = {loss.item():.4f}")
unchanged = all(torch.equal(p, q) for p, q in zip(B.parameters(), B_before))
print("unchanged =", unchanged)
# sphinx_gallery_start_ignore
assert unchanged and loss.item() < loss_before
# sphinx_gallery_end_ignore
