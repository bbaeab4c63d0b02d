"""
Straight-through estimator
==========================

Rounding has a zero gradient almost everywhere, so what comes before it gets none.
``x + (x.round() - x).detach()`` rounds in the forward pass, while backward sees
only ``x``: the gradient passes straight through.
"""

# %%
import torch

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph, draw_graphs

# sphinx_gallery_end_ignore
x = torch.tensor([0.2, 0.7, 1.4], requires_grad=True)
x.round().sum().backward()
print("x.grad =", x.grad)
# sphinx_gallery_start_ignore
assert torch.equal(x.grad, torch.zeros(3))
# sphinx_gallery_end_ignore

# %%
# The correction ``d`` is cut off, so the sum ``q`` has ``x`` as its only input
# that autograd sees.
x.grad = None
d = x.round() - x
d_cut = d.detach()
q = x + d_cut
print(q)
q.sum().backward()
print("x.grad =", x.grad)
# sphinx_gallery_start_ignore
assert torch.equal(q, x.round()) and torch.equal(x.grad, torch.ones(3))
fig = draw_graphs(
    autograd_graph({"x": x, "d": d, "d_cut": d_cut, "q": q}, cuts=[("d", "d_cut")]),
    titles=["q = x + (x.round() - x).detach()"],
)
# sphinx_gallery_end_ignore

# %%
# Fit ``y = 1.5 * x1 - 0.5 * x2`` with weights restricted to multiples of 0.5.
# With plain rounding the weights stay at zero; with the straight-through estimator
# they reach the solution.
torch.manual_seed(0)
X = torch.randn(64, 2)
y = X @ torch.tensor([1.5, -0.5])


def train(quantize):
    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    for _ in range(100):
        loss = ((X @ quantize(w) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return quantize(w).detach(), loss.item()


def round_half(w):
    return (w * 2).round() / 2


def straight_through(w):
    return w + (round_half(w) - w).detach()


for quantize in (round_half, straight_through):
    w, loss = train(quantize)
    print(f"{quantize.__name__:16}: w = {w}, loss = {loss:.4f}")
    # sphinx_gallery_start_ignore
    solution = torch.tensor([1.5, -0.5]) if quantize is straight_through else torch.zeros(2)
    assert torch.equal(w, solution)
    # sphinx_gallery_end_ignore
