"""
detach_() cuts only what follows
================================

``m.detach_()`` turns ``m`` itself into a leaf that does not require grad. A widely
read blog article describes this as rewiring the graph ``x -> m -> y`` into
``x, m -> y``. A graph recorded before the call is not touched: ``y`` still reaches
``x``. Only what is computed from ``m`` afterwards is cut off.
"""

# %%
import torch

from gradcut import describe, expect_error
from gradcut.draw import autograd_graph, draw_graphs

x = torch.tensor([1.0, 2.0], requires_grad=True)
m = x * 2
y = m * 3
m_grad_fn = m.grad_fn
before = autograd_graph({"x": x, "m": m, "y": y})
m.detach_()
after = autograd_graph({"x": x, "m": m, "y": y}, cuts=[(m_grad_fn, "m", "detach_()")])
print("m:", describe(m))
fig = draw_graphs(before, after, titles=["m = x * 2; y = m * 3", "m.detach_()"])

# %%
# ``y`` was recorded before the cut, so its gradient still reaches ``x``.
y.sum().backward()
print(x.grad)
assert torch.equal(x.grad, torch.full((2,), 6.0))

# %%
# What is computed from ``m`` from now on has no graph behind it.
z = m * 3
print("z:", describe(z))
with expect_error(
    RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn"
):
    z.sum().backward()
