"""
GAN: train D on fake.detach()
=============================

In a GAN's discriminator step the generator's samples are data, like the real ones:
``fake.detach()`` keeps the discriminator's loss out of the generator, whose own step
comes next and backpropagates through the same ``fake``.
"""

# %%
# A one-dimensional GAN: the generator maps noise to numbers, the discriminator
# scores how real a number looks. Real numbers are drawn around 3. ``says_real`` and
# ``says_fake`` are the binary cross-entropy of D's score against "real" and "fake".
import torch
import torch.nn.functional as F
from torch import nn

# sphinx_gallery_start_ignore
from gradcut.claims.draw import autograd_graph, draw_graphs
from gradcut.claims.expect import caught, not_raised

# sphinx_gallery_end_ignore
torch.manual_seed(0)
G = nn.Linear(2, 1)
D = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=0.05)
opt_d = torch.optim.Adam(D.parameters(), lr=0.05)


def real_batch():
    return 3 + 0.5 * torch.randn(64, 1)


def says_real(score):
    return F.softplus(-score).mean()


def says_fake(score):
    return F.softplus(score).mean()


# %%
# The discriminator learns from ``fake_in = fake.detach()``: its loss fills D's
# parameters and stops at the cut, so G's gradients stay empty. The picture shows the
# half of the loss that sees the fake batch.
fake = G(torch.randn(64, 2))
fake_in = fake.detach()
d_loss_fake = says_fake(D(fake_in))
d_loss = says_real(D(real_batch())) + d_loss_fake
# sphinx_gallery_start_ignore
params = {f"G.{n}": p for n, p in G.named_parameters()}
params |= {f"D.{n}": p for n, p in D.named_parameters()}
fig = draw_graphs(
    autograd_graph(
        {**params, "fake": fake, "fake_in": fake_in, "d_loss_fake": d_loss_fake},
        cuts=[("fake", "fake_in")],
        saved=False,
    ),
    titles=["d_loss_fake = says_fake(D(fake.detach()))"],
)
# sphinx_gallery_end_ignore
opt_d.zero_grad()
d_loss.backward()
opt_d.step()
print("D:", [p.grad is not None for p in D.parameters()])
print("G:", [p.grad is not None for p in G.parameters()])
# sphinx_gallery_start_ignore
assert all(p.grad is not None for p in D.parameters())
assert all(p.grad is None for p in G.parameters())
# sphinx_gallery_end_ignore

# %%
# The generator's step backpropagates from D's verdict on ``fake`` into G. It works
# because the discriminator's backward pass never went through G's part of the
# graph, so that part is still there.
g_loss = says_real(D(fake))
opt_g.zero_grad()
g_loss.backward()
opt_g.step()
print("G:", [p.grad is not None for p in G.parameters()])
# sphinx_gallery_start_ignore
assert all(p.grad is not None for p in G.parameters())
# sphinx_gallery_end_ignore

# %%
# Without the cut, the discriminator's backward pass runs through G too, and frees
# the tensors G's nodes saved for backward: the generator's step then fails.
fake = G(torch.randn(64, 2))
d_loss = says_real(D(real_batch())) + says_fake(D(fake))
d_loss.backward()
try:
    says_real(D(fake)).backward()
    # sphinx_gallery_start_ignore
    not_raised(RuntimeError)
    # sphinx_gallery_end_ignore
except RuntimeError as err:
    print(f"RuntimeError: {err}")
    # sphinx_gallery_start_ignore
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
# The whole loop, one ``fake`` per step, cut for D and whole for G. The mean of the
# generator's samples comes to hover around the real mean of 3.
for step in range(1, 301):
    fake = G(torch.randn(64, 2))
    d_loss = says_real(D(real_batch())) + says_fake(D(fake.detach()))
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = says_real(D(fake))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    if step % 75 == 0:
        print(f"step = {step}, fake.mean() = {fake.mean().item():.2f}")
        # sphinx_gallery_start_ignore
        assert abs(fake.mean().item() - 3) < 0.5
        # sphinx_gallery_end_ignore
