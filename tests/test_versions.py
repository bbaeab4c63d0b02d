"""The "torch versions" page: built from the results files, re-read when they change."""

import importlib.metadata
import json
import re
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

TORCH = importlib.metadata.version("torch")


def claim(page, line, source, status):
    return {"page": page, "line": line, "source": source, "status": status, "expected": ""}


def write_run(path: Path, torch: str, claims, date="2026-01-02"):
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"torch": torch, "python": "3.11.7", "date": date, "claims": claims}
    path.write_text(json.dumps(data), encoding="utf-8")


CURRENT = [
    claim("docs/other.rst", 3, "x.detach()", "holds"),
    claim("docs/other.rst", 9, "x.detach()", "holds"),
    claim("docs/other.rst", 12, "x.numpy()", "n.a."),
    claim("src/gradcut/claims/tensors.py", 16, "import torch", "holds"),
]


@pytest.fixture
def srcdir(tmp_path, rootdir) -> Path:
    target = tmp_path / "torch-runs"
    shutil.copytree(rootdir / "test-torch-runs", target)
    return target


def build(make_app, srcdir, **kwargs):
    """Build; return the page's tables as text rows, the warnings and whether it was read."""
    app = make_app("html", srcdir=srcdir, freshenv=False, **kwargs)
    try:
        app.build()
        html = Path(app.outdir, "index.html").read_text(encoding="utf-8")
        read = "index" in app.env.gradcut_torch_runs_docs and any(
            "reading sources" in line and "index" in line for line in app.status.getvalue().splitlines()
        )
        warnings = app.warning.getvalue()
    finally:
        app.cleanup()
    soup = BeautifulSoup(html, "html.parser")
    tables = [
        [[cell.get_text(" ", strip=True) for cell in row.find_all(["th", "td"])] for row in table.find_all("tr")]
        for table in soup.select("table.gradcut-torch-runs")
    ]
    return tables, warnings, read, soup


def test_current_run_only(srcdir, make_app):
    write_run(srcdir / "results" / f"torch-{TORCH}.json", TORCH, CURRENT)
    (summary, pages, detail), warnings, _, soup = build(make_app, srcdir)
    assert warnings == ""
    assert summary == [
        ["torch", "date", "Python", "holds", "changed", "n.a.", "gone"],
        [f"torch {TORCH} (this build)", "2026-01-02", "3.11.7", "3", "0", "1", "0"],
    ]
    # One row per page: how many of its claims hold, and what the others did.
    assert pages == [
        ["page", f"torch {TORCH} (this build)"],
        ["Another page", "2 · 1 n.a."],
        ["helper module gradcut.claims.tensors", "1"],
    ]
    # Claims that did not hold everywhere, one by one, collapsed under their page.
    assert detail == [["line", "claim", f"torch {TORCH} (this build)"], ["12", "x.numpy()", "n.a."]]
    assert soup.select_one("details.gradcut-torch-runs-detail summary").get_text() == "Another page"
    # A page of the site is a link, named by its title; a helper module by its module's name.
    link = soup.select_one("table.gradcut-torch-runs-claims a")
    assert link["href"] == "other.html" and link.get_text() == "Another page"
    assert soup.select_one("table.gradcut-torch-runs-detail td.gradcut-na").get_text(strip=True) == "n.a."


def test_other_runs_appear_and_are_reread(srcdir, make_app):
    write_run(srcdir / "results" / f"torch-{TORCH}.json", TORCH, CURRENT)
    build(make_app, srcdir)
    _, _, read, _ = build(make_app, srcdir)
    assert not read, "nothing changed, yet the page was read again"

    # A run of another torch lands: older text of the page (a claim it lacks, a claim
    # that is gone since, lines that moved).
    old = srcdir / "_torch_runs" / "torch-9.0.0.json"
    write_run(
        old,
        "9.0.0",
        [
            claim("docs/other.rst", 2, "x.detach()", "holds"),
            claim("docs/other.rst", 5, "x.detach()", "changed"),
            claim("docs/other.rst", 7, "x.data", "holds"),
            claim("src/gradcut/claims/tensors.py", 16, "import torch", "holds"),
        ],
        date="2026-03-04",
    )
    (summary, pages, detail), warnings, read, _ = build(make_app, srcdir)
    assert read and warnings == ""
    assert summary[2] == ["torch 9.0.0", "2026-03-04", "3.11.7", "3", "1", "0", "1"]
    assert pages[0][1:] == [f"torch {TORCH} (this build)", "torch 9.0.0"]
    assert pages[1] == ["Another page", "2 · 1 n.a.", "1 · 1 changed · 1 not run"]
    assert detail[1:] == [
        ["9", "x.detach()", "holds", "changed"],  # the second x.detach() of the page
        ["12", "x.numpy()", "n.a.", "not run"],
    ]

    # The run is redone and its file changes: the page follows.
    data = json.loads(old.read_text())
    data["claims"][1]["status"] = "holds"
    old.write_text(json.dumps(data))
    (summary, pages, detail), _, read, _ = build(make_app, srcdir)
    assert read
    assert pages[1][2] == "2 · 1 not run"
    assert detail[1:] == [["12", "x.numpy()", "n.a.", "not run"]]

    # And it goes away.
    old.unlink()
    (summary, pages, _), _, read, _ = build(make_app, srcdir)
    assert read and len(summary) == 2 and len(pages[0]) == 2


def test_a_table_row_is_named_by_its_first_cell(srcdir, make_app):
    """A row of a sweep table that did not hold everywhere: its label, not its Markdown."""
    write_run(srcdir / "results" / f"torch-{TORCH}.json", TORCH, CURRENT)
    rows = [
        {**claim("docs/other.rst", 20, "| `y.data` in `no_grad` | no |", "changed"), "kind": "reference"},
        {**claim("docs/other.rst", 21, "| `y.detach()` | yes |", "holds"), "kind": "reference"},
    ]
    write_run(srcdir / "_torch_runs" / "torch-9.0.0.json", "9.0.0", rows)
    (_, pages, *details), _, _, soup = build(make_app, srcdir)
    assert ["Another page (tables)", "–", "1 · 1 changed"] in pages
    assert details[-1][1][:2] == ["20", "y.data in no_grad"]
    cell = soup.select("table.gradcut-torch-runs-detail")[-1].select("td")[1]
    assert [c.get_text() for c in cell.select("code")] == ["y.data", "no_grad"]


def test_committed_file_of_the_building_torch_is_superseded(srcdir, make_app):
    write_run(srcdir / "results" / f"torch-{TORCH}.json", TORCH, CURRENT)
    write_run(srcdir / "_torch_runs" / f"torch-{TORCH}.json", TORCH, CURRENT[:1], date="2020-01-01")
    (summary, *_), _, _, _ = build(make_app, srcdir)
    assert [row[0] for row in summary[1:]] == [f"torch {TORCH} (this build)"]
    assert summary[1][1] == "2026-01-02"


def test_missing_results_of_the_building_torch_is_an_error(srcdir, make_app):
    _, warnings, _, _ = build(make_app, srcdir)
    assert f"no results of the doctests for torch {TORCH}" in warnings
    assert "make doctest" in warnings


def test_chinese_words(srcdir, make_app):
    write_run(srcdir / "results" / f"torch-{TORCH}.json", TORCH, CURRENT)
    (summary, pages, detail), _, _, _ = build(make_app, srcdir, confoverrides={"language": "zh_CN"})
    assert summary[0][3:6] == ["成立", "结果不同", "不适用"]
    assert pages[2] == ["辅助模块 gradcut.claims.tensors", "1"]
    assert pages[1][1] == "2 · 1 不适用"
    assert detail[1][2] == "不适用"


# -- under each transcript: what other releases did ----------------------------------

DUMP = (
    "NotImplementedError: Could not run 'aten::_local_scalar_dense' with arguments from the 'Meta' backend. "
    + "This could be because the operator doesn't exist for this backend. " * 8
    + "\n\nCPU: registered at aten/src/ATen/RegisterCPU.cpp:30798 [kernel]\n"
    + "CUDA: registered at aten/src/ATen/RegisterCUDA.cpp:43635 [kernel]\n"
)


def test_an_output_shows_its_first_line_and_folds_the_rest():
    from gradcut.sphinxext.versions import split_output

    assert split_output("False") == ("False", "")
    assert split_output("a\nb\nc\n") == ("a", "b\nc")
    shown, rest = split_output(DUMP)
    # a first line that runs on: its first sentence
    assert shown == "NotImplementedError: Could not run 'aten::_local_scalar_dense' with arguments from the 'Meta' backend."
    assert rest.startswith("This could be because") and rest.endswith("[kernel]")
    assert f"{shown} {rest}" == DUMP.strip("\n")


def history_soup(language, history):
    from types import SimpleNamespace

    from gradcut.sphinxext.versions import _history_html

    return BeautifulSoup(_history_html(SimpleNamespace(language=language), history), "html.parser")


ABSENT = "not in torch 1.13.1: AttributeError: module 'torch' has no attribute 'compile'"


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_what_other_releases_did_is_said_in_the_pages_language(language):
    from gradcut.sphinxext.versions import Note

    history = [
        ("1.13.1", "changed", [Note("t.sum().item()", DUMP), Note("f = torch.compile(g)", ABSENT, na=True)]),
        ("2.0.1", "n.a.", [Note("f = torch.compile(g)", ABSENT.replace("1.13.1", "2.0.1"), na=True)]),
        ("2.13.0", "holds", []),
    ]
    soup = history_soup(language, history)
    fold = soup.select_one(".gradcut-block-history > details")
    session = fold.select_one("div.highlight-pycon pre")
    # the output's first sentence in the session, the rest (4 lines) one click further
    assert "from the 'Meta' backend.\n" in session.get_text() and "CPU: registered" not in session.get_text()
    more = fold.select_one("details.gradcut-more-output")
    assert more.select_one("pre").get_text().rstrip("\n").endswith("RegisterCUDA.cpp:43635 [kernel]")
    # torch's words verbatim, as code; the site's in the page's language
    errors = [c.get_text() for c in fold.select("code")]
    assert errors == ["AttributeError: module 'torch' has no attribute 'compile'"] * 2
    words = {
        "en": ["4 more lines", "n.a. (not in torch 1.13.1: ", "torch 2.0.1: n.a. (not in torch 2.0.1: "],
        "zh_CN": ["其余 4 行", "不适用（torch 1.13.1 中没有：", "torch 2.0.1：不适用（torch 2.0.1 中没有："],
    }[language]
    assert more.summary.get_text() == words[0]
    assert fold.select_one(".gradcut-na-note").get_text().startswith(words[1])
    assert fold.find_all("p")[-1].get_text().startswith(words[2])
    if language == "zh_CN":
        for code in fold.select("code, pre"):
            code.decompose()
        assert not re.search("[A-Za-z]{3,}", fold.get_text().replace("torch", "")), fold.get_text()


def test_a_statement_that_needed_another_names_it():
    from gradcut.sphinxext.versions import block_history

    block = ">>> import torch._dynamo\n>>> report = torch._dynamo.explain(f)(x)\n>>> report.graph_count\n1\n"
    claims = [
        {"page": "docs/q.md", "line": 11, "source": "import torch._dynamo", "expected": "", "status": "n.a.",
         "reason": "not in torch 1.13.1: ModuleNotFoundError: No module named 'torch._dynamo'"},
        {"page": "docs/q.md", "line": 12, "source": "report = torch._dynamo.explain(f)(x)", "expected": "",
         "status": "n.a.", "reason": "not in torch 1.13.1: AttributeError: module 'torch' has no attribute '_dynamo'"},
        {"page": "docs/q.md", "line": 13, "source": "report.graph_count", "expected": "1", "status": "n.a.",
         "reason": "needs line 11, which cannot run on torch 1.13.1"},
    ]  # fmt: skip
    [(_, status, notes)] = block_history(block, "docs/q.md", 10, [{"torch": "1.13.1", "claims": claims}])
    assert status == "n.a." and notes[2].needs == "import torch._dynamo"
    soup = history_soup("zh_CN", [("1.13.1", "changed", notes)])
    assert [n.get_text() for n in soup.select(".gradcut-na-note")][2] == (
        "不适用（要用到 import torch._dynamo 的结果，而它在 torch 1.13.1 上无法运行）"
    )


def test_a_reason_the_site_cannot_say_in_chinese_is_reported(caplog):
    from gradcut.sphinxext.versions import Note

    soup = history_soup("zh_CN", [("1.13.1", "n.a.", [Note("x", "skipped for a reason nobody wrote", na=True)])])
    assert "skipped for a reason nobody wrote" in soup.get_text()
    assert "no zh_CN words for the reason" in caplog.text


# -- under a sweep table: its rows' history ------------------------------------------


ROWS = [
    "| Operation | Shares version counter |",
    "| `y.detach()` | yes |",
    "| `y.data` | no |",
    "| `y.data` in `no_grad` | no |",
]


def sweep_table(language_cells):
    """A sweep container as the directive leaves it, its cells as a page in another
    language shows them (written as Markdown: `code` is code)."""
    from docutils import nodes

    from gradcut.sphinxext.versions import markdown_inline

    container = nodes.container(classes=["gradcut-sweep"])
    container["sweep"], container["row_texts"] = "cheatsheet", ROWS
    table = nodes.table()
    for cells in language_cells:
        row = nodes.row()
        for cell in cells:
            row += nodes.entry("", nodes.paragraph("", "", *markdown_inline(cell)))
        table += row
    container += table
    return container


def sweep_run(torch, status, row=2, **extra):
    claims = [{"page": "docs/p.md", "line": i, "source": r, "kind": "reference", "status": "holds"} for i, r in enumerate(ROWS)]
    claims[row].update(status=status, **extra)
    return {"torch": torch, "claims": claims}


ZH_TABLE = [["操作", "共享版本计数器"], ["`y.detach()`", "是"], ["`y.data`", "否"], ["在 `no_grad` 中的 `y.data`", "否"]]


def test_a_sweep_row_that_changed_is_shown_in_the_pages_words():
    from types import SimpleNamespace

    from gradcut.sphinxext.versions import _sweep_history_html, sweep_history

    runs = [
        sweep_run("1.13.1", "changed", got="y.data / Shares version counter: the table says 'no', torch 1.13.1 gives 'yes'"),
        sweep_run("2.0.1", "n.a.", reason="not in torch 2.0.1: AttributeError: module 'torch' has no attribute 'gone'"),
        sweep_run("2.1.2", "holds"),
        sweep_run("2.12.1", "n.a.", reason="not in torch 2.0.1: AttributeError: module 'torch' has no attribute 'gone'"),
        sweep_run("2.13.0", "holds"),
    ]
    history = sweep_history(sweep_table([])["row_texts"], runs, "2.13.0")
    assert [(v, s) for v, s, _n in history] == [
        ("1.13.1", "changed"), ("2.0.1", "n.a."), ("2.1.2", "holds"), ("2.12.1", "n.a."), ("2.13.0", "holds")
    ]  # fmt: skip
    zh = SimpleNamespace(language="zh_CN")
    html = _sweep_history_html(zh, sweep_table(ZH_TABLE), history)
    # releases apart with 、, no space after the sentence's 。
    assert "每一行都在构建本站时实测。<span" in html
    assert "在 torch 2.1.2、2.13.0 上成立" in html and "在 torch 1.13.1 上结果不同" in html
    assert "在 torch 2.0.1、2.12.1 上不适用" in html
    # the row as the table shows it (its code as code), the column and both cells too
    assert "<code>y.data</code>，共享版本计数器：“是”（本页：“否”）" in html
    assert "torch 2.0.1 中没有：<code>AttributeError: module &#x27;torch&#x27; has no attribute &#x27;gone&#x27;</code>" in html
    en = _sweep_history_html(SimpleNamespace(language="en"), sweep_table([r.strip("|").split("|") for r in ROWS]), history)
    assert "built. <span" in en and "holds on torch 2.1.2, 2.13.0" in en


def test_a_sweep_rows_label_and_a_value_the_table_lacks_are_in_the_pages_words():
    """The row named as the page's table names it, not as the English one does; a value
    no cell of the table holds (a release that refuses the row) from the site's words."""
    from types import SimpleNamespace

    from bs4 import BeautifulSoup

    from gradcut.sphinxext.versions import _sweep_history_html, sweep_history

    got = "y.data in no_grad / Shares version counter: the table says 'no', torch 1.13.1 gives 'refused'"
    runs = [sweep_run("1.13.1", "changed", row=3, got=got), sweep_run("2.13.0", "holds")]
    history = sweep_history(ROWS, runs, "2.13.0")
    html = _sweep_history_html(SimpleNamespace(language="zh_CN"), sweep_table(ZH_TABLE), history)
    assert "在 <code>no_grad</code> 中的 <code>y.data</code>，共享版本计数器：“拒绝”（本页：“否”）" in html
    fold = BeautifulSoup(html, "html.parser").select_one("details")
    for code in fold.select("code"):
        if not re.search("[\u4e00-\u9fff]", code.get_text()):
            code.decompose()
    assert not re.search("[A-Za-z]{3,}", fold.get_text().replace("torch", "")), fold.get_text()


def test_the_sweep_words_are_the_tables_words():
    """The words for a value the table lacks are the words the site's tables use for it."""
    from gradcut.sphinxext.versions import SWEEP_VALUES

    assert SWEEP_VALUES["zh_CN"]["refused"] == "拒绝"


def test_a_not_applicable_cell_reads_as_one_dash_in_chinese():
    """English tables write "-" (blind spots, conversions, list to tensor) or "—"
    (output of) for a cell that does not apply, as each sweep measures it; the Chinese
    tables, and a release's measurement under them, show "—" for both."""
    from types import SimpleNamespace

    from gradcut.sphinxext.versions import SWEEP_VALUES, _value_html

    zh = SimpleNamespace(language="zh_CN")
    assert SWEEP_VALUES["zh_CN"]["-"] == "—"
    assert _value_html(zh, {0: {}}, 0, "-") == "“—”"
    assert _value_html(zh, {0: {}}, 0, "—") == "“—”"
    assert _value_html(SimpleNamespace(language="en"), {0: {}}, 0, "-") == "<code>-</code>"
    assert _value_html(zh, {0: {}}, 0, "AsStridedBackward0") == "<code>AsStridedBackward0</code>"


def test_the_building_torchs_doctests_replace_an_older_run_of_that_release(tmp_path):
    """The footer says every transcript ran on this build's torch: the line under each
    says so too, even when an older `make torch-runs` of that release did not have it."""
    from types import SimpleNamespace

    from gradcut.sphinxext.versions import installed_torch, release_runs

    version = installed_torch().split("+")[0]
    runs, results = tmp_path / "runs", tmp_path / "results"
    old = claim("docs/p.md", 3, "x.old()", "holds")
    table_row = {**claim("docs/p.md", 9, "| `y.data` | no |", "holds"), "kind": "reference"}
    write_run(runs / f"torch-{version}.json", version, [old, table_row])
    data = json.loads((runs / f"torch-{version}.json").read_text())
    (runs / f"torch-{version}.json").write_text(json.dumps({**data, "pages": {"docs/p.md": "0"}}))
    write_run(results / f"torch-{installed_torch()}.json", installed_torch(), [claim("docs/p.md", 3, "x.new()", "holds")])
    config = SimpleNamespace(gradcut_torch_runs=str(runs), gradcut_results_dir=str(results))
    (run,) = release_runs(config)
    assert run["torch"] == version
    assert [c["source"] for c in run["claims"]] == ["x.new()", "| `y.data` | no |"]


def test_a_row_whose_code_marks_moved_keeps_its_history():
    """`y.data in no_grad` re-marked as `y.data` in `no_grad`: the same claim."""
    from gradcut.sphinxext.versions import sweep_history

    got = "y.data in no_grad / Shares version counter: the table says 'no', torch 1.13.1 gives 'yes'"
    run = sweep_run("1.13.1", "changed", row=3, got=got)
    run["claims"][3]["source"] = "| `y.data in no_grad` | no |"
    history = sweep_history(ROWS, [run, sweep_run("2.13.0", "holds")], "2.13.0")
    assert [(v, s, [n.text for n in notes]) for v, s, notes in history] == [
        ("1.13.1", "changed", [got]), ("2.13.0", "holds", [])
    ]  # fmt: skip


def test_no_space_between_a_release_named_in_chinese_and_the_chinese_after_it():
    from docutils import nodes

    from gradcut.sphinxext.versions import _join_full_width

    def para(first, after):
        return nodes.paragraph("", "", nodes.Text("自 "), nodes.strong(text=first, classes=["gradcut-torch-first"]), nodes.Text(after))

    doc = nodes.document(None, None)
    doc += [para("torch 1.13.1 或更早", " 起与现在相同。"), para("torch 2.0.1", " 起与现在相同。")]
    _join_full_width(None, doc)
    assert [p.astext() for p in doc.children] == ["自 torch 1.13.1 或更早起与现在相同。", "自 torch 2.0.1 起与现在相同。"]


def test_a_raised_measurement_shows_its_first_sentence_only():
    from gradcut.sphinxext.versions import first_sentence

    long = (
        "NotImplementedError: Could not run 'aten::_fused_sgd_' with arguments from the 'CPU' "
        "backend. This could be because the operator doesn't exist for this backend. " + "x " * 400
    )
    assert first_sentence(long) == (
        "NotImplementedError: Could not run 'aten::_fused_sgd_' with arguments from the 'CPU' backend. …"
    )
    assert first_sentence("ValueError: short") == "ValueError: short"
    assert len(first_sentence("E: " + "word " * 100)) <= 162
