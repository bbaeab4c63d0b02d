"""
.data hides in-place changes
============================

``out.data`` is the same memory as ``out`` but has a version counter of its own.
Changed in place, it leaves ``out._version`` at 0, so autograd cannot tell that the
saved result changed: backward runs and returns a wrong gradient, without a word.
"""

# %%
import torch

# sphinx_gallery_start_ignore
from gradcut.claims.draw import MemoryLog

log = MemoryLog()
# sphinx_gallery_end_ignore
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.data
same_memory = c.untyped_storage().data_ptr() == out.untyped_storage().data_ptr()
print("same_memory =", same_memory)
# sphinx_gallery_start_ignore
assert c.untyped_storage().data_ptr() == out.untyped_storage().data_ptr()
log.record("c = out.data", out=out, c=c)
# sphinx_gallery_end_ignore

# %%
# One memory, two version counters: only ``c._version`` moves.
c.zero_()
print(c)
print(out)
print("out._version:", out._version, " c._version:", c._version)
# sphinx_gallery_start_ignore
assert (out._version, c._version) == (0, 1)
log.record("c.zero_()")
fig = log.draw()
# sphinx_gallery_end_ignore

# %%
# Backward multiplies by the zeroed result, so the gradient comes out as zeros.
out.sum().backward()
print(a.grad)
# sphinx_gallery_start_ignore
assert torch.equal(a.grad, torch.zeros(3))
# sphinx_gallery_end_ignore

# %%
# The right gradient, from a fresh graph, for comparison:
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b.sigmoid().sum().backward()
print(b.grad)
# sphinx_gallery_start_ignore
s = b.detach().sigmoid()
assert torch.allclose(b.grad, s * (1 - s)) and not torch.allclose(a.grad, b.grad)
# sphinx_gallery_end_ignore
