"""The site as a reader meets it: Debian's Chromium against the built site, served on
127.0.0.1 (tests/browser_fixtures.py). Every test walks every built page it concerns."""

import doctest
import json
import re
import runpy
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest
from browser_fixtures import open_page, screenshot_dir, search, site_prefix
from conftest import LANGUAGES, ROOT, build_dir

from gradcut.browser import DESKTOP, PHONE
from gradcut.serve import serve
from gradcut.weight import measure

pytestmark = pytest.mark.browser

AXE_JS = Path(__import__("axe_playwright_python").__file__).with_name("axe.min.js")
SECTIONS = ("tutorial/", "howto/", "reference/", "explanation/")


def site_languages() -> list[str]:
    return list(runpy.run_path(str(ROOT / "conf.py"))["gradcut_languages"])


def twin_language(lang):
    others = [x for x in LANGUAGES if x != lang]
    return others[0] if others else None


def has_doctests(built_site, page) -> bool:
    return "highlight-pycon" in (built_site / "en" / page).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def showcase(built_site, built_pages) -> dict[str, str]:
    """The pages the screenshots show: the home page, a concept page (the first page of
    a section with doctests; the home page while there is none) and a gallery page."""
    en = built_pages["en"]
    concept = next(
        (p for p in en if p.startswith(SECTIONS) and not p.endswith("index.html") and has_doctests(built_site, p)),
        "index.html",
    )
    gallery = next(p for p in en if re.fullmatch(r"examples/plot_[^/]*\.html", p))
    return {"home": "index.html", "concept": concept, "gallery": gallery}


def _report(failures):
    assert not failures, "\n" + "\n".join(failures)


# -- every page: loads cleanly, stays local, leads to its twin --------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_loads_cleanly_and_stays_local(new_page, local_url, built_pages, lang):
    failures = []
    page = new_page()
    for rel in built_pages[lang]:
        page.watch.clear()
        open_page(page, f"{local_url}{lang}/{rel}")
        failures += [f"{lang}/{rel}: {p}" for p in page.watch.problems()]
        # the stylesheets applied: a page that lost its CSS still "loads"
        if page.evaluate("getComputedStyle(document.body).getPropertyValue('--pst-color-primary')").strip() == "":
            failures.append(f"{lang}/{rel}: the theme's stylesheet is not applied")
    _report(failures)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_language_switcher_leads_to_the_twin_page(new_page, local_url, built_pages, lang):
    other = twin_language(lang)
    failures = []
    page = new_page()
    for rel in built_pages[lang]:
        open_page(page, f"{local_url}{lang}/{rel}")
        link = page.locator(".bd-header .gradcut-language-switcher a").first
        if other is None:
            # a one-language authoring build: the link still names the twin's address
            href = link.evaluate("a => a.href")
            twins = [f"{local_url}{x}/{rel}" for x in site_languages() if x != lang]
            if href not in twins:
                failures.append(f"{lang}/{rel}: switcher points to {href}, not one of {twins}")
            continue
        with page.expect_navigation():
            link.click()
        page.wait_for_load_state("load")
        expected = f"{local_url}{other}/{rel}"
        if page.url.split("#")[0] != expected:
            failures.append(f"{lang}/{rel}: switcher went to {page.url}, not {expected}")
        elif page.evaluate("document.documentElement.lang") != other.replace("_", "-"):
            failures.append(f"{lang}/{rel}: the twin page is not in {other}")
    failures += page.watch.problems()
    _report(failures)


# -- search --------------------------------------------------------------------------

# What a reader types, and a page it must find (among the results, wherever ranked).
QUERIES = [
    ("en", "storage", "explanation/data.html"),
    ("en", "version counter", "explanation/in-place-correctness-check.html"),
    ("en", "inference_mode", "explanation/no-grad-and-inference-mode.html"),
    ("en", "straight-through", "howto/straight-through-estimator.html"),
    ("en", "discriminator", "howto/gan-discriminator.html"),
    ("en", "sigmoid", "examples/plot_00_sigmoid_gradient.html"),
    ("en", "truncated backpropagation", "howto/truncated-bptt.html"),
    ("en", "errata", "explanation/myths-and-errata.html"),
    ("en", "leaf", "glossary.html"),
    ("en", "numpy", "howto/to-numpy.html"),
    # Chinese is typed without spaces: the site's splitter cuts it into the index's words.
    ("zh_CN", "共享存储", "explanation/data.html"),
    ("zh_CN", "版本计数器", "explanation/in-place-correctness-check.html"),
    ("zh_CN", "原地分离", "explanation/detach_.html"),
    ("zh_CN", "直通估计器", "howto/straight-through-estimator.html"),
    ("zh_CN", "判别器", "howto/gan-discriminator.html"),
    ("zh_CN", "叶子张量", "examples/plot_03_detached_new_leaf.html"),
    ("zh_CN", "截断计算图", "tutorial/cutting-the-graph.html"),
    ("zh_CN", "勘误", "explanation/myths-and-errata.html"),
    ("zh_CN", "嵌入", "howto/export-embeddings.html"),
    ("zh_CN", "教师网络", "howto/target-network.html"),
]


@pytest.mark.parametrize(("lang", "query", "expected"), [q for q in QUERIES if q[0] in LANGUAGES])
def test_search_finds_the_page(new_page, lang, query, expected):
    page = new_page()
    results = search(page, lang, query)
    assert expected in [r.split("#")[0] for r in results], results
    assert not page.watch.problems()


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


# -- code: copy buttons, transcripts -------------------------------------------------


def _copy_all(page, selector):
    """Click the copy button of each block matching ``selector``; return (block text,
    clipboard) pairs."""
    copied = []
    blocks = page.locator(selector)
    for i in range(blocks.count()):
        block = blocks.nth(i)
        block.scroll_into_view_if_needed()
        block.hover()
        button = block.locator("button.copybtn")
        assert button.count() == 1, f"block {i} of {page.url} has no copy button"
        page.evaluate("navigator.clipboard.writeText('')")
        button.click()
        page.wait_for_function("async () => (await navigator.clipboard.readText()) !== ''")
        copied.append((block.locator("pre").inner_text(), page.evaluate("navigator.clipboard.readText()")))
    return copied


def _doctest_source(transcript: str) -> str:
    examples = doctest.DocTestParser().get_examples(transcript)
    return "".join(e.source for e in examples).rstrip("\n")


def _code_lines(code: str) -> list[str]:
    # the blank line a bare `...` ends a block with is copied (it ends the block in a
    # Python prompt too) and is no statement of its own
    return [line for line in code.splitlines() if line.strip()]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_copy_button_copies_the_code_of_a_transcript(new_page, local_url, built_site, built_pages, lang):
    """A doctest's copy button gives the statements doctest ran, and nothing else: no
    prompt, no output, no traceback."""
    page = new_page(permissions=["clipboard-read", "clipboard-write"])
    failures, seen = [], 0
    for rel in built_pages[lang]:
        if not has_doctests(built_site, rel):
            continue
        open_page(page, f"{local_url}{lang}/{rel}")
        for transcript, clip in _copy_all(page, "div.highlight-pycon"):
            seen += 1
            source = _doctest_source(transcript)
            if _code_lines(clip) != _code_lines(source):
                failures.append(f"{lang}/{rel}: copied\n{clip}\n--- instead of\n{source}")
            try:
                compile(clip, rel, "exec")
            except SyntaxError as err:
                failures.append(f"{lang}/{rel}: copied code does not compile: {err}")
    assert seen, "no doctest transcript on any page"
    _report(failures)


def test_copied_code_runs(new_page, local_url):
    """What the home page's copy button gives runs as it is, in a fresh Python."""
    page = new_page(permissions=["clipboard-read", "clipboard-write"])
    open_page(page, f"{local_url}en/index.html")
    code = "\n".join(clip for _, clip in _copy_all(page, "div.highlight-pycon"))
    assert code
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("lang", LANGUAGES)
def test_gallery_code_copies_whole_and_outputs_copy_nothing(new_page, local_url, built_pages, lang):
    page = new_page(permissions=["clipboard-read", "clipboard-write"])
    gallery = [p for p in built_pages[lang] if re.fullmatch(r"examples/plot_[^/]*\.html", p)]
    assert gallery
    failures = []
    for rel in gallery:
        open_page(page, f"{local_url}{lang}/{rel}")
        if page.locator(".sphx-glr-script-out button.copybtn").count():
            failures.append(f"{lang}/{rel}: an output block has a copy button")
        for text, clip in _copy_all(page, "div.highlight-Python"):
            if clip != text.rstrip("\n"):
                failures.append(f"{lang}/{rel}: copied\n{clip}\n--- instead of\n{text}")
            try:
                compile(clip, rel, "exec")
            except SyntaxError as err:
                failures.append(f"{lang}/{rel}: copied code does not compile: {err}")
    _report(failures)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_transcripts_read_as_sessions(new_page, local_url, built_site, built_pages, lang):
    """Prompts, outputs and code are told apart at a glance: prompts and outputs each in
    their own colour, different from the code's."""
    page = new_page()
    failures, seen = [], 0
    for rel in built_pages[lang]:
        if not has_doctests(built_site, rel):
            continue
        open_page(page, f"{local_url}{lang}/{rel}")
        for style in page.eval_on_selector_all(
            "div.highlight-pycon pre",
            """pres => pres.map(pre => {
                 const color = (sel) => { const el = pre.querySelector(sel);
                                          return el ? getComputedStyle(el).color : null; };
                 return {prompt: color('.gp'), output: color('.go'), code: getComputedStyle(pre).color,
                         name: color('.n')};
               })""",
        ):
            seen += 1
            if style["prompt"] is None:
                failures.append(f"{lang}/{rel}: a transcript without highlighted prompts")
            elif style["prompt"] in (style["code"], style["name"]):
                failures.append(f"{lang}/{rel}: prompts look like code ({style})")
            if style["output"] is not None and style["output"] == style["name"]:
                failures.append(f"{lang}/{rel}: outputs look like code ({style})")
    assert seen, "no doctest transcript on any page"
    _report(failures)


# -- gallery -------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_gallery_pages_show_outputs_and_figures(new_page, local_url, built_site, built_pages, lang):
    page = new_page()
    gallery = [p for p in built_pages[lang] if re.fullmatch(r"examples/plot_[^/]*\.html", p)]
    failures, outputs = [], 0
    for rel in gallery:
        open_page(page, f"{local_url}{lang}/{rel}")
        stem = Path(rel).stem
        blocks = page.eval_on_selector_all(
            ".sphx-glr-script-out",
            "els => els.map(e => ({h: e.getBoundingClientRect().height, text: e.innerText.trim()}))",
        )
        outputs += len(blocks)
        failures += [f"{lang}/{rel}: an empty or hidden output block" for b in blocks if not b["h"] or not b["text"]]
        figures = sorted(p.name for p in (built_site / lang / "_images").glob(f"sphx_glr_{stem}_[0-9][0-9][0-9].*"))
        shown = page.eval_on_selector_all(
            "article img",
            """imgs => imgs.filter(i => i.complete && i.naturalWidth > 0
                                   && i.getBoundingClientRect().width > 0)
                           .map(i => i.src.split('/').pop())""",
        )
        missing = [f for f in figures if f not in shown]
        if missing:
            failures.append(f"{lang}/{rel}: figures not shown: {missing}")
        if not blocks and not figures:
            failures.append(f"{lang}/{rel}: shows neither an output nor a figure")
        failures += [f"{lang}/{rel}: {p}" for p in page.watch.problems()]
    assert outputs, "no output block on any gallery page"
    _report(failures)


# -- layout ----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_horizontal_scroll_on_a_phone(new_page, local_url, built_pages, lang):
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    failures = []
    for rel in built_pages[lang]:
        open_page(page, f"{local_url}{lang}/{rel}")
        width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if width[0] > width[1]:
            wide = page.evaluate(
                """() => [...document.querySelectorAll('body *')]
                     .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
                     .slice(0, 3).map(e => e.tagName + '.' + e.className)"""
            )
            failures.append(f"{lang}/{rel}: {width[0]} px wide at {width[1]} px ({wide})")
    _report(failures)


def test_phone_navigation_opens_the_section_links(new_page, local_url):
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    open_page(page, f"{local_url}en/index.html")
    page.locator("button.primary-toggle").click()
    dialog = page.locator("#pst-primary-sidebar-modal")
    dialog.wait_for(state="visible")
    for section in SECTIONS:
        assert dialog.locator(f'a[href^="{section}"]').count(), section


@pytest.mark.parametrize("lang", LANGUAGES)
def test_page_toc_lists_the_sections_of_the_page(new_page, local_url, built_pages, lang):
    """On a wide screen, every page with sections shows them in the secondary sidebar."""
    page = new_page()
    failures, seen = [], 0
    for rel in built_pages[lang]:
        open_page(page, f"{local_url}{lang}/{rel}")
        ids = page.eval_on_selector_all("article.bd-article section > h2", "hs => hs.map(h => h.parentElement.id)")
        if len(ids) < 2:
            continue
        seen += 1
        toc = page.eval_on_selector_all(
            ".bd-sidebar-secondary nav.page-toc a",
            "as => as.filter(a => a.getBoundingClientRect().width > 0).map(a => a.hash.slice(1))",
        )
        missing = [i for i in ids if urllib.parse.quote(i) not in toc and i not in toc]
        if missing:
            failures.append(f"{lang}/{rel}: the page's table of contents lacks {missing}")
    assert seen, "no page with sections"
    _report(failures)


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


def axe_violations(page, levels=("serious", "critical")) -> list[str]:
    page.add_script_tag(path=str(AXE_JS))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['impact']} {v['id']}: {v['help']} — "
        + "; ".join(" ".join(n["target"]) for n in v["nodes"][:4])
        for v in result["violations"]
        if v["impact"] in levels
    ]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_axe_finds_no_serious_violation(new_page, local_url, built_pages, lang):
    page = new_page()
    failures = []
    for rel in built_pages[lang]:
        open_page(page, f"{local_url}{lang}/{rel}")
        failures += [f"{lang}/{rel}: {v}" for v in axe_violations(page)]
    _report(failures)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(
    ("mode", "options"),
    [("dark", {"color_scheme": "dark"}), ("phone", {"viewport": PHONE, "is_mobile": True})],
)
def test_axe_in_dark_mode_and_on_a_phone(new_page, local_url, showcase, lang, mode, options):
    page = new_page(**options)
    failures = []
    for rel in dict.fromkeys(showcase.values()):
        open_page(page, f"{local_url}{lang}/{rel}")
        if mode == "dark":
            assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        failures += [f"{lang}/{rel} ({mode}): {v}" for v in axe_violations(page)]
    _report(failures)


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


# -- screenshots, fonts ------------------------------------------------------------------

CJK_FONT = re.compile(r"CJK|Han Sans|Hei|PingFang|YaHei|Source Han", re.I)


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


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_screenshots(new_page, local_url, showcase, lang, width):
    """Screenshots for a person to look at (_build/screenshots/), taken on the way."""
    out = screenshot_dir(build_dir())
    options = {"viewport": DESKTOP} if width == "desktop" else {"viewport": PHONE, "is_mobile": True}
    page = new_page(**options)
    for name, rel in showcase.items():
        open_page(page, f"{local_url}{lang}/{rel}")
        path = out / f"{lang}-{name}-{width}.png"
        page.screenshot(path=str(path))
        assert path.stat().st_size > 10_000, path
        if lang == "zh_CN":
            fonts = platform_fonts(page, "article h1")
            assert any(CJK_FONT.search(f) for f in fonts), f"{rel}: Chinese heading drawn with {fonts}"
    if width == "desktop":
        dark = new_page(color_scheme="dark")
        open_page(dark, f"{local_url}{lang}/{showcase['concept']}")
        dark.screenshot(path=str(out / f"{lang}-concept-dark.png"))


# -- page weight ---------------------------------------------------------------------


def test_page_weight_within_budget(chromium, built_site):
    """Bytes a reader's browser fetches per page, cold and warm (gradcut.weight)."""
    report = measure(built_site, browser=chromium, prefix=site_prefix())
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
