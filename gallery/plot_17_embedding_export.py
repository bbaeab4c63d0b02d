"""
Exporting embeddings
====================

Embedding vectors exported with ``weight.detach()`` are still the model's memory.
Post-processing them in place, such as normalising, silently edits the model; a
copy, ``detach().clone()``, is safe to change.
"""

# %%
# Train a small embedding table so that token pairs (0, 1), (2, 3), (4, 5) end up
# close together.
import torch
from torch import nn

from gradcut import describe
from gradcut.draw import MemoryLog

torch.manual_seed(0)
emb = nn.Embedding(6, 3)
opt = torch.optim.SGD(emb.parameters(), lr=0.1)
pairs = torch.tensor([[0, 1], [2, 3], [4, 5]])
for _ in range(50):
    left, right = emb(pairs[:, 0]), emb(pairs[:, 1])
    loss = ((left - right) ** 2).sum(dim=1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"loss {loss.item():.4f}")

# %%
# Without ``detach()`` the export drags autograd along; with it, no graph.
print("weight:          ", describe(emb.weight))
print("weight * 1:      ", describe(emb.weight * 1))
exported = emb.weight.detach()
print("weight.detach(): ", describe(exported))

# %%
# Normalising the export in place normalises the model's own weights; normalising a
# copy leaves them alone. The table follows the memory and the version counters.
log = MemoryLog()
before = emb.weight.detach().clone()
log.record("exported = emb.weight.detach()", weight=emb.weight, exported=exported)
exported.div_(exported.norm(dim=1, keepdim=True))
log.record("exported.div_(norms)")
changed = not torch.equal(emb.weight, before)
print("model changed by exported.div_():", changed)
assert changed

with torch.no_grad():
    emb.weight.copy_(before)
log.record("emb.weight.copy_(before)")
copy = emb.weight.detach().clone()
log.record("copy = emb.weight.detach().clone()", copy=copy)
copy.div_(copy.norm(dim=1, keepdim=True))
log.record("copy.div_(norms)")
changed = not torch.equal(emb.weight, before)
print("model changed by copy.div_():", changed)
assert not changed
fig = log.draw()

# %%
# The normalised copy is ready for nearest-neighbour search: each token is closest to
# its pair.
print(copy @ copy.T)
