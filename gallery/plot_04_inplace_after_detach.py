"""
In-place change after detach()
==============================

``c = out.detach()`` shares memory *and the version counter* with ``out``.
Changing ``c`` in place moves ``out._version`` too; the sigmoid saved ``out`` for
backward at version 0, so the backward pass refuses the changed values.
"""

# %%
import torch

# sphinx_gallery_start_ignore
from gradcut.claims.draw import MemoryLog, autograd_graph, draw_graphs
from gradcut.claims.expect import caught, not_raised

log = MemoryLog()
# sphinx_gallery_end_ignore
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
print(out._version, c._version)
# sphinx_gallery_start_ignore
log.record("c = out.detach()", out=out, c=c)
# sphinx_gallery_end_ignore

# %%
# One memory, one version counter: ``zero_()`` on ``c`` moves both versions.
c.zero_()
print(c)
print(out)
print(out._version, c._version)
# sphinx_gallery_start_ignore
assert out._version == c._version == 1
log.record("c.zero_()")
fig = log.draw()
# sphinx_gallery_end_ignore

# %%
# The graph still holds the sigmoid's result, saved at version 0 and now at
# version 1.
print(out.grad_fn.name(), out._version)
# sphinx_gallery_start_ignore
fig = draw_graphs(
    autograd_graph({"a": a, "out": out, "c": c}, cuts=[("out", "c")]),
    titles=["c = out.detach(); c.zero_()"],
)
# sphinx_gallery_end_ignore
# sphinx_gallery_thumbnail_number = 2

# %%
# So backward stops with an error instead of computing a wrong gradient.
try:
    out.sum().backward()
    # sphinx_gallery_start_ignore
    not_raised(RuntimeError)
    # sphinx_gallery_end_ignore
except RuntimeError as err:
    print(f"RuntimeError: {err}")
    # sphinx_gallery_start_ignore
    caught(
        err,
        RuntimeError,
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [torch.FloatTensor [3]], which is output 0 of Sigmoid, "
        "is at version 1; expected version 0 instead. Hint: enable anomaly detection to "
        "find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).",
    )
    # sphinx_gallery_end_ignore
print(a.grad)
# sphinx_gallery_start_ignore
assert a.grad is None
# sphinx_gallery_end_ignore
