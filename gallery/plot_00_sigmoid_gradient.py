"""
A sigmoid and its gradient
==========================

The run the later examples compare with: ``a.grad`` stays ``None`` until a
backward pass fills it with the derivative of the sigmoid, ``out * (1 - out)``.
"""

# %%
# A leaf tensor that requires grad has no gradient before the first backward pass.
import torch

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph, draw_graphs

# sphinx_gallery_end_ignore
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(a.requires_grad, a.is_leaf)
print(a.grad)
# sphinx_gallery_start_ignore
assert a.requires_grad and a.is_leaf and a.grad is None
# sphinx_gallery_end_ignore

# %%
# ``sigmoid`` records a ``SigmoidBackward0`` node in the graph. The node keeps the
# sigmoid's own result (``_saved_result``): the derivative is computed from it.
out = a.sigmoid()
print(out)
print(out.grad_fn.name())
print(torch.equal(out.grad_fn._saved_result, out))
# sphinx_gallery_start_ignore
assert out.grad_fn.name() == "SigmoidBackward0"
assert torch.equal(out.grad_fn._saved_result, out)
fig = draw_graphs(autograd_graph({"a": a, "out": out}), titles=["out = a.sigmoid()"])
# sphinx_gallery_end_ignore

# %%
# Backward through the sum gives each element's derivative.
out.sum().backward()
print(a.grad)
print(torch.allclose(a.grad, out * (1 - out)))
# sphinx_gallery_start_ignore
assert torch.allclose(a.grad, out * (1 - out))
# sphinx_gallery_end_ignore
