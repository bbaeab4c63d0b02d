"""
detach_() refuses views
=======================

A view shares its base's memory and version counter, and has a node of its own in
the graph (``SliceBackward0`` here). ``detach_()`` refuses to detach it in place;
``detach()`` on the same view works: it returns a new tensor and leaves the view
alone.
"""

# %%
import torch

# sphinx_gallery_start_ignore
from gradcut.claims.expect import caught, not_raised

# sphinx_gallery_end_ignore
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = (x * 2)[:2]
print("v:", v._is_view(), v.requires_grad, v.grad_fn.name())
# sphinx_gallery_start_ignore
assert v._is_view() and v.requires_grad
# sphinx_gallery_end_ignore

# %%
try:
    v.detach_()
    # sphinx_gallery_start_ignore
    not_raised(RuntimeError)
    # sphinx_gallery_end_ignore
except RuntimeError as err:
    print(f"RuntimeError: {err}")
    # sphinx_gallery_start_ignore
    caught(
        err,
        RuntimeError,
        "Can't detach views in-place. Use detach() instead. If you are using "
        "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
        "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
        "called on these gradients. To fix this error, please refer to the "
        "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.",
    )
    # sphinx_gallery_end_ignore
print("v:", v._is_view(), v.requires_grad, v.grad_fn.name())
# sphinx_gallery_start_ignore
assert v.requires_grad and v.grad_fn.name() == "SliceBackward0"
# sphinx_gallery_end_ignore

# %%
d = v.detach()
print("d:", d.requires_grad, d.grad_fn)
print("v:", v.requires_grad, v.grad_fn.name())
# sphinx_gallery_start_ignore
assert d is not v and not d.requires_grad and d.grad_fn is None and v.requires_grad
# sphinx_gallery_end_ignore
