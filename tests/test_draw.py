"""gradcut.claims.draw: what the walker finds in real graphs, and what the figures are made of.

Structure, not pixels: nodes, edges and layers as data; text and weight of the SVG.
"""

import io
import subprocess
import sys

import matplotlib
import pytest
import torch

matplotlib.use("agg")

from gradcut.claims.draw import (  # noqa: E402
    CUT,
    FUNCTION,
    GRAD,
    LEAF,
    SAVED,
    SAVED_EDGE,
    TENSOR,
    MemoryLog,
    _layout,
    _saved,
    autograd_graph,
    draw_graphs,
    layers,
)


def kinds(graph):
    return {n.label: n.kind for n in graph.nodes.values()}


def edges(graph):
    return {
        (graph.nodes[e.src].label, graph.nodes[e.dst].label, e.kind, e.label) for e in graph.edges
    }


@pytest.fixture
def sigmoid():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return a, a.sigmoid()


def test_walk_names_functions_leaves_and_saved_tensors(sigmoid):
    a, out = sigmoid
    g = autograd_graph({"a": a, "out": out})
    assert kinds(g) == {"out": FUNCTION, "a": LEAF, "_saved_result": SAVED}
    assert g.node("out").detail == "SigmoidBackward0"
    assert g.node("a").detail == "AccumulateGrad"
    assert g.node("_saved_result").detail == "out"  # the sigmoid saves its own result
    assert edges(g) == {("a", "out", GRAD, ""), ("_saved_result", "out", SAVED_EDGE, "")}


def test_unnamed_nodes_are_labelled_by_class_and_shape():
    w = torch.ones(2, 3, requires_grad=True)
    y = (w * 2).sum()
    g = autograd_graph({"y": y}, saved=False)
    assert kinds(g) == {"y": FUNCTION, "MulBackward0": FUNCTION, "AccumulateGrad": LEAF}
    assert g.node("AccumulateGrad").detail == "[2, 3]"
    assert g.node("MulBackward0").detail == ""


def test_cut_gives_the_detached_tensor_a_node(sigmoid):
    a, out = sigmoid
    c = out.detach()
    g = autograd_graph({"a": a, "out": out, "c": c}, cuts=[("out", "c")])
    assert g.node("c").kind == TENSOR and g.node("c").detail == "requires_grad=False"
    assert ("out", "c", CUT, "detach()") in edges(g)
    # the saved result is the memory of both
    assert g.node("_saved_result").detail == "out, c"


def test_detached_tensor_made_a_leaf_starts_a_graph_of_its_own(sigmoid):
    a, out = sigmoid
    c = out.detach()
    c.requires_grad = True
    y = c.sum()
    g = autograd_graph({"a": a, "out": out, "c": c, "y": y}, cuts=[("out", "c")])
    assert g.node("c").kind == LEAF
    assert ("c", "y", GRAD, "") in edges(g)
    # nothing leads from a to y except through the cut
    grad_paths = {(s, d) for s, d, kind, _ in edges(g) if kind == GRAD}
    assert ("a", "out") in grad_paths and not any(d == "y" and s != "c" for s, d in grad_paths)


def test_in_place_change_marks_the_saved_tensor_stale(sigmoid):
    a, out = sigmoid
    c = out.detach()
    c.zero_()
    saved = autograd_graph({"a": a, "out": out}).node("_saved_result")
    assert saved.stale
    assert saved.detail == "_version 0 → 1"


def test_saved_tensors_freed_by_backward_are_left_out(sigmoid):
    a, out = sigmoid
    out.sum().backward()
    g = autograd_graph({"a": a, "out": out})
    assert SAVED not in kinds(g).values()
    assert edges(g) == {("a", "out", GRAD, "")}


def test_an_unknown_error_reading_a_saved_tensor_is_not_hidden():
    class Node:
        @property
        def _saved_self(self):
            raise RuntimeError("a wording nobody has seen")

    with pytest.raises(RuntimeError, match="a wording nobody has seen"):
        list(_saved(Node()))


def test_without_saved_nodes_a_saved_outside_tensor_is_an_edge():
    w = torch.ones(1, 2, requires_grad=True)
    x = torch.ones(3, 1, requires_grad=True) * 2
    x_in = x.detach()
    y = (x_in @ w).sum()  # MmBackward0 saves x_in to compute w's gradient
    g = autograd_graph({"w": w, "x": x, "x_in": x_in, "y": y}, cuts=[("x", "x_in")], saved=False)
    assert SAVED not in kinds(g).values()
    assert ("x_in", "MmBackward0", SAVED_EDGE, "") in edges(g)
    assert ("x", "x_in", CUT, "detach()") in edges(g)


def test_a_grad_fn_can_be_the_source_of_a_cut():
    x = torch.ones(2, requires_grad=True)
    m = x * 2
    y = m * 3
    m_grad_fn = m.grad_fn
    m.detach_()
    g = autograd_graph({"x": x, "m": m, "y": y}, cuts=[(m_grad_fn, "m", "detach_()")], saved=False)
    # y's graph still runs through the function that made m, which lost its name
    assert ("x", "MulBackward0", GRAD, "") in edges(g)
    assert ("MulBackward0", "y", GRAD, "") in edges(g)
    assert ("MulBackward0", "m", CUT, "detach_()") in edges(g)
    assert g.node("m").kind == TENSOR


def test_frozen_parameters_are_outside_the_graph():
    lin = torch.nn.Linear(2, 1).requires_grad_(False)
    x = torch.ones(4, 2, requires_grad=True)
    y = lin(x).sum()
    g = autograd_graph({"weight": lin.weight, "bias": lin.bias, "x": x, "y": y}, saved=False)
    assert g.node("weight").kind == TENSOR and g.node("bias").kind == TENSOR
    assert g.node("x").kind == LEAF
    # the weight is saved to compute x's gradient: it shows as a saved edge
    assert any(s == "weight" and kind == SAVED_EDGE for s, _, kind, _ in edges(g))


def test_bad_arguments():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="expected a tensor"):
        autograd_graph({"x": [1, 2]})
    with pytest.raises(KeyError, match="'z' is not in names"):
        autograd_graph({"x": x, "y": x * 2}, cuts=[("y", "z")])
    with pytest.raises(ValueError, match="has no grad_fn"):
        autograd_graph({"x": x}, outputs=["x"])


def test_layers_put_inputs_before_their_users():
    x = torch.ones(2, requires_grad=True)
    frozen = torch.ones(2)
    y = (x.exp() * 2).sum()
    g = autograd_graph({"x": x, "frozen": frozen, "y": y}, saved=False)
    labels = [[g.nodes[n].label for n in layer] for layer in layers(g)]
    assert labels == [["x", "frozen"], ["ExpBackward0"], ["MulBackward0"], ["y"]]


def test_long_edges_bend_through_the_layers_they_cross():
    x = torch.ones(2, requires_grad=True)
    q = x + x.exp().exp()  # x feeds the sum directly, and through two exps
    g = autograd_graph({"x": x, "q": q}, saved=False)
    routes = {
        (g.nodes[e.src].label, g.nodes[e.dst].label): bends
        for e, bends in zip(g.edges, _layout(g).routes, strict=True)
    }
    assert len(routes[("x", "q")]) == 2  # across the two layers of the exps
    assert all(not bends for edge, bends in routes.items() if edge != ("x", "q"))
    centres = _layout(g).centres
    xs = [centres[b][0] for b in routes[("x", "q")]]
    assert centres[g.node("q").id][0] > xs[1] > xs[0] > centres[g.node("x").id][0]


def test_wide_graphs_are_drawn_top_to_bottom():
    x = torch.ones(2, requires_grad=True)
    short = autograd_graph({"x": x, "y": x.exp()}, saved=False)
    h = x
    for _ in range(12):
        h = h.exp()
    long = autograd_graph({"x": x, "h": h}, saved=False)
    assert not _layout(short).vertical
    assert _layout(long).vertical


def test_memory_log_detach_shares_the_version_counter(sigmoid):
    _, out = sigmoid
    log = MemoryLog()
    c = out.detach()
    log.record("c = out.detach()", out=out, c=c)
    c.zero_()
    log.record("c.zero_()")
    copy = out.detach().clone()
    log.record("copy = out.detach().clone()", copy=copy)
    last = log.rows[-1][1]
    steps = ["c = out.detach()", "c.zero_()", "copy = out.detach().clone()"]
    assert [step for step, _ in log.rows] == steps
    assert (last["out"].storage, last["c"].storage, last["copy"].storage) == (1, 1, 2)
    assert (last["out"].version, last["c"].version, last["copy"].version) == (1, 1, 0)
    assert last["c"].values == "[0, 0, 0]"


def test_memory_log_data_has_a_version_counter_of_its_own(sigmoid):
    _, out = sigmoid
    log = MemoryLog()
    c = out.data
    c.zero_()
    log.record("c.zero_()", out=out, c=c)
    cells = log.rows[0][1]
    assert cells["out"].storage == cells["c"].storage
    assert (cells["out"].version, cells["c"].version) == (0, 1)


def svg_of(fig) -> str:
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "test"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    matplotlib.pyplot.close(fig)
    return buf.getvalue()


def test_figures_keep_text_as_text_and_stay_light(sigmoid):
    a, out = sigmoid
    c = out.detach()
    graph = autograd_graph({"a": a, "out": out, "c": c}, cuts=[("out", "c")])
    svg = svg_of(draw_graphs(graph, graph, titles=["c = out.detach()", None]))
    labels = ("SigmoidBackward0", "_saved_result", "requires_grad=False", "✂ detach()")
    for label in (*labels, "c = out.detach()"):
        assert f">{label}<" in svg, label
    assert len(svg.encode()) < 100_000

    log = MemoryLog()
    log.record("c = out.detach()", out=out, c=c)
    c.zero_()
    log.record("c.zero_()")
    svg = svg_of(log.draw())
    for label in ("_version=0", "_version=1", "data_ptr #1", "c.zero_()"):
        assert f">{label}<" in svg, label
    assert len(svg.encode()) < 100_000


def test_the_panel_title_is_the_alt_text_sphinx_gallery_uses(sigmoid):
    from sphinx_gallery.scrapers import _matplotlib_fig_titles

    a, out = sigmoid
    fig = draw_graphs(autograd_graph({"a": a, "out": out}), titles=["out = a.sigmoid()"])
    assert _matplotlib_fig_titles(fig) == "out = a.sigmoid()"
    matplotlib.pyplot.close(fig)


def test_importing_gradcut_does_not_import_draw_or_matplotlib():
    code = "import sys, gradcut; print('gradcut.claims.draw' in sys.modules, 'matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def legend_labels(fig):
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    matplotlib.pyplot.close(fig)
    return labels


def test_the_legend_names_each_kind_the_figure_shows(sigmoid):
    a, out = sigmoid
    assert legend_labels(draw_graphs(autograd_graph({"a": a, "out": out}))) == [
        "grad_fn", "is_leaf=True", "_saved_*",
    ]  # fmt: skip
    # Without saved nodes, a saved tensor outside the graph is a dotted edge: the legend
    # still says what the dots are.
    w = torch.ones(1, 2, requires_grad=True)
    x_in = torch.ones(3, 1)
    y = (x_in @ w).sum()
    fig = draw_graphs(autograd_graph({"w": w, "x_in": x_in, "y": y}, saved=False))
    assert legend_labels(fig) == ["grad_fn", "is_leaf=True", "_saved_*", "requires_grad=False"]
    fig = draw_graphs(autograd_graph({"w": w, "y": (w * 2).sum()}, saved=False))
    assert "_saved_*" not in legend_labels(fig)
