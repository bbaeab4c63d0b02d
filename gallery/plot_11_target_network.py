"""
Stop gradients into a target
============================

In Q-learning the regression target ``r + gamma * max Q(s')`` is a label to move
towards, not a quantity to optimise. Computed with the network being trained, it
carries a graph unless cut; a frozen copy, the target network, carries none.
"""

# %%
# Random transitions of a made-up task: states of 4 numbers, 2 actions.
import copy

import torch
from torch import nn

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph, draw_graphs

# sphinx_gallery_end_ignore
torch.manual_seed(0)
s, s_next = torch.randn(32, 4), torch.randn(32, 4)
action, reward = torch.randint(0, 2, (32,)), torch.randn(32)
gamma = 0.9
q = nn.Linear(4, 2)
opt = torch.optim.SGD(q.parameters(), lr=0.05)


def td_loss(target):
    q_sa = q(s).gather(1, action[:, None]).squeeze(1)
    return ((q_sa - target) ** 2).mean()


# %%
# A target computed with ``q`` itself is part of the graph: the loss would also be
# minimised by moving the target. ``detach()`` makes it a constant, and the gradient
# changes.
target = reward + gamma * q(s_next).max(dim=1).values
print("target:         ", target.requires_grad, target.grad_fn.name())
print("target.detach():", target.detach().requires_grad, target.detach().grad_fn)
grad_through = torch.autograd.grad(td_loss(target), q.weight)[0]
grad_cut = torch.autograd.grad(td_loss(target.detach()), q.weight)[0]
same = torch.allclose(grad_through, grad_cut)
print("same =", same)
# sphinx_gallery_start_ignore
assert target.requires_grad and not target.detach().requires_grad
assert not same
# sphinx_gallery_end_ignore

# %%
# With the cut, the loss reaches ``q``'s parameters only through ``q(s)``; the graph
# behind ``target`` is left hanging.
target_cut = target.detach()
loss = td_loss(target_cut)
# sphinx_gallery_start_ignore
names = {"q.weight": q.weight, "q.bias": q.bias, "target": target, "target_cut": target_cut}
fig = draw_graphs(
    autograd_graph({**names, "loss": loss}, cuts=[("target", "target_cut")], saved=False),
    titles=["loss = td_loss(target.detach())"],
)
# sphinx_gallery_end_ignore

# %%
# A target network is a copy of ``q`` whose parameters do not require grad: its
# outputs have no graph to cut. It is refreshed from ``q`` every few steps.
q_target = copy.deepcopy(q).requires_grad_(False)
target = reward + gamma * q_target(s_next).max(dim=1).values
print("target:", target.requires_grad, target.grad_fn)
# sphinx_gallery_start_ignore
assert not target.requires_grad and target.grad_fn is None
# sphinx_gallery_end_ignore

for step in range(1, 61):
    target = reward + gamma * q_target(s_next).max(dim=1).values
    loss = td_loss(target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        q_target.load_state_dict(q.state_dict())
        print(f"step = {step}, loss = {loss.item():.4f}")
print("q_target:", [p.grad is not None for p in q_target.parameters()])
# sphinx_gallery_start_ignore
assert all(p.grad is None for p in q_target.parameters())
# sphinx_gallery_end_ignore
