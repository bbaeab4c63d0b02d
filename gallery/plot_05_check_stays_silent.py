"""
When the check stays silent
===========================

A widely read blog article says that changing the result of ``detach()`` in place
makes the next backward pass raise. It raises when the change reaches a tensor saved
for backward, whether the operation that produced it saved it (the sigmoid of the
previous example keeps its result) or an operation that used it did:
:ref:`which tensors are saved <saving-rule>`. It does so only when the change is made by
an operation that moves the version counter (``apply_()`` does not:
:ref:`sweep-inplace-forms`) and the graph was recorded without saved-tensor hooks (under
``save_on_cpu()`` the same change raises nothing: :ref:`sweep-blind-spots`). Here ``out`` is made by ``a * 2``, which
keeps only the factor ``2``, and then only summed, and the sum keeps only its shape:
backward runs, and the gradient is right, because the backward pass does not read
``out``.
"""

# %%
import torch

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph, draw_graphs
from gradcut.claims.expect import caught, not_raised

# sphinx_gallery_end_ignore
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a * 2
loss = out.sum()
c = out.detach()
c.zero_()
print(out)
print("out._version:", out._version)
# sphinx_gallery_start_ignore
assert out._version == 1 and torch.equal(out, torch.zeros(3))
# sphinx_gallery_end_ignore

# %%
# The version counter saw the change; autograd compares it with the versions of the
# tensors it saved, and ``out`` is not one of them. ``MulBackward0`` saved the factor
# ``2`` (``_saved_other``), ``SumBackward0`` the shape of ``out``.
print(loss.grad_fn.name(), loss.grad_fn._saved_self_sym_sizes)
print(out.grad_fn.name(), out.grad_fn._saved_other)
# sphinx_gallery_start_ignore
assert loss.grad_fn._saved_self_sym_sizes == (3,)
assert torch.equal(out.grad_fn._saved_other, torch.tensor(2))
fig = draw_graphs(
    autograd_graph({"a": a, "out": out, "c": c, "loss": loss}, cuts=[("out", "c")]),
    titles=["out = a * 2; loss = out.sum(); c = out.detach(); c.zero_()"],
)
# sphinx_gallery_end_ignore

# %%
# The derivative of ``a * 2`` is ``2`` whatever ``out`` holds: no error, and the
# right gradient.
loss.backward()
print(a.grad)
# sphinx_gallery_start_ignore
assert torch.equal(a.grad, torch.full((3,), 2.0))
# sphinx_gallery_end_ignore

# %%
# The same change raises as soon as an operation that used ``out`` saved it:
# ``out * out`` keeps both of its inputs for backward.
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = b * 2
loss = (out * out).sum()
out.detach().zero_()
try:
    loss.backward()
    # sphinx_gallery_start_ignore
    not_raised(RuntimeError)
    # sphinx_gallery_end_ignore
except RuntimeError as err:
    print(f"RuntimeError: {err}")
    # sphinx_gallery_start_ignore
    caught(
        err,
        RuntimeError,
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [torch.FloatTensor [3]], which is output 0 of Mul, "
        "is at version 1; expected version 0 instead. Hint: enable anomaly detection to "
        "find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).",
    )
    # sphinx_gallery_end_ignore
