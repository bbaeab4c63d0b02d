"""The "torch versions" page: built from the results files, re-read when they change."""

import importlib.metadata
import json
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
        ["docs/other.rst", "2 · 1 n.a."],
        ["src/gradcut/claims/tensors.py", "1"],
    ]
    # Claims that did not hold everywhere, one by one, collapsed under their page.
    assert detail == [["line", "claim", f"torch {TORCH} (this build)"], ["12", "x.numpy()", "n.a."]]
    assert soup.select_one("details.gradcut-torch-runs-detail summary").get_text() == "docs/other.rst"
    # A page of the site is a link; a helper module is not.
    link = soup.select_one("table.gradcut-torch-runs-claims a")
    assert link["href"] == "other.html" and link.get_text() == "docs/other.rst"
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
    assert pages[1] == ["docs/other.rst", "2 · 1 n.a.", "1 · 1 changed · 1 not run"]
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
    assert summary[0][3:6] == ["成立", "已改变", "不适用"]
    assert pages[1][1] == "2 · 1 不适用"
    assert detail[1][2] == "不适用"
