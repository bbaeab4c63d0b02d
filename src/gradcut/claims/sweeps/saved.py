"""What each backward node saves, and what an in-place change afterwards does to backward.

Every row runs one operation (or layer) on fresh, deterministic tensors. The input ``x`` is
a non-leaf (``x = leaf * 1``, whose own node saves nothing of ``x``), so changing it in
place is legal; weights and biases are leaves, as parameters are.

Columns
-------
Saves
    The tensors the op's backward nodes keep, read from the nodes' ``_saved_*``
    attributes (every node between the op's output and its inputs, so a composite op such
    as ``F.cross_entropy`` counts its inner ``LogSoftmaxBackward0`` too). Each saved tensor
    is named after the tensor it shares its storage with:

    * ``input``: the op's (first) input ``x``; ``both inputs`` when the second tensor
      input ``y`` is saved too, ``other input`` when only ``y`` is;
    * ``weight``, ``bias``, ``target``, ``mask`` (a boolean index), ``running stats``
      (``running_mean`` / ``running_var`` of a batch norm): tensors passed to the op;
      ``weight (transposed)`` when the node keeps a transposed view of the weight;
    * ``output``: the op's result (for an in-place op, whose result is ``x`` itself, a
      saved ``x`` counts as ``output``: its input values are gone);
    * ``internal``: a tensor the op made itself and shares no storage with any of the
      above (statistics, a dropout mask, a Python number wrapped as a 0-dim tensor, an
      inner result such as the log-softmax inside ``cross_entropy``). Empty tensors
      (placeholders: a batch norm in eval mode keeps two) are not counted.

    Listed in that order, separated by ", ". Without any saved tensor: ``sizes only`` when
    a node keeps sizes (``_saved_self_sym_sizes`` ...), ``nothing`` when the nodes keep no
    tensor and no size (at most options such as ``dim`` or ``alpha``).

Input changed in place / Output changed in place
    ``loss = out.sum()`` (``loss = out`` for ops that return a scalar); then the input ``x``
    (resp. the output ``out``) is changed with ``t.detach().add_(1)``, which shares the
    version counter of ``t``; then the gradients of every leaf are computed:
    ``raises`` (backward raises RuntimeError), ``silent, right`` (every gradient equals
    the one computed without the change), ``silent, wrong`` (some gradient differs).
"""

import torch
import torch.nn.functional as F

from gradcut.claims.sweeps import Sweep

SWEEP = Sweep(
    "saved",
    title="What each backward node saves",
    columns={
        "Operation": None,
        "Saves": "saves",
        "Input changed in place afterwards": "input",
        "Output changed in place afterwards": "output",
    },
)

ORDER = ["input", "both inputs", "other input", "weight", "weight (transposed)", "bias",
         "target", "mask", "running stats", "output", "internal"]

_LABEL = {"running_mean": "running stats", "running_var": "running stats"}  # named tensor -> cell word
_LEAVES: list = []
_INPUT_NODES: list = []  # grad_fn of the non-leaf inputs when they were made: the walk stops there


def _leaf(data):
    """A leaf that requires grad (a parameter, or what ``x`` is computed from)."""
    t = torch.as_tensor(data, dtype=torch.float32).clone().requires_grad_()
    _LEAVES.append(t)
    return t


def _nonleaf(data):
    """``leaf * 1``: a non-leaf whose node saves nothing of it."""
    t = _leaf(data) * 1
    _INPUT_NODES.append(t.grad_fn)
    return t


def _x(data=((0.5, -1.0, 2.0), (-0.3, 0.8, 1.5))):
    return _nonleaf(data)


def _y(data=((1.2, 0.7, -0.4), (0.9, -1.1, 0.6))):
    return _nonleaf(data)


def _storage_ptr(t):
    storage = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return storage.data_ptr()


def _modules_leaves(module):
    for p in module.parameters():
        _LEAVES.append(p)
    return module


def _build(build):
    """Fresh tensors: (named tensors, output, leaves)."""
    _LEAVES.clear()
    _INPUT_NODES.clear()
    torch.manual_seed(0)
    named, out = build()
    return named, out, list(_LEAVES)


def _saved_tensors(out, named):
    """Every tensor saved by the nodes between ``out`` and the named inputs; sizes seen."""
    stop = set(_INPUT_NODES)
    tensors, sizes, seen, todo = [], False, set(), [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen or node in stop:
            continue
        seen.add(node)
        for attr in dir(node):
            if not attr.startswith("_saved_"):
                continue
            value = getattr(node, attr)
            values = value if isinstance(value, (list, tuple)) else [value]
            # An empty tensor is a placeholder (a batch norm in eval mode keeps two), not data.
            found = [v for v in values if isinstance(v, torch.Tensor) and v.numel() > 0]
            tensors += found
            if not found and any(w in attr for w in ("size", "numel", "stride")):
                sizes = True
        todo += [n for n, _ in node.next_functions]
    return tensors, sizes


def _name(saved, named, out):
    candidates = [(k, v) for k, v in named.items() if isinstance(v, torch.Tensor)]
    candidates.append(("output", out))
    for name, t in candidates:  # the same tensor, or a view with the same layout
        if (_storage_ptr(saved) == _storage_ptr(t) and saved.data_ptr() == t.data_ptr()
                and saved.shape == t.shape and saved.stride() == t.stride()):
            return name
    for name, t in candidates:
        if _storage_ptr(saved) == _storage_ptr(t):
            if (t.dim() == 2 and saved.shape == t.t().shape and saved.stride() == t.t().stride()):
                return f"{name} (transposed)"
            return name
    return "internal"


def _saves(named, out):
    tensors, sizes = _saved_tensors(out, named)
    names = {_LABEL.get(n, n) for n in (_name(t, named, out) for t in tensors)}
    if named.get("input") is out and "input" in names:  # an in-place op: x is its result now
        names = (names - {"input"}) | {"output"}
    if {"input", "other input"} <= names:
        names -= {"input", "other input"}
        names.add("both inputs")
    if names:
        return ", ".join(n for n in ORDER if n in names)
    return "sizes only" if sizes else "nothing"


def _loss(out):
    return out if out.dim() == 0 else out.sum()


def _grads(loss, leaves):
    return torch.autograd.grad(loss, leaves, allow_unused=True)


def _same(g1, g2):
    return all((a is None and b is None) or (a is not None and b is not None and torch.allclose(a, b))
               for a, b in zip(g1, g2))


def _after_change(build, which):
    named, out, leaves = _build(build)
    loss = _loss(out)
    target = named["input"] if which == "input" else out
    target.detach().add_(1)
    try:
        grads = _grads(loss, leaves)
    except RuntimeError:
        return "raises"
    _, out0, leaves0 = _build(build)
    expected = _grads(_loss(out0), leaves0)
    return "silent, right" if _same(grads, expected) else "silent, wrong"


def _x3_noncontiguous():
    """A 3-D non-leaf (2, 4, 3) whose strides are transposed: ``x.is_contiguous()`` is False."""
    return _nonleaf(torch.randn(2, 3, 4).transpose(1, 2))


def measure(build):
    """``build()`` makes fresh tensors and returns ({"input": x, ...}, output)."""
    named, out, _ = _build(build)
    return {
        "saves": _saves(named, out),
        "input": _after_change(build, "input"),
        "output": _after_change(build, "output"),
    }


def unary(fn):
    def build():
        x = _x()
        return {"input": x}, fn(x)
    return measure(build)


def binary(fn):
    def build():
        x, y = _x(), _y()
        return {"input": x, "other input": y}, fn(x, y)
    return measure(build)


# -- activations ----------------------------------------------------------------------

@SWEEP.row("torch.sigmoid(x)")
def _():
    return unary(torch.sigmoid)


@SWEEP.row("torch.tanh(x)")
def _():
    return unary(torch.tanh)


@SWEEP.row("F.relu(x)")
def _():
    return unary(F.relu)


@SWEEP.row("F.gelu(x)")
def _():
    return unary(F.gelu)


@SWEEP.row("F.silu(x)")
def _():
    return unary(F.silu)


@SWEEP.row("F.leaky_relu(x)")
def _():
    return unary(F.leaky_relu)


@SWEEP.row("F.elu(x)")
def _():
    return unary(F.elu)


@SWEEP.row("F.softplus(x)")
def _():
    return unary(F.softplus)


@SWEEP.row("F.relu(x, inplace=True)")
def _():
    return unary(lambda x: F.relu(x, inplace=True))


@SWEEP.row("F.leaky_relu(x, inplace=True)")
def _():
    return unary(lambda x: F.leaky_relu(x, inplace=True))


@SWEEP.row("F.softmax(x, dim=-1)")
def _():
    return unary(lambda x: F.softmax(x, dim=-1))


@SWEEP.row("F.log_softmax(x, dim=-1)")
def _():
    return unary(lambda x: F.log_softmax(x, dim=-1))


# -- pointwise math ---------------------------------------------------------------------

@SWEEP.row("torch.exp(x)")
def _():
    return unary(torch.exp)


@SWEEP.row("torch.log(x)")
def _():
    return measure(lambda: ({"input": (x := _x(((0.5, 1.0, 2.0), (0.3, 0.8, 1.5))))}, torch.log(x)))


@SWEEP.row("torch.sqrt(x)")
def _():
    return measure(lambda: ({"input": (x := _x(((0.5, 1.0, 2.0), (0.3, 0.8, 1.5))))}, torch.sqrt(x)))


@SWEEP.row("torch.abs(x)")
def _():
    return unary(torch.abs)


@SWEEP.row("x.clamp(-1, 1)")
def _():
    return unary(lambda x: x.clamp(-1, 1))


@SWEEP.row("x ** 2")
def _():
    return unary(lambda x: x ** 2)


@SWEEP.row("x ** y")
def _():
    return measure(lambda: ({"input": (x := _x(((0.5, 1.0, 2.0), (0.3, 0.8, 1.5)))),
                             "other input": (y := _y())}, x ** y))


@SWEEP.row("x * y")
def _():
    return binary(lambda x, y: x * y)


@SWEEP.row("x * 2")
def _():
    return unary(lambda x: x * 2)


@SWEEP.row("x / y")
def _():
    return binary(lambda x, y: x / y)


@SWEEP.row("x / 2")
def _():
    return unary(lambda x: x / 2)


@SWEEP.row("x + y")
def _():
    return binary(lambda x, y: x + y)


@SWEEP.row("x + 1")
def _():
    return unary(lambda x: x + 1)


@SWEEP.row("torch.where(x > 0, x, y)")
def _():
    return binary(lambda x, y: torch.where(x > 0, x, y))


# -- linear algebra and layers ----------------------------------------------------------

@SWEEP.row("x @ y")
def _():
    return measure(lambda: ({"input": (x := _x()), "other input": (y := _nonleaf(torch.randn(3, 4)))},
                            x @ y))


@SWEEP.row("x @ y, x 3-D, non-contiguous")
def _():
    return measure(lambda: ({"input": (x := _x3_noncontiguous()),
                             "other input": (y := _nonleaf(torch.randn(3, 4)))}, x @ y))


@SWEEP.row("x @ y, x 3-D, non-contiguous, y 3-D")
def _():
    return measure(lambda: ({"input": (x := _x3_noncontiguous()),
                             "other input": (y := _nonleaf(torch.randn(2, 3, 4)))}, x @ y))


@SWEEP.row("F.linear(x, w, b)")
def _():
    def build():
        x, w, b = _x(), _leaf(torch.randn(4, 3)), _leaf(torch.randn(4))
        return {"input": x, "weight": w, "bias": b}, F.linear(x, w, b)
    return measure(build)


@SWEEP.row("nn.Linear(3, 4)(x)")
def _():
    def build():
        x, lin = _x(), _modules_leaves(torch.nn.Linear(3, 4))
        return {"input": x, "weight": lin.weight, "bias": lin.bias}, lin(x)
    return measure(build)


@SWEEP.row("nn.Linear(3, 4)(x), x 3-D, non-contiguous")
def _():
    def build():
        x, lin = _x3_noncontiguous(), _modules_leaves(torch.nn.Linear(3, 4))
        return {"input": x, "weight": lin.weight, "bias": lin.bias}, lin(x)
    return measure(build)


@SWEEP.row("nn.Linear(3, 4)(x), weight and bias frozen")
def _():
    def build():
        x, lin = _x(), torch.nn.Linear(3, 4).requires_grad_(False)
        return {"input": x, "weight": lin.weight, "bias": lin.bias}, lin(x)
    return measure(build)


@SWEEP.row("nn.Linear(3, 4)(x), x without grad")
def _():
    def build():
        x, lin = torch.tensor(((0.5, -1.0, 2.0), (-0.3, 0.8, 1.5))) * 1, _modules_leaves(torch.nn.Linear(3, 4))
        return {"input": x, "weight": lin.weight, "bias": lin.bias}, lin(x)
    return measure(build)


@SWEEP.row("nn.Linear(3, 4)(x), x without grad, weight frozen")
def _():
    def build():
        x, m = torch.tensor(((0.5, -1.0, 2.0), (-0.3, 0.8, 1.5))) * 1, torch.nn.Linear(3, 4)
        m.weight.requires_grad_(False)
        _LEAVES.append(m.bias)
        return {"input": x, "weight": m.weight, "bias": m.bias}, m(x)
    return measure(build)


@SWEEP.row("nn.Conv1d(2, 3, 2)(x)")
def _():
    def build():
        x, conv = _nonleaf(torch.randn(1, 2, 5)), _modules_leaves(torch.nn.Conv1d(2, 3, 2))
        return {"input": x, "weight": conv.weight, "bias": conv.bias}, conv(x)
    return measure(build)


@SWEEP.row("nn.Conv1d(2, 3, 2)(x), weight and bias frozen")
def _():
    def build():
        x, conv = _nonleaf(torch.randn(1, 2, 5)), torch.nn.Conv1d(2, 3, 2).requires_grad_(False)
        return {"input": x, "weight": conv.weight, "bias": conv.bias}, conv(x)
    return measure(build)


@SWEEP.row("nn.Conv1d(2, 3, 2)(x), x without grad")
def _():
    def build():
        x, conv = torch.randn(1, 2, 5) * 1, _modules_leaves(torch.nn.Conv1d(2, 3, 2))
        return {"input": x, "weight": conv.weight, "bias": conv.bias}, conv(x)
    return measure(build)


@SWEEP.row("nn.Conv1d(2, 3, 2)(x), x without grad, weight frozen")
def _():
    def build():
        x, m = torch.randn(1, 2, 5) * 1, torch.nn.Conv1d(2, 3, 2)
        m.weight.requires_grad_(False)
        _LEAVES.append(m.bias)
        return {"input": x, "weight": m.weight, "bias": m.bias}, m(x)
    return measure(build)


@SWEEP.row("nn.Conv2d(2, 3, 2)(x)")
def _():
    def build():
        x, conv = _nonleaf(torch.randn(1, 2, 4, 4)), _modules_leaves(torch.nn.Conv2d(2, 3, 2))
        return {"input": x, "weight": conv.weight, "bias": conv.bias}, conv(x)
    return measure(build)


@SWEEP.row("nn.Conv2d(2, 3, 2)(x), x without grad")
def _():
    def build():
        x, conv = torch.randn(1, 2, 4, 4) * 1, _modules_leaves(torch.nn.Conv2d(2, 3, 2))
        return {"input": x, "weight": conv.weight, "bias": conv.bias}, conv(x)
    return measure(build)


@SWEEP.row("F.max_pool2d(x, 2)")
def _():
    return measure(lambda: ({"input": (x := _nonleaf(torch.randn(1, 1, 4, 4)))}, F.max_pool2d(x, 2)))


@SWEEP.row("F.avg_pool2d(x, 2)")
def _():
    return measure(lambda: ({"input": (x := _nonleaf(torch.randn(1, 1, 4, 4)))}, F.avg_pool2d(x, 2)))


@SWEEP.row("nn.BatchNorm1d(3)(x), training")
def _():
    def build():
        x, bn = _x(), _modules_leaves(torch.nn.BatchNorm1d(3))
        return ({"input": x, "weight": bn.weight, "bias": bn.bias, "running_mean": bn.running_mean,
                 "running_var": bn.running_var}, bn(x))
    return measure(build)


@SWEEP.row("nn.BatchNorm1d(3).eval()(x)")
def _():
    def build():
        x, bn = _x(), _modules_leaves(torch.nn.BatchNorm1d(3).eval())
        return ({"input": x, "weight": bn.weight, "bias": bn.bias, "running_mean": bn.running_mean,
                 "running_var": bn.running_var}, bn(x))
    return measure(build)


@SWEEP.row("nn.LayerNorm(3)(x)")
def _():
    def build():
        x, ln = _x(), _modules_leaves(torch.nn.LayerNorm(3))
        return {"input": x, "weight": ln.weight, "bias": ln.bias}, ln(x)
    return measure(build)


@SWEEP.row("nn.LayerNorm(3)(x), x without grad")
def _():
    def build():
        x, ln = torch.tensor(((0.5, -1.0, 2.0), (-0.3, 0.8, 1.5))) * 1, _modules_leaves(torch.nn.LayerNorm(3))
        return {"input": x, "weight": ln.weight, "bias": ln.bias}, ln(x)
    return measure(build)


@SWEEP.row("nn.LayerNorm(3)(x), x without grad, weight frozen")
def _():
    def build():
        x, m = torch.tensor(((0.5, -1.0, 2.0), (-0.3, 0.8, 1.5))) * 1, torch.nn.LayerNorm(3)
        m.weight.requires_grad_(False)
        _LEAVES.append(m.bias)
        return {"input": x, "weight": m.weight, "bias": m.bias}, m(x)
    return measure(build)


@SWEEP.row("F.normalize(x, dim=-1)")
def _():
    return unary(lambda x: F.normalize(x, dim=-1))


@SWEEP.row("nn.Embedding(5, 3)(i)")
def _():
    def build():
        i, emb = torch.tensor([0, 2, 2]), _modules_leaves(torch.nn.Embedding(5, 3))
        return {"input": i, "weight": emb.weight}, emb(i)
    return measure(build)


@SWEEP.row("F.dropout(x, 0.5), training")
def _():
    return unary(lambda x: F.dropout(x, 0.5, training=True))


# -- reductions, indexing, shapes -------------------------------------------------------

@SWEEP.row("x.sum()")
def _():
    return unary(torch.sum)


@SWEEP.row("x.mean()")
def _():
    return unary(torch.mean)


@SWEEP.row("x.max()")
def _():
    return unary(torch.max)


@SWEEP.row("x[0]")
def _():
    return unary(lambda x: x[0])


@SWEEP.row("x[:1]")
def _():
    return unary(lambda x: x[:1])


@SWEEP.row("x[mask]")
def _():
    def build():
        x, mask = _x(), torch.tensor([[True, False, True], [False, True, True]])
        return {"input": x, "mask": mask}, x[mask]
    return measure(build)


@SWEEP.row("torch.cat([x, y])")
def _():
    return binary(lambda x, y: torch.cat([x, y]))


@SWEEP.row("torch.stack([x, y])")
def _():
    return binary(lambda x, y: torch.stack([x, y]))


@SWEEP.row("x.clone()")
def _():
    return unary(torch.clone)


@SWEEP.row("x.view(6)")
def _():
    return unary(lambda x: x.view(6))


@SWEEP.row("x.reshape(6)")
def _():
    return unary(lambda x: x.reshape(6))


@SWEEP.row("x.t()")
def _():
    return unary(lambda x: x.t())


@SWEEP.row("x.transpose(0, 1)")
def _():
    return unary(lambda x: x.transpose(0, 1))


# -- losses -----------------------------------------------------------------------------

def _loss_row(fn, target):
    def build():
        x, t = _x(), torch.tensor(target)
        return {"input": x, "target": t}, fn(x, t)
    return measure(build)


@SWEEP.row("F.mse_loss(x, target)")
def _():
    return _loss_row(F.mse_loss, [[0.0, 1.0, 0.5], [1.0, 0.0, 0.5]])


@SWEEP.row("F.l1_loss(x, target)")
def _():
    return _loss_row(F.l1_loss, [[0.0, 1.0, 0.5], [1.0, 0.0, 0.5]])


@SWEEP.row("F.binary_cross_entropy_with_logits(x, target)")
def _():
    return _loss_row(F.binary_cross_entropy_with_logits, [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])


@SWEEP.row("F.cross_entropy(x, target)")
def _():
    return _loss_row(F.cross_entropy, [0, 2])


@SWEEP.row("F.nll_loss(x, target)")
def _():
    return _loss_row(F.nll_loss, [0, 2])


@SWEEP.row("F.binary_cross_entropy(x, target)")
def _():
    def build():
        x, t = _x(((0.5, 0.1, 0.2), (0.3, 0.8, 0.5))), torch.tensor([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
        return {"input": x, "target": t}, F.binary_cross_entropy(x, t)
    return measure(build)


if __name__ == "__main__":
    print(SWEEP.markdown())
