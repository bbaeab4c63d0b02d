"""
Backward needs a graph
======================

A detached tensor has no graph behind it.
"""

# %%
import torch

from gradcut.claims import expect_error

c = torch.ones(2, requires_grad=True).detach()
with expect_error(
    RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn"
):
    c.sum().backward()
