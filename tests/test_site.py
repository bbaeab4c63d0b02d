"""Checks of the built site, on the HTML itself."""

import re
import runpy
import urllib.parse

import pytest
from bs4 import BeautifulSoup

from conftest import LANGUAGES, ROOT

pytestmark = pytest.mark.xdist_group("site")  # one process parses the pages, once

EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["'](?:https?:)?//""", re.I)


def soup(path):
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


class Parsed:
    """The HTML files of the site, each parsed once: ``parsed(path)`` is its
    document (read, never changed, by the checks), ``parsed.ids(path)`` the ids in it."""

    def __init__(self):
        self._docs, self._ids = {}, {}

    def __call__(self, path) -> BeautifulSoup:
        if path not in self._docs:
            self._docs[path] = soup(path)
        return self._docs[path]

    def ids(self, path) -> set[str]:
        if path not in self._ids:
            doc = self(path)
            self._ids[path] = {t["id"] for t in doc.find_all(id=True)} | {
                t["name"] for t in doc.find_all("a", attrs={"name": True})
            }
        return self._ids[path]


@pytest.fixture(scope="session")
def parsed(site) -> Parsed:
    """The pages of ``site``, parsed once for all the checks below.

    Parsing is most of their time; the module is one xdist group, so that one process
    parses the site once.
    """
    return Parsed()


def test_every_page_exists_in_every_language(pages):
    for lang in LANGUAGES:
        assert pages[lang] == pages["en"], lang
    assert "index.html" in pages["en"]


def test_root_index_offers_both_languages(site, parsed):
    root = parsed(site / "index.html")
    hrefs = {a["href"] for a in root.find_all("a")}
    assert hrefs == {f"{lang}/index.html" for lang in LANGUAGES}
    assert "navigator.languages" in root.script.string


@pytest.mark.parametrize("lang", LANGUAGES)
def test_html_lang_attribute(site, pages, parsed, lang):
    expected = lang.replace("_", "-")
    for page in pages[lang]:
        assert parsed(site / lang / page).html["lang"] == expected, page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_language_switcher_leads_to_twin(site, pages, parsed, lang):
    others = [x for x in LANGUAGES if x != lang]
    if not others:
        return  # an English-only authoring build has no twin to lead to
    other = others[0]
    for page in pages[lang]:
        doc = parsed(site / lang / page)
        switch = doc.select_one(".gradcut-language-switcher a")
        assert switch is not None, page
        target = (site / lang / page).parent / switch["href"]
        assert target.resolve() == (site / other / page).resolve(), page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_footer_names_the_torch_that_built_it(site, pages, parsed, lang):
    import importlib.metadata

    version = importlib.metadata.version("torch")
    for page in pages[lang]:
        footer = parsed(site / lang / page).select_one(".gradcut-verified-by")
        if page in ("search.html", "genindex.html", "404.html"):
            assert footer is None, f"{page} has no example nor doctest to vouch for"
            continue
        assert footer is not None and f"torch {version}" in footer.get_text(), page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_nothing_is_fetched_from_outside(site, lang):
    for path in (site / lang).rglob("*"):
        if path.suffix in {".html", ".css", ".js"}:
            text = path.read_text(encoding="utf-8", errors="replace")
            for line in text.splitlines():
                # links to other sites are fine; loading from them is not
                if EXTERNAL.search(line) and re.search(r"<(script|link|img|iframe)\b", line):
                    if 'rel="alternate"' in line or 'rel="canonical"' in line:
                        continue
                    pytest.fail(f"{path.relative_to(site)} loads from outside: {line.strip()[:200]}")


# -- links -----------------------------------------------------------------------------

LINK_ATTRS = {"a": "href", "link": "href", "script": "src", "img": "src", "source": "src", "iframe": "src"}


def html_files(site):
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


def link_problems(site, page, prefix="/", parsed=None):
    """Every href/src of ``page`` that names no file, or an id its file lacks; a
    ``<base>`` (the 404 pages') is a path on the server, where the site is at ``prefix``.
    ``parsed``: the site's pages parsed so far (a new ``Parsed`` if not given)."""
    parsed = parsed or Parsed()
    doc = parsed(page)
    base = doc.find("base", href=True)
    if base is not None:
        assert base["href"].startswith(prefix), (base, prefix)
        here = site / base["href"].removeprefix(prefix) / "_"
    else:
        here = page
    problems = []
    for tag, attr in LINK_ATTRS.items():
        for el in doc.find_all(tag, attrs={attr: True}):
            url = el[attr]
            parts = urllib.parse.urlsplit(url)
            if parts.scheme or parts.netloc:
                continue  # another site (loading from one is test_nothing_is_fetched_from_outside)
            if not parts.path:
                target = page  # "#anchor": this very page
            else:
                target = (here.parent / urllib.parse.unquote(parts.path)).resolve()
                if url.endswith("/") or target.is_dir():
                    target = target / "index.html"
            if not target.is_file():
                if _unbuilt_language(site, target):
                    continue  # a one-language build links to the other language's pages
                problems.append(f"<{tag} {attr}={url!r}>: no file {target}")
                continue
            if parts.fragment and target.suffix == ".html":
                if urllib.parse.unquote(parts.fragment) not in parsed.ids(target):
                    problems.append(f"<{tag} {attr}={url!r}>: no id {parts.fragment!r} in {target.name}")
    return problems


def _unbuilt_language(site, target) -> bool:
    try:
        folder = target.resolve().relative_to(site.resolve()).parts[0]
    except ValueError:
        return False
    return folder in _site_languages() and folder not in LANGUAGES


def _site_languages():
    return runpy.run_path(str(ROOT / "conf.py"))["gradcut_languages"]


def test_every_link_and_anchor_resolves(site, parsed, conf):
    """Every href and src of every built page, in every language and at the root, names
    a file of the site, and every #anchor an id of that page."""
    prefix = urllib.parse.urlsplit(conf["gradcut_site_url"]).path or "/"
    pages = html_files(site)
    assert len(pages) > 2 * len(LANGUAGES)
    failures = [
        f"{page.relative_to(site)}: {problem}"
        for page in pages
        for problem in link_problems(site, page, prefix, parsed)
    ]
    assert not failures, "\n".join(failures[:50])


def test_link_check_catches_a_broken_link(site, tmp_path):
    """The link check above fails on a missing file and on a missing anchor."""
    page = tmp_path / "page.html"
    (tmp_path / "other.html").write_text('<p id="here">x</p>')
    page.write_text('<a href="other.html#here">ok</a><a href="gone.html">x</a><a href="other.html#nowhere">y</a>')
    problems = link_problems(tmp_path, page)
    assert len(problems) == 2 and "gone.html" in problems[0] and "nowhere" in problems[1]


# -- titles and descriptions in the reader's language ------------------------------------------------

HAN = re.compile(r"[\u4e00-\u9fff]")
NO_DESCRIPTION = {"genindex.html", "search.html", "404.html"}  # no text of their own


def site_titles():
    return runpy.run_path(str(ROOT / "conf.py"))["gradcut_titles"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_titles_and_descriptions_are_in_the_pages_language(site, pages, parsed, lang):
    site_title = site_titles()[lang]
    failures = []
    for page in pages[lang]:
        doc = parsed(site / lang / page)
        title = doc.title.get_text()
        if page == "index.html":
            ok = title == site_title
        else:
            ok = title.endswith(site_title) and len(title) > len(site_title) + 3
        if not ok:
            failures.append(f"{page}: title {title!r}")
        meta = doc.find("meta", attrs={"name": "description"})
        if page in NO_DESCRIPTION:
            continue
        if meta is None or not meta["content"].strip():
            failures.append(f"{page}: no meta description")
            continue
        if lang == "zh_CN":
            if not HAN.search(title):
                failures.append(f"{page}: title not in Chinese: {title!r}")
            if not HAN.search(meta["content"]):
                failures.append(f"{page}: description not in Chinese: {meta['content']!r}")
    assert not failures, "\n".join(failures)


# -- doctests as transcripts -------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_doctests_render_as_highlighted_sessions(site, pages, parsed, lang):
    """Every `>>>` line on the site is a prompt of a highlighted session, not plain text."""
    failures, seen = [], 0
    for page in pages[lang]:
        for pre in parsed(site / lang / page).select("pre"):
            prompts = [line for line in pre.get_text().splitlines() if line.startswith(">>>")]
            if not prompts:
                continue
            seen += len(prompts)
            marked = [gp for gp in pre.select("span.gp") if gp.get_text().startswith(">>>")]
            block = pre.find_parent("div", class_=re.compile("^highlight-"))
            if block is None or "highlight-pycon" not in block["class"] or len(marked) != len(prompts):
                failures.append(f"{page}: a doctest shown as {block and block['class']} ({len(marked)}/{len(prompts)} prompts marked)")
    assert seen, "no doctest on any page"
    assert not failures, "\n".join(failures)


def _code_blocks(doc) -> list[str]:
    """The text of a page's code blocks, sessions and scripts (not what other releases
    printed, which is generated in the page's language)."""
    return [
        pre.get_text()
        for pre in doc.select("div.highlight-pycon pre, div.highlight-Python pre")
        if not pre.find_parent(class_="gradcut-block-history")
    ]


@pytest.mark.parametrize("lang", [x for x in LANGUAGES if x != "en"])
def test_translated_pages_show_the_english_code_blocks(site, pages, parsed, lang):
    """What a reader copies from a translated page is what the English page offers (the
    browser tests click the copy buttons of the English pages, and of a translation's
    home page and first gallery page only)."""
    differ = [
        page
        for page in pages[lang]
        if _code_blocks(parsed(site / lang / page)) != _code_blocks(parsed(site / "en" / page))
    ]
    assert sum(len(_code_blocks(parsed(site / "en" / page))) for page in pages["en"]) > 100
    assert not differ, f"code blocks not the English page's: {differ}"


# -- 404 pages -------------------------------------------------------------------------------


def test_404_pages_exist_for_every_language_and_the_root(site, parsed, conf):
    from gradcut.sphinxext.notfound import base_path

    prefix = urllib.parse.urlsplit(conf["gradcut_site_url"]).path or "/"
    root = parsed(site / "404.html")
    assert "Page not found" in root.title.get_text() and root.find("base")["href"] == prefix
    for lang in LANGUAGES:
        doc = parsed(site / lang / "404.html")
        assert doc.find("base")["href"] == base_path(conf["gradcut_site_url"], lang) == f"{prefix}{lang}/"
        assert doc.find("meta", attrs={"name": "robots"})["content"] == "noindex"


def test_404_base_follows_the_site_url():
    from gradcut.sphinxext.notfound import base_path

    assert base_path("https://example.org/some/project/", "zh_CN") == "/some/project/zh_CN/"
    assert base_path("https://example.org", "en") == "/en/"


# -- publishing -----------------------------------------------------------------

# Pages with nothing for a search engine to find: not in the sitemap.
NOT_CONTENT = {"search.html", "genindex.html", "404.html"}
SITEMAP_NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}


@pytest.fixture(scope="session")
def conf() -> dict:
    """The configuration the site was built with (conf.py, in this environment)."""
    import runpy

    from conftest import ROOT

    return runpy.run_path(str(ROOT / "conf.py"))


@pytest.fixture(scope="session")
def site_url(conf) -> str:
    """The address the site is published at, with one trailing slash."""
    from urllib.parse import urlsplit

    url = conf["gradcut_site_url"]
    assert urlsplit(url).scheme in {"http", "https"} and urlsplit(url).netloc, url
    return url.rstrip("/") + "/"


def alternates(doc) -> dict[str, str]:
    return {link["hreflang"]: link["href"] for link in doc.select('link[rel="alternate"][hreflang]')}


def test_root_links_work_without_javascript(site, parsed):
    for a in parsed(site / "index.html").find_all("a"):
        assert (site / a["href"]).is_file(), a["href"]


def test_static_host_files(site, site_url):
    assert (site / ".nojekyll").read_bytes() == b""
    robots = (site / "robots.txt").read_text(encoding="utf-8")
    assert f"\nSitemap: {site_url}sitemap.xml\n" in robots


@pytest.mark.parametrize("lang", LANGUAGES)
def test_canonical_and_alternates_are_absolute(site, pages, parsed, conf, site_url, lang):
    for page in pages[lang]:
        doc = parsed(site / lang / page)
        assert doc.select_one('link[rel="canonical"]')["href"] == f"{site_url}{lang}/{page}", page
        expected = {x.replace("_", "-"): f"{site_url}{x}/{page}" for x in conf["gradcut_languages"]}
        assert alternates(doc) == expected, page


def test_sitemap_lists_every_page_with_its_twins(site, pages, parsed, site_url):
    from xml.etree import ElementTree

    urlset = ElementTree.parse(site / "sitemap.xml").getroot()
    assert urlset.tag == f"{{{SITEMAP_NS['sm']}}}urlset"
    listed = {}
    for url in urlset.findall("sm:url", SITEMAP_NS):
        loc = url.findtext("sm:loc", namespaces=SITEMAP_NS)
        assert loc not in listed, f"{loc} listed twice"
        listed[loc] = {
            link.get("hreflang"): link.get("href")
            for link in url.findall("xhtml:link", SITEMAP_NS)
            if link.get("rel") == "alternate"
        }
    expected = {
        f"{site_url}{lang}/{page}": (lang, page)
        for lang in LANGUAGES
        for page in pages[lang]
        if page not in NOT_CONTENT
    }
    assert sorted(listed) == sorted(expected)
    built = {x.replace("_", "-") for x in LANGUAGES}
    for loc, (lang, page) in expected.items():
        doc = parsed(site / lang / page)
        assert doc.select_one('link[rel="canonical"]')["href"] == loc
        # the sitemap says of each page what the page says of itself (for the languages built)
        own = {code: href for code, href in alternates(doc).items() if code in built}
        assert listed[loc] == own, loc


# -- the <head>: one viewport tag, link previews ----------------------------------------


def test_every_page_has_one_viewport_tag(site, parsed):
    """Sphinx's layout, docutils and the theme each wrote one; a page keeps one."""
    failures = []
    for page in html_files(site):
        tags = parsed(page).find_all("meta", attrs={"name": "viewport"})
        if len(tags) != 1:
            failures.append(f"{page.relative_to(site)}: {len(tags)} viewport tags")
    assert not failures, "\n".join(failures)


# OpenGraph names a language by its locale
OG_LOCALES = {"en": "en_US", "zh_CN": "zh_CN"}
NO_PREVIEW = {"search.html", "genindex.html", "404.html"}  # pages without text of their own


def preview(doc) -> dict[str, list[str]]:
    """The page's link preview: {og:… or twitter:…: [contents]}."""
    tags: dict[str, list[str]] = {}
    for meta in doc.find_all("meta"):
        key = meta.get("property") or meta.get("name") or ""
        if key.startswith(("og:", "twitter:")):
            tags.setdefault(key, []).append(meta["content"])
    return tags


@pytest.mark.parametrize("lang", LANGUAGES)
def test_link_previews_say_the_page_in_its_language(site, pages, parsed, conf, site_url, lang):
    """Each page's OpenGraph tags and Twitter card: its title and description as the page
    gives them, its absolute address (the canonical one), its language's locale, the
    site's name in that language; nothing for a preview to fetch but the page."""
    site_title = site_titles()[lang]
    failures = []
    for page in pages[lang]:
        doc = parsed(site / lang / page)
        tags = preview(doc)
        if page in NO_PREVIEW:
            continue
        title = doc.title.get_text()
        page_title = title if page == "index.html" else title.removesuffix(f" \u2014 {site_title}")
        description = doc.find("meta", attrs={"name": "description"})["content"]
        expected = {
            "og:title": [page_title],
            "og:type": ["website"],
            "og:url": [f"{site_url}{lang}/{page}"],
            "og:site_name": [site_title],
            "og:description": [description],
            "og:locale": [OG_LOCALES[lang]],
            "og:locale:alternate": [OG_LOCALES[x] for x in conf["gradcut_languages"] if x != lang],
            "twitter:card": ["summary"],
        }
        if tags != expected:
            diff = {k: (tags.get(k), v) for k, v in expected.items() if tags.get(k) != v}
            extra = sorted(set(tags) - set(expected))
            failures.append(f"{page}: (found, expected) {diff}" + (f"; unexpected {extra}" if extra else ""))
        if doc.select_one('link[rel="canonical"]')["href"] != tags.get("og:url", [None])[0]:
            failures.append(f"{page}: og:url is not the canonical address")
    assert not failures, "\n".join(failures[:20])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_this_build_ran_every_claim_the_torch_runs_page_lists(site, parsed, lang):
    """The torch-runs page's column of this build: every claim it lists held here (the
    build fails otherwise), the sweep tables' rows and the gallery's examples included;
    none reads "not run"."""
    doc = parsed(site / lang / "reference" / "torch-runs.html")
    label = "this build" if lang == "en" else "本次构建"
    problems = []
    for table in doc.select("table.gradcut-torch-runs"):
        header = [cell.get_text(" ", strip=True) for cell in table.select("tr")[0].select("th, td")]
        column = next((i for i, text in enumerate(header) if label in text), None)
        if column is None:
            continue
        for row in table.select("tr")[1:]:
            cells = row.select("td")
            if len(cells) > column and "gradcut-not-run" in cells[column].get("class", []):
                problems.append(" | ".join(c.get_text(" ", strip=True)[:40] for c in cells[: column + 1]))
    assert not problems, "\n".join(problems)
