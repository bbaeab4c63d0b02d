"""Checks of the built site, on the HTML itself."""

import re

import pytest
from bs4 import BeautifulSoup

from conftest import LANGUAGES

EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["'](?:https?:)?//""", re.I)


def soup(path):
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def test_every_page_exists_in_every_language(pages):
    for lang in LANGUAGES:
        assert pages[lang] == pages["en"], lang
    assert "index.html" in pages["en"]


def test_root_index_offers_both_languages(site):
    root = soup(site / "index.html")
    hrefs = {a["href"] for a in root.find_all("a")}
    assert hrefs == {f"{lang}/index.html" for lang in LANGUAGES}
    assert "navigator.languages" in root.script.string


@pytest.mark.parametrize("lang", LANGUAGES)
def test_html_lang_attribute(site, pages, lang):
    expected = lang.replace("_", "-")
    for page in pages[lang]:
        assert soup(site / lang / page).html["lang"] == expected, page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_language_switcher_leads_to_twin(site, pages, lang):
    others = [x for x in LANGUAGES if x != lang]
    if not others:
        return  # an English-only authoring build has no twin to lead to
    other = others[0]
    for page in pages[lang]:
        doc = soup(site / lang / page)
        switch = doc.select_one(".gradcut-language-switcher a")
        assert switch is not None, page
        target = (site / lang / page).parent / switch["href"]
        assert target.resolve() == (site / other / page).resolve(), page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_footer_names_the_torch_that_built_it(site, pages, lang):
    import importlib.metadata

    version = importlib.metadata.version("torch")
    for page in pages[lang]:
        footer = soup(site / lang / page).select_one(".gradcut-verified-by")
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


# -- publishing -----------------------------------------------------------------

# Pages with nothing for a search engine to find: not in the sitemap.
NOT_CONTENT = {"search.html", "genindex.html"}
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


def test_root_links_work_without_javascript(site):
    for a in soup(site / "index.html").find_all("a"):
        assert (site / a["href"]).is_file(), a["href"]


def test_static_host_files(site, site_url):
    assert (site / ".nojekyll").read_bytes() == b""
    robots = (site / "robots.txt").read_text(encoding="utf-8")
    assert f"\nSitemap: {site_url}sitemap.xml\n" in robots


@pytest.mark.parametrize("lang", LANGUAGES)
def test_canonical_and_alternates_are_absolute(site, pages, conf, site_url, lang):
    for page in pages[lang]:
        doc = soup(site / lang / page)
        assert doc.select_one('link[rel="canonical"]')["href"] == f"{site_url}{lang}/{page}", page
        expected = {x.replace("_", "-"): f"{site_url}{x}/{page}" for x in conf["gradcut_languages"]}
        assert alternates(doc) == expected, page


def test_sitemap_lists_every_page_with_its_twins(site, pages, site_url):
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
        doc = soup(site / lang / page)
        assert doc.select_one('link[rel="canonical"]')["href"] == loc
        # the sitemap says of each page what the page says of itself (for the languages built)
        own = {code: href for code, href in alternates(doc).items() if code in built}
        assert listed[loc] == own, loc
