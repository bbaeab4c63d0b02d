"""
A detached tensor as a new leaf
===============================

A widely read blog article claims that after ``c = out.detach()`` and
``c.requires_grad = True``, ``c.sum().backward()`` still fails and ``c`` never gets
a gradient. In fact ``c`` becomes the leaf of a new graph: backward runs and fills
``c.grad``. Only ``a``, on the other side of the cut, gets nothing.
"""

# %%
import torch

from gradcut import describe
from gradcut.draw import autograd_graph, draw_graphs

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
c.requires_grad = True
print(describe(c))

# %%
# ``y = c.sum()`` starts at ``c``, a leaf of its own: the two graphs touch only
# through the cut, which no gradient crosses.
y = c.sum()
fig = draw_graphs(
    autograd_graph({"a": a, "out": out}),
    autograd_graph({"a": a, "out": out, "c": c, "y": y}, cuts=[("out", "c")]),
    titles=["out = a.sigmoid()", "c = out.detach(); c.requires_grad = True; y = c.sum()"],
)

# %%
# The backward pass runs without an error and stops at ``c``.
y.backward()
print("c.grad:", c.grad)
print("a.grad:", a.grad)
assert torch.equal(c.grad, torch.ones(3)) and a.grad is None
