"""
A sigmoid and its gradient
==========================

The run every later example is compared with: ``a.grad`` stays ``None`` until a
backward pass fills it with the derivative of the sigmoid, ``out * (1 - out)``.
"""

# %%
# A leaf tensor that requires grad has no gradient before the first backward pass.
import torch

from gradcut.draw import autograd_graph, draw_graphs

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(a.grad)

# %%
# ``sigmoid`` records a ``SigmoidBackward0`` node in the graph. The node keeps the
# sigmoid's own result (``_saved_result``): the derivative is computed from it.
out = a.sigmoid()
print(out)
fig = draw_graphs(autograd_graph({"a": a, "out": out}), titles=["out = a.sigmoid()"])

# %%
# Backward through the sum gives each element's derivative.
out.sum().backward()
print(a.grad)
assert torch.allclose(a.grad, out * (1 - out))
