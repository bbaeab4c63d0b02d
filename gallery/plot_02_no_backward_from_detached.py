"""
No backward from a detached tensor
==================================

A tensor returned by ``detach()`` has no ``grad_fn`` and does not require grad:
there is no graph behind it to run backward through, and autograd says so.
"""

# %%
import torch

from gradcut import describe, expect_error

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
print(describe(c))

# %%
# Backward from anything computed from ``c`` alone fails, and ``a`` gets no gradient.
with expect_error(
    RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn"
):
    c.sum().backward()
print(a.grad)
assert a.grad is None
