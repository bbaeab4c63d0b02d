"""gradcut.tools.search_ranks on a case that accepts several pages (tests/search_cases.py):
it passes when any of its pages is among the first TOP results, and ranks where the first
of them stands. No build and no browser: a site of two files whose search returns fixed
results, run by the tool's own Node.js script."""

import json
import shutil

import pytest

from gradcut.tools import search_ranks
from gradcut.tools.search_ranks import accepted, best_rank

# A query's results, in the order the search page shows them.
RESULTS = {
    "second page third": ["a.html", "b.html", "c.html", "d.html"],
    "second page fourth": ["a.html", "b.html", "d.html", "c.html"],
}
TUPLE = ("x.html", "c.html")  # the page it was written for is not found; the second is


def test_accepted_pages():
    assert accepted("a.html") == ("a.html",)
    assert accepted(("a.html", "b.html")) == ("a.html", "b.html")


def test_best_rank_is_the_first_accepted_page():
    pages = RESULTS["second page third"]
    assert best_rank("c.html", pages) == (3, "c.html")
    assert best_rank(("x.html", "c.html"), pages) == (3, "c.html")
    assert best_rank(("c.html", "b.html"), pages) == (2, "b.html")
    assert best_rank(("x.html", "y.html"), pages) == (0, None)


@pytest.fixture
def site(tmp_path):
    """A site whose search, for a query of RESULTS, gives its pages in that order."""
    folder = tmp_path / "site" / "en"
    (folder / "_static").mkdir(parents=True)
    (folder / "_static" / "language_data.js").write_text(
        """
var stopwords = new Set();
class Stemmer { stemWord(word) { return word; } }
// [docname, title, anchor] of each result, the last shown first, as searchtools.js has them
Search._performSearch = (query) =>
  (Search._index.results[query] || []).map((page) => [page.replace(/\\.html$/, ""), page, ""]).reverse();
""",
        encoding="utf-8",
    )
    (folder / "searchindex.js").write_text(
        f"Search.setIndex({json.dumps({'results': RESULTS})})", encoding="utf-8"
    )
    return tmp_path / "site"


def write_cases(tmp_path, cases):
    path = tmp_path / "cases.py"
    path.write_text(f"TOP = 3\nCASES = {cases!r}\n", encoding="utf-8")
    return path


needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="search_ranks runs Node.js")


@needs_node
def test_rank_gives_the_best_rank_of_a_tuple_and_the_page_it_matched(site):
    ranked = search_ranks.rank(
        site, [("en", "second page third", TUPLE), ("en", "second page fourth", TUPLE)]
    )
    assert [(r["rank"], r["matched"], r["pages"]) for r in ranked] == [
        (3, "c.html", list(TUPLE)),
        (4, "c.html", list(TUPLE)),
    ]


@needs_node
def test_a_tuple_case_passes_when_its_second_page_is_within_top(site, tmp_path, capsys):
    cases = write_cases(tmp_path, [("en", "second page third", TUPLE)])
    assert search_ranks.main(["--site", str(site), "--cases", str(cases), "-v"]) == 0
    out = capsys.readouterr().out
    assert "#3  'second page third' -> c.html  (one of x.html | c.html)" in out
    assert "cases, en: 1 of 1 among the first 3" in out


@needs_node
def test_a_tuple_case_fails_when_none_of_its_pages_is_within_top(site, tmp_path, capsys):
    cases = write_cases(
        tmp_path, [("en", "second page fourth", TUPLE), ("en", "second page third", ("x.html", "y.html"))]
    )
    assert search_ranks.main(["--site", str(site), "--cases", str(cases)]) == 1
    out = capsys.readouterr().out
    assert "✗ cases en        #4  'second page fourth' -> c.html" in out
    assert "✗ cases en not found  'second page third' -> x.html | y.html" in out
    assert "cases, en: 0 of 2 among the first 3" in out
