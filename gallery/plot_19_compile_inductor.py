"""
Cutting gradients inside torch.compile, with the default backend
=================================================================

:doc:`/howto/torch-compile` shows what Dynamo does with each way of cutting a gradient
inside a compiled function, with the ``eager`` backend, which runs the captured graphs
with PyTorch's own operations. This example runs the same functions through the default
backend, Inductor, which traces the backward pass too, generates C++ code for the CPU
and compiles it (it needs a C++ compiler, such as ``g++``). It compares its gradients
with those of the ``eager`` backend and of the plain function. It runs on the CPU, in
one process.
"""

# %%
# Eight functions, each cutting the gradient of ``x`` in one way, or, for
# ``numpy_attached``, in a way the plain function refuses: ``x.numpy()`` on a tensor
# that requires grad.
import torch

# sphinx_gallery_start_ignore
import logging

from gradcut.claims.expect import caught, not_raised

# Dynamo logs a warning on standard error for the .item() break; the build's log needs
# no copy of it (a reader running the example sees it).
dynamo_log = logging.getLogger("torch._dynamo")
dynamo_level = dynamo_log.level
dynamo_log.setLevel(logging.ERROR)
# A CUDA build of torch on a machine without CUDA logs "No CUDA runtime is found" when
# Inductor looks for a compiler; the CPU build the site is built with does not.
cpp_extension_log = logging.getLogger("torch.utils.cpp_extension")
cpp_extension_log.setLevel(logging.ERROR)
# The build shows DeprecationWarnings (a plain `python` run does not): Inductor's first
# compile imports a module of torch that warns about torch.jit.
import warnings

warnings.filterwarnings("ignore", message="`torch.jit.script", category=DeprecationWarning)
# sphinx_gallery_end_ignore
x0 = torch.tensor([0.5, 1.0, 2.0])


def detach(x):
    return (x.sin().detach() * x).sum()


def data_read(x):
    return (x.data.sin() * x).sum()


def data_assign(x):
    y = x * 2
    y.data = torch.ones_like(y)
    return (y * x).sum()


def item(x):
    return x.sum() * x.sin().sum().item()


def numpy_detached(x):
    return (x * torch.from_numpy(x.detach().numpy() * 2)).sum()


def numpy_attached(x):
    return (x * torch.from_numpy(x.numpy() * 2)).sum()


def requires_grad_(x):
    c = x.sin().detach().requires_grad_()
    return (c * x).sum()


def no_grad(x):
    with torch.no_grad():
        c = x.sin()
    return (c * x).sum()


def gradient(fn):
    x = x0.clone().requires_grad_()
    fn(x).backward()
    return x.grad


functions = [detach, data_read, data_assign, item, numpy_detached, numpy_attached,
             requires_grad_, no_grad]

# %%
# Each function compiled twice, by Inductor (``torch.compile(fn)``: the default backend)
# and by the ``eager`` backend; the two gradients compared exactly, and Inductor's
# printed.
inductor = {}
for fn in functions:
    torch._dynamo.reset()
    inductor[fn.__name__] = gradient(torch.compile(fn))
    eager = gradient(torch.compile(fn, backend="eager"))
    print(f"{fn.__name__:<15} {torch.equal(inductor[fn.__name__], eager)} "
          f"{inductor[fn.__name__]}")
    # sphinx_gallery_start_ignore
    assert torch.equal(inductor[fn.__name__], eager), fn.__name__
    # sphinx_gallery_end_ignore

# %%
# The plain function gives the same gradient for the seven that it runs. Where
# ``sin(x)`` is cut, the gradient is ``sin(x)``; with ``.item()`` it is the sum of
# ``sin(x)`` in every entry; after ``y.data = ones`` it is ``1 + 2x``; with
# ``x.detach().numpy()`` it is ``2x``.
for fn in functions:
    if fn is numpy_attached:
        continue
    print(f"{fn.__name__:<15} {torch.equal(inductor[fn.__name__], gradient(fn))}")
    # sphinx_gallery_start_ignore
    assert torch.equal(inductor[fn.__name__], gradient(fn)), fn.__name__
    # sphinx_gallery_end_ignore
print("x0.sin():", x0.sin())
print("x0.sin().sum():", x0.sin().sum())
# sphinx_gallery_start_ignore
assert torch.equal(inductor["detach"], x0.sin())
assert torch.equal(inductor["data_assign"], 1 + 2 * x0)
assert torch.equal(inductor["numpy_detached"], 2 * x0)
# sphinx_gallery_end_ignore

# %%
# The plain ``numpy_attached`` refuses ``x.numpy()``; compiled, it runs, and the
# gradient flows through the NumPy calls: ``4x``, the gradient of ``sum(x * 2x)``, not
# the ``2x`` of ``numpy_detached``.
try:
    gradient(numpy_attached)
    # sphinx_gallery_start_ignore
    not_raised(RuntimeError)
    # sphinx_gallery_end_ignore
except RuntimeError as err:
    print(f"RuntimeError: {err}")
    # sphinx_gallery_start_ignore
    caught(
        err,
        RuntimeError,
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
        "instead.",
    )
    # sphinx_gallery_end_ignore
print('inductor["numpy_attached"]:', inductor["numpy_attached"])
print("4 * x0:", 4 * x0)
# sphinx_gallery_start_ignore
assert torch.equal(inductor["numpy_attached"], 4 * x0)
dynamo_log.setLevel(dynamo_level)
cpp_extension_log.setLevel(logging.NOTSET)
# sphinx_gallery_end_ignore
