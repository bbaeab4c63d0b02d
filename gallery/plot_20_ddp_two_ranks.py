"""
DistributedDataParallel on two CPU processes: detach, freezing, .data and no_sync
=================================================================================

What a ``detach()`` or a layer frozen after wrapping does to DistributedDataParallel
(DDP) when two processes train together, what writing ``.data`` on one of them does to
the replicas, how ``no_sync()`` accumulates, and the ``detach_()`` error of gradients
kept in DDP's buckets, with the numbers of both processes. :doc:`/howto/ddp` shows the
same errors in one process, and why they happen.

The example starts two Python processes, rank 0 and rank 1, on this machine, with the
``gloo`` backend, which runs on the CPU. They find each other through a file in a
temporary folder (``init_method="file://..."``), so no port is opened for that; gloo's
own connections stay on the loopback interface (``GLOO_SOCKET_IFNAME=lo``, that is
127.0.0.1; on macOS the interface is called ``lo0``). Every wait is bounded: the process
group's operations time out after ``TIMEOUT`` seconds, and the launcher stops ranks
that are still running after that.
"""

# %%
# The code each rank runs
# -----------------------
#
# Each rank runs the same script, below, as a string that the launcher writes to a file.
# A rank trains on its own half of a batch of four rows; rank 0 prints what both ranks
# computed, gathered with ``all_gather`` (``show``), and the code both run next
# (``run``). The model has two heads that read the same input, and head ``b``'s output
# is detached, so ``b`` gets no gradient. Every rank builds the model from the same seed, except in ``data``, where each starts from
# its own. ``reference`` computes, in one process, the gradient of the whole batch with
# the loss divided by the number of ranks: what DDP's average should equal. Each of the
# six cases is a function; the script runs those named on its command line, in order,
# and ``TIMEOUT`` (seconds) bounds every collective operation. At the end it collects
# the DDP objects the cases left behind before it destroys the process group: freed
# after it, one can hang the process (:doc:`/howto/ddp` shows the order).
import os
import subprocess
import sys
import tempfile

# sphinx_gallery_start_ignore
import re

# sphinx_gallery_end_ignore
TIMEOUT = 60

RANK_CODE = r'''
import datetime
import gc
import os
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

RANK, WORLD_SIZE = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])


def show(name, t):
    values = [torch.empty_like(t) for _ in range(WORLD_SIZE)]
    dist.all_gather(values, t.contiguous())
    if RANK == 0:
        for rank, v in enumerate(values):
            print(f"rank {rank}: {name} = {[round(x, 4) for x in v.flatten().tolist()]}")


def run(code):
    if RANK == 0:
        print("#", code)


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 1)
        self.b = nn.Linear(3, 1)

    def forward(self, x):
        return self.a(x) + self.b(x).detach()


def model():
    torch.manual_seed(0)
    return TwoHeads()


def batch():
    return torch.randn(4, 3, generator=torch.Generator().manual_seed(1))


def my_half():
    return batch().chunk(WORLD_SIZE)[RANK]


def reference(steps=1):
    net = model()
    for _ in range(steps):
        net(batch()).sum().div(WORLD_SIZE).backward()
    return net.a.weight.grad


def unused():
    ddp = DDP(model())
    for step in (1, 2):
        try:
            ddp(my_half()).sum().backward()
            report = f"rank {RANK}, step {step}: backward() -> None"
        except RuntimeError as err:
            lines = str(err).splitlines()
            which = next(line for line in lines if "did not receive grad" in line)
            report = f"rank {RANK}, step {step}: {lines[0][:60]}...\n  {which}"
        reports = [None] * WORLD_SIZE
        dist.all_gather_object(reports, report)
        if RANK == 0:
            print(*reports, sep="\n")


def find_unused():
    ddp = DDP(model(), find_unused_parameters=True)
    for _ in range(2):
        ddp.zero_grad()
        ddp(my_half()).sum().backward()
    show("a.weight.grad", ddp.module.a.weight.grad)
    if RANK == 0:
        print("reference() =", [round(v, 4) for v in reference().flatten().tolist()])
        print("allclose:", torch.allclose(ddp.module.a.weight.grad, reference()))
        print("b.weight.grad:", ddp.module.b.weight.grad)


def freeze_before():
    net = model()
    net.b.requires_grad_(False)
    ddp = DDP(net)
    for _ in range(2):
        net.zero_grad()
        ddp(my_half()).sum().backward()
    show("a.weight.grad", net.a.weight.grad)
    if RANK == 0:
        print("allclose:", torch.allclose(net.a.weight.grad, reference()))


def data():
    torch.manual_seed(RANK)
    net = TwoHeads()
    net.b.requires_grad_(False)
    show("a.weight", net.a.weight.detach())
    run("ddp = DDP(net)")
    ddp = DDP(net)
    show("a.weight", net.a.weight.detach())
    run("if RANK == 0: net.a.weight.data = torch.zeros_like(net.a.weight)")
    if RANK == 0:
        net.a.weight.data = torch.zeros_like(net.a.weight)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    run("for _ in range(2): opt.zero_grad(); ddp(my_half()).sum().backward(); opt.step()")
    for _ in range(2):
        opt.zero_grad()
        ddp(my_half()).sum().backward()
        opt.step()
    show("a.weight.grad", net.a.weight.grad)
    show("a.weight", net.a.weight.detach())


def no_sync():
    net = model()
    ddp = DDP(net, find_unused_parameters=True)
    run("with ddp.no_sync(): ddp(my_half()).sum().backward()")
    with ddp.no_sync():
        ddp(my_half()).sum().backward()
    show("a.weight.grad", net.a.weight.grad)
    run("ddp(my_half()).sum().backward()")
    ddp(my_half()).sum().backward()
    show("a.weight.grad", net.a.weight.grad)
    if RANK == 0:
        print("reference(steps=2) =", [round(v, 4) for v in reference(steps=2).flatten().tolist()])
        print("allclose:", torch.allclose(net.a.weight.grad, reference(steps=2)))


def bucket_view():
    net = model()
    net.b.requires_grad_(False)
    ddp = DDP(net, gradient_as_bucket_view=True)
    ddp(my_half()).sum().backward()
    try:
        for p in net.a.parameters():
            p.grad.detach_()
            p.grad.zero_()
    except RuntimeError as err:
        if RANK == 0:
            print(f"RuntimeError: {err}")
    opt = torch.optim.SGD(net.a.parameters(), lr=0.1)
    run("opt.zero_grad(set_to_none=False)")
    opt.zero_grad(set_to_none=False)
    show("a.weight.grad", net.a.weight.grad)


dist.init_process_group(
    "gloo", init_method=os.environ["INIT_METHOD"], rank=RANK, world_size=WORLD_SIZE,
    timeout=datetime.timedelta(seconds=int(os.environ["TIMEOUT"])),
)
try:
    for name in sys.argv[1:]:
        if RANK == 0:
            print(f"== {name}")
        globals()[name]()
        dist.barrier()
finally:
    gc.collect()
    dist.destroy_process_group()
'''

# %%
# The launcher
# ------------
#
# It writes the script into a temporary folder, starts two copies of it with the
# current Python, and returns what rank 0 printed, one part per case. The rendezvous
# file lives in the same folder, which is deleted at the end. It waits ``TIMEOUT``
# seconds for each rank; on a timeout, an error or an interrupt, it stops the ranks
# still running, so that none is left behind.


def launch(cases, world_size=2):
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "rank.py")
        with open(script, "w") as fh:
            fh.write(RANK_CODE)
        env = dict(os.environ, INIT_METHOD=f"file://{folder}/rendezvous",
                   WORLD_SIZE=str(world_size), TIMEOUT=str(TIMEOUT),
                   GLOO_SOCKET_IFNAME=os.environ.get("GLOO_SOCKET_IFNAME", "lo"))
        ranks = [
            subprocess.Popen([sys.executable, script, *cases], env=dict(env, RANK=str(rank)),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for rank in range(world_size)
        ]
        try:
            outputs = [rank.communicate(timeout=TIMEOUT) for rank in ranks]
        finally:
            for rank in ranks:
                rank.kill()
                rank.wait()
    failed = [(i, err) for i, (rank, (_, err)) in enumerate(zip(ranks, outputs)) if rank.returncode]
    if failed:
        raise RuntimeError(f"rank {failed[0][0]} failed:\n{failed[0][1]}")
    printed, name = {}, None
    for line in outputs[0][0].splitlines(keepends=True):
        if line.startswith("== "):
            name = line.removeprefix("== ").strip()
            printed[name] = ""
        else:
            printed[name] += line
    return printed


printed = launch(["unused", "find_unused", "freeze_before", "data", "no_sync", "bucket_view"])
# sphinx_gallery_start_ignore
assert sorted(printed) == sorted(
    ["unused", "find_unused", "freeze_before", "data", "no_sync", "bucket_view"]
), printed
# sphinx_gallery_end_ignore

# %%
# A detached head, without ``find_unused_parameters``
# ---------------------------------------------------
#
# Head ``b`` takes part in the forward pass but gets no gradient. The first iteration
# runs on both ranks; in the second, both fail, in the forward pass, each naming the
# same parameters: indices 2 and 3 are ``b.weight`` and ``b.bias``.
print(printed["unused"], end="")
# sphinx_gallery_start_ignore
unused_lines = printed["unused"].splitlines()
assert unused_lines[:2] == ["rank 0, step 1: backward() -> None", "rank 1, step 1: backward() -> None"]
for rank in (0, 1):
    assert (
        f"rank {rank}, step 2: Expected to have finished reduction in the prior "
        f"iteration b...\n  Parameter indices which did not receive grad for rank {rank}: 2 3"
    ) in printed["unused"], printed["unused"]
# sphinx_gallery_end_ignore

# %%
# The two fixes
# -------------
#
# With ``find_unused_parameters=True``, or with head ``b`` frozen before wrapping, two
# iterations run, and both ranks end with the same gradient for head ``a``: the average
# of their two halves, which equals the gradient of the summed loss over the whole batch,
# divided by the number of ranks, in a single process (``reference()`` above).
print(printed["find_unused"], end="")
print(printed["freeze_before"], end="")
# sphinx_gallery_start_ignore
for case in ("find_unused", "freeze_before"):
    grads = re.findall(r"rank \d: a\.weight\.grad = (\[.*\])", printed[case])
    assert len(grads) == 2 and grads[0] == grads[1], printed[case]
    assert "allclose: True" in printed[case], printed[case]
assert "b.weight.grad: None" in printed["find_unused"]
# sphinx_gallery_end_ignore

# %%
# ``.data`` changes one replica behind DDP's back
# -----------------------------------------------
#
# Each rank starts from different weights; DDP copies rank 0's to rank 1 when it is
# constructed. After that, rank 0 overwrites a weight through ``.data``. Nothing copies
# it to rank 1 and nothing raises: two optimizer steps later both ranks have the same
# averaged gradient (in this linear model it does not depend on the weights) and
# different weights.
print(printed["data"], end="")
# sphinx_gallery_start_ignore
# the value of each rank at each stage: before DDP, after it, the gradient, after the steps
stages = [
    re.findall(r"^rank \d: a\.weight(?:\.grad)? = (\[.*\])$", part, re.M)
    for part in printed["data"].split("# ")
]
before, after, (grad_0, grad_1, *stepped) = stages[0], stages[1], stages[3]
assert len(before) == len(after) == len(stepped) == 2, printed["data"]
assert before[0] != before[1] and after[0] == after[1] == before[0], printed["data"]
assert grad_0 == grad_1 and stepped[0] != stepped[1], printed["data"]
# sphinx_gallery_end_ignore

# %%
# ``no_sync()``: gradients stay local until the next synchronized backward
# ------------------------------------------------------------------------
#
# Inside ``with ddp.no_sync():``, ``backward()`` accumulates each rank's own gradient and
# averages nothing. The next ``backward()`` outside it averages the accumulated sums;
# the result equals two accumulated steps of a single process on the whole batch, with
# the summed loss divided by the number of ranks (``reference(steps=2)`` above).
print(printed["no_sync"], end="")
# sphinx_gallery_start_ignore
inside, after = (
    re.findall(r"^rank \d: a\.weight\.grad = (\[.*\])$", part, re.M) for part in printed["no_sync"].split("# ")[1:]
)
assert len(inside) == 2 and inside[0] != inside[1], printed["no_sync"]
assert len(after) == 2 and after[0] == after[1], printed["no_sync"]
assert "allclose: True" in printed["no_sync"]
# sphinx_gallery_end_ignore

# %%
# Gradients kept in DDP's buckets
# -------------------------------
#
# With ``gradient_as_bucket_view=True``, each ``.grad`` is a view into one of DDP's flat
# communication buffers, and ``p.grad.detach_()``, as some hand-written ``zero_grad``
# code does, fails with the message of :doc:`/troubleshooting/detach-views-in-place`. The
# optimizer's ``zero_grad(set_to_none=False)`` clears them on both ranks.
print(printed["bucket_view"], end="")
# sphinx_gallery_start_ignore
assert printed["bucket_view"].splitlines()[0] == (
    "RuntimeError: Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
    "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
    "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
    "function in torch/optim/optimizer.py as the solution."
), printed["bucket_view"]
assert printed["bucket_view"].splitlines()[1:] == [
    "# opt.zero_grad(set_to_none=False)",
    "rank 0: a.weight.grad = [0.0, 0.0, 0.0]",
    "rank 1: a.weight.grad = [0.0, 0.0, 0.0]",
], printed["bucket_view"]
# sphinx_gallery_end_ignore
