"""
No backward from a detached tensor
==================================

A tensor returned by ``detach()`` has no ``grad_fn`` and does not require grad:
there is no graph behind it to run backward through, and autograd says so.
"""

# %%
import torch

# sphinx_gallery_start_ignore
from gradcut.claims.expect import caught, not_raised

# sphinx_gallery_end_ignore
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
print(c.requires_grad, c.grad_fn)
# sphinx_gallery_start_ignore
assert not c.requires_grad and c.grad_fn is None
# sphinx_gallery_end_ignore

# %%
# Backward from ``c.sum()``, computed from ``c`` alone, fails, and ``a`` gets no
# gradient.
try:
    c.sum().backward()
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
print(a.grad)
# sphinx_gallery_start_ignore
assert a.grad is None
# sphinx_gallery_end_ignore
