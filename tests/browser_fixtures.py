"""Fixtures and helpers for the browser tests: the site served on 127.0.0.1, Chromium,
pages that record every problem, and the site's own search.

A page from :func:`new_page` records, until the test ends:

- console errors and uncaught exceptions;
- failed requests and responses with an HTTP error status;
- every request that would leave 127.0.0.1 (the browser is offline, so nothing is fetched
  from outside even when a page tries to; gradcut.tools.browser.OFFLINE).

``search(page, lang, query)`` searches the site as its search page does and returns the
result links, relative to the language folder (``examples/plot_00_….html#anchor``).
"""

import dataclasses
import runpy
import urllib.parse
import uuid
from pathlib import Path

import pytest

from gradcut.tools.browser import DESKTOP, InFlight, launch, wait_until_quiet
from gradcut.tools.serve import serve

LOCAL_SCHEMES = {"data", "blob", "about", "chrome-error"}
# The pages whose test_page is in this run, as "en/index.html" (test_browser's page weight
# reads them: their figures come from those tests).
SELECTED_PAGES = pytest.StashKey[list]()
LAST = "test_page_weight_within_budget"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """After every other selection (-k, -m, --lf): note the pages visited in this run, and
    run the page weight's medians, which need every page's figures, last."""
    config.stash[SELECTED_PAGES] = [
        f"{item.callspec.params['lang']}/{item.callspec.params['rel']}"
        for item in items
        if getattr(item, "originalname", None) == "test_page" and item.module.__name__ == "test_browser"
    ]
    items.sort(key=lambda item: getattr(item, "originalname", None) == LAST and item.module.__name__ == "test_browser")


@dataclasses.dataclass
class Watch:
    """What went wrong while a page was open."""

    errors: list[str] = dataclasses.field(default_factory=list)
    external: list[str] = dataclasses.field(default_factory=list)
    # a missing address answered with the 404 page is the point of some tests
    allowed_statuses: set[tuple[str, int]] = dataclasses.field(default_factory=set)
    # with JavaScript off, Chromium refuses the scripts: that is no failure of the site
    javascript: bool = True
    # the requests not finished yet: open_page waits until there has been none for a moment
    inflight: InFlight | None = None

    def problems(self) -> list[str]:
        return self.errors + [f"request leaving 127.0.0.1: {url}" for url in self.external]

    def clear(self) -> None:
        self.errors.clear()
        self.external.clear()


def is_local(url: str) -> bool:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in LOCAL_SCHEMES:
        return True
    if parts.scheme == "file":
        return not parts.netloc
    return parts.scheme in {"http", "https", "ws", "wss"} and parts.hostname == "127.0.0.1"


def watch(page, javascript: bool = True) -> Watch:
    """Record the problems of ``page`` (see the module's docstring)."""
    w = Watch(javascript=javascript)

    def on_console(msg):
        if msg.type != "error":
            return
        url = msg.location.get("url", "")
        if any(url == allowed and f"status of {status}" in msg.text for allowed, status in w.allowed_statuses):
            return  # Chromium's own line about an expected 404 document
        w.errors.append(f"console error: {msg.text} ({url})")

    def on_response(response):
        if response.status >= 400 and (response.url, response.status) not in w.allowed_statuses:
            w.errors.append(f"HTTP {response.status}: {response.url}")

    def on_request(request):
        if not is_local(request.url):
            w.external.append(request.url)

    def on_failed(request):
        # ERR_ABORTED: the browser cancelled it, as when a test navigates on while the
        # tab icon is still loading; a file that is missing or broken fails otherwise.
        if not is_local(request.url) or request.failure == "net::ERR_ABORTED":
            return
        if w.javascript or request.resource_type != "script":
            w.errors.append(f"request failed ({request.failure}): {request.url}")

    w.inflight = InFlight(page)
    page.on("console", on_console)
    page.on("pageerror", lambda exc: w.errors.append(f"uncaught exception: {exc}"))
    page.on("response", on_response)
    page.on("request", on_request)
    page.on("requestfailed", on_failed)
    return w


@pytest.fixture(scope="session")
def run_id(request) -> str:
    """One name for this test run, the same in every pytest-xdist worker: the tests of a
    run that leave figures for another test of the run (the page weight) put them under it."""
    config = request.config
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        return workerinput["testrunuid"]
    if not hasattr(config, "_gradcut_run_id"):
        config._gradcut_run_id = uuid.uuid4().hex
    return config._gradcut_run_id


@pytest.fixture(scope="session")
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw, offline=True)
        yield browser
        browser.close()


def site_prefix() -> str:
    """The path the site is published under (that of ``gradcut_site_url``): the tests
    serve it there, as readers will meet it."""
    from conftest import ROOT

    url = runpy.run_path(str(ROOT / "conf.py")).get("gradcut_site_url", "")
    return urllib.parse.urlsplit(url).path or "/"


@pytest.fixture(scope="session")
def built_pages(built_site) -> dict[str, list[str]]:
    """Relative paths of the HTML pages of each language of the built site."""
    from conftest import LANGUAGES

    return {
        lang: sorted(
            p.relative_to(built_site / lang).as_posix()
            for p in (built_site / lang).rglob("*.html")
            if "_static" not in p.parts
        )
        for lang in LANGUAGES
    }


@pytest.fixture(scope="session")
def server(built_site):
    """The built site, served like a static host (gradcut.tools.serve) on 127.0.0.1, under the
    path it is published at."""
    with serve(built_site, prefix=site_prefix()) as srv:
        yield srv


@pytest.fixture(scope="session")
def local_url(server) -> str:
    """The address of the served site's root (ends in a slash)."""
    return server.url


@pytest.fixture
def new_page(chromium, local_url):
    """``new_page(**context_options)``: a page in a fresh context, watched; the
    context options are Playwright's (``viewport``, ``locale``, ``java_script_enabled``,
    ``color_scheme``…). ``page.watch`` holds what went wrong, ``page.site_url`` the site."""
    contexts = []

    def make(**options):
        options.setdefault("viewport", DESKTOP)
        context = chromium.new_context(**options)
        contexts.append(context)
        page = context.new_page()
        page.watch = watch(page, javascript=options.get("java_script_enabled", True))
        page.site_url = local_url
        return page

    yield make
    for context in contexts:
        context.close()


def open_page(page, url: str, expect_status: int = 200, quiet_ms: int = 100):
    """Go to ``url``, wait until the network has been quiet for ``quiet_ms``, check the
    document's status."""
    if expect_status != 200:
        page.watch.allowed_statuses.add((url, expect_status))
    page.watch.inflight.pending.clear()
    response = page.goto(url, wait_until="load")
    wait_until_quiet(page, page.watch.inflight, quiet_ms)
    assert response is not None and response.status == expect_status, (url, response and response.status)
    return response


def search(page, lang: str, query: str, typed: bool = False) -> list[str]:
    """Search the site in ``lang`` for ``query``: open the search page at the address its
    form submits (``search.html?q=…``), or, ``typed``, type the query into the search
    page's box and press Enter as a reader does; wait for the search to finish. Returns
    the result links relative to the language folder, in the order shown."""
    base = f"{page.site_url}{lang}/"
    if typed:
        open_page(page, base + "search.html")
        box = page.locator(".bd-search-container form.bd-search input[name=q]")
        box.fill(query)
        box.press("Enter")
    else:
        open_page(page, base + "search.html?" + urllib.parse.urlencode({"q": query}))
    page.wait_for_function(
        """() => {
          const s = document.querySelector('#search-results .search-summary');
          return s && s.innerText.trim().length > 0;
        }"""
    )
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query).get("q") == [query]
    hrefs = page.eval_on_selector_all("#search-results ul.search li > a", "els => els.map(a => a.href)")
    results = []
    for href in hrefs:
        parts = urllib.parse.urlsplit(href)
        path = parts.path
        assert path.startswith(urllib.parse.urlsplit(base).path), href
        rel = path[len(urllib.parse.urlsplit(base).path) :]
        results.append(rel + (f"#{parts.fragment}" if parts.fragment else ""))
    return results


def screenshot_dir(build: Path) -> Path:
    out = build / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    return out


