"""
Converting to NumPy safely
==========================

``.numpy()`` refuses a tensor that requires grad, unless gradient recording is off,
as inside ``torch.no_grad()`` (see
:ref:`What each grad-mode context allows <sweep-contexts>`). ``.detach().numpy()``
works, but the array is the tensor's memory, not a copy: later in-place changes to the
tensor, such as the optimiser steps below, show up in the array.
"""

# %%
import numpy as np
import torch
from torch import nn

# sphinx_gallery_start_ignore
from gradcut.claims.expect import caught, not_raised

# sphinx_gallery_end_ignore
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
try:
    w.numpy()
    # sphinx_gallery_start_ignore
    not_raised(RuntimeError)
    # sphinx_gallery_end_ignore
except RuntimeError as err:
    print(f"RuntimeError: {err}")
    # sphinx_gallery_start_ignore
    caught(
        err,
        RuntimeError,
        "Can't call numpy() on Tensor that requires grad. "
        "Use tensor.detach().numpy() instead.",
    )
    # sphinx_gallery_end_ignore
with torch.no_grad():
    print("w.numpy() =", w.numpy())

# %%
# The detached array and the tensor are one memory. Writing through NumPy changes
# the tensor, and autograd's version counter does not see it (the row
# ``s.detach().numpy()[:] = 0`` of
# :ref:`Wrong gradient, no error: the blind spots of the version check <sweep-blind-spots>`
# shows the wrong gradient that follows).
arr = w.detach().numpy()
arr[0] = 100.0
print(w)
print("w._version:", w._version)
# sphinx_gallery_start_ignore
assert w[0].item() == 100.0 and w._version == 0
# sphinx_gallery_end_ignore

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
    print("np.concatenate(views):\n", np.concatenate(views))
    print("np.concatenate(copies):\n", np.concatenate(copies))
# sphinx_gallery_start_ignore
assert all(np.shares_memory(v, views[-1]) for v in views)
assert not any(np.shares_memory(c, views[-1]) for c in copies)
assert not np.array_equal(copies[0], copies[-1])
assert not np.shares_memory(np.array(views[-1]), views[-1])
# sphinx_gallery_end_ignore

# %%
# ``numpy(force=True)`` does the ``detach()`` for you; on this ``float32`` CPU
# tensor it does not copy either.
snapshot = model.weight.numpy(force=True)
print("np.shares_memory(snapshot, views[0]) =", np.shares_memory(snapshot, views[0]))
# sphinx_gallery_start_ignore
assert np.shares_memory(snapshot, views[0])
# sphinx_gallery_end_ignore

# %%
# It copies when it must. ``conj()`` of a complex tensor only sets a flag, the
# conjugate bit, which ``.numpy()`` refuses; ``numpy(force=True)`` writes the
# conjugate into new memory.
base = torch.tensor([1.0 + 2.0j, 3.0 - 1.0j])
z = base.conj()
print(z.is_conj())
try:
    z.numpy()
    # sphinx_gallery_start_ignore
    not_raised(RuntimeError)
    # sphinx_gallery_end_ignore
except RuntimeError as err:
    print(f"RuntimeError: {err}")
    # sphinx_gallery_start_ignore
    caught(
        err,
        RuntimeError,
        "Can't call numpy() on Tensor that has conjugate bit set. "
        "Use tensor.resolve_conj().numpy() instead.",
    )
    # sphinx_gallery_end_ignore
conjugate = z.numpy(force=True)
print(conjugate)
print("np.shares_memory(conjugate, base.numpy()) =", np.shares_memory(conjugate, base.numpy()))
# sphinx_gallery_start_ignore
assert z.is_conj() and not np.shares_memory(conjugate, base.numpy())
assert np.array_equal(conjugate, np.conj(base.numpy()))
# sphinx_gallery_end_ignore

# %%
# ``bfloat16``, a type NumPy does not have, it cannot convert at all: convert the
# tensor to ``float32`` first.
half = torch.tensor([1.5, 2.5], dtype=torch.bfloat16)
try:
    half.numpy(force=True)
    # sphinx_gallery_start_ignore
    not_raised(TypeError)
    # sphinx_gallery_end_ignore
except TypeError as err:
    print(f"TypeError: {err}")
    # sphinx_gallery_start_ignore
    caught(err, TypeError, "Got unsupported ScalarType BFloat16")
    # sphinx_gallery_end_ignore
print(half.float().numpy())
