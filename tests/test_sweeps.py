"""The sweeps: every table of the site holds on this torch, shows every row of its sweep,
and the directive reports what does not hold at its line."""

import re

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT
from gradcut.claims import sweeps
from gradcut.claims.sweeps import check_table, tables_in

PAGES = sorted((ROOT / "docs").rglob("*.md"))
TABLES = [
    (page, name, table)
    for page in PAGES
    for name, table in tables_in(page.read_text(encoding="utf-8"))
]


def test_every_sweep_is_on_a_page():
    shown = {name for _page, name, _table in TABLES}
    assert set(sweeps.names()) <= shown, f"sweeps on no page: {set(sweeps.names()) - shown}"


@pytest.mark.parametrize(
    ("page", "name", "table"),
    TABLES,
    ids=[f"{page.relative_to(ROOT)}:{table[0][0]}" for page, _name, table in TABLES],
)
def test_every_cell_of_the_site_holds(page, name, table):
    problems = check_table(name, table)
    where = page.relative_to(ROOT)
    assert not problems, "\n".join(f"{where}:{p.line}: {p.message}" for p in problems)


@pytest.mark.parametrize("name", sweeps.names())
def test_every_row_measures_every_column(name):
    sweep = sweeps.get(name)
    assert list(sweep.columns.values())[0] is None, "the first column names the rows"
    for label in sweep.rows:
        assert set(sweep.measure(label)) == {key for key in sweep.columns.values() if key}


TABLE = sweeps.get("cheatsheet").markdown(["Shares storage", "Shares version counter"])


def numbered(text, first=10):
    return list(enumerate(text.splitlines(), start=first))


def test_a_true_table_has_no_problem():
    assert check_table("cheatsheet", numbered(TABLE)) == []


def test_a_wrong_cell_is_reported_at_its_line():
    wrong = TABLE.replace("| `y.data` | yes | no |", "| `y.data` | yes | yes |")
    (problem,) = check_table("cheatsheet", numbered(wrong))
    assert problem.line == 14
    assert problem.message.startswith("y.data / Shares version counter: the table says 'yes', torch ")
    assert problem.message.endswith("gives 'no'")


def test_a_table_that_leaves_out_a_row_is_reported():
    short = "\n".join(line for line in TABLE.splitlines() if "y.cpu()" not in line)
    (problem,) = check_table("cheatsheet", numbered(short))
    assert problem.line == 10
    assert problem.message.startswith("the table leaves out rows of sweep cheatsheet: y.cpu()")


@pytest.mark.parametrize(
    ("edit", "line", "message"),
    [
        (("Shares storage", "Shares memory"), 10, "unknown column 'Shares memory'"),
        (("`y.data`", "`y.numpy()`"), 14, "sweep cheatsheet has no row 'y.numpy()'"),
        (("| `y.data` | yes | no |", "| `y.data` | yes |"), 14, "2 cells, but 3 columns"),
    ],
)
def test_a_malformed_table_is_reported(edit, line, message):
    problems = check_table("cheatsheet", numbered(TABLE.replace(*edit)))
    assert problems[0].line == line
    assert problems[0].message.startswith(message)


def test_an_unknown_sweep_is_reported():
    (problem,) = check_table("no-such-sweep", numbered(TABLE))
    assert problem.message.startswith("no sweep 'no-such-sweep'; the sweeps are: ")


def test_a_row_whose_measurement_raises_is_reported(monkeypatch):
    sweep = sweeps.get("cheatsheet")
    monkeypatch.setitem(sweep.rows, "y.cpu()", lambda: torch_missing())
    sweeps._measure.cache_clear()
    try:
        problems = check_table("cheatsheet", numbered(TABLE))
    finally:
        sweeps._measure.cache_clear()
    (problem,) = problems
    assert problem.message == "y.cpu(): measuring it raised AttributeError: module 'torch' has no attribute 'gone'"
    assert problem.error == "AttributeError: module 'torch' has no attribute 'gone'"


def torch_missing():
    import torch

    return torch.gone


# -- the directive, in a site of its own (tests/roots/test-sweep) ----------------


@pytest.mark.sphinx("html", testroot="sweep")
def test_directive_renders_the_table_without_warning(app, warning):
    app.build()
    assert warning.getvalue() == ""
    html = BeautifulSoup((app.outdir / "index.html").read_text(encoding="utf-8"), "html.parser")
    table = html.select_one("div.gradcut-sweep table")
    assert [th.get_text() for th in table.select("thead th")] == [
        "Operation",
        "Shares storage",
        "Shares version counter",
        "requires_grad",
    ]
    rows = [[td.get_text() for td in tr.select("td")] for tr in table.select("tbody tr")]
    assert rows[2] == ["y.data", "yes", "no", "False"]
    assert len(rows) == len(sweeps.get("cheatsheet").rows)


@pytest.mark.sphinx("html", testroot="sweep", srcdir="sweep-wrong-cell")
def test_directive_warns_at_the_file_and_line_of_a_wrong_cell(app, warning):
    page = app.srcdir / "index.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("| `y.data` | yes | no | False |", "| `y.data` | yes | yes | False |"))
    app.build()
    warnings = warning.getvalue().strip().splitlines()
    assert len(warnings) == 1, warnings
    assert re.search(
        r"index\.md:10: WARNING: y\.data / Shares version counter: the table says 'yes', "
        r"torch \S+ gives 'no'",
        warnings[0],
    ), warnings[0]
