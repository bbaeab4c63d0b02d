"""The Chinese site's interface speaks Chinese: the theme's and Sphinx's own words, the
gallery's cards, the tooltips of links to torch's docs and the copy button's message.

Each check reads every built zh_CN page and names the page and the string it found.
"""

import re

import pytest
from bs4 import BeautifulSoup

from conftest import LANGUAGES
from test_gallery import code_lines

pytestmark = pytest.mark.skipif("zh_CN" not in LANGUAGES, reason="zh_CN is not built")

# (what a zh_CN page must not contain, in its HTML source; why)
ENGLISH_INTERFACE = [
    ("Search the docs", "the search field's placeholder and label"),
    ("Color mode", "the theme switcher"),
    ("System Settings", "the theme switcher"),
    ('aria-label="Breadcrumb"', "the breadcrumbs' label"),
    ('aria-label="Home"', "the breadcrumbs' home link"),
    ("On this page", "the page's table of contents"),
    ("初始页面", "the theme's word for Home (首页)"),
    ("当前页面", "the theme's words for On this page (本页目录)"),
    ("the gradcut authors", "the copyright line"),
    ("版权所有。", "the copyright line's English word order"),
    ("gradcut inventory", "the tooltip of links to torch's docs"),
    ("(位于 ", "the tooltip of links to torch's docs, Sphinx's own words"),
    ("(本次构建)", "half-width brackets around Chinese"),
]
HAN = re.compile(r"[\u4e00-\u9fff]")


def interface_problems(html: str) -> list[str]:
    return [f"{string!r} ({why})" for string, why in ENGLISH_INTERFACE if string in html]


def test_the_check_finds_english_interface_strings():
    page = '<nav aria-label="Breadcrumb"></nav><input placeholder="Search the docs ...">'
    assert interface_problems(page) == [
        "'Search the docs' (the search field's placeholder and label)",
        """'aria-label="Breadcrumb"' (the breadcrumbs' label)""",
    ]
    assert interface_problems('<nav aria-label="面包屑导航"></nav>') == []


@pytest.fixture(scope="module")
def zh_pages(built_site):
    root = built_site / "zh_CN"
    return {
        p.relative_to(root).as_posix(): p
        for p in sorted(root.rglob("*.html"))
        if not p.relative_to(root).parts[0].startswith("_")  # the pages, not theme files
    }


def test_no_english_interface_string_on_chinese_pages(zh_pages):
    problems = [
        f"zh_CN/{name}: {problem}"
        for name, path in zh_pages.items()
        for problem in interface_problems(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "\n".join(problems)


def test_chinese_interface_words(zh_pages):
    doc = BeautifulSoup(zh_pages["howto/to-numpy.html"].read_text(encoding="utf-8"), "html.parser")
    assert doc.select_one("form.bd-search input[name=q]")["placeholder"] == "搜索文档…"
    assert doc.select_one("nav[aria-label=面包屑导航] a[aria-label=首页]") is not None
    assert "本页目录" in doc.select_one(".page-toc, #pst-page-toc-nav, .onthispage").get_text()
    assert doc.select_one("p.copyright").get_text(strip=True) == "版权所有 © 2026 gradcut 作者"
    torch_links = doc.select('a[href^="https://docs.pytorch.org/"]')
    assert torch_links, "the page links to torch's docs"
    assert {a["title"] for a in torch_links} <= {
        f"（PyTorch v{v} 文档）" for v in [a["href"].split("/docs/")[1].split("/")[0] for a in torch_links]
    }, {a["title"] for a in torch_links}


def test_copy_button_says_it_in_chinese(built_site):
    script = (built_site / "zh_CN" / "_static" / "copybutton.js").read_text(encoding="utf-8")
    assert "'复制成功！'" in script and "复制成功!" not in script


def test_gallery_cards_are_in_chinese(zh_pages):
    """Each card of the gallery's index has its example's Chinese title and summary."""
    index = BeautifulSoup(zh_pages["examples/index.html"].read_text(encoding="utf-8"), "html.parser")
    cards = index.select(".sphx-glr-thumbcontainer")
    assert len(cards) == len([n for n in zh_pages if re.fullmatch(r"examples/plot_.*\.html", n)])
    problems = []
    for card in cards:
        link = card.select_one("a.reference.internal")
        example = BeautifulSoup(
            zh_pages["examples/" + link["href"].split("#")[0]].read_text(encoding="utf-8"), "html.parser"
        )
        title = example.select_one("h1").get_text().replace("#", "").strip()
        shown = card.select_one(".sphx-glr-thumbnail-title").get_text(strip=True)
        if shown != title:
            problems.append(f"{link['href']}: card title {shown!r}, page title {title!r}")
        if not HAN.search(card["tooltip"]):
            problems.append(f"{link['href']}: tooltip not in Chinese: {card['tooltip']!r}")
    assert not problems, "\n".join(problems)


# -- the gallery's downloads -----------------------------------------------------------


def test_translate_script_translates_text_and_keeps_code():
    from gradcut.sphinxext.downloads import translate_script

    source = (
        '"""\nA title\n=======\n\nFirst paragraph,\non two lines.\n"""\n\n'
        "# %%\n# A text block.\nx = 1  # a code comment\n\n# %%\n# Not in the catalog.\nprint(x)\n"
    )
    messages = {"A title": "标题", "First paragraph, on two lines.": "第一段。", "A text block.": "一段文字。"}
    assert translate_script(source, messages) == (
        '"""\n标题\n=======\n\n第一段。\n"""\n\n'
        "# %%\n# 一段文字。\nx = 1  # a code comment\n\n# %%\n# Not in the catalog.\nprint(x)\n"
    )


def _downloads(site, lang):
    """{file name: path} of the .py and .ipynb downloads that the gallery's pages offer."""
    found = {}
    for page in sorted((site / lang / "examples").glob("plot_*.html")):
        doc = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for a in doc.select("a.reference.download"):
            path = (page.parent / a["href"]).resolve()
            if path.suffix in (".py", ".ipynb"):
                found[path.name] = path
    return found


def test_chinese_downloads_have_chinese_text_and_the_same_code(built_site):
    import json

    zh, en = _downloads(built_site, "zh_CN"), _downloads(built_site, "en")
    assert zh.keys() == en.keys() and len(zh) >= 2
    problems = []
    for name, path in zh.items():
        text, english = path.read_text(encoding="utf-8"), en[name].read_text(encoding="utf-8")
        if name.endswith(".py"):
            code = code_lines(text)
            if code != code_lines(english):
                problems.append(f"{name}: its code differs from the English download's")
            prose = text.split('"""', 2)[1]
        else:
            cells = json.loads(text)["cells"]
            english_cells = json.loads(english)["cells"]
            sources = [c["source"] for c in cells if c["cell_type"] == "code"]
            if sources != [c["source"] for c in english_cells if c["cell_type"] == "code"]:
                problems.append(f"{name}: its code cells differ from the English download's")
            code = "".join("".join(source) + "\n" for source in sources).splitlines()
            prose = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        if not HAN.search(prose):
            problems.append(f"{name}: no Chinese in its text")
        # A comment in the code is read as prose: it would stay English (the code is the
        # English download's); what it says belongs in the text block, which is translated.
        problems += [f"{name}: an English comment in its code: {line.strip()}" for line in english_comments(code)]
    assert not problems, "\n".join(problems)


def english_comments(code: list[str]) -> list[str]:
    """Code lines with a trailing ``# comment`` in Latin letters and no Chinese."""
    found = []
    for line in code:
        _, sep, comment = line.partition("  # ")
        if sep and re.search("[A-Za-z]", comment) and not HAN.search(comment):
            found.append(line)
    return found


# -- the general index ---------------------------------------------------------------


def test_chinese_index_is_in_pinyin_order(zh_pages):
    from gradcut.sphinxext.pinyin_index import pinyin

    doc = BeautifulSoup(zh_pages["genindex.html"].read_text(encoding="utf-8"), "html.parser")
    groups = [h2.get_text(strip=True) for h2 in doc.select("article h2")]
    entries = [li.a.get_text(strip=True) for li in doc.select("table.indextable td > ul > li")]
    assert any(HAN.search(e) for e in entries), entries
    keys = [pinyin(e).lower() for e in entries]
    assert keys == sorted(keys), entries
    assert all(HAN.search(g) is None for g in groups), f"a Chinese character as a group heading: {groups}"
    assert "叶子张量（leaf tensor）" in entries
