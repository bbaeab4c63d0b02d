"""
.data hides in-place changes
============================

``out.data`` is the same memory as ``out`` but has a version counter of its own.
Changed in place, it leaves ``out._version`` at 0, so autograd cannot tell that the
saved result changed: backward runs and returns a wrong gradient, without a word.
"""

# %%
import torch

from gradcut.draw import MemoryLog

log = MemoryLog()
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.data
log.record("c = out.data", out=out, c=c)
c.zero_()
log.record("c.zero_()")
print(c)
print(out)
assert (out._version, c._version) == (0, 1)

# %%
# One memory, two version counters: only ``c._version`` moves.
fig = log.draw()

# %%
# Backward multiplies by the zeroed result, so every gradient is zero.
out.sum().backward()
print(a.grad)

# %%
# The right gradient, from a fresh graph, for comparison:
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b.sigmoid().sum().backward()
print(b.grad)
assert not torch.allclose(a.grad, b.grad)
