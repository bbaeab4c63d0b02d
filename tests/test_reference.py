"""The reference table: the site's tables hold on this torch; the directive reports cells
that do not, at their line."""

import re

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT
from gradcut.claims.reference import COLUMNS, OPERATIONS, check_table, measure, tables_in

PAGES = sorted((ROOT / "docs").rglob("*.md"))
TABLES = [
    (page, table)
    for page in PAGES
    for table in tables_in(page.read_text(encoding="utf-8"))
]


def test_the_site_has_reference_tables():
    assert TABLES, "no gradcut-reference table under docs/"


@pytest.mark.parametrize(
    ("page", "table"),
    TABLES,
    ids=[f"{page.relative_to(ROOT)}:{table[0][0]}" for page, table in TABLES],
)
def test_every_cell_of_the_site_holds(page, table):
    problems = check_table(table)
    where = page.relative_to(ROOT)
    assert not problems, "\n".join(f"{where}:{p.line}: {p.message}" for p in problems)


def test_every_operation_and_column_is_measured():
    for label in OPERATIONS:
        assert set(measure(label)) == {key for key in COLUMNS.values() if key}


TABLE = """\
| Operation | Shares storage | Shares version counter |
|---|---|---|
| `y.detach()` | yes | yes |
| `y.data` | yes | no |
"""


def numbered(text, first=10):
    return list(enumerate(text.splitlines(), start=first))


def test_a_true_table_has_no_problem():
    assert check_table(numbered(TABLE)) == []


def test_a_wrong_cell_is_reported_at_its_line():
    wrong = TABLE.replace("| `y.data` | yes | no |", "| `y.data` | yes | yes |")
    (problem,) = check_table(numbered(wrong))
    assert problem.line == 13
    assert problem.message.startswith(
        "y.data / Shares version counter: the table says 'yes', torch "
    )
    assert problem.message.endswith("gives 'no'")


@pytest.mark.parametrize(
    ("edit", "line", "message"),
    [
        (("Shares storage", "Shares memory"), 10, "unknown column 'Shares memory'"),
        (("`y.data`", "`y.numpy()`"), 13, "unknown operation 'y.numpy()'"),
        (("| yes | no |", "| yes |"), 13, "2 cells, but 3 columns"),
    ],
)
def test_a_malformed_table_is_reported(edit, line, message):
    (problem,) = check_table(numbered(TABLE.replace(*edit)))
    assert problem.line == line
    assert problem.message.startswith(message)


# -- the directive, in a site of its own (tests/roots/test-reference) ------------


@pytest.mark.sphinx("html", testroot="reference")
def test_directive_renders_the_table_without_warning(app, warning):
    app.build()
    assert warning.getvalue() == ""
    html = BeautifulSoup((app.outdir / "index.html").read_text(encoding="utf-8"), "html.parser")
    table = html.select_one("div.gradcut-reference table")
    assert [th.get_text() for th in table.select("thead th")] == [
        "Operation",
        "Shares storage",
        "Shares version counter",
        "requires_grad",
    ]
    rows = [[td.get_text() for td in tr.select("td")] for tr in table.select("tbody tr")]
    assert rows == [
        ["y.detach()", "yes", "yes", "False"],
        ["y.data", "yes", "no", "False"],
    ]


@pytest.mark.sphinx("html", testroot="reference", srcdir="reference-wrong-cell")
def test_directive_warns_at_the_file_and_line_of_a_wrong_cell(app, warning):
    page = app.srcdir / "index.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("| `y.data` | yes | no |", "| `y.data` | yes | yes |"))
    app.build()
    warnings = warning.getvalue().strip().splitlines()
    assert len(warnings) == 1, warnings
    assert re.search(
        r"index\.md:9: WARNING: y\.data / Shares version counter: the table says 'yes', "
        r"torch \S+ gives 'no'",
        warnings[0],
    ), warnings[0]
