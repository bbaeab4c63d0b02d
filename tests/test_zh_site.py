"""The Chinese site's interface speaks Chinese: the theme's and Sphinx's own words, the
gallery's cards, the tooltips of links to torch's docs and the copy button's message;
and no English is left anywhere a reader meets it, in a page's text or its attributes,
but code, API names and proper names.

Each check reads every built zh_CN page and names the page and the string it found.
"""

import posixpath
import re

import pytest
from bs4 import BeautifulSoup, NavigableString

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


def assert_no_page_problems(zh_pages, check) -> None:
    """``check(html)`` lists a page's problems; none on any zh_CN page."""
    problems = [
        f"zh_CN/{name}: {problem}"
        for name, path in zh_pages.items()
        for problem in check(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "\n".join(problems)


def test_no_english_interface_string_on_chinese_pages(zh_pages):
    assert_no_page_problems(zh_pages, interface_problems)


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
        # A link in the summary that reads as the title it links to is quoted, as in the
        # meta description: 如何在……中阻断梯度 would otherwise run into the words after it.
        first = example.select_one("section > p")
        for a in first.select("a.reference.internal") if first else ():
            text = a.get_text().strip()
            titled = text.rstrip("？") == _linked_title(zh_pages, a["href"]).rstrip("？")
            if HAN.search(text) and titled and f"“{text}”" not in card["tooltip"]:
                problems.append(f"{link['href']}: the tooltip does not quote the title {text!r}")
    assert not problems, "\n".join(problems)


def _linked_title(zh_pages, href: str) -> str:
    """The title of the page or section an example page's link leads to."""
    path, _, anchor = href.partition("#")
    name = posixpath.normpath(posixpath.join("examples", path))
    if name not in zh_pages:
        return ""
    doc = BeautifulSoup(zh_pages[name].read_text(encoding="utf-8"), "html.parser")
    section = doc.find(id=anchor) if anchor else doc.select_one("section")
    heading = section and section.find(re.compile("^h[1-6]$"))
    return heading.get_text().replace("#", "").strip() if heading else ""


# -- the gallery's downloads -----------------------------------------------------------


def test_a_translated_docstring_with_an_escaped_space_compiles_without_a_warning():
    """见\\ :ref:`…` in a translation: the download's docstring is raw, so Python reads
    it without "invalid escape sequence" (a SyntaxWarning on 3.12; the downloads' check
    in tests/test_runnable.py turns it into an error)."""
    import warnings

    from gradcut.sphinxext.downloads import translate_script

    source = '"""\nA title\n=======\n\nSee :ref:`x`.\n"""\nprint(1)\n'
    out = translate_script(source, {"A title": "标题", "See :ref:`x`.": "见\\ :ref:`x`。"})
    assert out.startswith('r"""\n标题') and "见\\ :ref:`x`。" in out
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(out, "plot_x.py", "exec")
    plain = translate_script(source, {"A title": "标题"})
    assert plain.startswith('"""\n标题')


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


def test_a_notebooks_text_is_markdown_not_rest():
    """The Chinese notebooks: no escaped space of reST left, references as links."""
    from gradcut.sphinxext.downloads import notebook_text

    def link(kind, target, docname):
        known = {("doc", "/howto/teacher-ema"): ("教师网络", "https://x/zh_CN/howto/teacher-ema.html"),
                 ("ref", "saving-rule"): ("保存规则", "https://x/zh_CN/explanation/saving.html#saving-rule")}  # fmt: skip
        return known.get((kind, target))

    text = (
        "梯度仍会\\ *穿过* ``B``；``2``\\ ；详见 :doc:`/howto/teacher-ema`\\ 。见 "
        ":ref:`哪些张量会被保存 <saving-rule>`，:doc:`别处 <nowhere>`。"
    )
    assert notebook_text(text, "examples/plot_14", link) == (
        "梯度仍会*穿过* ``B``；``2``；详见 [教师网络](https://x/zh_CN/howto/teacher-ema.html)。见 "
        "[哪些张量会被保存](https://x/zh_CN/explanation/saving.html#saving-rule)，别处。"
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
    from gradcut.sphinxext.pinyin_index import sort_text

    doc = BeautifulSoup(zh_pages["genindex.html"].read_text(encoding="utf-8"), "html.parser")
    groups = [h2.get_text(strip=True) for h2 in doc.select("article h2")]
    entries = [li.a.get_text(strip=True) for li in doc.select("table.indextable td > ul > li")]
    assert any(HAN.search(e) for e in entries), entries
    keys = [sort_text(e) for e in entries]
    assert keys == sorted(keys), entries
    # a word before the longer words it starts, whatever English glosses it
    assert sort_text("梯度（gradient）") < sort_text("梯度惩罚") < sort_text("梯度模式") < sort_text("推理模式")
    assert all(HAN.search(g) is None for g in groups), f"a Chinese character as a group heading: {groups}"
    assert "叶子张量（leaf tensor）" in entries


# -- English left anywhere a reader meets it ------------------------------------------
# Every zh_CN page's visible text and the words of its attributes (tooltips, labels, alt
# texts, placeholders, the description and the link preview) are Chinese but for code,
# API names and proper names. Code is what the page marks as code (and what a text of
# it quotes verbatim: a description made of a paragraph with code in it, a figure's alt
# text), an error message as torch prints it, and English glossed or quoted beside
# Chinese: 原地操作（in-place operation）, “further above”（更上方）.

# Not the page's own prose: code, and quotations of others' words (the myths quoted).
NOT_PROSE = "code, pre, kbd, samp, .highlight, script, style, noscript, svg, math, template, blockquote"
TEXT_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder", "tooltip")
META_TEXT = {"description", "og:title", "og:description", "og:site_name", "og:image:alt"}
# Proper names and names the field uses untranslated, each a word as written.
PROPER_NAMES = {
    "torch", "Python", "Jupyter", "Inductor", "gradcut",  # software, and this project
    "sigmoid", "dropout",  # functions and layers, as torch names them
    "actor", "critic", "Actor", "Critic", "Mean", "Teacher",  # methods: actor–critic, Mean Teacher
    "Adam",  # an optimizer, as a table's row names it (torch-runs shows the row)
    "Dynamo", "autocast",  # torch's compiler front end (TorchDynamo), torch.autocast
}  # fmt: skip
# and the title of a cited paper, by which a reader finds it (Chinese review 19)
PROPER_PHRASES = ("Q-learning", "pytorch/rfcs", "Actor-Critic", "Exploring Simple Siamese Representation Learning")
ERROR_MESSAGE = re.compile(r"(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning): [^\u3000-\u303f\uff00-\uffef\u4e00-\u9fff“”]*")
# the English name of a term, after the term (a link to it ends the text before): a few
# words, no digits, no colon; 不适用（not in torch 1.13.1: …） is no gloss
GLOSS = re.compile(r"(?<![^\u4e00-\u9fff”])（[A-Za-z][A-Za-z '’,，.–-]*）")
QUOTED = re.compile(r"“[^“”\u4e00-\u9fff]*”")
VERSION = re.compile(r"\b\d+(?:\.\d+)+(?:\+\w+)?")
URL = re.compile(r"\bhttps?://\S+")
WORD = re.compile(r"\.?[A-Za-z][A-Za-z0-9_.'()\[\]-]*")
NAME_TOKENS = ".n, .nn, .nf, .nc, .nb, .bp, .kc, .ne, .nd, .na, .nv, .fm"


def code_vocabulary(doc) -> tuple[set[str], set[str]]:
    """(names, phrases) of a page's code: the identifiers of its code blocks and inline
    code, and the whole text of each inline code (an error message quoted in prose)."""
    names, phrases = set(), set()
    for token in doc.select(f"pre {NAME_TOKENS.replace(', ', ', pre ')}"):
        names.add(token.get_text())
    for code in doc.select("code"):
        text = " ".join(code.get_text().split())
        if HAN.search(text):
            continue
        names.update(re.findall(r"[A-Za-z_]\w*", text) if " " not in text else ())
        if " " in text:
            phrases.add(text)
    return names, phrases


def reader_strings(doc) -> list[tuple[str, str]]:
    """(where, text) of everything a reader of the page reads: its prose (not its code,
    except "code" that holds Chinese, such as sphinx-gallery's download links), and the
    words of its attributes and of its description and preview."""
    found = []
    for meta in doc.find_all("meta"):
        key = meta.get("name") or meta.get("property") or ""
        if key in META_TEXT:
            found.append((f"<meta {key}>", meta.get("content", "")))
    for element in doc.find_all(True):
        found += [(f"<{element.name} {a}>", element[a]) for a in TEXT_ATTRIBUTES if element.has_attr(a)]
    for element in doc.select(NOT_PROSE):
        if not (element.name == "code" and HAN.search(element.get_text())):
            element.decompose()
    for element in doc.select("[lang]:not(html)"):
        if not element["lang"].startswith("zh"):  # the language switcher's "English"
            element.decompose()
    for text in doc.find_all(string=True):
        if type(text) is NavigableString and text.strip():
            found.append((f"<{text.parent.name}>", str(text)))
    return found


def english_words(text: str, names=frozenset(), phrases=frozenset()) -> list[str]:
    """The English words of ``text``: not code of the page, an API or a proper name."""
    for phrase in sorted(phrases, key=len, reverse=True):
        text = text.replace(phrase, " ")
    text = GLOSS.sub(lambda m: " " if len(m[0].split()) <= 5 else m[0], text)
    for pattern in (ERROR_MESSAGE, QUOTED, URL, VERSION):
        text = pattern.sub(" ", text)
    for phrase in PROPER_PHRASES:
        text = text.replace(phrase, " ")
    words = []
    for word in WORD.findall(text):
        word = word.rstrip(".'-")
        if len(word) <= 1 or word in names or word in PROPER_NAMES:
            continue
        if word.startswith(".") or re.search(r"[_()\[\]0-9.]|[a-z][A-Z]|^[A-Z][A-Za-z]*[A-Z]", word):
            continue  # an API's name: t.grad, requires_grad, detach(), NumPy, GPU
        words.append(word)
    return words


def english_problems(html: str, vocabulary=None) -> list[str]:
    """Each string of a page with English in it, and the English words; ``vocabulary``:
    more (names, phrases) of code its text may quote (the gallery's cards quote the
    examples)."""
    doc = BeautifulSoup(html, "html.parser")
    names, phrases = code_vocabulary(doc)
    if vocabulary:
        names, phrases = names | vocabulary[0], phrases | vocabulary[1]
    problems = []
    for where, text in reader_strings(doc):
        words = english_words(text, names, phrases)
        if words:
            problems.append(f"{where} {' '.join(text.split())[:90]!r}: {words}")
    return problems


def test_the_english_check_reads_text_and_attributes():
    page = (
        '<html lang="zh-CN"><head><title>导出嵌入</title>'
        '<meta name="description" content="t.detach() 与 t 共享内存：modified by an inplace operation。"></head><body>'
        '<button class="dropdown-toggle">More</button><a lang="en" href="x">English</a>'
        '<p>原地操作（in-place operation）会让报错“further above”（更上方）出现：'
        "<code>modified by an inplace operation</code>，由 torch 2.13.0+cpu 的 <code>t.detach()</code> 得到。</p>"
        '<div tooltip="详见 /howto/freeze-vs-detach。"></div><img alt="标题" src="a.png">'
        '<p><a><code>下载 Jupyter notebook：plot_00.ipynb</code></a></p>'
        '<h1>RuntimeError: one of the variables needed：反向传播需要的张量被修改了</h1>'
        "<p>本页的每个示例和 doctest 都已运行。</p><p>torch 1.13.1：不适用（not in torch 1.13.1: x）</p></body></html>"
    )
    assert english_problems(page) == [
        "<div tooltip> '详见 /howto/freeze-vs-detach。': ['howto', 'freeze-vs-detach']",
        "<button> 'More': ['More']",
        "<code> '下载 Jupyter notebook：plot_00.ipynb': ['notebook']",
        "<p> '本页的每个示例和 doctest 都已运行。': ['doctest']",
        "<p> 'torch 1.13.1：不适用（not in torch 1.13.1: x）': ['not', 'in']",
    ]


@pytest.fixture(scope="module")
def gallery_vocabulary(zh_pages):
    """The code of the gallery's examples: the cards of its index quote their text."""
    names, phrases = set(), set()
    for name, path in zh_pages.items():
        if re.fullmatch(r"examples/plot_.*\.html", name):
            more = code_vocabulary(BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser"))
            names |= more[0]
            phrases |= more[1]
    return names, phrases


def test_no_english_on_chinese_pages(zh_pages, gallery_vocabulary):
    """Text, attributes, description and link preview of every zh_CN page: no English
    but code, API names and proper names."""
    problems = [
        f"zh_CN/{name}: {problem}"
        for name, path in zh_pages.items()
        for problem in english_problems(
            path.read_text(encoding="utf-8"), gallery_vocabulary if name == "examples/index.html" else None
        )
    ]
    assert not problems, f"{len(problems)} strings:\n" + "\n".join(problems[:60])


def test_what_other_releases_printed_is_introduced_in_chinese(zh_pages, built_site):
    """The folds of what other releases printed are code, which the scan above does not
    read; the words the runs add to torch's output are the site's, in the page's
    language: "(no error was raised)" where a release raised nothing (review 18)."""
    from gradcut.runs import NO_ERROR

    english = [name for name, path in zh_pages.items() if NO_ERROR in path.read_text(encoding="utf-8")]
    assert not english, f"{NO_ERROR} on {english}"
    shown = [p for p in (built_site / "en").rglob("*.html") if NO_ERROR in p.read_text(encoding="utf-8")]
    assert shown, "no English page shows a release that raised nothing: the check above reads nothing"


def test_the_root_404_page_says_its_chinese_part_in_chinese(built_site):
    """The root 404.html (gradcut.tools.build.site_pages) speaks every language; its
    Chinese part as a Chinese page would."""
    doc = BeautifulSoup((built_site / "404.html").read_text(encoding="utf-8"), "html.parser")
    section = doc.select_one('section[lang="zh-CN"]')
    assert section.a.get_text() == "前往首页（简体中文）"
    # no space after the full-width 。
    assert section.p.get_text() == "该地址没有对应的页面。前往首页（简体中文）"
    assert english_problems(f'<html lang="zh-CN"><body>{section}</body></html>') == []


def test_publishing_drops_the_files_of_an_example_that_is_gone(tmp_path):
    """An example renumbered (plot_20_compile_inductor -> plot_19_compile_inductor): its
    old downloads and figures are not published with the new ones."""
    import json

    from gradcut.sphinxext.pages import MANIFEST, prune

    site = tmp_path / "zh_CN"
    for rel in (
        "examples/plot_19_compile_inductor.html", "examples/plot_20_compile_inductor.html",
        "_downloads/aa/plot_19_compile_inductor.py", "_downloads/bb/plot_20_compile_inductor.zip",
        "_images/sphx_glr_plot_19_compile_inductor_thumb.png", "_images/sphx_glr_plot_20_compile_inductor_thumb.png",
        "_images/sphx_glr_plot_19_compile_inductor_001.svg", "_images/gradcut-icon.svg",
    ):  # fmt: skip
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text("")
    (site / MANIFEST).write_text(json.dumps(["examples/plot_19_compile_inductor.html"]))
    assert sorted(prune(site)) == [
        "_downloads/bb/plot_20_compile_inductor.zip",
        "_images/sphx_glr_plot_20_compile_inductor_thumb.png",
        "examples/plot_20_compile_inductor.html",
    ]
    assert not (site / "_downloads" / "bb").exists() and (site / "_images" / "gradcut-icon.svg").exists()


def question_links_inside_sentences(html: str) -> list[str]:
    """Links whose text is a page title ending in a full-width question mark, standing
    inside a sentence ("见[…？]中…"): there the question mark goes (Chinese review 3,
    issue 6). A link that opens its paragraph, as in a "see also" list, keeps it."""
    article = BeautifulSoup(html, "html.parser").find("article")
    problems = []
    for a in article.select("p a.reference") if article else []:
        text = a.get_text()
        if not text.endswith("？"):
            continue
        before = a.find_parent("p").get_text()
        before = before[: before.find(text)].strip()
        if before:
            problems.append(f"…{before[-12:]}[{text}]")
    return problems


def test_the_question_link_check_tells_a_sentence_from_a_list():
    inside = '<article><p>详见<a class="reference internal" href="x">何时出错？</a>。</p></article>'
    opening = '<article><p><a class="reference internal" href="x">何时出错？</a>：另见。</p></article>'
    assert question_links_inside_sentences(inside) == ["…详见[何时出错？]"]
    assert question_links_inside_sentences(opening) == []


def test_no_question_mark_in_a_link_inside_a_sentence(zh_pages):
    assert_no_page_problems(zh_pages, question_links_inside_sentences)
