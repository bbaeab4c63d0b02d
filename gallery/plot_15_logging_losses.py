"""
Logging losses without graphs
=============================

``total += loss`` adds the loss *tensor*, graph and all: the running total links
every step's graph and keeps it alive. ``loss.item()`` is a plain Python float.
"""

# %%
import torch
from torch import nn

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph

# sphinx_gallery_end_ignore
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


def nodes_behind(t):
    seen, todo = set(), [t.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo += [next_node for next_node, _ in node.next_functions]
    return len(seen)


# %%
# Summing tensors: the graph behind ``total`` grows by the same number of nodes at
# every step.
total = 0.0
sizes = []
for i in range(1, 5):
    total += step()
    sizes.append(nodes_behind(total))
    print(f"i = {i}, nodes_behind(total) = {sizes[-1]}")
print("total:", total.requires_grad, total.grad_fn.name())
# sphinx_gallery_start_ignore
assert len({b - a for a, b in zip(sizes, sizes[1:])}) == 1 and sizes[1] > sizes[0]
assert sizes[-1] == len(autograd_graph({"total": total}, saved=False).nodes)
# sphinx_gallery_end_ignore

# %%
# Summing floats: nothing to keep alive.
total = 0.0
for i in range(1, 5):
    total += step().item()
print(type(total).__name__, f"{total:.4f}")
# sphinx_gallery_start_ignore
assert isinstance(total, float)
# sphinx_gallery_end_ignore

# %%
# A history of losses to plot later: ``detach()`` keeps tensors without their graph.
history = [step().detach() for _ in range(4)]
print(history[-1].requires_grad, history[-1].grad_fn)
print(torch.stack(history))
# sphinx_gallery_start_ignore
assert all(t.grad_fn is None and not t.requires_grad for t in history)
# sphinx_gallery_end_ignore
