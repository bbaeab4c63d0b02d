"""
When the check stays silent
===========================

A widely read blog article says that changing the result of ``detach()`` in place
makes the next backward pass raise. It raises only when the changed tensor was saved
for backward. Multiplying by a number saves the number, not ``out``: backward runs,
and its gradient is still right, because nothing it needs was changed.
"""

# %%
import torch

from gradcut import describe
from gradcut.draw import autograd_graph, draw_graphs

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a * 2
c = out.detach()
c.zero_()
print(out)
print("out:", describe(out))

# %%
# ``MulBackward0`` saved the factor ``2`` (``_saved_other``) and nothing of ``out``.
fig = draw_graphs(
    autograd_graph({"a": a, "out": out, "c": c}, cuts=[("out", "c")]),
    titles=["out = a * 2; c = out.detach(); c.zero_()"],
)

# %%
# The derivative of ``a * 2`` is ``2`` whatever ``out`` holds.
out.sum().backward()
print(a.grad)
assert torch.equal(a.grad, torch.full((3,), 2.0))
