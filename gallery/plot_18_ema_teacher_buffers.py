"""
An EMA teacher and the running statistics of batch norm
=======================================================

A teacher that follows the student as an exponential moving average of its
*parameters* misses batch norm's *buffers*: the running mean and variance are not
parameters, so a loop over ``parameters()`` never updates them. Here the inputs are far
from zero mean, and three teachers follow one student: one averages the parameters
only, one also copies the buffers, and ``AveragedModel`` with ``use_buffers=True``
averages both. :doc:`/howto/teacher-ema` has the details.
"""

# %%
import copy

import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.optim.swa_utils import AveragedModel

torch.manual_seed(0)
student = nn.Sequential(nn.Linear(2, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 1))
params_only = copy.deepcopy(student).requires_grad_(False)
with_buffers = copy.deepcopy(student).requires_grad_(False)
tau = 0.9
averaged = AveragedModel(student, avg_fn=lambda avg, new, n: tau * avg + (1 - tau) * new,
                         use_buffers=True)
opt = torch.optim.SGD(student.parameters(), lr=0.05)


@torch.no_grad()
def ema_update(teacher, student, buffers):
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.lerp_(s, 1 - tau)
    if buffers:
        for t, s in zip(teacher.buffers(), student.buffers()):
            t.copy_(s)


def batch():
    x = torch.randn(32, 2) * 2 + 3
    return x, x.sum(dim=1, keepdim=True)


# %%
# A hundred training steps. After each, the three teachers are updated, and the first
# channel of each running mean is recorded.
history = {"student": [], "params_only": [], "with_buffers": [], "averaged.module": []}
for step in range(100):
    x, y = batch()
    loss = nn.functional.mse_loss(student(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema_update(params_only, student, buffers=False)
    ema_update(with_buffers, student, buffers=True)
    averaged.update_parameters(student)
    for name, model in zip(history, (student, params_only, with_buffers, averaged.module)):
        history[name].append(model[1].running_mean[0].item())

print("model[1].running_mean[0]:")
for name, values in history.items():
    print(f"  {name:15} {values[-1]:6.3f}")
# sphinx_gallery_start_ignore
assert all(v == 0.0 for v in history["params_only"])
assert history["with_buffers"] == history["student"]
assert history["averaged.module"][10] < history["student"][10]
# sphinx_gallery_end_ignore

# %%
# The teacher that averages parameters only keeps the running mean it was created with:
# zero. The copied buffers follow the student exactly (the dashed line on the grey one);
# the averaged ones lag behind it, like the averaged parameters. Along the horizontal
# axis, ``step`` counts the training steps.
fig, ax = plt.subplots(figsize=(6, 3.5))
styles = {"student": dict(color="0.7", linewidth=5), "with_buffers": dict(linestyle="--")}
for name, values in history.items():
    ax.plot(values, label=name, **styles.get(name, {}))
ax.set_title("model[1].running_mean[0]")
ax.set_xlabel("step")
ax.legend()
fig.tight_layout()

# %%
# In evaluation mode batch norm normalises with those running statistics. On a new
# batch from the same data, the stale teacher's error is far larger than the others':
x, y = batch()
errors = {}
with torch.no_grad():
    for name, model in zip(history, (student, params_only, with_buffers, averaged.module)):
        model.eval()
        errors[name] = nn.functional.mse_loss(model(x), y).item()
print("nn.functional.mse_loss(model(x), y):")
for name, error in errors.items():
    print(f"  {name:15} {error:6.3f}")
# sphinx_gallery_start_ignore
assert errors["params_only"] > 2 * max(
    errors["student"], errors["with_buffers"], errors["averaged.module"])
# sphinx_gallery_end_ignore
