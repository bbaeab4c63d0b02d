"""
Logging losses without graphs
=============================

``total += loss`` adds the loss *tensor*, graph and all: the running total links
every step's graph and keeps it alive. ``loss.item()`` is a plain Python float.
"""

# %%
import torch
from torch import nn

from gradcut import describe
from gradcut.draw import autograd_graph

torch.manual_seed(0)
X, y = torch.randn(32, 3), torch.randn(32, 1)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def step():
    loss = ((model(X) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


# %%
# Summing tensors: the graph behind ``total`` grows by the same number of nodes at
# every step.
total = 0.0
sizes = []
for i in range(1, 5):
    total += step()
    sizes.append(len(autograd_graph({"total": total}).nodes))
    print(f"step {i}: {sizes[-1]} nodes behind total")
print("total:", describe(total))
assert len({b - a for a, b in zip(sizes, sizes[1:])}) == 1 and sizes[1] > sizes[0]

# %%
# Summing floats: nothing to keep alive.
total = 0.0
for i in range(1, 5):
    total += step().item()
print(type(total).__name__, f"{total:.4f}")
assert isinstance(total, float)

# %%
# A history of losses to plot later: ``detach()`` keeps tensors without their graph.
history = [step().detach() for _ in range(4)]
print(describe(history[-1]))
assert all(t.grad_fn is None for t in history)
print(torch.stack(history))
