"""
When .data happens to be harmless
=================================

If ``.data`` is taken from ``a.sigmoid().sum()`` instead, zeroing it leaves the
gradient right. ``SumBackward0`` saves only the shape of its input, and the saved
sigmoid result is untouched: ``out``'s value is wrong, its gradient is not.
"""

# %%
import torch

from gradcut.draw import autograd_graph, draw_graphs

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid().sum()
c = out.data
c.zero_()
print(out)

# %%
# The only saved tensor is the sigmoid's result, which ``c`` does not share.
fig = draw_graphs(autograd_graph({"a": a, "out": out}), titles=["out = a.sigmoid().sum()"])

# %%
# The gradient is the sigmoid's derivative, as if nothing had been zeroed.
out.backward()
print(a.grad)
s = a.detach().sigmoid()
assert torch.allclose(a.grad, s * (1 - s))
