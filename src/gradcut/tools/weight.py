"""Page weight of the built site, measured by the browser itself.

Each page is opened in Chromium from a local server that sends what a static web host
sends (:mod:`gradcut.tools.serve`: text types gzip-compressed, images and fonts as they are,
``Cache-Control: max-age=600``). The bytes of a page are the browser's own account of
what it fetched for it — the ``transferSize`` of the navigation and of every resource in
the Resource Timing API, which is what crossed the wire (a resource answered from the
cache counts 0) — so HTML, CSS, JS, fonts and images are all counted, whoever asked
for them, and nothing that the page does not load is.

- *cold*: a fresh browser context (empty cache) opens the page; the browser tests open
  it instead in a tab that goes from page to page with its HTTP cache switched off for
  that visit (:func:`cold_open`, DevTools' "Disable cache"), which fetches the same files
  (a test checks it on some pages) without starting a browser context per page;
- *warm*: a fresh context first opens the home page of the same language, then the page.
  What the home page fetched then comes from the cache (every file is sent with
  ``max-age``), so the warm bytes are also what the page's cold visit fetched beyond what
  the home page's cold visit fetched, address by address (:func:`warm_after`): the
  browser tests count them so, from one cold visit of each language's home page, and
  check on some pages that the two ways agree;
- *load*: milliseconds from the start of the navigation to the load event (cold).

``python -m gradcut.tools.weight _build/html`` prints the figures of every page and the
medians, and exits 1 when the site is over budget (``--no-budget`` only reports).
"""

import argparse
import json
import runpy
import statistics
import sys
import time
import urllib.parse
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gradcut.tools.browser import DESKTOP, InFlight, launch, wait_until_quiet
from gradcut.tools.serve import serve

KIB = 1024
# The budget of a page as readers meet it; tests/test_browser.py holds the site to it.
BUDGET = {
    "cold_median": 300 * KIB,
    "cold_max": 1024 * KIB,
    "warm_median": 40 * KIB,
}

# Everything the page fetched up to now: the document and each resource, as the browser
# counted them (the default buffer keeps 250 entries; _open checks it was not filled).
_ENTRIES_JS = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const entries = [nav, ...performance.getEntriesByType("resource")];
  return {
    load: nav.loadEventStart,
    entries: entries.map((e) => ({
      url: e.name,
      type: e.initiatorType,
      transfer: e.transferSize,
      encoded: e.encodedBodySize,
      decoded: e.decodedBodySize,
    })),
  };
}"""


@dataclass
class PageWeight:
    page: str  # e.g. "en/howto/index.html"
    cold: int  # bytes
    warm: int  # bytes
    load_ms: float
    requests: int
    resources: list[dict] = field(default_factory=list, repr=False)


@dataclass
class Report:
    pages: list[PageWeight]

    @property
    def cold_median(self) -> float:
        return statistics.median(p.cold for p in self.pages)

    @property
    def warm_median(self) -> float:
        return statistics.median(p.warm for p in self.pages)

    @property
    def load_median(self) -> float:
        return statistics.median(p.load_ms for p in self.pages)

    @property
    def heaviest(self) -> PageWeight:
        return max(self.pages, key=lambda p: p.cold)

    def over_budget(self, budget: dict[str, int] = BUDGET) -> list[str]:
        """What breaks the budget, in words; empty when the site is within it."""
        problems = []
        if self.cold_median > budget["cold_median"]:
            problems.append(
                f"cold median {kib(self.cold_median)} > {kib(budget['cold_median'])}"
            )
        if self.warm_median > budget["warm_median"]:
            problems.append(
                f"warm median {kib(self.warm_median)} > {kib(budget['warm_median'])}"
            )
        problems += [
            f"{p.page}: {kib(p.cold)} cold > {kib(budget['cold_max'])}"
            for p in self.pages
            if p.cold > budget["cold_max"]
        ]
        return problems

    def table(self) -> str:
        width = max(len(p.page) for p in self.pages)
        lines = [f"{'page':<{width}}  {'cold':>10}  {'warm':>10}  {'load':>8}  requests"]
        for p in self.pages:
            lines.append(
                f"{p.page:<{width}}  {kib(p.cold):>10}  {kib(p.warm):>10}  "
                f"{p.load_ms:>6.0f}ms  {p.requests:>8}"
            )
        h = self.heaviest
        lines += [
            "",
            f"median: cold {kib(self.cold_median)}, warm {kib(self.warm_median)}, "
            f"load {self.load_median:.0f} ms ({len(self.pages)} pages)",
            f"heaviest: {h.page} {kib(h.cold)} cold",
        ]
        return "\n".join(lines)


def kib(n: float) -> str:
    return f"{n / KIB:.1f} KiB"


def site_pages(site: Path, languages: list[str] | None = None) -> list[str]:
    """Every HTML page of every language folder of the built site, relative to it."""
    langs = languages or sorted(
        d.name for d in site.iterdir() if d.is_dir() and (d / "index.html").is_file()
    )
    return sorted(
        p.relative_to(site).as_posix()
        for lang in langs
        for p in (site / lang).rglob("*.html")
        if "_static" not in p.relative_to(site / lang).parts
    )


# How long nothing must be in flight before a page counts as loaded: what scripts fetch
# after the load event (fonts, late images) is counted too.
QUIET_MS = 150


# The browser asks for the tab's icon after the load event, on its own schedule: on a busy
# machine, later than the quiet moment above. The page's visit counts it in either way.
_ICON_FETCHED_JS = """() => {
  const icon = document.querySelector('link[rel~="icon"]');
  return !icon || performance.getEntriesByName(icon.href).length > 0;
}"""


def _open(tab, inflight: InFlight, url: str, quiet_ms: int = QUIET_MS) -> dict:
    """Load ``url``; wait until its icon has been fetched and nothing has been in flight
    for ``quiet_ms``; return what it fetched (:func:`fetched`)."""
    tab.goto(url, wait_until="load")
    tab.wait_for_function(_ICON_FETCHED_JS, timeout=10_000)
    wait_until_quiet(tab, inflight, quiet_ms)
    return fetched(tab)


def fetched(tab) -> dict:
    """What the page open in ``tab`` has fetched so far, as the browser counted it."""
    data = tab.evaluate(_ENTRIES_JS)
    if len(data["entries"]) > 250:
        raise RuntimeError(f"{tab.url}: over 250 requests; the Resource Timing buffer is full")
    return data


def cold_open(tab, inflight: InFlight, cdp, url: str, quiet_ms: int = QUIET_MS) -> dict:
    """Open ``url`` in ``tab`` as a first visit does: with the tab's HTTP cache switched
    off (``cdp``: a DevTools session of ``tab``), every file is fetched from the server, as
    in a fresh context; the cache is on again afterwards. Returns what it fetched
    (:func:`fetched`)."""
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    try:
        inflight.pending.clear()
        return _open(tab, inflight, url, quiet_ms)
    finally:
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": False})


def cold_visit(browser, url: str) -> dict:
    """What a fresh context of ``browser`` (desktop size, empty cache) fetched opening
    ``url`` (:func:`fetched`)."""
    context = browser.new_context(viewport=DESKTOP)
    try:
        tab = context.new_page()
        return _open(tab, InFlight(tab), url)
    finally:
        context.close()


def measure(site: Path, pages: list[str] | None = None, browser=None, prefix: str = "/") -> Report:
    """Open each page cold and warm, served under ``prefix`` (the path the site is
    published at: its 404 pages point there); return the browser's figures."""
    site = Path(site).resolve()
    pages = pages if pages is not None else site_pages(site)
    if not pages:
        raise ValueError(f"no pages under {site}")
    own = browser is None
    with serve(site, prefix=prefix) as server, _playwright(own) as pw:
        browser = launch(pw) if own else browser
        try:
            results = [measure_page(browser, server.url, page) for page in pages]
        finally:
            if own:
                browser.close()
    return Report(results)


def warm_after(home: dict, cold: dict) -> int:
    """The warm bytes of a page: what its cold visit (``cold``, from :func:`fetched`)
    fetched that the cold visit of its language's home page (``home``) did not; the home
    page's files are then in the cache. The page's own document counts unless it is the
    home page (a second visit of it is answered from the cache too)."""
    cached = {entry["url"] for entry in home["entries"]}
    return sum(entry["transfer"] for entry in cold["entries"] if entry["url"] not in cached)


def measure_page(
    browser, base: str, page: str, cold: dict | None = None, home: dict | None = None
) -> PageWeight:
    """Open ``page`` (e.g. "en/index.html") of the site served at ``base`` cold, then
    warm, each in a fresh context of ``browser``; return its figures. ``cold``: what
    :func:`fetched` gave right after the page was opened (waiting ``QUIET_MS``) in a fresh
    context of the desktop size with the HTTP cache on (Playwright's routing turns it off),
    when the caller has done that already; ``home``: the same of its language's home page,
    from which the warm bytes are counted (:func:`warm_after`) instead of measured."""
    lang = page.split("/", 1)[0]
    runs = {"cold": cold} if cold is not None else {}
    if home is not None:
        runs["warm"] = None  # counted from the cold visits
    for run, first in (("cold", None), ("warm", f"{base}{lang}/index.html")):
        if run in runs:
            continue
        context = browser.new_context(viewport=DESKTOP)
        try:
            tab = context.new_page()
            inflight = InFlight(tab)
            if first:
                _open(tab, inflight, first)
            runs[run] = _open(tab, inflight, base + page)
        finally:
            context.close()
    cold, warm = runs["cold"], runs["warm"]
    return PageWeight(
        page=page,
        cold=sum(e["transfer"] for e in cold["entries"]),
        warm=warm_after(home, cold) if warm is None else sum(e["transfer"] for e in warm["entries"]),
        load_ms=cold["load"],
        requests=len(cold["entries"]),
        resources=cold["entries"],
    )


class _playwright:
    """``sync_playwright()`` when this module starts the browser, else nothing."""

    def __init__(self, start: bool):
        self.start = start
        self._cm = None

    def __enter__(self):
        if not self.start:
            return None
        from playwright.sync_api import sync_playwright

        self._cm = sync_playwright()
        return self._cm.__enter__()

    def __exit__(self, *exc):
        if self._cm is not None:
            return self._cm.__exit__(*exc)
        return False


def _published_path() -> str:
    conf = Path("conf.py")
    if not conf.is_file():
        return "/"
    url = runpy.run_path(str(conf)).get("gradcut_site_url", "")
    return urllib.parse.urlsplit(url).path or "/"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gradcut.tools.weight", description=__doc__.split("\n")[0])
    parser.add_argument("site", nargs="?", default="_build/html", help="the built site (default: _build/html)")
    parser.add_argument("--json", metavar="PATH", help="also write every figure to PATH as JSON")
    parser.add_argument("--no-budget", action="store_true", help="report only; never exit 1")
    parser.add_argument(
        "--prefix",
        help="path to serve the site under (default: that of gradcut_site_url in ./conf.py, or /)",
    )
    args = parser.parse_args(argv)
    site = Path(args.site)
    if not (site / "index.html").is_file() and not any(site.glob("*/index.html")):
        parser.error(f"no built site in {site}: run `make html`")
    start = time.perf_counter()
    report = measure(site, prefix=args.prefix if args.prefix is not None else _published_path())
    print(report.table())
    print(f"measured in {time.perf_counter() - start:.1f} s")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "cold_median": report.cold_median,
                    "warm_median": report.warm_median,
                    "load_median_ms": report.load_median,
                    "budget": BUDGET,
                    "pages": [asdict(p) for p in report.pages],
                },
                indent=1,
            ),
            encoding="utf-8",
        )
    problems = report.over_budget()
    for problem in problems:
        print(f"over budget: {problem}", file=sys.stderr)
    return 1 if problems and not args.no_budget else 0


if __name__ == "__main__":
    raise SystemExit(main())
