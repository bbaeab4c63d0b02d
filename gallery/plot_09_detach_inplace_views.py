"""
detach_() refuses views
=======================

A view shares its graph history with its base, so it cannot be detached in place.
``detach()`` on the same view works: it returns a new tensor and leaves the view
alone.
"""

# %%
import torch

from gradcut import describe, expect_error

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = (x * 2)[:2]
print("v:", describe(v))

# %%
with expect_error(
    RuntimeError,
    "Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
    "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
    "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
    "function in torch/optim/optimizer.py as the solution.",
):
    v.detach_()
print("v:", describe(v))

# %%
d = v.detach()
print("d:", describe(d))
