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
