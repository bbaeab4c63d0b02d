"""The simulated torch releases: each patch changes one behaviour the site documents.

A patch is applied to the real torch right after ``import torch`` (see
:mod:`gradcut.tools.drift.hook`), the way a future release might change it: a method starts
copying, an error message is reworded, a ``grad_fn`` is renamed. Each one carries a
*probe*: a few lines whose output the patch changes, from ``before`` to ``after``, so
that the suite can prove the patch really does what it says (``tests/test_drift.py``).

Method patches apply to calls from outside torch only ("as user code sees it"), so that
torch's own internals keep working and a page fails because of the behaviour it
documents, not because some unrelated part of torch broke.
"""

import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PATCHES", "Patch", "apply"]


@dataclass(frozen=True)
class Patch:
    name: str
    summary: str
    probe: str
    before: str
    after: str
    apply: Callable


PATCHES: dict[str, Patch] = {}


def patch(name: str, summary: str, *, probe: str, before: str, after: str):
    def register(func):
        if name in PATCHES:
            raise ValueError(f"two patches named {name!r}")
        PATCHES[name] = Patch(name, summary, probe.strip(), before, after, func)
        return func

    return register


def apply(name: str) -> None:
    """Apply the patch called ``name`` to the imported torch."""
    import torch

    try:
        chosen = PATCHES[name]
    except KeyError:
        raise SystemExit(
            f"GRADCUT_DRIFT={name!r}: no such patch; choose from {', '.join(PATCHES)}"
        ) from None
    chosen.apply(torch)


# -- helpers ----------------------------------------------------------------------


def _from_torch(depth: int = 2) -> bool:
    """Whether the caller ``depth`` frames up is torch's own code."""
    module = sys._getframe(depth).f_globals.get("__name__", "")
    return module == "torch" or module.startswith("torch.")


def _method(torch, name: str, wrap) -> None:
    """Replace ``Tensor.<name>`` (and ``torch.<name>``) for calls from outside torch."""
    original = getattr(torch.Tensor, name)

    def method(self, *args, **kwargs):
        if _from_torch():
            return original(self, *args, **kwargs)
        return wrap(original, self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = original.__doc__
    setattr(torch.Tensor, name, method)
    function = getattr(torch, name, None)
    if callable(function):

        def module_function(input, *args, **kwargs):
            if _from_torch():
                return function(input, *args, **kwargs)
            return wrap(original, input, *args, **kwargs)

        module_function.__name__ = name
        setattr(torch, name, module_function)


def _property(torch, name: str, get, set_=None) -> None:
    """Give ``Tensor.<name>`` another getter for readers outside torch."""
    base = torch._C.TensorBase.__dict__[name]

    def getter(self):
        if _from_torch():
            return base.__get__(self)
        return get(base, self)

    def setter(self, value):
        if set_ is None or _from_torch():
            base.__set__(self, value)
        else:
            set_(base, self, value)

    setattr(torch.Tensor, name, property(getter, setter, doc=base.__doc__))


def _reword(torch, old: "str | re.Pattern", new: str) -> None:
    """Reword an error message wherever torch raises it (ops, methods, backward).
    ``old``: a string, or a pattern whose matches ``new`` replaces (``re.sub``)."""

    def reworded(err: Exception) -> Exception | None:
        message = str(err)
        if isinstance(old, re.Pattern):
            return type(err)(old.sub(new, message)) if old.search(message) else None
        if old not in message:
            return None
        return type(err)(message.replace(old, new))

    class Reword(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            try:
                return func(*args, **(kwargs or {}))
            except RuntimeError as err:
                other = reworded(err)
                if other is None:
                    raise
                raise other from None

    # Entered for good: every torch call of the process goes through it.
    Reword().__enter__()

    engine = torch.autograd.graph._engine_run_backward

    def run_backward(*args, **kwargs):
        try:
            return engine(*args, **kwargs)
        except RuntimeError as err:
            other = reworded(err)
            if other is None:
                raise
            raise other from None

    torch.autograd.graph._engine_run_backward = run_backward
    torch.autograd._engine_run_backward = run_backward


# -- sharing: storage and version counter -----------------------------------------


@patch(
    "detach-copies",
    "detach() returns a copy on new memory instead of a view of the same memory",
    probe="x = torch.zeros(2); y = x.detach(); y[0] = 1; print(x[0].item())",
    before="1.0",
    after="0.0",
)
def _detach_copies(torch):
    _method(torch, "detach", lambda original, self: original(self).clone())


@patch(
    "detach-own-version",
    "detach() stops sharing the version counter: in-place changes through it go unseen",
    probe="x = torch.zeros(2); x.detach().add_(1); print(x._version)",
    before="1",
    after="0",
)
def _detach_own_version(torch):
    data = torch._C.TensorBase.__dict__["data"]
    _method(torch, "detach", lambda original, self: data.__get__(self))


@patch(
    "data-tracked",
    ".data shares the version counter, so autograd sees in-place changes made through it",
    probe="x = torch.zeros(2); x.data.add_(1); print(x._version)",
    before="0",
    after="1",
)
def _data_tracked(torch):
    detach = torch._C.TensorBase.detach
    _property(torch, "data", lambda base, self: detach(self))


@patch(
    "detach_-views",
    "detach_() on a view stops raising (and leaves the view as it was)",
    probe=(
        "x = torch.ones(3, requires_grad=True) * 2\n"
        "try:\n    x[1:].detach_(); print('no error')\n"
        "except RuntimeError as e:\n    print(str(e)[:30])"
    ),
    before="Can't detach views in-place. U",
    after="no error",
)
def _detach__views(torch):
    def detach_(original, self):
        if self._is_view():
            return self
        return original(self)

    _method(torch, "detach_", detach_)


@patch(
    "detach_-out-of-place",
    "detach_() returns a detached tensor but leaves the tensor itself attached",
    probe="x = torch.ones(2, requires_grad=True) * 2; x.detach_(); print(x.requires_grad)",
    before="False",
    after="True",
)
def _detach__out_of_place(torch):
    detach = torch._C.TensorBase.detach
    _method(torch, "detach_", lambda original, self: detach(self))


# -- tracking -----------------------------------------------------------------------


@patch(
    "clone-untracked",
    "clone() results are no longer tracked by autograd (no grad_fn)",
    probe="x = torch.ones(2, requires_grad=True); print(type(x.clone().grad_fn).__name__)",
    before="CloneBackward0",
    after="NoneType",
)
def _clone_untracked(torch):
    detach = torch._C.TensorBase.detach
    _method(torch, "clone", lambda original, self, *a, **k: detach(original(self, *a, **k)))


@patch(
    "no-grad-tracks",
    "results computed under torch.no_grad() require grad again",
    probe=(
        "x = torch.ones(2, requires_grad=True)\n"
        "with torch.no_grad():\n    y = x * 2\n"
        "print(y.requires_grad)"
    ),
    before="False",
    after="True",
)
def _no_grad_tracks(torch):
    cls = torch.autograd.grad_mode.no_grad
    enter, leave = cls.__enter__, cls.__exit__

    def user_code() -> bool:
        frame = sys._getframe(2)
        if frame.f_code.co_name == "decorate_context":  # @torch.no_grad() on a function
            func = frame.f_locals.get("func")
            module = getattr(func, "__module__", "") or ""
        else:
            module = frame.f_globals.get("__name__", "")
        return not (module == "torch" or module.startswith("torch."))

    def __enter__(self):
        self._gradcut_drift = user_code()
        if not self._gradcut_drift:
            return enter(self)
        self.prev = torch.is_grad_enabled()

    def __exit__(self, *exc):
        if getattr(self, "_gradcut_drift", False):
            return None
        return leave(self, *exc)

    cls.__enter__, cls.__exit__ = __enter__, __exit__


@patch(
    "inference-versions",
    "inference tensors get a version counter (reading _version no longer raises)",
    probe=(
        "with torch.inference_mode():\n    t = torch.ones(2)\n"
        "try:\n    print(t._version)\n"
        "except RuntimeError as e:\n    print(e)"
    ),
    before="Inference tensors do not track version counter.",
    after="0",
)
def _inference_versions(torch):
    def version(base, self):
        if self.is_inference():
            return 0
        return base.__get__(self)

    _property(torch, "_version", version)


@patch(
    "grad-fn-renamed",
    "backward nodes are renamed: SigmoidBackward0 becomes SigmoidBackward1, and so on",
    probe="x = torch.ones(1, requires_grad=True); y = x.sigmoid(); print(y.grad_fn.name(), y)",
    before="SigmoidBackward0 tensor([0.7311], grad_fn=<SigmoidBackward0>)",
    after="SigmoidBackward1 tensor([0.7311], grad_fn=<SigmoidBackward1>)",
)
def _grad_fn_renamed(torch):
    def rename(name: str) -> str:
        return re.sub(r"Backward(\d+)$", lambda m: f"Backward{int(m.group(1)) + 1}", name)

    classes: dict[str, type] = {}

    def renamed(node):
        if node is None or isinstance(node, Node):
            return node
        name = rename(type(node).__name__)
        if name not in classes:
            classes[name] = type(name, (Node,), {})
        return classes[name](node)

    class Node:
        """A backward node seen under its new name; everything else is the node's own."""

        __slots__ = ("_node",)

        def __init__(self, node):
            object.__setattr__(self, "_node", node)

        def name(self):
            return rename(self._node.name())

        @property
        def next_functions(self):
            return tuple((renamed(fn), i) for fn, i in self._node.next_functions)

        def __getattr__(self, attr):
            return getattr(self._node, attr)

        def __repr__(self):
            return f"<{type(self).__name__} object at {id(self._node):#x}>"

        def __eq__(self, other):
            return self._node == getattr(other, "_node", other)

        def __hash__(self):
            return hash(self._node)

    torch.autograd.graph.Node.register(Node)
    base = torch._C.TensorBase.__dict__["grad_fn"]

    def grad_fn(self):
        node = base.__get__(self)
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.startswith("torch.") and caller != "torch._tensor_str":
            return node
        return renamed(node)

    torch.Tensor.grad_fn = property(grad_fn, doc=base.__doc__)


# -- printing and conversions ------------------------------------------------------


@patch(
    "print-precision",
    "tensors print with 6 decimals by default instead of 4",
    probe="print(torch.tensor([1 / 3]))",
    before="tensor([0.3333])",
    after="tensor([0.333333])",
)
def _print_precision(torch):
    module = torch._tensor_str
    original = module.set_printoptions

    def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                         profile=None, sci_mode=None):  # fmt: skip
        original(precision, threshold, edgeitems, linewidth, profile, sci_mode)
        if profile == "default" and precision is None:
            module.PRINT_OPTS.precision = 6

    set_printoptions.__doc__ = original.__doc__
    module.set_printoptions = torch.set_printoptions = set_printoptions
    module.PRINT_OPTS.precision = 6


@patch(
    "numpy-allows-grad",
    "numpy() on a tensor that requires grad returns an array instead of raising",
    probe=(
        "try:\n    print(torch.ones(1, requires_grad=True).numpy())\n"
        "except RuntimeError as e:\n    print(str(e)[:20])"
    ),
    before="Can't call numpy() o",
    after="[1.]",
)
def _numpy_allows_grad(torch):
    detach = torch._C.TensorBase.detach
    _method(torch, "numpy", lambda original, self, **k: original(detach(self), **k))


@patch(
    "item-numpy-scalar",
    "item() returns a NumPy scalar instead of a Python number",
    probe="print(repr(torch.tensor(2.5).item()))",
    before="2.5",
    after="np.float32(2.5)",
)
def _item_numpy_scalar(torch):
    def item(original, self):
        value = original(self)
        return self.detach().cpu().numpy()[()] if not isinstance(value, bool) else value

    _method(torch, "item", item)


@patch(
    "tensor-copy-silent",
    "torch.tensor(a_tensor) no longer warns to use detach().clone()",
    probe=(
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always'); torch.tensor(torch.ones(1))\n"
        "print(len(w))"
    ),
    before="1",
    after="0",
)
def _tensor_copy_silent(torch):
    original = torch.tensor

    def tensor(data, *args, **kwargs):
        if not isinstance(data, torch.Tensor):
            return original(data, *args, **kwargs)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "To copy construct from a tensor")
            return original(data, *args, **kwargs)

    tensor.__doc__ = original.__doc__
    torch.tensor = tensor


# -- error messages -------------------------------------------------------------------


@patch(
    "inplace-error-reworded",
    "the in-place error of backward is reworded",
    probe=(
        "x = torch.ones(2, requires_grad=True); y = x.sigmoid(); y.mul_(2)\n"
        "try:\n    y.sum().backward()\n"
        "except RuntimeError as e:\n    print(str(e)[:39])"
    ),
    before="one of the variables needed for gradien",
    after="a tensor saved for backward was changed",
)
def _inplace_error_reworded(torch):
    _reword(
        torch,
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation",
        "a tensor saved for backward was changed in place",
    )


@patch(
    "no-grad-fn-error-reworded",
    'the error of backward() on a tensor that does not require grad ("element 0 of '
    'tensors …") is reworded',
    probe=(
        "try:\n    torch.ones(1).sum().backward()\n"
        "except RuntimeError as e:\n    print(e)"
    ),
    before="element 0 of tensors does not require grad and does not have a grad_fn",
    after="element 0 of the outputs does not require grad and has no grad_fn",
)
def _no_grad_fn_error_reworded(torch):
    _reword(
        torch,
        "element 0 of tensors does not require grad and does not have a grad_fn",
        "element 0 of the outputs does not require grad and has no grad_fn",
    )


@patch(
    "numpy-error-reworded",
    "the error of numpy() on a tensor that requires grad is reworded",
    probe=(
        "try:\n    torch.ones(1, requires_grad=True).numpy()\n"
        "except RuntimeError as e:\n    print(e)"
    ),
    before="Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
    after="Cannot call numpy() on a Tensor that requires grad: call tensor.detach().numpy() instead.",
)
def _numpy_error_reworded(torch):
    _reword(
        torch,
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
        "Cannot call numpy() on a Tensor that requires grad: call tensor.detach().numpy() instead.",
    )


@patch(
    "non-leaf-requires-grad-reworded",
    "the error of changing requires_grad of a non-leaf tensor is reworded",
    probe=(
        "y = torch.ones(1, requires_grad=True) * 2\n"
        "try:\n    y.requires_grad_(False)\n"
        "except RuntimeError as e:\n    print(str(e)[:44])"
    ),
    before="you can only change requires_grad flags of l",
    after="requires_grad can only be changed on leaf te",
)
def _non_leaf_requires_grad_reworded(torch):
    _reword(
        torch,
        "you can only change requires_grad flags of leaf variables.",
        "requires_grad can only be changed on leaf tensors.",
    )


@patch(
    "leaf-inplace-reworded",
    "the error of an in-place operation on a leaf that requires grad is reworded",
    probe=(
        "try:\n    torch.ones(1, requires_grad=True).add_(1)\n"
        "except RuntimeError as e:\n    print(e)"
    ),
    before="a leaf Variable that requires grad is being used in an in-place operation.",
    after="a leaf tensor that requires grad cannot be modified in place.",
)
def _leaf_inplace_reworded(torch):
    _reword(
        torch,
        "a leaf Variable that requires grad is being used in an in-place operation.",
        "a leaf tensor that requires grad cannot be modified in place.",
    )


@patch(
    "integer-requires-grad-reworded",
    "the error of requires_grad on an integer tensor names complex dtypes too",
    probe=(
        "try:\n    torch.ones(1, dtype=torch.long).requires_grad_()\n"
        "except RuntimeError as e:\n    print(e)"
    ),
    before="only Tensors of floating point dtype can require gradients",
    after="only Tensors of floating point and complex dtype can require gradients",
)
def _integer_requires_grad_reworded(torch):
    _reword(
        torch,
        "only Tensors of floating point dtype can require gradients",
        "only Tensors of floating point and complex dtype can require gradients",
    )


@patch(
    "inference-backward-reworded",
    "the error of saving an inference tensor for backward is reworded",
    probe=(
        "with torch.inference_mode():\n    t = torch.ones(1)\n"
        "try:\n    (torch.ones(1, requires_grad=True) * t).sum().backward()\n"
        "except RuntimeError as e:\n    print(str(e)[:47])"
    ),
    before="Inference tensors cannot be saved for backward.",
    after="Tensors created in inference mode cannot be sav",
)
def _inference_backward_reworded(torch):
    _reword(
        torch,
        "Inference tensors cannot be saved for backward.",
        "Tensors created in inference mode cannot be saved for backward.",
    )


# -- the sweeps' rules: each patch changes rows of one sweep table -------------------


@patch(
    "sigmoid-saves-input",
    "sigmoid is computed as 1 / (1 + exp(-x)): its backward no longer saves the output "
    "(sweep: saved)",
    probe="print(torch.zeros(1, requires_grad=True).sigmoid().grad_fn.name())",
    before="SigmoidBackward0",
    after="MulBackward0",
)
def _sigmoid_saves_input(torch):
    _method(torch, "sigmoid", lambda original, self: 1 / (1 + torch.exp(-self)))


@patch(
    "sgd-step-unversioned",
    "an SGD step writes the parameters through .data: their version counter stays put "
    "(sweep: optimizer_versions)",
    probe=(
        "p = torch.zeros(1, requires_grad=True); p.grad = torch.ones(1)\n"
        "torch.optim.SGD([p], lr=1.0).step(); print(p._version, p.item())"
    ),
    before="1 -1.0",
    after="0 -1.0",
)
def _sgd_step_unversioned(torch):
    original = torch.optim.SGD.step

    def step(self, *args, **kwargs):
        # The same update on .data of each parameter (its state moved along with it).
        swapped = []
        for group in self.param_groups:
            for i, p in enumerate(group["params"]):
                d = p.data
                d.grad = p.grad
                if p in self.state:
                    self.state[d] = self.state.pop(p)
                group["params"][i] = d
                swapped.append((group, i, p, d))
        try:
            return original(self, *args, **kwargs)
        finally:
            for group, i, p, d in swapped:
                group["params"][i] = p
                if d in self.state:
                    self.state[p] = self.state.pop(d)

    torch.optim.SGD.step = step


@patch(
    "contiguous-copies",
    "contiguous() returns a copy even of a tensor that is contiguous already "
    "(sweep: conversions)",
    probe="x = torch.zeros(2); print(x.contiguous() is x)",
    before="True",
    after="False",
)
def _contiguous_copies(torch):
    _method(torch, "contiguous", lambda original, self, *a, **k: original(self, *a, **k).clone())


@patch(
    "saved-tensors-hooks-ignored",
    "saved_tensors_hooks (and save_on_cpu) no longer install their hooks: the version "
    "check is back on inside them (sweep: contexts)",
    probe=(
        "a = torch.ones(2, requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):\n"
        "    s = a.sigmoid()\n"
        "loss = s.sum(); s.detach().zero_()\n"
        "try:\n    loss.backward(); print('silent')\n"
        "except RuntimeError:\n    print('raises')"
    ),
    before="silent",
    after="raises",
)
def _saved_tensors_hooks_ignored(torch):
    hooks = torch.autograd.graph.saved_tensors_hooks
    hooks.__enter__ = lambda self: self
    hooks.__exit__ = lambda self, *exc: None


@patch(
    "inplace-error-names-node",
    'the in-place error names the backward node ("output 0 of SigmoidBackward0", as '
    "torch 1.13 did) instead of the operation (sweep: output_of)",
    probe=(
        "s = torch.ones(1, requires_grad=True).sigmoid(); loss = s.sum(); s.detach().zero_()\n"
        "try:\n    loss.backward()\n"
        "except RuntimeError as e:\n    print(str(e).split(', ')[1])"
    ),
    before="which is output 0 of Sigmoid",
    after="which is output 0 of SigmoidBackward0",
)
def _inplace_error_names_node(torch):
    _reword(torch, re.compile(r"(which is output \d+ of )(\w+)(?<!Backward0),"), r"\1\2Backward0,")


@patch(
    "masked-fill-unversioned",
    "masked_fill_ writes through .data: the version counter does not move and a saved "
    "tensor changed by it goes unseen (sweep: inplace_forms)",
    probe="t = torch.zeros(2); t.masked_fill_(torch.tensor([True, False]), 1.0); print(t._version, t.tolist())",
    before="1 [1.0, 0.0]",
    after="0 [1.0, 0.0]",
)
def _masked_fill_unversioned(torch):
    data = torch._C.TensorBase.__dict__["data"]

    def masked_fill_(original, self, *args, **kwargs):
        original(data.__get__(self), *args, **kwargs)
        return self

    _method(torch, "masked_fill_", masked_fill_)


@patch(
    "bn-no-grad-frozen",
    "batch norm in training mode leaves its running statistics as they are when grad "
    "mode is off (torch.no_grad(), torch.inference_mode()) (sweep: bn_modes)",
    probe=(
        "bn = torch.nn.BatchNorm1d(2)\n"
        "with torch.no_grad():\n    bn(torch.ones(4, 2))\n"
        "print(bn.running_mean, bn.num_batches_tracked.item())"
    ),
    before="tensor([0.1000, 0.1000]) 1",
    after="tensor([0., 0.]) 0",
)
def _bn_no_grad_frozen(torch):
    cls = torch.nn.modules.batchnorm._BatchNorm
    original = cls.forward

    # The layer's own forward, as SGD.step above: torch's Module.__call__ calls it, so
    # there is no outside caller to tell apart; it changes only when grad mode is off.
    def forward(self, input):
        if not (self.training and self.track_running_stats) or torch.is_grad_enabled():
            return original(self, input)
        # The batch's statistics, as in training mode, but no buffer is passed to update.
        self.track_running_stats = False
        try:
            return original(self, input)
        finally:
            self.track_running_stats = True

    forward.__doc__ = original.__doc__
    cls.forward = forward


@patch(
    "averaged-model-buffers-unsynced",
    "AveragedModel without use_buffers=True stops copying the model's buffers at each "
    "update_parameters(): they keep the values they were created with (sweep: ema_buffers)",
    probe=(
        "from torch.optim.swa_utils import AveragedModel\n"
        "bn = torch.nn.BatchNorm1d(1); avg = AveragedModel(bn)\n"
        "bn.running_mean.fill_(1.0); avg.update_parameters(bn)\n"
        "print(avg.module.running_mean.item())"
    ),
    before="1.0",
    after="0.0",
)
def _averaged_model_buffers_unsynced(torch):
    from torch.optim.swa_utils import AveragedModel

    original = AveragedModel.update_parameters

    def update_parameters(self, model):
        if self.use_buffers:
            return original(self, model)
        kept = [b.detach().clone() for b in self.module.buffers()]
        original(self, model)
        with torch.no_grad():
            for b, value in zip(self.module.buffers(), kept, strict=True):
                b.copy_(value)
        return None

    update_parameters.__doc__ = original.__doc__
    AveragedModel.update_parameters = update_parameters


@patch(
    "setitem-unversioned",
    "slice assignment x[i] = v no longer moves x's version counter: a saved tensor it "
    "changes goes unseen and backward gives a wrong gradient (sweep: slice_assign)",
    probe="x = torch.zeros(3); x[0] = 1.0; print(x._version, x.tolist())",
    before="1 [1.0, 0.0, 0.0]",
    after="0 [1.0, 0.0, 0.0]",
)
def _setitem_unversioned(torch):
    version = torch._C.TensorBase.__dict__["_version"]
    set_version = torch._C._autograd._unsafe_set_version_counter

    def setitem(original, self, key, value):
        if self.is_inference():
            return original(self, key, value)
        before = version.__get__(self)
        original(self, key, value)
        # The assignment is recorded by autograd as before (CopySlices); only the
        # counter, shared with every view of the same tensor, is put back.
        set_version((self,), (before,))
        return None

    _method(torch, "__setitem__", setitem)


@patch(
    "rounding-untracked",
    "round(), floor(), ceil() and trunc() return results that do not require grad, "
    "as argmax() does, instead of a zero gradient (sweep: nondiff_ops)",
    probe=(
        "w = torch.tensor([0.3], requires_grad=True)\n"
        "print(w.round().requires_grad, type(torch.floor(w).grad_fn).__name__)"
    ),
    before="True FloorBackward0",
    after="False NoneType",
)
def _rounding_untracked(torch):
    detach = torch._C.TensorBase.detach
    for name in ("round", "floor", "ceil", "trunc"):
        _method(torch, name, lambda original, self, *a, **k: detach(original(self, *a, **k)))


@patch(
    "hook-gets-own-grad",
    "a tensor's gradient hook receives a copy of the gradient: changing it in place "
    "changes only that tensor's gradient (sweep: grad_hooks)",
    probe=(
        "a = torch.ones(2, requires_grad=True); b = torch.ones(2, requires_grad=True)\n"
        "a.register_hook(lambda grad: grad.mul_(2)); (a + b).backward(torch.ones(2))\n"
        "print(a.grad.tolist(), b.grad.tolist())"
    ),
    before="[2.0, 2.0] [2.0, 2.0]",
    after="[2.0, 2.0] [1.0, 1.0]",
)
def _hook_gets_own_grad(torch):
    def register_hook(original, self, hook):
        def owned(grad):
            grad = grad.clone()
            result = hook(grad)
            return grad if result is None else result

        return original(self, owned)

    _method(torch, "register_hook", register_hook)


@patch(
    "tensor-of-tensors-stacks",
    "torch.tensor() of a list of tensors that require grad stacks them, keeping the "
    "graph, instead of converting each to a number (sweep: list_to_tensor)",
    probe=(
        "import warnings; warnings.simplefilter('ignore')\n"
        "w = torch.ones(2, requires_grad=True); t = torch.tensor([w.sum(), w.sum()])\n"
        "print(t.requires_grad, type(t.grad_fn).__name__)"
    ),
    before="False NoneType",
    after="True StackBackward0",
)
def _tensor_of_tensors_stacks(torch):
    original = torch.tensor

    def tensor(data, *args, **kwargs):
        if (
            not _from_torch()
            and not args
            and not kwargs.get("requires_grad")
            and isinstance(data, (list, tuple))
            and data
            and all(isinstance(t, torch.Tensor) for t in data)
            and any(t.requires_grad for t in data)
            and len({t.shape for t in data}) == 1
        ):
            stacked = torch.stack(list(data))
            return stacked.to(dtype=kwargs.get("dtype"), device=kwargs.get("device"))
        return original(data, *args, **kwargs)

    tensor.__doc__ = original.__doc__
    torch.tensor = tensor
