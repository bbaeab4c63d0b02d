"""
detach() leaves the graph intact
================================

``out.detach()`` returns a new tensor on the same memory as ``out``, outside the
graph. Creating it, without changing it, does not affect a backward pass through
``out``.
"""

# %%
import torch

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph, draw_graphs

# sphinx_gallery_end_ignore
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
print(out)
print(c)

# %%
# The two differ in what autograd knows about them: ``c`` has no ``grad_fn``
# and does not require grad, yet it is the same memory as ``out``.
print("out:", out.requires_grad, out.is_leaf, out.grad_fn.name())
print("c:  ", c.requires_grad, c.is_leaf, c.grad_fn)
same_memory = c.untyped_storage().data_ptr() == out.untyped_storage().data_ptr()
print("same_memory =", same_memory)
# sphinx_gallery_start_ignore
assert c is not out and c.grad_fn is None and not c.requires_grad and c.is_leaf
assert c.untyped_storage().data_ptr() == out.untyped_storage().data_ptr()
# sphinx_gallery_end_ignore

# %%
# In the graph, ``c`` hangs off ``out`` with no edge back: a gradient computed from
# ``c`` has no path to ``a``. The tensor the sigmoid saved for backward is
# that same memory too.
saved = out.grad_fn._saved_result
same_memory = saved.untyped_storage().data_ptr() == c.untyped_storage().data_ptr()
print("same_memory =", same_memory)
# sphinx_gallery_start_ignore
assert saved.untyped_storage().data_ptr() == c.untyped_storage().data_ptr()
fig = draw_graphs(
    autograd_graph({"a": a, "out": out, "c": c}, cuts=[("out", "c")]),
    titles=["c = out.detach()"],
)
# sphinx_gallery_end_ignore

# %%
# The backward pass through ``out`` gives the gradient of the previous example.
out.sum().backward()
print(a.grad)
print(torch.allclose(a.grad, out * (1 - out)))
# sphinx_gallery_start_ignore
assert torch.allclose(a.grad, out * (1 - out))
# sphinx_gallery_end_ignore
