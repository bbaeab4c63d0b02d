"""
Converting to NumPy safely
==========================

``.numpy()`` refuses a tensor that requires grad. ``.detach().numpy()`` works, but
the array is the tensor's memory, not a copy: every later in-place change to the
tensor, such as an optimiser step, shows up in the array.
"""

# %%
import numpy as np
import torch
from torch import nn

from gradcut import expect_error

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with expect_error(
    RuntimeError,
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
):
    w.numpy()

# %%
# The detached array and the tensor are one memory. Writing through NumPy changes
# the tensor, and autograd's version counter does not see it.
arr = w.detach().numpy()
arr[0] = 100.0
print(w)
print("w._version:", w._version)
assert w[0].item() == 100.0 and w._version == 0

# %%
# In a training loop, a history of ``.detach().numpy()`` snapshots is a list of one
# array: all rows show the final weights. ``.copy()`` (or ``np.array(...)``, which
# copies) keeps each step.
torch.manual_seed(0)
X, y = torch.randn(32, 2), torch.randn(32, 1)
model = nn.Linear(2, 1, bias=False)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
views, copies = [], []
for _ in range(3):
    loss = ((model(X) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    views.append(model.weight.detach().numpy())
    copies.append(model.weight.detach().numpy().copy())
with np.printoptions(precision=4):
    print("views:\n", np.concatenate(views))
    print("copies:\n", np.concatenate(copies))
assert all(np.array_equal(v, views[-1]) for v in views)

# %%
# ``numpy(force=True)`` does the ``detach()`` for you; on the CPU it does not copy
# either.
snapshot = model.weight.numpy(force=True)
print("shares memory:", np.shares_memory(snapshot, views[0]))
assert np.shares_memory(snapshot, views[0])
