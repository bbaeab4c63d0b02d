"""
detach() shares storage
=======================

A detached tensor is a new tensor object on the same memory: changing one in place
changes the other.
"""

# %%
# Build a small graph and detach its output.
import torch

from gradcut import describe, expect_error, same_storage

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
print(describe(out))
print(describe(c))
print("same storage:", same_storage(out, c))

# %%
# The detached tensor has no graph behind it, so calling backward on it fails.
with expect_error(
    RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn"
):
    c.sum().backward()
