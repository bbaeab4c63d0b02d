"""
A detached tensor as a new leaf
===============================

A widely read blog article claims that after ``c = out.detach()`` and
``c.requires_grad = True``, ``c.sum().backward()`` still fails and ``c`` never gets
a gradient. In fact ``c`` becomes the leaf of a new graph: backward runs and fills
``c.grad``. ``a``, on the other side of the cut, gets nothing.
"""

# %%
import torch

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph, draw_graphs

# sphinx_gallery_end_ignore
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
c.requires_grad = True
print(c.requires_grad, c.is_leaf, c.grad_fn)
# sphinx_gallery_start_ignore
assert c.requires_grad and c.is_leaf and c.grad_fn is None
# sphinx_gallery_end_ignore

# %%
# ``y = c.sum()`` starts at ``c``, a leaf of its own: the two graphs touch at the
# cut, and the backward pass below stops there.
y = c.sum()
# sphinx_gallery_start_ignore
fig = draw_graphs(
    autograd_graph({"a": a, "out": out}),
    autograd_graph({"a": a, "out": out, "c": c, "y": y}, cuts=[("out", "c")]),
    titles=["out = a.sigmoid()", "c = out.detach(); c.requires_grad = True; y = c.sum()"],
)
# sphinx_gallery_end_ignore

# %%
# The backward pass runs without an error and stops at ``c``.
y.backward()
print("c.grad:", c.grad)
print("a.grad:", a.grad)
# sphinx_gallery_start_ignore
assert torch.equal(c.grad, torch.ones(3)) and a.grad is None
# sphinx_gallery_end_ignore
