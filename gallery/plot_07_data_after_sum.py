"""
When .data happens to be harmless
=================================

If ``.data`` is taken from ``a.sigmoid().sum()`` instead, zeroing it leaves the
gradient right. ``SumBackward0`` saves only the shape of its input, nothing else uses
``out``, and the saved sigmoid result is untouched: the value of ``out`` is wrong, the
gradient of ``a`` is not. Had an operation that used ``out`` saved it, as ``out * out``
does, the same change would give a wrong gradient: :ref:`shown here <data-no-harm>`.
"""

# %%
import torch

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph, draw_graphs

# sphinx_gallery_end_ignore
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid().sum()
c = out.data
c.zero_()
print(out)
# sphinx_gallery_start_ignore
assert out.item() == 0.0
# sphinx_gallery_end_ignore

# %%
# The sigmoid's result is the tensor saved here, and ``c`` does not share its memory.
sigmoid_node = out.grad_fn.next_functions[0][0]
print(out.grad_fn.name(), out.grad_fn._saved_self_sym_sizes)
print(sigmoid_node.name(), sigmoid_node._saved_result)
saved = sigmoid_node._saved_result
same_memory = c.untyped_storage().data_ptr() == saved.untyped_storage().data_ptr()
print("same_memory =", same_memory)
# sphinx_gallery_start_ignore
assert out.grad_fn.name() == "SumBackward0" and sigmoid_node.name() == "SigmoidBackward0"
assert c.untyped_storage().data_ptr() != sigmoid_node._saved_result.untyped_storage().data_ptr()
fig = draw_graphs(autograd_graph({"a": a, "out": out}), titles=["out = a.sigmoid().sum()"])
# sphinx_gallery_end_ignore

# %%
# The gradient is the sigmoid's derivative, as if nothing had been zeroed.
out.backward()
print(a.grad)
s = a.detach().sigmoid()
print(torch.allclose(a.grad, s * (1 - s)))
# sphinx_gallery_start_ignore
assert torch.allclose(a.grad, s * (1 - s))
# sphinx_gallery_end_ignore
