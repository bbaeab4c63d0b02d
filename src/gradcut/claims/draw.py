"""Pictures drawn from real tensors: the autograd graph, and who shares memory.

Everything in these figures is read from the tensors when they are drawn, never typed
by hand:

- :func:`autograd_graph` walks ``grad_fn.next_functions`` back from the given outputs
  and returns a :class:`Graph` (nodes and edges, no drawing); :func:`draw_graphs` draws
  one or more of them, e.g. before and after a cut.
- :class:`MemoryLog` records, step by step, which tensors point at the same memory
  (``untyped_storage().data_ptr()``) and where their version counters (``_version``)
  stand; :meth:`MemoryLog.draw` draws the table.

Labels are code (``SigmoidBackward0``, ``_saved_result``, ``_version=1``) and tensor
names, so one figure reads the same in every language of the site. Text stays text in
the SVG (the gallery sets ``svg.fonttype`` to ``none``).

>>> import torch
>>> a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> out = a.sigmoid()
>>> g = autograd_graph({"out": out, "a": a})
>>> for edge in g.describe_edges():
...     print(edge)
a -> out (grad)
_saved_result -> out (saved)
>>> g.node("_saved_result").detail
'out'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import torch

from gradcut.claims.tensors import storage_ptr

__all__ = ["Edge", "Graph", "MemoryLog", "Node", "autograd_graph", "draw_graphs", "layers"]

# -- the graph, as data -------------------------------------------------------------

FUNCTION, LEAF, SAVED, TENSOR = "function", "leaf", "saved", "tensor"
GRAD, SAVED_EDGE, CUT = "grad", "saved", "cut"

# What torch says when a saved tensor is read after an in-place change, or after a
# backward pass freed it. Any other error fails the drawing: a picture that silently
# left something out would not show what torch does.
_STALE = re.compile(r"is at version (\d+); expected version (\d+)")
_FREED = "Trying to backward through the graph a second time"


@dataclass(frozen=True)
class Node:
    """One box of the graph.

    ``kind`` is ``"function"`` (a ``grad_fn``), ``"leaf"`` (the tensor behind an
    ``AccumulateGrad``), ``"saved"`` (a tensor a function saved for backward) or
    ``"tensor"`` (a named tensor outside the graph, e.g. the result of ``detach()``).
    ``label`` is the first line (a tensor name or a class name), ``detail`` the second.
    ``stale`` marks a saved tensor changed in place since it was saved.
    """

    id: str
    kind: str
    label: str
    detail: str = ""
    stale: bool = False


@dataclass(frozen=True)
class Edge:
    """``src -> dst`` in the direction data flows forward.

    ``kind`` is ``"grad"`` (``dst`` uses what ``src`` computes; backward runs the
    other way), ``"saved"`` (``dst`` saved ``src`` for backward) or ``"cut"`` (``dst``
    was detached from ``src``; ``label`` says how).
    """

    src: str
    dst: str
    kind: str
    label: str = ""


@dataclass
class Graph:
    """Nodes and edges found by :func:`autograd_graph`, in the order they were found."""

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)

    def node(self, label: str) -> Node:
        """The node whose label is ``label`` (it must be unique)."""
        found = [n for n in self.nodes.values() if n.label == label]
        if len(found) != 1:
            raise KeyError(f"{len(found)} nodes labelled {label!r}")
        return found[0]

    def labels(self, kind: str | None = None) -> list[str]:
        """The labels of the nodes (of one ``kind``), in the order they were found."""
        return [n.label for n in self.nodes.values() if kind is None or n.kind == kind]

    def describe_edges(self) -> list[str]:
        """Each edge as ``"src -> dst (kind)"``, with the nodes' labels."""
        out = []
        for e in self.edges:
            text = f"{self.nodes[e.src].label} -> {self.nodes[e.dst].label} ({e.kind}"
            out.append(text + (f": {e.label})" if e.label else ")"))
        return out


def _storage_key(t: torch.Tensor):
    """Tensors with the same key look at the same memory (any view of it)."""
    ptr = storage_ptr(t)
    return (ptr, t.device) if ptr else None  # an empty tensor has no memory to share


def _shape(t: torch.Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _saved(fn):
    """Yield ``(attribute, tensor or None, stale versions or None)`` for ``fn``."""
    for attr in sorted(a for a in dir(fn) if a.startswith("_saved_")):
        try:
            value = getattr(fn, attr)
        except RuntimeError as err:
            stale = _STALE.search(str(err))
            if stale is not None:  # changed in place since it was saved
                yield attr, None, (int(stale.group(2)), int(stale.group(1)))
            elif not str(err).startswith(_FREED):  # a wording this module does not know
                raise
            continue  # freed by a backward pass: nothing left to show
        values = value if isinstance(value, tuple | list) else [value]
        for v in values:
            if isinstance(v, torch.Tensor):
                yield attr, v, None


def autograd_graph(
    names: Mapping[str, torch.Tensor | object],
    outputs: Iterable[str] | None = None,
    cuts: Iterable[tuple] = (),
    saved: bool = True,
) -> Graph:
    """Walk the autograd graph back from ``outputs`` and name what ``names`` names.

    ``names`` maps a name to a tensor (or to a ``grad_fn`` node) of the picture.
    The walk starts at ``outputs`` (default: every named tensor that has a
    ``grad_fn``) and follows ``grad_fn.next_functions`` to the leaves. A function node
    is labelled with the name of the tensor it produced, if named; a leaf with the name
    of the tensor ``AccumulateGrad.variable`` points at. Named tensors outside the
    graph get a node of their own (``requires_grad=False``).

    With ``saved=True`` each tensor a function saved for backward (``_saved_*``) is a
    node, labelled with the names of the tensors on the same memory, or marked
    ``stale`` when it was changed in place since. With ``saved=False`` (for bigger
    graphs) only a named tensor outside the graph that a function saved is shown, as
    an edge to that function.

    ``cuts`` lists ``(src, dst)`` or ``(src, dst, label)``: the tensor named ``dst``
    was cut off from the one named ``src`` (label ``"detach()"`` by default); ``src``
    may also be a ``grad_fn`` of the graph, e.g. the one a tensor had before
    ``detach_()``.

    >>> import torch
    >>> a = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> out = a.exp()
    >>> c = out.detach()
    >>> g = autograd_graph({"a": a, "out": out, "c": c}, cuts=[("out", "c")])
    >>> g.labels()
    ['out', 'a', '_saved_result', 'c']
    >>> g.describe_edges()
    ['a -> out (grad)', '_saved_result -> out (saved)', 'out -> c (cut: detach())']
    >>> g.node("_saved_result").detail
    'out, c'
    """
    names = dict(names)
    for name, value in names.items():
        if not isinstance(value, torch.Tensor | torch.autograd.graph.Node):
            raise TypeError(f"{name!r}: expected a tensor or a grad_fn, got {type(value).__name__}")
    if outputs is None:
        outputs = [
            n for n, t in names.items()
            if isinstance(t, torch.autograd.graph.Node) or t.grad_fn is not None
        ]  # fmt: skip
    outputs = list(outputs)
    graph = Graph()
    fn_names: dict[int, list[str]] = {}  # id(grad_fn) -> names of what it produced
    leaf_names: dict[int, str] = {}  # id(tensor) -> name
    memory_names: dict[tuple, list[str]] = {}
    for name, t in names.items():
        if isinstance(t, torch.autograd.graph.Node):
            fn_names.setdefault(id(t), []).append(name)
            continue
        if t.grad_fn is not None:
            fn_names.setdefault(id(t.grad_fn), []).append(name)
        else:
            leaf_names.setdefault(id(t), name)
        key = _storage_key(t)
        if key is not None:
            memory_names.setdefault(key, []).append(name)

    node_of_fn: dict[int, str] = {}
    node_of_name: dict[str, str] = {}
    keep_alive = []  # ids stay unique only while the objects live
    saved_names: list[tuple[str, str]] = []  # (name, function node) for saved=False

    def add(kind, label, detail="", stale=False) -> str:
        nid = f"n{len(graph.nodes)}"
        graph.nodes[nid] = Node(nid, kind, label, detail, stale)
        return nid

    def fn_node(fn) -> str:
        if id(fn) in node_of_fn:
            return node_of_fn[id(fn)]
        keep_alive.append(fn)
        if hasattr(fn, "variable"):  # AccumulateGrad: a leaf
            name = leaf_names.get(id(fn.variable))
            if name:
                nid = add(LEAF, name, "AccumulateGrad")
            else:
                nid = add(LEAF, "AccumulateGrad", _shape(fn.variable))
            own = [name] if name else []
        else:
            own = fn_names.get(id(fn), [])
            nid = add(FUNCTION, own[0], fn.name()) if own else add(FUNCTION, fn.name())
        for name in own:
            node_of_name.setdefault(name, nid)
        node_of_fn[id(fn)] = nid
        return nid

    todo = []
    for name in outputs:
        t = names[name]
        fn = t if isinstance(t, torch.autograd.graph.Node) else t.grad_fn
        if fn is None:
            raise ValueError(f"{name!r} has no grad_fn: it is not the output of a graph")
        todo.append(fn)
    seen: set[int] = set()
    while todo:
        fn = todo.pop(0)
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        nid = fn_node(fn)
        for next_fn, _ in fn.next_functions:
            if next_fn is not None:
                graph.edges.append(Edge(fn_node(next_fn), nid, GRAD))
                todo.append(next_fn)
        for attr, t, stale in _saved(fn):
            same = memory_names.get(_storage_key(t), []) if t is not None else []
            if not saved:
                saved_names.extend((name, nid) for name in same)
            elif stale:
                sid = add(SAVED, attr, f"_version {stale[0]} → {stale[1]}", stale=True)
                graph.edges.append(Edge(sid, nid, SAVED_EDGE))
            else:
                sid = add(SAVED, attr, ", ".join(same) or _values(t))
                graph.edges.append(Edge(sid, nid, SAVED_EDGE))

    def tensor_node(name: str) -> str:
        if name not in node_of_name:
            t = names[name]
            if t.requires_grad:
                node_of_name[name] = add(LEAF, name, "AccumulateGrad")
            else:
                node_of_name[name] = add(TENSOR, name, "requires_grad=False")
        return node_of_name[name]

    for cut in cuts:
        src, dst, label = (*cut, "detach()")[:3]
        ends = []
        for end in (src, dst):
            if isinstance(end, torch.autograd.graph.Node):  # a grad_fn the walk found
                if id(end) not in node_of_fn:
                    raise KeyError(f"cut from {end.name()}: not in the graph of {outputs}")
                ends.append(node_of_fn[id(end)])
            elif end not in names:
                raise KeyError(f"cut {src!r} -> {dst!r}: {end!r} is not in names")
            else:
                ends.append(tensor_node(end))
        graph.edges.append(Edge(*ends, CUT, label))
    shown_as_saved = {
        name for n in graph.nodes.values() if n.kind == SAVED for name in n.detail.split(", ")
    }  # fmt: skip
    for name, t in names.items():  # named tensors outside the graph the walk found
        if isinstance(t, torch.Tensor) and t.grad_fn is None and name not in shown_as_saved:
            tensor_node(name)
    for name, fn_nid in saved_names:
        nid = node_of_name.get(name)
        if nid is not None and graph.nodes[nid].kind == TENSOR:
            graph.edges.append(Edge(nid, fn_nid, SAVED_EDGE))
    return graph


# -- the graph, as a picture --------------------------------------------------------

_FONT = "monospace"
_SIZE = 9  # points
_CHAR = 0.6 * _SIZE / 72  # inches per character of a monospace font
_ROW = 0.62  # inches from one node to the next across a layer
_GAP = 0.5  # inches between layers (left to right), or between nodes in a row
_MAX_WIDTH = 7.5  # inches: wider graphs are drawn top to bottom
_STYLE = {
    FUNCTION: {"fc": "#eeeeee", "ec": "#555555", "ls": "-"},
    LEAF: {"fc": "#dbeafe", "ec": "#1d4ed8", "ls": "-"},
    SAVED: {"fc": "#ffedd5", "ec": "#c2410c", "ls": "-"},
    TENSOR: {"fc": "#ffffff", "ec": "#555555", "ls": "--"},
}
_STALE_STYLE = {"fc": "#fee2e2", "ec": "#b91c1c", "ls": "-"}
_SAVED_EDGE_STYLE = {"color": "#c2410c", "linestyle": ":"}
_LEGEND = [
    (FUNCTION, "grad_fn"),
    (LEAF, "is_leaf=True"),
    (SAVED, "_saved_*"),
    (TENSOR, "requires_grad=False"),
]


def layers(graph: Graph) -> list[list[str]]:
    """Node ids by layer, in the direction data flows.

    Each node sits one layer before the first node that uses it, so inputs are drawn
    next to where they are used; a node without any edge goes in the first layer.

    >>> import torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> g = autograd_graph({"x": x, "y": (x * 2).sum()}, saved=False)
    >>> [[g.nodes[n].label for n in layer] for layer in layers(g)]
    [['x'], ['MulBackward0'], ['y']]
    """
    succ, pred = _neighbours(graph.nodes, [(e.src, e.dst) for e in graph.edges])
    depth: dict[str, int] = {}

    def longest(n: str) -> int:  # edges to the farthest sink (the graph is a DAG)
        if n not in depth:
            depth[n] = 1 + max((longest(m) for m in succ[n]), default=-1)
        return depth[n]

    for n in graph.nodes:
        longest(n)
    last = max(depth.values(), default=0)
    for n in graph.nodes:
        if not succ[n] and not pred[n]:
            depth[n] = last
    result: list[list[str]] = [[] for _ in range(last + 1)]
    for n in graph.nodes:  # discovery order inside a layer
        result[last - depth[n]].append(n)
    _order(result, succ, pred)
    return result


def _neighbours(nodes, pairs):
    succ: dict[str, list[str]] = {n: [] for n in nodes}
    pred: dict[str, list[str]] = {n: [] for n in nodes}
    for src, dst in pairs:
        succ[src].append(dst)
        pred[dst].append(src)
    return succ, pred


def _order(result: list[list[str]], succ, pred) -> None:
    """A few sweeps of the barycentre heuristic: fewer crossing edges."""
    for _ in range(4):
        for i in range(1, len(result)):
            _sort_by_neighbours(result[i], result[i - 1], pred)
        for i in range(len(result) - 2, -1, -1):
            _sort_by_neighbours(result[i], result[i + 1], succ)


def _sort_by_neighbours(layer: list[str], other: list[str], neighbours) -> None:
    """Order ``layer`` by the mean position of each node's neighbours in ``other``."""
    pos = {n: k for k, n in enumerate(other)}
    here = {n: k for k, n in enumerate(layer)}

    def key(n):
        near = [pos[m] for m in neighbours[n] if m in pos]
        return (sum(near) / len(near) if near else here[n], here[n])

    layer.sort(key=key)


def _box(node: Node | None) -> tuple[float, float]:
    """Width and height of a node's box, in inches (a bend point of an edge: ``None``)."""
    if node is None:
        return 0.1, 0.1
    width = _CHAR * max(len(node.label), len(node.detail) * (_SIZE - 1.5) / _SIZE) + 0.25
    return width, (0.44 if node.detail else 0.28)


def _cut_label(edge: Edge) -> str:
    return f"✂ {edge.label}"


@dataclass
class _Layout:
    width: float
    height: float
    centres: dict[str, tuple[float, float]]  # nodes, and the bend points of long edges
    vertical: bool
    routes: list[list[str]]  # per edge of the graph: the bend points it passes through


def _layout(graph: Graph, vertical: bool | None = None) -> _Layout:
    """Where each node goes, in inches; left to right unless too wide.

    An edge across more than one layer gets a bend point in each layer it crosses;
    the bend points take part in the ordering, so long edges go around the boxes.
    """
    if vertical is None:
        across = _layout(graph, False)
        return across if across.width <= _MAX_WIDTH else _layout(graph, True)
    found = layers(graph)
    index = {n: i for i, layer in enumerate(found) for n in layer}
    pairs, routes = [], []
    for k, e in enumerate(graph.edges):
        chain = [e.src]
        for layer in range(index[e.src] + 1, index[e.dst]):
            bend = f"bend{k}.{layer}"
            found[layer].append(bend)
            chain.append(bend)
        chain.append(e.dst)
        pairs += zip(chain, chain[1:])
        routes.append(chain[1:-1])
    succ, pred = _neighbours([n for layer in found for n in layer], pairs)
    _order(found, succ, pred)
    cut_room = {}  # the label of a cut between two adjacent layers needs room
    for e in graph.edges:
        if e.kind == CUT and index[e.dst] == index[e.src] + 1:
            need = _CHAR * len(_cut_label(e)) + 0.35
            cut_room[index[e.src]] = max(cut_room.get(index[e.src], 0.0), need)
    centres = {}

    def size(n):
        return _box(graph.nodes.get(n))

    if not vertical:  # left to right: one column per layer
        widths = [max((size(n)[0] for n in layer), default=1.0) for layer in found]
        heights = [sum(_ROW if n in graph.nodes else 0.25 for n in layer) for layer in found]
        height = max(heights, default=_ROW) + 0.25
        x = 0.2
        for i, (layer, w, h) in enumerate(zip(found, widths, heights, strict=True)):
            y = height / 2 + h / 2
            for n in layer:
                step = _ROW if n in graph.nodes else 0.25
                centres[n] = (x + w / 2, y - step / 2)
                y -= step
            x += w + max(_GAP, cut_room.get(i, 0.0))
        width = x - max(_GAP, cut_room.get(len(found) - 1, 0.0)) + 0.2
        return _Layout(width, height, centres, False, routes)
    # top to bottom: one row per layer, a row's nodes side by side
    row_widths = [sum(size(n)[0] + 0.3 for n in layer) - 0.3 for layer in found]
    width = max(row_widths, default=1.0) + 0.4 + max(cut_room.values(), default=0.0)
    step = 0.75
    height = step * len(found) + 0.1
    for i, (layer, rw) in enumerate(zip(found, row_widths, strict=True)):
        y = height - 0.4 - step * i
        x = (width - rw) / 2
        for n in layer:
            w = size(n)[0]
            centres[n] = (x + w / 2, y)
            x += w + 0.3
    return _Layout(width, height, centres, True, routes)


def _draw_panel(ax, graph: Graph, layout: _Layout, title: str | None) -> None:
    from matplotlib.patches import FancyBboxPatch

    ax.set_xlim(0, layout.width)
    ax.set_ylim(0, layout.height)
    ax.set_axis_off()
    if title:  # an axes title: sphinx-gallery also makes it the image's alt text
        ax.set_title(title, loc="left", x=0.1 / layout.width, pad=4, fontsize=_SIZE,
                     fontfamily=_FONT)  # fmt: skip
    boxes = {}
    for nid, node in graph.nodes.items():
        x, y = layout.centres[nid]
        style = _STALE_STYLE if node.stale else _STYLE[node.kind]
        bw, bh = _box(node)
        box = FancyBboxPatch(
            (x - bw / 2, y - bh / 2), bw, bh, boxstyle="round,pad=0,rounding_size=0.06",
            fc=style["fc"], ec=style["ec"], ls=style["ls"], lw=1.0, zorder=2,
        )  # fmt: skip
        ax.add_patch(box)
        boxes[nid] = box
        bold = node.kind != FUNCTION or bool(node.detail)
        ax.text(x, y + (0.08 if node.detail else 0.0), node.label, ha="center", va="center",
                fontsize=_SIZE, fontfamily=_FONT, fontweight="bold" if bold else "normal",
                zorder=3)  # fmt: skip
        if node.detail:
            ax.text(x, y - 0.1, node.detail, ha="center", va="center", fontsize=_SIZE - 1.5,
                    fontfamily=_FONT, color="#333333", zorder=3)  # fmt: skip
    for e, bends in zip(graph.edges, layout.routes, strict=True):
        style = {"color": "#555555", "lw": 1.0}
        if e.kind == SAVED_EDGE:
            style.update(_SAVED_EDGE_STYLE)
        elif e.kind == CUT:
            style.update(color="#dc2626", linestyle="--", lw=1.4)
        points = [layout.centres[n] for n in (e.src, *bends, e.dst)]
        for k, ((x0, y0), (x1, y1)) in enumerate(zip(points, points[1:])):
            last = k == len(points) - 2
            props = {"arrowstyle": "-|>" if last else "-", "shrinkA": 0, "shrinkB": 0,
                     "mutation_scale": 10, **style}  # fmt: skip
            if k == 0:
                props["patchA"] = boxes[e.src]
            if last:
                props["patchB"] = boxes[e.dst]
            forward = (y1 < y0) if layout.vertical else (x1 > x0)
            if not forward:  # within one layer: bend around the boxes in between
                props["connectionstyle"] = "arc3,rad=-0.4"
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0), arrowprops=props, zorder=1)
        if e.kind == CUT:
            (x0, y0), (x1, y1) = points[0], points[1]
            label = {"fontsize": _SIZE - 0.5, "fontfamily": _FONT, "color": "#dc2626", "zorder": 4,
                     "bbox": {"fc": "white", "ec": "none", "pad": 0.5, "alpha": 0.9}}  # fmt: skip
            if layout.vertical:  # beside the edge, half way down
                ax.text((x0 + x1) / 2 + 0.12, (y0 + y1) / 2, _cut_label(e), ha="left",
                        va="center", **label)  # fmt: skip
            else:  # above the edge, in the gap after the box it starts from
                left = boxes[e.src].get_x() + boxes[e.src].get_width()
                right = boxes[e.dst].get_x() if not bends else x1
                ax.text((left + right) / 2, (y0 + y1) / 2 + 0.06, _cut_label(e),
                        ha="center", va="bottom", **label)  # fmt: skip


def draw_graphs(
    *graphs: Graph,
    titles: Iterable[str] = (),
    legend: bool = True,
    vertical: bool | None = None,
):
    """Draw each graph in a panel of its own; return the figure.

    Graphs are drawn left to right, in panels one under the other; when one would be
    wider than the page (or with ``vertical=True``) they are drawn top to bottom, in
    panels side by side. Titles are best written as code (``"c = out.detach()"``):
    they then read the same in every language.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    titles = list(titles)
    titles += [None] * (len(graphs) - len(titles))
    if vertical is None:
        vertical = any(_layout(g).vertical for g in graphs)
    layouts = [_layout(g, vertical) for g in graphs]
    title_h = 0.3 if any(titles) else 0.0
    legend_h = 0.35 if legend else 0.0
    if vertical:  # side by side
        width = sum(lay.width for lay in layouts) + 0.2 * (len(layouts) - 1)
        height = max(lay.height for lay in layouts) + title_h + legend_h
    else:  # one under the other
        width = max(lay.width for lay in layouts)
        panels = zip(layouts, titles, strict=True)
        height = sum(lay.height + (title_h if t else 0) for lay, t in panels) + legend_h
    fig = plt.figure(figsize=(width, height))
    x, y = 0.0, height
    for g, lay, t in zip(graphs, layouts, titles, strict=True):
        if vertical:
            bottom = height - title_h - lay.height
            ax = fig.add_axes((x / width, bottom / height, lay.width / width, lay.height / height))
            x += lay.width + 0.2
        else:
            y -= lay.height + (title_h if t else 0)
            ax = fig.add_axes((0, y / height, lay.width / width, lay.height / height))
        _draw_panel(ax, g, lay, t)
    if legend:
        kinds = {n.kind for g in graphs for n in g.nodes.values()}
        handles = []
        for k, text in _LEGEND:
            if k in kinds:
                handles.append(
                    Patch(fc=_STYLE[k]["fc"], ec=_STYLE[k]["ec"], ls=_STYLE[k]["ls"], label=text)
                )  # fmt: skip
            elif k == SAVED and any(e.kind == SAVED_EDGE for g in graphs for e in g.edges):
                # saved=False: what a function saved is a dotted edge, not a box
                handles.append(Line2D([], [], lw=1.0, label=text, **_SAVED_EDGE_STYLE))
        if handles:
            fig.legend(handles=handles, loc="lower left", ncols=len(handles), frameon=False,
                       prop={"family": _FONT, "size": _SIZE - 1}, handlelength=1.2,
                       borderaxespad=0.1, columnspacing=1.2)  # fmt: skip
    return fig


# -- memory and version counters ----------------------------------------------------

_STORAGE_COLOURS = ["#dbeafe", "#dcfce7", "#fef9c3", "#f3e8ff", "#ffe4e6", "#e0f2fe"]


def _version(t: torch.Tensor) -> int | None:
    try:
        return t._version
    except RuntimeError:  # inference tensors have no version counter
        return None


def _values(t: torch.Tensor) -> str:
    if t.dim() == 0:
        return f"{t.item():.4g}"
    flat = t.detach().reshape(-1)
    if flat.numel() > 4:
        return _shape(t)
    return "[" + ", ".join(f"{v:.4g}" for v in flat.tolist()) + "]"


@dataclass(frozen=True)
class Cell:
    """One tensor at one step: its memory (``storage`` numbers memory in order of
    appearance), its ``_version`` (``None`` for an inference tensor) and its values."""

    storage: int
    version: int | None
    values: str


class MemoryLog:
    """Step by step: which tensors share memory, and where their ``_version`` stands.

    >>> import torch
    >>> log = MemoryLog()
    >>> out = torch.tensor([1.0, 2.0], requires_grad=True).sigmoid()
    >>> c = out.detach()
    >>> log.record("c = out.detach()", out=out, c=c)
    >>> _ = c.zero_()
    >>> log.record("c.zero_()")
    >>> for step, cells in log.rows:
    ...     print(step, {name: (cell.storage, cell.version) for name, cell in cells.items()})
    c = out.detach() {'out': (1, 0), 'c': (1, 0)}
    c.zero_() {'out': (1, 1), 'c': (1, 1)}
    """

    def __init__(self) -> None:
        self.tensors: dict[str, torch.Tensor] = {}
        self.rows: list[tuple[str, dict[str, Cell]]] = []
        self._storages: dict[int, int] = {}

    def record(self, step: str, **tensors: torch.Tensor) -> None:
        """Note the state of every tensor seen so far (and of ``tensors``) after ``step``."""
        self.tensors.update(tensors)
        cells = {}
        for name, t in self.tensors.items():
            ptr = storage_ptr(t)
            number = self._storages.setdefault(ptr, len(self._storages) + 1)
            cells[name] = Cell(number, _version(t), _values(t))
        self.rows.append((step, cells))

    def draw(self, title: str | None = None):
        """A table: one row per step, one column per tensor; one colour per memory.

        A cell whose ``_version`` moved since the row above is framed in red.
        """
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch, Rectangle

        names = list(self.tensors)
        step_w = max(_CHAR * len(s) for s, _ in self.rows) + 0.3
        cell_w = max(
            [_CHAR * 0.85 * len(c.values) + 0.3 for _, cells in self.rows for c in cells.values()]
            + [_CHAR * len("_version=00") + 0.3]
        )  # fmt: skip
        row_h, head_h, legend_h = 0.5, 0.3, 0.35
        title_h = 0.3 if title else 0.0
        width = step_w + cell_w * len(names) + 0.2
        height = title_h + head_h + row_h * len(self.rows) + legend_h
        fig = plt.figure(figsize=(width, height))
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, width)
        ax.set_ylim(0, height)
        ax.set_axis_off()
        text = {"fontfamily": _FONT, "va": "center"}
        if title:
            ax.text(0.1, height - title_h / 2, title, fontsize=_SIZE, **text)
        # A hidden axes title: sphinx-gallery makes it the image's alt text.
        ax.set_title(" | ".join(step for step, _ in self.rows), visible=False)
        top = height - title_h
        for j, name in enumerate(names):
            ax.text(step_w + cell_w * (j + 0.5), top - head_h / 2, name, ha="center",
                    fontsize=_SIZE, fontweight="bold", **text)  # fmt: skip
        previous: dict[str, Cell] = {}
        for i, (step, cells) in enumerate(self.rows):
            y = top - head_h - row_h * (i + 1)
            ax.text(0.1, y + row_h / 2, step, fontsize=_SIZE, **text)
            for j, name in enumerate(names):
                cell = cells.get(name)
                if cell is None:
                    continue
                moved = name in previous and previous[name].version != cell.version
                colour = _STORAGE_COLOURS[(cell.storage - 1) % len(_STORAGE_COLOURS)]
                x = step_w + cell_w * j
                frame = {"ec": "#dc2626", "lw": 1.8} if moved else {"ec": "#888888", "lw": 0.6}
                ax.add_patch(Rectangle((x + 0.04, y + 0.04), cell_w - 0.08, row_h - 0.08,
                                       fc=colour, **frame))  # fmt: skip
                version = "n/a" if cell.version is None else cell.version
                ax.text(x + cell_w / 2, y + row_h * 0.64, f"_version={version}", ha="center",
                        fontsize=_SIZE, color="#b91c1c" if moved else "black",
                        fontweight="bold" if moved else "normal", **text)  # fmt: skip
                ax.text(x + cell_w / 2, y + row_h * 0.3, cell.values, ha="center",
                        fontsize=_SIZE - 1.5, color="#333333", **text)  # fmt: skip
            previous = cells
        storages = sorted({c.storage for _, cells in self.rows for c in cells.values()})
        handles = [
            Patch(fc=_STORAGE_COLOURS[(s - 1) % len(_STORAGE_COLOURS)], ec="#888888",
                  label=f"data_ptr #{s}")
            for s in storages
        ]  # fmt: skip
        fig.legend(handles=handles, loc="lower left", ncols=len(handles), frameon=False,
                   prop={"family": _FONT, "size": _SIZE - 1}, handlelength=1.2,
                   borderaxespad=0.1)  # fmt: skip
        return fig
