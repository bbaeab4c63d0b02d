"""Where each search case of tests/search_cases.py ranks, without a browser.

The built site's own search code (``language_data.js``: stop words, stemmer, the word
lists, the scorer and the Chinese splitter) runs in Node.js against its own
``searchindex.js``, the query parsed as ``searchtools.js`` parses it. A loop of a few
seconds while changing the ranking or the word lists; the browser tests
(``tests/test_browser.py -k test_search``) remain the check that counts.

``python -m gradcut.tools.search_ranks`` prints every case that misses the first ``TOP``
results, and how many cases of each language find their page; ``-v`` prints every case
with its rank and first results. A case that accepts several pages (a tuple, see
tests/search_cases.py) ranks where the best placed of them stands, and that page is the
one printed after its query, the pages it accepts after it. ``--held-out`` ranks
``HELD_OUT`` (queries the ranking was not tuned on) and ``MISSED`` (queries it does not
answer yet) too, which the tests do not search. ``--sources`` runs the word lists,
scorer and splitter of ``src/`` against the built index (no build after an edit of
search_scorer.js or search_words.toml; one is needed after an edit of what the index
holds). ``--json FILE`` writes every case's rank and results. Exits 1 when a case of
``CASES`` misses. Needs ``node`` on the PATH.
"""

import argparse
import json
import runpy
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# Runs one language: argv = language_data.js, searchindex.js, queries (JSON); prints, for
# each query, its results in the order shown ([docname, anchor]).
_NODE = r"""
const fs = require("fs");
const vm = require("vm");
const [languageData, searchIndex, queries] = process.argv.slice(1);
const g = { console };
g.window = g;
g.Search = { _index: null, setIndex(index) { this._index = index; } };
g.SearchResultKind = { index: "index", object: "object", text: "text", title: "title" };
vm.createContext(g);
vm.runInContext(fs.readFileSync(languageData, "utf8"), g);
// searchtools.js's own splitter, where language_data.js defines none
vm.runInContext(
  'if (typeof splitQuery === "undefined") { var splitQuery = (query) => query' +
    '.split(/[^\\p{Letter}\\p{Number}_\\p{Emoji_Presentation}]+/gu).filter((term) => term); }',
  g,
);
vm.runInContext(fs.readFileSync(searchIndex, "utf8"), g);
g.queries = JSON.parse(fs.readFileSync(queries, "utf8"));
vm.runInContext(`
  // Search._parseQuery of searchtools.js
  var parse = (query) => {
    const stemmer = new Stemmer();
    const searchTerms = new Set();
    const excludedTerms = new Set();
    splitQuery(query.trim()).forEach((queryTerm) => {
      const lower = queryTerm.toLowerCase();
      if (stopwords.has(lower) || queryTerm.match(/^\\d+$/)) return;
      const word = stemmer.stemWord(lower);
      if (word[0] === "-") excludedTerms.add(word.substr(1));
      else searchTerms.add(word);
    });
    return [query, searchTerms, excludedTerms];
  };
  console.log(JSON.stringify(queries.map((q) =>
    Search._performSearch(...parse(q)).reverse().map((r) => [r[0], r[2]]))));
`, g);
"""

# Where the site's parts of language_data.js start (search.py writes the word lists in
# front of the scorer).
_OURS = ("/* gradcut: search_words.toml */", "/*\n * gradcut: rank first")


def language_data(site: Path, lang: str, sources: bool) -> str:
    """The built ``language_data.js`` of ``lang``; with ``sources``, its word lists, scorer
    and splitter replaced by those of ``src/``."""
    text = (site / lang / "_static" / "language_data.js").read_text(encoding="utf-8")
    if not sources:
        return text
    from gradcut.sphinxext import search

    start = min((i for i in (text.find(m) for m in _OURS) if i >= 0), default=len(text))
    ours = search.words_js() + search.SCORER.read_text(encoding="utf-8")
    if lang.startswith("zh"):
        ours += "\n" + search.SPLITTER_JS
    return text[:start] + ours


def accepted(expected) -> tuple[str, ...]:
    """The pages a case accepts: its expected page, or each page of its tuple."""
    return (expected,) if isinstance(expected, str) else tuple(expected)


def best_rank(expected, pages: list[str]) -> tuple[int, str | None]:
    """The best placed of the pages ``expected`` accepts in ``pages`` (the results' pages,
    in the order shown): (its rank, 1 for the first result, and the page), or (0, None)
    when none of them is there."""
    for number, page in enumerate(pages, 1):
        if page in accepted(expected):
            return number, page
    return 0, None


def rank(site: Path, cases, sources: bool = False) -> list[dict]:
    """Each case (language, query, expected) with ``pages`` (those it accepts), ``rank``
    (1 for the first result, 0 when none of them is found), ``matched`` (the accepted page
    at that rank, or None) and ``results`` (pages with their anchors)."""
    node = shutil.which("node")
    if node is None:
        raise SystemExit("search_ranks needs node (Node.js) on the PATH")
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for lang in sorted({c[0] for c in cases}):
            mine = [c for c in cases if c[0] == lang]
            data = Path(tmp, f"{lang}-language_data.js")
            data.write_text(language_data(site, lang, sources), encoding="utf-8")
            queries = Path(tmp, f"{lang}-queries.json")
            queries.write_text(json.dumps([q for _, q, _ in mine]), encoding="utf-8")
            run = subprocess.run(
                [node, "-e", _NODE, str(data), str(site / lang / "searchindex.js"), str(queries)],
                capture_output=True, text=True, check=False,
            )
            if run.returncode:
                raise SystemExit(f"node failed for {lang}:\n{run.stderr}")
            for (_, query, expected), results in zip(mine, json.loads(run.stdout), strict=True):
                shown = [f"{doc}.html{anchor}" for doc, anchor in results]
                number, matched = best_rank(expected, [s.split("#")[0] for s in shown])
                out.append({
                    "lang": lang, "query": query, "pages": list(accepted(expected)),
                    "rank": number, "matched": matched, "results": shown[:5],
                })
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gradcut.tools.search_ranks", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--cases", type=Path, default=ROOT / "tests" / "search_cases.py")
    parser.add_argument("--held-out", action="store_true", help="rank HELD_OUT and MISSED too")
    parser.add_argument(
        "--sources", action="store_true", help="the scorer, words and splitter of src/"
    )
    parser.add_argument("--json", type=Path, help="write every case's rank here")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case")
    args = parser.parse_args(argv)
    data = runpy.run_path(str(args.cases))
    top = data["TOP"]
    sets = {"cases": data["CASES"]}
    if args.held_out:
        sets["held out"] = data.get("HELD_OUT", [])
        sets["missed"] = data.get("MISSED", [])
    missed = 0
    report = {}
    for name, cases in sets.items():
        ranked = rank(args.site, cases, args.sources)
        report[name] = ranked
        for lang in sorted({r["lang"] for r in ranked}):
            mine = [r for r in ranked if r["lang"] == lang]
            found = 0
            for r in mine:
                ok = 0 < r["rank"] <= top
                found += ok
                if args.verbose or not ok:
                    where = f"#{r['rank']}" if r["rank"] else "not found"
                    mark = "  " if ok else "✗ "
                    # the accepted page at that rank; of a tuple, all it accepts after it
                    page = r["matched"] or " | ".join(r["pages"])
                    if r["matched"] and len(r["pages"]) > 1:
                        page += f"  (one of {' | '.join(r['pages'])})"
                    print(f"{mark}{name} {lang} {where:>9}  {r['query']!r} -> {page}")
                    if not ok or args.verbose:
                        print(f"{'':14}{', '.join(r['results'][:top])}")
            print(f"{name}, {lang}: {found} of {len(mine)} among the first {top}")
            if name == "cases":
                missed += len(mine) - found
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
