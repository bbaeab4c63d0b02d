"""
detach() leaves the graph intact
================================

``out.detach()`` returns a new tensor on the same memory as ``out``, outside the
graph. Creating it, without changing it, does not affect a backward pass through
``out``.
"""

# %%
import torch

from gradcut import describe, same_storage
from gradcut.draw import autograd_graph, draw_graphs

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
print(out)
print(c)

# %%
# The two differ only in what autograd knows about them: ``c`` has no ``grad_fn``
# and does not require grad, yet it is the same memory as ``out``.
print("out:", describe(out))
print("c:  ", describe(c))
print("same storage:", same_storage(out, c))

# %%
# In the graph, ``c`` hangs off ``out`` with no edge back: nothing computed from
# ``c`` can send a gradient to ``a``. The tensor the sigmoid saved for backward is
# that same memory too.
fig = draw_graphs(
    autograd_graph({"a": a, "out": out, "c": c}, cuts=[("out", "c")]),
    titles=["c = out.detach()"],
)

# %%
# The backward pass through ``out`` gives the gradient of the previous example.
out.sum().backward()
print(a.grad)
assert torch.allclose(a.grad, out * (1 - out))
