"""
What detach_() cuts
===================

``m.detach_()`` turns ``m`` itself into a leaf that does not require grad. A widely
read blog article describes this as rewiring the graph ``x -> m -> y`` into
``x, m -> y``. A graph recorded before the call still reaches ``x`` through ``m``,
as long as it did not save ``m`` as an input. The one below that did raises at
backward; :doc:`/explanation/detach_` shows where such a graph raises nothing (a leaf,
saved-tensor hooks). What is computed from ``m`` afterwards is cut off.
"""

# %%
import torch

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph, draw_graphs
from gradcut.claims.expect import caught, not_raised

# sphinx_gallery_end_ignore
x = torch.tensor([1.0, 2.0], requires_grad=True)
m = x * 2
y = m * 3
print("m:", m.requires_grad, m.is_leaf, m.grad_fn.name())
# sphinx_gallery_start_ignore
m_grad_fn = m.grad_fn
before = autograd_graph({"x": x, "m": m, "y": y})
# sphinx_gallery_end_ignore
m.detach_()
print("m:", m.requires_grad, m.is_leaf, m.grad_fn)
# sphinx_gallery_start_ignore
assert not m.requires_grad and m.is_leaf and m.grad_fn is None
after = autograd_graph({"x": x, "m": m, "y": y}, cuts=[(m_grad_fn, "m", "detach_()")])
fig = draw_graphs(before, after, titles=["m = x * 2; y = m * 3", "m.detach_()"])
# sphinx_gallery_end_ignore

# %%
# ``y`` was recorded before the cut, so its gradient still reaches ``x``.
# ``m * 3`` saved only the factor ``3``, not ``m``.
print(y.grad_fn.name(), y.grad_fn._saved_other, y.grad_fn._saved_self)
y.sum().backward()
print(x.grad)
# sphinx_gallery_start_ignore
assert y.grad_fn._saved_self is None
assert torch.equal(x.grad, torch.full((2,), 6.0))
# sphinx_gallery_end_ignore

# %%
# ``h * h`` saves both of its inputs, which are ``h``, and after ``h.detach_()`` its
# backward pass refuses to use them. How a leaf differs, and when no error is raised,
# is explained in :doc:`/explanation/detach_`.
w = torch.tensor([1.0, 2.0], requires_grad=True)
h = w * 2
p = h * h
h.detach_()
try:
    p.sum().backward()
    # sphinx_gallery_start_ignore
    not_raised(RuntimeError)
    # sphinx_gallery_end_ignore
except RuntimeError as err:
    print(f"RuntimeError: {err}")
    # sphinx_gallery_start_ignore
    caught(
        err,
        RuntimeError,
        "Trying to use a saved tensor that has been detached in-place, i.e. with "
        ".detach_().This is not supported, please use out-of-place `.detach()` instead",
    )
    # sphinx_gallery_end_ignore

# %%
# What is computed from ``m`` from now on has no graph behind it.
z = m * 3
print("z:", z.requires_grad, z.grad_fn)
try:
    z.sum().backward()
    # sphinx_gallery_start_ignore
    not_raised(RuntimeError)
    # sphinx_gallery_end_ignore
except RuntimeError as err:
    print(f"RuntimeError: {err}")
    # sphinx_gallery_start_ignore
    caught(
        err,
        RuntimeError,
        "element 0 of tensors does not require grad and does not have a grad_fn",
    )
    # sphinx_gallery_end_ignore
