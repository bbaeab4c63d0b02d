"""
Truncated backprop through time
===============================

A recurrent network trained on a long sequence in chunks carries its hidden state
from one chunk to the next. Without ``h = h.detach()`` each chunk's graph hangs on
to all the chunks before it, and the second backward pass runs into the first
chunk's freed graph.
"""

# %%
# Predict the next value of a sine wave, ten steps per chunk.
import torch
from torch import nn

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph
from gradcut.claims.expect import caught, not_raised

# sphinx_gallery_end_ignore
torch.manual_seed(0)
wave = torch.sin(torch.linspace(0, 12, 61)).reshape(61, 1, 1)
inputs, targets = wave[:-1], wave[1:]
cell, head = nn.RNNCell(1, 16), nn.Linear(16, 1)
opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)


def nodes_behind(t):
    seen, todo = set(), [t.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo += [next_node for next_node, _ in node.next_functions]
    return len(seen)


def chunk_loss(h, start, length=10):
    loss = 0.0
    for t in range(start, start + length):
        h = cell(inputs[t], h)
        loss = loss + ((head(h) - targets[t]) ** 2).mean()
    return h, loss / length


# %%
# Without the cut: the first chunk trains, the second fails.
h = torch.zeros(1, 16)
try:
    for start in range(0, 60, 10):
        h, loss = chunk_loss(h, start)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"start = {start}, loss = {loss.item():.4f}")
    # sphinx_gallery_start_ignore
    not_raised(RuntimeError)
    # sphinx_gallery_end_ignore
except RuntimeError as err:
    print(f"RuntimeError: {err}")
    # sphinx_gallery_start_ignore
    assert start == 10
    caught(
        err,
        RuntimeError,
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the "
        "graph are freed when you call .backward() or autograd.grad(). Specify "
        "retain_graph=True if you need to backward through the graph a second time or "
        "if you need to access saved tensors after calling backward.",
    )
    # sphinx_gallery_end_ignore

# %%
# Left uncut, the graph behind ``h`` grows with every step. ``nodes_behind`` counts
# it by following each node's ``next_functions``:
h = torch.zeros(1, 16)
uncut = []
for start in (0, 10, 20):
    h, _ = chunk_loss(h, start)
    uncut.append(nodes_behind(h))
    print(f"start = {start}, nodes_behind(h) = {uncut[-1]}")
# sphinx_gallery_start_ignore
assert uncut[0] < uncut[1] < uncut[2]
# The same count as the walk that draws the graphs on this site.
assert uncut[-1] == len(autograd_graph({"h": h}, saved=False).nodes)
# sphinx_gallery_end_ignore

# %%
# With the cut at the start of each chunk, the graph stays one chunk long and the
# loop trains.

# sphinx_gallery_start_ignore
epoch_losses = []
# sphinx_gallery_end_ignore
for epoch in range(1, 31):
    h = torch.zeros(1, 16)
    total = 0.0
    for start in range(0, 60, 10):
        h = h.detach()
        h, loss = chunk_loss(h, start)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    if epoch % 10 == 0:
        print(f"epoch = {epoch}, total / 6 = {total / 6:.4f}, nodes_behind(h) = {nodes_behind(h)}")
        # sphinx_gallery_start_ignore
        epoch_losses.append(total / 6)
        # sphinx_gallery_end_ignore
    # sphinx_gallery_start_ignore
    assert nodes_behind(h) == uncut[0]
    # sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
assert epoch_losses == sorted(epoch_losses, reverse=True)
# sphinx_gallery_end_ignore
