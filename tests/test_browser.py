"""The site as a reader meets it: Debian's Chromium against the built site, served on
127.0.0.1 (tests/browser_fixtures.py).

Every page of every language is one test (``test_page[en/howto/index.html]``) that visits
the page once and runs every check of the page on that visit: in a desktop tab that goes
from page to page, its cache off for the visit so that it fetches what a first visit
fetches (the page's cold weight; a page's warm weight is what that visit fetched beyond
what its language's home page fetched, gradcut.tools.weight.warm_after; a test checks both
against visits in fresh contexts); then the same page laid out as a phone shows it
(gradcut.tools.browser.as_phone); then the language switcher, which leaves it. The pages the
screenshots show are also opened in dark mode. Each failure names the page, its language
and the check. ``make test`` runs the tests in several processes (pytest-xdist), one
browser per process shared by all its tests. The tests after it cover what is not a
page: search, the front door, missing addresses, the site opened from files.
"""

import base64
import doctest
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest
from browser_fixtures import open_page, screenshot_dir, search, site_prefix
from bs4 import BeautifulSoup
from conftest import LANGUAGES, ROOT, build_dir
from search_cases import CASES, HELD_OUT, MISSED, SAME_RESULTS, TOP

from gradcut.tools.browser import DESKTOP, as_phone
from gradcut.tools.search_ranks import accepted
from gradcut.tools.serve import serve
from gradcut.tools.weight import BUDGET, PageWeight, Report, cold_open, cold_visit, kib, measure_page, warm_after

pytestmark = pytest.mark.browser

AXE_JS = Path(__import__("axe_playwright_python").__file__).with_name("axe.min.js")
SECTIONS = ("tutorial/", "howto/", "reference/", "explanation/")
GALLERY_PAGE = re.compile(r"examples/plot_[^/]*\.html")
CJK_FONT = re.compile(r"CJK|Han Sans|Hei|PingFang|YaHei|Source Han", re.I)
# How long the page weight's medians wait for the page tests another worker still runs.
WEIGHT_WAIT_S = 1200


def site_languages() -> list[str]:
    return list(runpy.run_path(str(ROOT / "conf.py"))["gradcut_languages"])


def twin_language(lang):
    others = [x for x in LANGUAGES if x != lang]
    return others[0] if others else None


def has_doctests(built_site, page) -> bool:
    return "highlight-pycon" in (built_site / "en" / page).read_text(encoding="utf-8")


def collected_pages() -> list[tuple[str, str]]:
    """(language, page) of every page of the built site, read when the tests are collected.
    A language not built gives its home page alone, whose test then fails for want of a
    built site."""
    html = build_dir() / "html"
    pages = []
    for lang in LANGUAGES:
        folder = html / lang
        found = sorted(
            p.relative_to(folder).as_posix()
            for p in (folder.rglob("*.html") if folder.is_dir() else [])
            if "_static" not in p.relative_to(folder).parts
        )
        pages += [(lang, rel) for rel in found or ["index.html"]]
    return pages


PAGES = collected_pages()
# A translated page shows the English page's code blocks, character for character
# (tests/test_site.py): its copy buttons give what the English ones give. They are
# clicked on the home page and on the first gallery page, where the translated
# copybutton.js (its words are the site's, gradcut.sphinxext.i18n) runs.
# Every page's switcher links to its twin (tests/test_site.py reads the link of each);
# it is clicked, and the twin's answer read, on the home page and the index of each
# section, in each language: the same template writes it on every page.
SWITCHED = {r for _, r in PAGES if r == "index.html" or r.endswith("/index.html")}
COPIED_IN_EVERY_LANGUAGE = {"index.html", next((r for _, r in PAGES if GALLERY_PAGE.fullmatch(r)), "")}


@pytest.fixture(scope="module")
def showcase(built_site, built_pages) -> dict[str, str]:
    """The pages the screenshots show: the home page, a concept page (the first page of
    a section with doctests; the home page while there is none) and a gallery page."""
    en = built_pages["en"]
    concept = next(
        (p for p in en if p.startswith(SECTIONS) and not p.endswith("index.html") and has_doctests(built_site, p)),
        "index.html",
    )
    gallery = next(p for p in en if GALLERY_PAGE.fullmatch(p))
    return {"home": "index.html", "concept": concept, "gallery": gallery}


@pytest.fixture(scope="session")
def weight_dir(run_id) -> Path:
    """Where each page's test leaves its page weight for the medians of this run."""
    base = build_dir() / "weight-pages"
    folder = base / run_id
    folder.mkdir(parents=True, exist_ok=True)
    for old in base.iterdir():  # earlier runs' (a run a day old is over)
        if old != folder and time.time() - old.stat().st_mtime > 86400:
            shutil.rmtree(old, ignore_errors=True)
    return folder


class Findings:
    """The failures of one page's checks, each naming the page, its language and the check."""

    def __init__(self, lang: str, rel: str):
        self.where = f"{lang}/{rel}"
        self.failures: list[str] = []

    def add(self, check: str, *messages: str) -> None:
        self.failures += [f"{self.where} [{check}]: {m}" for m in messages]

    def report(self) -> None:
        assert not self.failures, "\n" + "\n".join(self.failures)


def _report(failures):
    assert not failures, "\n" + "\n".join(failures)


# -- every page, every check -------------------------------------------------------------


@pytest.mark.parametrize(("lang", "rel"), PAGES, ids=[f"{lang}/{rel}" for lang, rel in PAGES])
def test_page(desktop, new_page, home_visit, chromium, local_url, built_site, showcase, weight_dir, lang, rel):
    """Every check of one page, on one visit of it (and, for the pages the screenshots
    show, a second one in dark mode):

    - weight: bytes fetched cold (the visit is a first one: the tab's cache is off for
      it, gradcut.tools.weight.cold_open) and warm (beyond what the home page fetched;
      gradcut.tools.weight), within the page budget;
    - desktop: loads without console errors, failed requests or requests leaving
      127.0.0.1 (checked again after each step below); the stylesheet applies; the page's
      table of contents lists its sections; transcripts read as sessions; gallery pages
      show their outputs and figures; axe finds no serious violation; copy buttons copy
      the code and nothing else (the home page's copied code runs; in a translation, on
      the pages of COPIED_IN_EVERY_LANGUAGE);
    - head: one viewport tag; the link preview's address is the canonical one, its
      locale the page's language; a heading that is an error message is the page's
      title verbatim, drawn at a reading size in the text's font;
    - phone (the same page, laid out again as a phone shows it, gradcut.tools.browser.as_phone):
      no horizontal scroll (the home page: the navigation opens the section links); the
      answer starts on the first screen (the first paragraph after the title); an error
      heading's size; what other releases printed, unfolded, shows each output's first
      line, the rest folded;
    - the language switcher leads to the twin page (the last step: it leaves the page;
      on the pages of SWITCHED);
    - showcase pages (the screenshots): screenshots, Chinese drawn in a CJK font, axe on a
      phone and in dark mode; the troubleshooting pages: a phone screenshot.
    """
    found = Findings(lang, rel)
    names = [name for name, page in showcase.items() if page == rel]
    page = desktop
    page.watch.clear()
    try:
        cold = cold_open(page, page.watch.inflight, page.cdp, f"{page.site_url}{lang}/{rel}")
    except Exception:
        leave_weight(weight_dir, lang, rel, {"error": "the page's test stopped before weighing it"})
        raise
    weigh(chromium, local_url, weight_dir, lang, rel, cold, home_visit(lang), found)
    on_desktop(page, built_site, lang, rel, names, found)
    on_a_phone(page, lang, rel, names, found)
    if rel in SWITCHED:
        found.add("language switcher", *switcher_problems(page, lang, rel))
    found.add("console and network (switching)", *page.watch.problems())
    if names:
        in_dark_mode(new_page(color_scheme="dark"), lang, rel, names, found)
    found.report()


@pytest.fixture(scope="module")
def desktop(chromium, local_url):
    """One desktop-sized tab that goes from page to page, each page's visit a first one
    (its cache off for it); ``tab.cdp`` is a DevTools session of it."""
    from browser_fixtures import watch

    context = chromium.new_context(viewport=DESKTOP, permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.watch = watch(page)
    page.site_url = local_url
    page.cdp = context.new_cdp_session(page)
    yield page
    context.close()


@pytest.fixture(scope="module")
def home_visit(chromium, local_url):
    """``home_visit(lang)``: what the home page of ``lang`` fetched on a cold visit, once
    per process; a page's warm bytes are counted from it (gradcut.tools.weight.warm_after)."""
    visits = {}

    def visit(lang):
        if lang not in visits:
            visits[lang] = cold_visit(chromium, f"{local_url}{lang}/index.html")
        return visits[lang]

    return visit


def weigh(chromium, local_url, weight_dir, lang, rel, cold, home, found):
    """The page's weight: cold is what the first visit fetched, warm what of it the home
    page had not fetched already; leave the figures for test_page_weight_within_budget."""
    record = {"error": "the page's test stopped while weighing it"}
    try:
        w = measure_page(chromium, local_url, f"{lang}/{rel}", cold=cold, home=home)
        record = {"page": w.page, "cold": w.cold, "warm": w.warm, "load_ms": w.load_ms, "requests": w.requests}
    finally:
        leave_weight(weight_dir, lang, rel, record)
    if w.cold > BUDGET["cold_max"]:
        found.add("weight", f"{kib(w.cold)} cold > {kib(BUDGET['cold_max'])}")


def leave_weight(weight_dir, lang, rel, record: dict) -> None:
    out = weight_dir / lang / f"{rel}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(record), encoding="utf-8")
    os.replace(tmp, out)


def on_desktop(page, built_site, lang, rel, names, found):
    """The page as opened on a desktop (test_page opened it)."""
    for name in names:
        screenshot(page, lang, name, "desktop", found)
    # the stylesheets applied: a page that lost its CSS still "loads"
    if not stylesheet_applied(page):
        found.add("stylesheet", "the theme's stylesheet is not applied")
    found.add("table of contents", *toc_problems(page))
    found.add("head", *head_problems(page, lang))
    found.add("error headings", *error_heading_problems(page))
    if lang != "en":
        found.add("generated words", *generated_english(page))
    doctests = has_doctests(built_site, rel)
    if doctests:
        found.add("transcripts", *transcript_problems(page))
    if GALLERY_PAGE.fullmatch(rel):
        found.add("gallery outputs", *gallery_problems(page, built_site, lang, rel))
    # what the page itself did; axe then fetches stylesheets of its own (resolving their
    # @imports against the page's address), which are no requests of the page
    found.add("console and network", *page.watch.problems())
    found.add("axe", *axe_violations(page))
    page.watch.clear()
    copies = lang == "en" or rel in COPIED_IN_EVERY_LANGUAGE
    if doctests and copies:
        problems, clips = transcript_copy_problems(page, rel)
        found.add("copy button", *problems)
        if (lang, rel) == ("en", "index.html"):
            found.add("copied code runs", *copied_code_problems(clips))
    if GALLERY_PAGE.fullmatch(rel) and copies:
        found.add("copy button", *gallery_copy_problems(page, rel))
    found.add("console and network (copying)", *page.watch.problems())


def on_a_phone(page, lang, rel, names, found):
    """The page open on the desktop, as a phone shows it. A page wider than the phone is
    zoomed out to fit (the page's width then is the window's), so the width is held to
    the phone's screen."""
    page.watch.clear()
    with as_phone(page, page.cdp):
        page.evaluate("window.scrollTo(0, 0)")  # the copy buttons' checks scrolled it
        for name in names:
            screenshot(page, lang, name, "phone", found)
        if rel.startswith("troubleshooting/") and not rel.endswith("index.html"):
            # a reader arrives here from a search for the error: what the first screen shows
            screenshot(page, lang, rel.removesuffix(".html").replace("/", "-"), "phone", found)
        width = page.evaluate("[document.documentElement.scrollWidth, screen.width]")
        if width[0] > width[1]:
            wide = page.evaluate(
                """() => [...document.querySelectorAll('body *')]
                     .filter(e => e.getBoundingClientRect().right > screen.width + 1)
                     .slice(0, 3).map(e => e.tagName + '.' + e.className)"""
            )
            found.add("phone width", f"{width[0]} px wide on a phone {width[1]} px wide ({wide})")
        found.add("first screen (phone)", *first_screen_problems(page))
        found.add("error headings (phone)", *error_heading_problems(page))
        found.add("folds (phone)", *fold_problems(page))
        found.add("console and network (phone)", *page.watch.problems())
        page.watch.clear()
        if (lang, rel) == ("en", "index.html"):
            found.add("phone navigation", *phone_navigation_problems(page))
            found.add("console and network (phone navigation)", *page.watch.problems())
        if names:
            # the theme's resize handlers run 300 ms after the last resize (the tab stops
            # it gives the code blocks that now scroll, as a page loaded on a phone has)
            page.wait_for_timeout(400)
            found.add("axe (phone)", *axe_violations(page))
            page.watch.clear()  # axe's own requests (on_desktop)


def in_dark_mode(page, lang, rel, names, found):
    open_page(page, f"{page.site_url}{lang}/{rel}")
    theme = page.evaluate("document.documentElement.dataset.theme")
    if theme != "dark":
        found.add("dark mode", f"a reader who prefers dark gets the {theme!r} theme")
    found.add("console and network (dark)", *page.watch.problems())
    if "concept" in names:
        page.screenshot(path=str(screenshot_dir(build_dir()) / f"{lang}-concept-dark.png"))
    found.add("axe (dark)", *axe_violations(page))


_GENERATED_ENGLISH_JS = """() => {
  const found = new Set();
  for (const el of document.querySelectorAll('body *')) {
    for (const pseudo of ['::before', '::after']) {
      const content = getComputedStyle(el, pseudo).content;
      if (!content || content === 'none' || content === 'normal') continue;
      const words = content.replace(/(attr|counter|counters|url)\\([^)]*\\)/g, '');
      if (/[A-Za-z]{2,}/.test(words)) found.add(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')}${pseudo}: ${content}`);
    }
  }
  return [...found];
}"""


def generated_english(page) -> list[str]:
    """Words a stylesheet writes on a translated page (``content`` of ``::before`` and
    ``::after``, which no text scan of the HTML reads) are in the page's language:
    sphinx-gallery's "Out:" over each output block was English on every Chinese example
    page (Chinese review 18)."""
    return page.evaluate(_GENERATED_ENGLISH_JS)


def stylesheet_applied(page) -> bool:
    return page.evaluate("getComputedStyle(document.body).getPropertyValue('--pst-color-primary')").strip() != ""


def switcher_problems(page, lang, rel) -> list[str]:
    """The switcher's link leads to the same page in the other language: the click
    navigates to its address, which answers with that page, in that language. The twin
    page itself is checked by its own test: the navigation stops once it is answered."""
    other = twin_language(lang)
    local_url = page.site_url
    link = page.locator(".bd-header .gradcut-language-switcher a").first
    if other is None:
        # a one-language authoring build: the link still names the twin's address
        href = link.evaluate("a => a.href")
        twins = [f"{local_url}{x}/{rel}" for x in site_languages() if x != lang]
        return [] if href in twins else [f"points to {href}, not one of {twins}"]
    try:
        with page.expect_navigation(wait_until="commit") as navigation:
            link.click()
        response = navigation.value
        expected = f"{local_url}{other}/{rel}"
        if page.url.split("#")[0] != expected:
            return [f"went to {page.url}, not {expected}"]
        if response is None or response.status != 200:
            return [f"{expected} answered {response and response.status}"]
        html = re.search(r"<html\b[^>]*>", response.text())
        lang_attr = re.search(r'\slang="([^"]*)"', html.group(0)) if html else None
        if not lang_attr or lang_attr.group(1) != other.replace("_", "-"):
            return [f"the twin page is not in {other} ({html and html.group(0)})"]
        return []
    finally:
        # the twin page's own test loads it; this tab goes on to the next page
        page.goto("about:blank")


def toc_problems(page) -> list[str]:
    """On a wide screen, a page with sections shows them in the secondary sidebar."""
    ids = page.eval_on_selector_all("article.bd-article section > h2", "hs => hs.map(h => h.parentElement.id)")
    if len(ids) < 2:
        return []
    toc = page.eval_on_selector_all(
        ".bd-sidebar-secondary nav.page-toc a",
        "as => as.filter(a => a.getBoundingClientRect().width > 0).map(a => a.hash.slice(1))",
    )
    missing = [i for i in ids if urllib.parse.quote(i) not in toc and i not in toc]
    return [f"the page's table of contents lacks {missing}"] if missing else []


# -- the head, headings, the first screen, folds ---------------------------------------

OG_LOCALES = {"en": "en_US", "zh_CN": "zh_CN"}
# An error heading's size beside the text's: a heading, not a poster (the theme's h1 is
# 2.6 times the text on a desktop; as code on a phone, 1.66 times)
ERROR_HEADING_SCALE = 1.8


def head_problems(page, lang) -> list[str]:
    """One viewport tag; a link preview (where the page has one) at the page's canonical
    address and in its language."""
    head = page.evaluate(
        """() => {
          const meta = (p) => document.querySelector(`meta[property="${p}"]`)?.content ?? null;
          return {viewports: document.querySelectorAll('meta[name="viewport"]').length,
                  canonical: document.querySelector('link[rel="canonical"]')?.href ?? null,
                  url: meta('og:url'), locale: meta('og:locale')};
        }"""
    )
    problems = [] if head["viewports"] == 1 else [f"{head['viewports']} viewport tags"]
    if head["url"] is not None:
        if head["url"] != head["canonical"]:
            problems.append(f"og:url {head['url']} is not the canonical address {head['canonical']}")
        if head["locale"] != OG_LOCALES[lang]:
            problems.append(f"og:locale {head['locale']}, not {OG_LOCALES[lang]}")
    return problems


_ERROR_HEADINGS_JS = r"""() => {
  const body = parseFloat(getComputedStyle(document.querySelector('article p') || document.body).fontSize);
  const message = /^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning): \S/;
  return [...document.querySelectorAll('article :is(h1, h2, h3)')]
    .filter((h) => h.firstElementChild?.tagName === 'CODE' && h.firstChild === h.firstElementChild
                   && message.test(h.firstElementChild.textContent))
    .map((h) => {
    const text = h.cloneNode(true);
    text.querySelectorAll('.headerlink').forEach((a) => a.remove());
    const code = h.querySelector('code');
    return {tag: h.tagName, text: text.textContent.trim(), scale: parseFloat(getComputedStyle(h).fontSize) / body,
            font: getComputedStyle(code).fontFamily, headingFont: getComputedStyle(h).fontFamily,
            title: document.title};
  });
}"""


def error_heading_problems(page) -> list[str]:
    """A heading that opens with an error message (as code) reads as a heading
    (gradcut.sphinxext.headings): at a reading size, in the heading's font; the page's
    title is the same text, so the message a reader pasted is what they find."""
    problems = []
    for h in page.evaluate(_ERROR_HEADINGS_JS):
        if h["scale"] > ERROR_HEADING_SCALE:
            problems.append(f"{h['tag']} at {h['scale']:.2f} times the text's size: {h['text'][:50]!r}")
        if h["font"] != h["headingFont"]:
            problems.append(f"{h['tag']}'s message drawn in {h['font']!r}: {h['text'][:50]!r}")
        if h["tag"] == "H1" and not h["title"].startswith(h["text"]):
            problems.append(f"the page's title {h['title']!r} is not its heading {h['text']!r}")
    return problems


def first_screen_problems(page) -> list[str]:
    """On a phone, the page's first paragraph after its title starts on the first screen:
    the title does not fill it (a troubleshooting page's answer is that paragraph)."""
    top = page.evaluate(
        """() => {
          const h1 = document.querySelector('article h1');
          const section = h1 && h1.closest('section');
          const p = section && [...section.querySelectorAll('p')].find(
            (p) => h1.compareDocumentPosition(p) & Node.DOCUMENT_POSITION_FOLLOWING && p.offsetParent);
          return p ? [p.getBoundingClientRect().top + window.scrollY, h1.getBoundingClientRect().height] : null;
        }"""
    )
    screen = page.evaluate("screen.height")
    if top is not None and top[0] >= screen:
        return [f"the first paragraph starts at {top[0]:.0f} px, below a {screen} px screen (title {top[1]:.0f} px)"]
    return []


def fold_problems(page) -> list[str]:
    """What other releases printed (under each transcript), unfolded: each output shows
    its first line, the rest of it folded once more (a dispatcher's error ran to 40
    lines)."""
    found = page.evaluate(
        """() => {
          const folds = [...document.querySelectorAll('.gradcut-block-history > details')];
          folds.forEach((d) => { d.open = true; });
          const long = [...document.querySelectorAll('.gradcut-block-history > details pre .go')]
            .filter((go) => !go.closest('.gradcut-more-output') && go.textContent.trim().includes('\\n'))
            .map((go) => go.textContent.split('\\n').length + ' lines: ' + go.textContent.slice(0, 60));
          const open = document.querySelectorAll('.gradcut-more-output[open]').length;
          folds.forEach((d) => { d.open = false; });
          return {long, open};
        }"""
    )
    problems = [f"an output of another release shows {x}" for x in found["long"]]
    if found["open"]:
        problems.append(f"{found['open']} folded outputs open by default")
    return problems


# -- code: copy buttons, transcripts -------------------------------------------------


# Click each block's copy button in the page itself and read the clipboard after each: a
# click is what a reader's click runs (the button's handler copies), without a round trip
# from the test per block.
_COPY_ALL_JS = """async (selector) => {
  const copied = [];
  for (const block of document.querySelectorAll(selector)) {
    const button = block.querySelector('button.copybtn');
    if (!button) { copied.push({missing: true}); continue; }
    await navigator.clipboard.writeText('');
    button.click();
    let clip = '';
    for (let i = 0; i < 500 && clip === ''; i++) {
      clip = await navigator.clipboard.readText();
      if (clip === '') await new Promise((done) => setTimeout(done, 10));
    }
    copied.push({text: block.querySelector('pre').innerText, clip});
  }
  return copied;
}"""


def _copy_all(page, selector):
    """Click the copy button of each block matching ``selector``; return (block text,
    clipboard) pairs. The first block's button is used as a reader uses it (the pointer
    over the block shows it; a real click), the others are clicked by the page."""
    blocks = page.locator(selector)
    if blocks.count():
        first = blocks.first
        first.scroll_into_view_if_needed()
        first.hover()
        page.evaluate("navigator.clipboard.writeText('')")
        first.locator("button.copybtn").click()
        page.wait_for_function("async () => (await navigator.clipboard.readText()) !== ''")
    copied = page.evaluate(_COPY_ALL_JS, selector)
    missing = [i for i, c in enumerate(copied) if c.get("missing")]
    assert not missing, f"blocks {missing} of {page.url} have no copy button"
    return [(c["text"], c["clip"]) for c in copied]


def _doctest_source(transcript: str) -> str:
    examples = doctest.DocTestParser().get_examples(transcript)
    return "".join(e.source for e in examples).rstrip("\n")


def _code_lines(code: str) -> list[str]:
    # the blank line a bare `...` ends a block with is copied (it ends the block in a
    # Python prompt too) and is no statement of its own
    return [line for line in code.splitlines() if line.strip()]


def transcript_copy_problems(page, rel) -> tuple[list[str], list[str]]:
    """A doctest's copy button gives the statements doctest ran, and nothing else: no
    prompt, no output, no traceback. Returns the problems and what was copied."""
    problems, clips = [], []
    # the page's own transcripts; not what older torch releases printed (folded away
    # under each transcript's history)
    copied = _copy_all(page, "div.highlight-pycon:not(.gradcut-block-history div)")
    if not copied:
        problems.append("the page has doctests, but no transcript with a copy button shows")
    for transcript, clip in copied:
        clips.append(clip)
        source = _doctest_source(transcript)
        if _code_lines(clip) != _code_lines(source):
            problems.append(f"copied\n{clip}\n--- instead of\n{source}")
        try:
            compile(clip, rel, "exec")
        except SyntaxError as err:
            problems.append(f"copied code does not compile: {err}")
    return problems, clips


def copied_code_problems(clips) -> list[str]:
    """What the home page's copy buttons give runs as it is, in a fresh Python."""
    code = "\n".join(clips)
    if not code:
        return ["nothing was copied"]
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    return [f"the copied code fails:\n{run.stderr}"] if run.returncode else []


def gallery_copy_problems(page, rel) -> list[str]:
    """A gallery page's code copies whole; its outputs copy nothing."""
    problems = []
    if page.locator(".sphx-glr-script-out button.copybtn").count():
        problems.append("an output block has a copy button")
    for text, clip in _copy_all(page, "div.highlight-Python"):
        if clip != text.rstrip("\n"):
            problems.append(f"copied\n{clip}\n--- instead of\n{text}")
        try:
            compile(clip, rel, "exec")
        except SyntaxError as err:
            problems.append(f"copied code does not compile: {err}")
    return problems


def transcript_problems(page) -> list[str]:
    """Prompts, outputs and code are told apart at a glance: prompts and outputs each in
    their own colour, different from the code's."""
    styles = page.eval_on_selector_all(
        "div.highlight-pycon pre",
        """pres => pres.map(pre => {
             const color = (sel) => { const el = pre.querySelector(sel);
                                      return el ? getComputedStyle(el).color : null; };
             return {prompt: color('.gp'), output: color('.go'), code: getComputedStyle(pre).color,
                     name: color('.n')};
           })""",
    )
    problems = [] if styles else ["the page has doctests, but no transcript shows"]
    for style in styles:
        if style["prompt"] is None:
            problems.append("a transcript without highlighted prompts")
        elif style["prompt"] in (style["code"], style["name"]):
            problems.append(f"prompts look like code ({style})")
        if style["output"] is not None and style["output"] == style["name"]:
            problems.append(f"outputs look like code ({style})")
    return problems


# -- gallery -------------------------------------------------------------------------


def gallery_problems(page, built_site, lang, rel) -> list[str]:
    """A gallery page shows its outputs and every figure its example drew."""
    stem = Path(rel).stem
    blocks = page.eval_on_selector_all(
        ".sphx-glr-script-out",
        "els => els.map(e => ({h: e.getBoundingClientRect().height, text: e.innerText.trim()}))",
    )
    problems = ["an empty or hidden output block" for b in blocks if not b["h"] or not b["text"]]
    figures = sorted(p.name for p in (built_site / lang / "_images").glob(f"sphx_glr_{stem}_[0-9][0-9][0-9].*"))
    shown = page.eval_on_selector_all(
        "article img",
        """imgs => imgs.filter(i => i.complete && i.naturalWidth > 0
                               && i.getBoundingClientRect().width > 0)
                       .map(i => i.src.split('/').pop())""",
    )
    missing = [f for f in figures if f not in shown]
    if missing:
        problems.append(f"figures not shown: {missing}")
    if not blocks and not figures:
        problems.append("shows neither an output nor a figure")
    return problems


def test_the_site_has_what_the_page_checks_look_at(built_site, built_pages):
    """The checks of test_page that apply to some pages only apply to some page."""

    def soups(pages):
        for rel in pages:
            yield rel, BeautifulSoup((built_site / "en" / rel).read_text(encoding="utf-8"), "html.parser")

    pages = built_pages["en"]
    assert any(s.select("div.highlight-pycon") for _, s in soups(pages)), "no doctest transcript on any page"
    gallery = [rel for rel in pages if GALLERY_PAGE.fullmatch(rel)]
    assert any(s.select(".sphx-glr-script-out") for _, s in soups(gallery)), "no output block on any gallery page"
    assert any(len(s.select("article.bd-article section > h2")) >= 2 for _, s in soups(pages)), "no page with sections"


# -- layout ----------------------------------------------------------------------------


def phone_navigation_problems(page) -> list[str]:
    page.locator("button.primary-toggle").click()
    dialog = page.locator("#pst-primary-sidebar-modal")
    dialog.wait_for(state="visible")
    problems = [f"no link to {section}" for section in SECTIONS if not dialog.locator(f'a[href^="{section}"]').count()]
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")
    return problems


@pytest.mark.parametrize(
    ("rel", "style", "rule"),
    [
        ("howto/teacher-ema.html", "div.highlight .n { color: #d8d8d8 !important; }", "color-contrast"),
        # its code's first name is one letter (`w`), which axe leaves undecided when too
        # faint ("short text"): one look at a value a page would miss this
        ("howto/to-numpy.html", "div.highlight .n { color: #d8d8d8 !important; }", "color-contrast"),
        ("howto/teacher-ema.html", "article p { color: #d8d8d8 !important; }", "color-contrast"),
        # links in a paragraph that only a colour too close to the text's tells apart
        # (autocast's links to issues hold their text alone: axe can measure them)
        (
            "howto/autocast.html",
            "article p { color: #000 !important; } "
            "article p a { color: #333 !important; text-decoration: none !important; }",
            "link-in-text-block",
        ),
    ],
    ids=["code", "code-after-a-fold", "prose", "link"],
)
def test_axe_checks_where_the_values_are_new(new_page, local_url, rel, style, rule):
    """The rules that skip what a page checked earlier had (axe_violations) still see
    what no page has: text given a colour no page uses, in code and in prose, is reported
    as too faint; links that only a faint difference of colour tells apart from their
    paragraph are reported."""
    page = new_page()
    page.goto(f"{local_url}en/{rel}")
    assert axe_violations(page) == []
    page.add_style_tag(content=style)
    found = axe_violations(page)
    assert found and all(rule in f for f in found), found


def test_generated_english_is_found_in_a_stylesheet(new_page, local_url):
    """The check of generated words reads what the stylesheets write: the English page
    has sphinx-gallery's "Out:"; the Chinese one says it in Chinese, until a stylesheet
    writes English there again."""
    page = new_page()
    page.goto(f"{local_url}en/examples/plot_00_sigmoid_gradient.html")
    assert any("sphx-glr-script-out" in f and "::before: \"Out:\"" in f for f in generated_english(page))
    page.goto(f"{local_url}zh_CN/examples/plot_00_sigmoid_gradient.html")
    assert generated_english(page) == []
    page.add_style_tag(content='h1::after { content: "Note"; }')
    assert generated_english(page) == ['h1.::after: "Note"']


def test_dark_mode_switch(new_page, local_url):
    page = new_page()
    open_page(page, f"{local_url}en/index.html")
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    switch = page.locator(".bd-header .theme-switch-container").first
    switch.locator("button.theme-switch-button").click()
    switch.locator('button.theme-change-button[data-mode="dark"]').click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != light
    # the choice holds on the next page
    open_page(page, f"{local_url}en/examples/index.html")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert not page.watch.problems()


# -- accessibility -------------------------------------------------------------------


# Two of axe's rules are most of the time axe takes on a page: colour-contrast (2.3 s of
# 2.5 s on the teacher-EMA how-to, whose code blocks hold 2,436 highlighted spans) and,
# of what is left, link-in-text-block. Both measure computed values: for a piece of
# text, its colour, the background it is drawn on, its size, weight, opacity and shadow;
# for a link, the styles of the link, of its pseudo-elements, of what it holds and of
# each element up to its block (colour, decoration, borders, outline, font, background
# image), the lines it is broken across and the background it is drawn on. An element
# whose values axe has decided on before, in this process, passes or fails the same way.
# So these two rules look only at shown elements whose values are not settled yet, up
# to three of each value a page (CHECKED, kept per process: the form fields by their
# value and placeholder too), and a value is settled once axe passed an element that
# has it; an element axe failed (it is reported on every page that has it), could not
# decide on (drawn over another; text of one letter it failed, "short text") or, for a
# link, left out (not in a text block) settles nothing. Every other rule looks at the whole page, in
# the same run (a second run of axe would walk the whole page again: most of what it
# costs on a long table). The background is the first one found walking up the
# element's ancestors, as CSS paints it; an element drawn over another by positioning is
# not told apart by it (this theme positions no text over text).
CHECKED: dict[str, set[str]] = {"contrast": set(), "link": set()}

_AXE_JS_RUN = """async (seen) => {
  const backgrounds = new Map();
  const background = (el) => {
    if (!el) return 'none';
    if (backgrounds.has(el)) return backgrounds.get(el);
    const s = getComputedStyle(el);
    let found;
    if (s.backgroundImage !== 'none') found = 'image ' + s.backgroundImage + ' over ' + background(el.parentElement);
    else if (s.backgroundColor !== 'rgba(0, 0, 0, 0)' && s.backgroundColor !== 'transparent') found = s.backgroundColor;
    else found = background(el.parentElement);
    backgrounds.set(el, found);
    return found;
  };
  const opacities = new Map();
  const opacity = (el) => {
    if (!el) return 1;
    if (!opacities.has(el)) opacities.set(el, parseFloat(getComputedStyle(el).opacity) * opacity(el.parentElement));
    return opacities.get(el);
  };
  const textKey = (el) => {
    const s = getComputedStyle(el);
    return [s.color, background(el), s.fontSize, s.fontWeight, opacity(el).toFixed(3), s.visibility, s.textShadow].join(' | ');
  };
  const field = (el) => {
    const p = getComputedStyle(el, '::placeholder');
    return ['field', el.tagName, el.type, el.value, el.placeholder, p.color, p.opacity, textKey(el)].join(' | ');
  };
  // what link-in-text-block reads of the link and of each element up to its block
  const LINK = ['display', 'color', '-webkit-text-fill-color', '-webkit-text-stroke-width',
    '-webkit-text-stroke-color', 'text-shadow', 'background-color', 'background-image',
    'font-family', 'font-size', 'font-style', 'font-weight', 'text-decoration',
    'text-decoration-line', 'text-decoration-style', 'text-decoration-color',
    'text-decoration-thickness', 'border-top-width', 'border-top-style', 'border-top-color',
    'border-bottom-width', 'border-bottom-style', 'border-bottom-color', 'outline-width',
    'outline-style', 'outline-color', 'opacity', 'visibility', 'mix-blend-mode'];
  const PSEUDO = ['content', 'display', 'position', 'visibility', 'width', 'height',
    'background-color', 'background-image'];
  const BLOCK = ['block', 'list-item', 'table', 'flex', 'grid', 'inline-block'];
  const linkKey = (a) => {
    const parts = [];
    for (let el = a; el && el.nodeType === 1; el = el.parentElement) {
      const s = getComputedStyle(el);
      parts.push(LINK.map((p) => s.getPropertyValue(p)).join(','));
      if (el !== a && (BLOCK.includes(s.display) || s.display.startsWith('table-'))) break;
    }
    for (const pseudo of ['::before', '::after']) {
      const s = getComputedStyle(a, pseudo);
      parts.push(PSEUDO.map((p) => s.getPropertyValue(p)).join(','));
    }
    // what is drawn inside it (a child's box over the link's text leaves axe undecided)
    for (const child of a.querySelectorAll('*')) {
      const s = getComputedStyle(child);
      parts.push(child.tagName + '.' + child.className + ' ' + LINK.map((p) => s.getPropertyValue(p)).join(','));
    }
    // the lines it is broken across
    parts.push(a.getClientRects().length);
    return ['link', ...parts, background(a), opacity(a).toFixed(3)].join(' | ');
  };
  // the elements whose values no earlier check has settled, up to three a page of each
  // value, shown ones only (axe leaves out the rest); a value is settled once axe passed
  // an element that has it (not failed: a failing value is reported on every page that
  // has it; not "incomplete"; not left out, for a link, as outside a text block)
  const marked = {contrast: new Map(), link: new Map()};
  const settled = {contrast: new Set(seen.contrast), link: new Set(seen.link)};
  const taken = {contrast: new Map(), link: new Map()};
  const mark = (rule, el, key) => {
    if (settled[rule].has(key) || (taken[rule].get(key) || 0) >= 3) return;
    if (!el.checkVisibility({visibilityProperty: true})) return;
    taken[rule].set(key, (taken[rule].get(key) || 0) + 1);
    marked[rule].set(el, key);
  };
  for (const el of document.querySelectorAll('input, textarea, select')) mark('contrast', el, field(el));
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('script, style, noscript, template')) continue;
    const text = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (text) mark('contrast', el, textKey(el));
  }
  for (const el of document.querySelectorAll('a[href], [role=link]')) mark('link', el, linkKey(el));
  const RULES = {'color-contrast': 'contrast', 'link-in-text-block': 'link'};
  const attribute = {contrast: 'data-gradcut-contrast', link: 'data-gradcut-link'};
  for (const rule in marked) for (const el of marked[rule].keys()) el.setAttribute(attribute[rule], '');
  axe.configure({rules: [
    {id: 'color-contrast', selector: '[data-gradcut-contrast]'},
    {id: 'link-in-text-block', selector: '[data-gradcut-link]'},
  ]});
  let result;
  try {
    // every node passed, with the element itself rather than a selector: cheaper than
    // the selectors of the violations alone
    result = await axe.run(document, {resultTypes: ['violations', 'passes'], selectors: false, elementRef: true});
  } finally {
    for (const rule in marked) for (const el of marked[rule].keys()) el.removeAttribute(attribute[rule]);
  }
  const fresh = {contrast: new Set(), link: new Set()};
  for (const r of result.passes) {
    const rule = RULES[r.id];
    if (!rule) continue;
    for (const node of r.nodes) if (marked[rule].has(node.element)) fresh[rule].add(marked[rule].get(node.element));
  }
  const where = (el) => {
    const path = [];
    for (let e = el; e && e.nodeType === 1 && path.length < 4; e = e.parentElement) {
      path.unshift(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
        [...e.classList].filter((c) => !c.startsWith('data-')).map((c) => '.' + c).join(''));
      if (e.id) break;
    }
    return path.join(' > ');
  };
  return {
    fresh: {contrast: [...fresh.contrast], link: [...fresh.link]},
    violations: result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 4).map((n) => where(n.element)),
    })),
  };
}"""


def axe_violations(page, levels=("serious", "critical")) -> list[str]:
    """axe's serious and critical violations on the page open in ``page``, in one run;
    text is checked for contrast, and links for being told apart from the text around
    them, where their computed values are not settled in this process yet (CHECKED)."""
    page.add_script_tag(path=str(AXE_JS))
    result = page.evaluate(_AXE_JS_RUN, {rule: sorted(keys) for rule, keys in CHECKED.items()})
    for rule, keys in result["fresh"].items():
        CHECKED[rule].update(keys)
    return [
        f"{v['impact']} {v['id']}: {v['help']} — " + "; ".join(v["nodes"])
        for v in result["violations"]
        if v["impact"] in levels
    ]


# -- screenshots, fonts ------------------------------------------------------------------


def screenshot(page, lang, name, width, found) -> None:
    """A screenshot for a person to look at (_build/screenshots/), taken on the way; the
    Chinese pages' heading must be drawn in a CJK font."""
    path = screenshot_dir(build_dir()) / f"{lang}-{name}-{width}.png"
    if width == "phone":
        # Playwright's screenshot would put back the desktop size it was given
        path.write_bytes(base64.b64decode(page.cdp.send("Page.captureScreenshot", {"format": "png"})["data"]))
    else:
        page.screenshot(path=str(path))
    if path.stat().st_size <= 10_000:
        found.add("screenshot", f"{path.name} is {path.stat().st_size} bytes: blank?")
    if lang == "zh_CN":
        fonts = platform_fonts(page, "article h1")
        if not any(CJK_FONT.search(f) for f in fonts):
            found.add("Chinese font", f"the heading is drawn with {fonts} ({width})")


def platform_fonts(page, selector) -> list[str]:
    """The fonts Chromium really drew ``selector``'s text with (DevTools protocol)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    cdp.detach()
    return [f["familyName"] for f in fonts]


# -- search --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def search_tab(chromium, local_url):
    """One tab for the search cases, as a reader searching again and again uses it."""
    from browser_fixtures import watch

    context = chromium.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.watch = watch(page)
    page.site_url = local_url
    yield page
    context.close()


# The site's own search, run in the search page for every query of a language at once:
# Search._parseQuery and Search._performSearch (the ranking of search_scorer.js) are what
# the page runs for the address its form submits; results in the order the page shows.
_RANK_ALL_JS = """(queries) => queries.map((query) => {
  const results = Search._performSearch(...Search._parseQuery(query));
  return results.slice().reverse().map((r) => r[0] + DOCUMENTATION_OPTIONS.FILE_SUFFIX + (r[2] || ""));
})"""


@pytest.fixture(scope="module")
def rankings(search_tab):
    """``{(lang, query): [result, ...]}`` for every search case, ranked in Chromium by the
    search page of the built site (opened once per language at its form's address)."""
    page, ranked = search_tab, {}
    for lang in LANGUAGES:
        queries = [q for case_lang, q, _ in CASES if case_lang == lang]
        if not queries:
            continue
        search(page, lang, queries[0])  # the page's own search has run: its index is in
        for query, results in zip(queries, page.evaluate(_RANK_ALL_JS, queries), strict=True):
            ranked[(lang, query)] = results
    return ranked


@pytest.mark.parametrize(
    ("lang", "query", "expected"),
    [c for c in CASES if c[0] in LANGUAGES],
    ids=[f"{lang}-{query}" for lang, query, _ in CASES if lang in LANGUAGES],
)
def test_search_finds_the_page(rankings, lang, query, expected):
    """tests/search_cases.py: the page, or one of the pages of a tuple, is among the first
    TOP results."""
    results = [r.split("#")[0] for r in rankings[(lang, query)]]
    pages = accepted(expected)
    assert any(page in results[:TOP] for page in pages), (
        f"{lang} search for {query!r}: {' or '.join(pages)} not among the first {TOP} results {results[:TOP]}"
        + "".join(
            f" ({page} is number {results.index(page) + 1})" if page in results else f" ({page} not found at all)"
            for page in pages
        )
    )


# Every 20th case of each language is also searched as a reader does, at the address the
# search form submits, and must list what the ranking of all cases at once gave it.
_ADDRESS_CASES = [c for lang in LANGUAGES for c in [c for c in CASES if c[0] == lang][::20]]


@pytest.mark.parametrize(
    ("lang", "query", "expected"), _ADDRESS_CASES, ids=[f"{lang}-{query}" for lang, query, _ in _ADDRESS_CASES]
)
def test_the_search_page_shows_what_the_ranking_gave(search_tab, rankings, lang, query, expected):
    page = search_tab
    page.watch.clear()
    assert search(page, lang, query) == rankings[(lang, query)]
    assert not page.watch.problems(), page.watch.problems()


@pytest.mark.parametrize(
    ("lang", "query", "plain"),
    [c for c in SAME_RESULTS if c[0] in LANGUAGES],
    ids=[f"{lang}-{query}" for lang, query, _ in SAME_RESULTS if lang in LANGUAGES],
)
def test_search_ignores_words_that_do_not_count(search_tab, lang, query, plain):
    """Function words and one-character words neither empty nor reorder the results."""
    page = search_tab
    page.watch.clear()
    expected = search(page, lang, plain)
    assert expected, f"{lang} search for {plain!r} found nothing"
    assert search(page, lang, query) == expected
    assert not page.watch.problems(), page.watch.problems()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_search_page_box_searches_what_is_typed(new_page, lang):
    """Typed into the search page's box, a query (a pasted error message, its quotes and
    all) gives the results of the search page's address for it."""
    query = next(q for case_lang, q, _ in CASES if case_lang == lang and "'" in q)
    page = new_page()
    typed = search(page, lang, query, typed=True)
    assert typed, f"{lang} search for {query!r} found nothing"
    assert typed == search(page, lang, query)
    assert not page.watch.problems(), page.watch.problems()


def test_search_cases_name_built_pages(built_site):
    """Every page a search case names is built: each page of a tuple, and those of the
    cases the tests do not search (HELD_OUT, MISSED)."""
    missing = [
        (lang, query, page)
        for lang, query, expected in CASES + HELD_OUT + MISSED
        if lang in LANGUAGES
        for page in accepted(expected)
        if not (built_site / lang / page).is_file()
    ]
    assert not missing, f"search cases expecting pages that are not built: {missing}"


def test_search_box_in_the_header_leads_to_results(new_page, local_url):
    page = new_page()
    open_page(page, f"{local_url}en/index.html")
    page.locator(".bd-header button.search-button-field").first.click()
    box = page.locator("#pst-search-dialog input[name=q]")
    box.fill("storage")
    with page.expect_navigation():
        box.press("Enter")
    page.wait_for_selector("#search-results ul.search li a")
    assert urllib.parse.urlsplit(page.url).path.endswith("/en/search.html")
    assert not page.watch.problems()


# -- the front door: language choice, 404 -----------------------------------------------


LOCALES = [("zh-CN", "zh_CN"), ("en-US", "en"), ("fr-FR", "en")]


@pytest.mark.parametrize(("locale", "lang"), [x for x in LOCALES if x[1] in LANGUAGES])
def test_root_sends_the_reader_to_their_language(new_page, local_url, locale, lang):
    page = new_page(locale=locale)
    page.goto(local_url)
    page.wait_for_url(f"{local_url}{lang}/index.html")
    assert page.evaluate("document.documentElement.lang") == lang.replace("_", "-")
    assert not page.watch.problems()


def test_root_without_javascript_offers_both_languages(new_page, local_url):
    page = new_page(java_script_enabled=False)
    for lang in LANGUAGES:
        open_page(page, local_url)
        assert page.url == local_url
        page.locator(f'a[href="{lang}/index.html"]').click()
        page.wait_for_url(f"{local_url}{lang}/index.html")
    assert not page.watch.problems()


def _check_not_found(page, url, lang, title):
    """``url`` is missing: the 404 page shows, styled, and its home link works."""
    open_page(page, url, expect_status=404)
    assert title in page.title()
    if lang is not None:
        assert page.evaluate("document.documentElement.lang") == lang.replace("_", "-")
        assert page.evaluate("getComputedStyle(document.body).getPropertyValue('--pst-color-primary')").strip()
        home = page.locator("#page-not-found a").first
    else:
        home = page.locator('a[hreflang="zh-CN"]' if "zh" in url else 'a[hreflang="en"]')
    href = home.evaluate("a => a.href")
    with page.expect_navigation():
        home.click()
    assert page.url == href and page.url.endswith("/index.html"), page.url
    assert not page.watch.problems(), page.watch.problems()


MISSING = ["nope.html", "{lang}/nope.html", "{lang}/examples/no/such/page.html"]


@pytest.mark.parametrize("missing", MISSING)
def test_missing_address_gets_the_root_404_page(new_page, local_url, missing):
    """As GitHub Pages and Netlify do: the root 404.html for every missing address."""
    page = new_page()
    for lang in LANGUAGES:
        _check_not_found(page, local_url + missing.format(lang=lang), None, "Page not found")


@pytest.mark.parametrize("missing", MISSING[1:])
def test_missing_address_gets_the_language_404_page(new_page, built_site, missing):
    """As a server set up per language folder does (nginx ``error_page`` per location),
    under the path the site is published at."""
    titles = {"en": "Page not found", "zh_CN": "找不到页面"}
    not_found = {f"{lang}/": f"{lang}/404.html" for lang in LANGUAGES} | {"": "404.html"}
    with serve(built_site, prefix=site_prefix(), not_found=not_found) as srv:
        page = new_page()
        for lang in LANGUAGES:
            _check_not_found(page, srv.url + missing.format(lang=lang), lang, titles[lang])


# -- file:// --------------------------------------------------------------------------


def test_site_works_from_files(new_page, built_site):
    """Opened from the disk, without a server: a page and the language switcher."""
    page = new_page()
    start = (built_site / "en" / "index.html").as_uri()
    page.goto(start)
    page.wait_for_load_state("load")
    assert page.evaluate("getComputedStyle(document.body).getPropertyValue('--pst-color-primary')").strip()
    assert page.locator("div.highlight-pycon").count()
    other = twin_language("en")
    if other:
        with page.expect_navigation():
            page.locator(".bd-header .gradcut-language-switcher a").first.click()
        assert page.url == (built_site / other / "index.html").as_uri()
        assert page.evaluate("getComputedStyle(document.body).getPropertyValue('--pst-color-primary')").strip()
    assert not page.watch.problems()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_search_works_from_files(new_page, built_site, lang):
    """Opened from the disk, the search page ranks as it does when served: the index and
    the word lists it ranks with are scripts of the site, fetched by no request of its own."""
    query = {"en": "no_grad vs inference_mode", "zh_CN": "detach和clone区别"}[lang]
    page = new_page()
    served = search(page, lang, query)
    page.site_url = built_site.as_uri() + "/"
    assert served and search(page, lang, query) == served
    assert not page.watch.problems(), page.watch.problems()


# -- page weight ---------------------------------------------------------------------


@pytest.mark.parametrize("page", ["en/index.html", "en/glossary.html", "zh_CN/examples/plot_00_sigmoid_gradient.html"])
def test_bytes_counted_are_the_bytes_measured(desktop, chromium, local_url, home_visit, built_site, page):
    """The pages' tests count a page's bytes on a visit in their tab, its cache off, and
    its warm bytes from that visit and the home page's; a visit in a fresh context (cold),
    and a visit of the home page then of the page in one fresh context (warm), fetch just
    as many, file by file."""
    assert (built_site / page).is_file(), page
    measured = measure_page(chromium, local_url, page)
    desktop.watch.clear()
    open_page(desktop, local_url + page)  # the page's files are in the tab's cache now
    counted = cold_open(desktop, desktop.watch.inflight, desktop.cdp, local_url + page)
    files = lambda entries: sorted((e["url"], e["transfer"]) for e in entries)  # noqa: E731
    assert files(counted["entries"]) == files(measured.resources), page
    assert warm_after(home_visit(page.split("/", 1)[0]), counted) == measured.warm, page
    assert not desktop.watch.problems(), desktop.watch.problems()


def test_page_weight_within_budget(request, chromium, local_url, weight_dir):
    """Bytes a reader's browser fetches per page, cold and warm (gradcut.tools.weight): the
    medians over every page of the site. Each page's figures come from its test_page of
    this run (this test runs last, and waits for those another worker still runs); a page
    whose test is not in this run is measured here."""
    from browser_fixtures import SELECTED_PAGES

    selected = set(request.config.stash.get(SELECTED_PAGES, []))
    deadline = time.monotonic() + WEIGHT_WAIT_S
    figures, failures = [], []
    for lang, rel in PAGES:
        page = f"{lang}/{rel}"
        if page not in selected:
            figures.append(measure_page(chromium, local_url, page))
            continue
        out = weight_dir / lang / f"{rel}.json"
        while not out.is_file() and time.monotonic() < deadline:
            time.sleep(1)
        if not out.is_file():
            failures.append(f"{page}: its test left no page weight within {WEIGHT_WAIT_S} s")
            continue
        record = json.loads(out.read_text(encoding="utf-8"))
        if "error" in record:
            failures.append(f"{page}: {record['error']}")
            continue
        figures.append(PageWeight(**record))
    _report(failures)
    report = Report(figures)
    (build_dir() / "weight.json").write_text(
        json.dumps(
            {
                "cold_median": report.cold_median,
                "warm_median": report.warm_median,
                "load_median_ms": report.load_median,
                "pages": {p.page: {"cold": p.cold, "warm": p.warm, "load_ms": p.load_ms} for p in report.pages},
            },
            indent=1,
        )
    )
    problems = report.over_budget()
    assert not problems, "\n".join(problems) + "\n\n" + report.table()
