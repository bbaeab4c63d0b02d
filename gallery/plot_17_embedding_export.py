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

# sphinx_gallery_start_ignore
from gradcut.claims.draw import MemoryLog

# sphinx_gallery_end_ignore
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
print(f"loss = {loss.item():.4f}")

# %%
# Without ``detach()`` the export drags autograd along; with it, no graph.
print("emb.weight:         ", emb.weight.requires_grad, emb.weight.grad_fn)
print("emb.weight * 1:     ", (emb.weight * 1).requires_grad, (emb.weight * 1).grad_fn.name())
exported = emb.weight.detach()
print("emb.weight.detach():", exported.requires_grad, exported.grad_fn)
same_memory = exported.untyped_storage().data_ptr() == emb.weight.untyped_storage().data_ptr()
print("same_memory =", same_memory)
# sphinx_gallery_start_ignore
assert (emb.weight * 1).requires_grad and not exported.requires_grad
assert exported.grad_fn is None
assert exported.untyped_storage().data_ptr() == emb.weight.untyped_storage().data_ptr()
# sphinx_gallery_end_ignore

# %%
# Normalising the export in place normalises the model's own weights; normalising a
# copy leaves them alone. The table follows the memory and the version counters.

# sphinx_gallery_start_ignore
log = MemoryLog()
log.record("exported = emb.weight.detach()", weight=emb.weight, exported=exported)
# sphinx_gallery_end_ignore
before = emb.weight.detach().clone()
exported.div_(exported.norm(dim=1, keepdim=True))
# sphinx_gallery_start_ignore
log.record("exported.div_(norms)")
# sphinx_gallery_end_ignore
changed = not torch.equal(emb.weight, before)
print("changed =", changed)
# sphinx_gallery_start_ignore
assert changed
# sphinx_gallery_end_ignore

with torch.no_grad():
    emb.weight.copy_(before)
# sphinx_gallery_start_ignore
log.record("emb.weight.copy_(before)")
# sphinx_gallery_end_ignore
copy = emb.weight.detach().clone()
# sphinx_gallery_start_ignore
log.record("copy = emb.weight.detach().clone()", copy=copy)
# sphinx_gallery_end_ignore
copy.div_(copy.norm(dim=1, keepdim=True))
# sphinx_gallery_start_ignore
log.record("copy.div_(norms)")
# sphinx_gallery_end_ignore
changed = not torch.equal(emb.weight, before)
print("changed =", changed)
# sphinx_gallery_start_ignore
assert not changed
fig = log.draw()
# sphinx_gallery_end_ignore

# %%
# The normalised copy is ready for nearest-neighbour search: each token is closest to
# its pair.
print(copy @ copy.T)
# sphinx_gallery_start_ignore
nearest = (copy @ copy.T).fill_diagonal_(-2).argmax(dim=1)
assert nearest.tolist() == [1, 0, 3, 2, 5, 4]
# sphinx_gallery_end_ignore
