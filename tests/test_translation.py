"""The Chinese catalogs: consistent terms, code untouched, no English left behind.

The build already fails on a missing, stale, malformed, fuzzy or untranslated catalog
entry (src/gradcut/sphinxext/i18n.py). These tests check what a build cannot: that each
glossary term has one translation everywhere, that code and cross-references reach the
reader exactly as in English, and that no English prose slipped through.
"""

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from conftest import ROOT

CATALOGS = ROOT / "locale" / "zh_CN" / "LC_MESSAGES"
GLOSSARY_PAGE = ROOT / "docs" / "glossary.md"

# `code`, {role}`target`, :role:`target` (reST, in gallery pages), ``code`` (which may
# hold single backticks: `` `x` is deprecated ``), URLs
CODE = re.compile(
    r"\{[\w:+-]+\}`[^`]*`|:[\w:+-]+:`[^`]*`|``(?:(?!``).)+``|`[^`]+`|https?://[^\s)]+|<[^<>\s]+>"
)
HAN = re.compile(r"[\u4e00-\u9fff]")
LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")


def catalogs():
    return sorted(CATALOGS.rglob("*.po"))


def messages(path):
    with path.open("rb") as fh:
        catalog = read_po(fh)
    return [m for m in catalog if m.id and m.string]


def prose(text: str) -> str:
    """The text without its code, references, link targets and addresses."""
    return CODE.sub(" ", LINK_TARGET.sub("]( )", text))


def glossary():
    """English term -> its one Chinese translation, from the glossary page."""
    block = re.search(r"```\{glossary\}\n(.*?)```", GLOSSARY_PAGE.read_text(), re.S)
    terms = [line for line in block.group(1).splitlines() if line and not line[0].isspace()]
    translated = {m.id: m.string for m in messages(CATALOGS / "glossary.po")}
    table = {}
    for term in terms:
        zh = translated.get(term, "")
        # "叶子张量（leaf tensor）": the Chinese term, with the English one for reference
        table[term] = zh.split("（")[0].strip()
    return table


def test_glossary_terms_all_translated():
    table = glossary()
    assert table and all(table.values()), table
    assert len(set(table.values())) == len(table), "two terms share a translation"


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.relative_to(CATALOGS).as_posix())
def test_terms_use_the_glossary_translation(path):
    if path.name == "glossary.po":
        return
    problems = []
    for term, zh in glossary().items():
        pattern = re.compile(rf"\b{re.escape(term)}(?:s|es)?\b", re.I)
        for m in messages(path):
            if m.string == m.id or HAN.search(m.id):
                continue  # code or names kept as is; or a quotation of a Chinese source
            if pattern.search(prose(m.id)) and zh not in m.string:
                problems.append(f"line {m.lineno}: {term!r} must read {zh!r}: {m.string[:80]!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.relative_to(CATALOGS).as_posix())
def test_code_and_references_are_not_translated(path):
    """Every code span, role and link target of the English reaches the reader as is."""
    problems = []
    for m in messages(path):
        want = sorted(CODE.findall(m.id)) + sorted(LINK_TARGET.findall(m.id))
        got = sorted(CODE.findall(m.string)) + sorted(LINK_TARGET.findall(m.string))
        # a role may show translated text with the English target: {term}`文本 <target>`
        want = [_target(x) for x in want]
        got = [_target(x) for x in got]
        if sorted(want) != sorted(got):
            missing = sorted(set(want) - set(got))
            extra = sorted(set(got) - set(want))
            problems.append(f"line {m.lineno}: missing {missing} extra {extra}")
    assert not problems, "\n".join(problems)


# The forms of a term that its glossary name alone does not match (inflections, the verb
# of a noun), and words the site writes one way that are no glossary entry, with the
# Chinese each must read. A match inside a proper name (Mean Teacher) does not count.
TERM_FORMS = [
    (r"\bstop(?:s|ped|ping)?[ -](?:the )?gradients?\b", "阻断梯度"),
    # cut a gradient: 阻断梯度 (as stop); cut the graph: 截断计算图 (review issue 13)
    (r"\bcut(?:s|ting)? (?:the |a )?gradients?\b(?! of)", "阻断梯度"),
    (r"\bcut(?:s|ting)? (?:off )?the graph\b", "截断"),
    (r"\bclip(?:s|ped|ping)?\b", "裁剪"),
    (r"\bleav(?:e|es|ing) autograd\b", "脱离自动求导"),
    (r"\bsynthetic\b", "合成"),
    (r"\bin-place\b|(?<!is )(?<!are )(?<!be )\bin place\b", "原地"),  # not "the cut is in place"
    (r"\brunning stat(?:istic)?s\b", "滑动统计量"),
    (r"\bgrad[- ]mode\b", "梯度模式"),
    (r"\bbackward nodes?\b", "反向节点"),
    (r"\bnon-leaf\b", "非叶子"),
    (r"\bdetached tensors?\b", "分离出的张量"),
    (r"(?<!Mean )\bteachers?\b", "教师网络"),
    (r"\bactor[–-]critic\b", "Actor-Critic"),
    # the two parts of an actor–critic, capitalised as in Actor-Critic (review issue 12)
    (r"\bactors?\b(?![–-]critic)", "Actor"),
    (r"(?<![–-])\bcritics?\b", "Critic"),
    (r"\bgraph breaks?\b|\bbreaks? the graph\b", "图中断"),
]
PROPER_NAMES_EN = re.compile(r"Mean Teacher")
# A cited paper is named by its own title, which a reader searches for (Chinese review 19).
CITED_TITLES = re.compile(r"Exploring Simple Siamese Representation Learning")

# Words that drifted in: each concept has the one Chinese word on the right.
VARIANTS = [
    (r"停止梯度|截断梯度|阻止梯度|梯度截断|切断梯度", "阻断梯度 (stop or cut the gradient)"),
    (r"阻断计算图|切断计算图|(?:与|和)计算图断开", "截断计算图 (cut the graph)"),
    (r"切断", "阻断梯度 (cut a gradient) / 截断计算图 (cut the graph): no 切断"),
    (r"截断的?直通估计器|截断式直通", "带裁剪的直通估计器 (clipped: 裁剪, as for clamp)"),
    (r"离开了?(?:自动求导|计算图)", "脱离自动求导 / 脱离计算图 (leave autograd)"),
    (r"分离出来的|分离得到的|分离后的", "分离出的 (the detached tensor)"),
    (r"人造数据|人工数据|虚构数据|合成的数据", "合成数据 (synthetic data)"),
    (r"被保存的张量|保存下来的张量|保存下的张量", "保存的张量 (saved tensor)"),
    (r"就地", "原地 (in place)"),
    (r"叶张量|叶节点张量|叶子节点张量", "叶子张量 (leaf tensor)"),
    (r"推断模式", "推理模式 (inference mode)"),
    (r"教师模型", "教师网络 (teacher network)"),
    (r"滑动平均|移动平均值", "指数移动平均 (exponential moving average)"),
    (r"断图|(?<!计算)图断开|图断裂", "图中断 (graph break)"),
    (r"梯度罚", "梯度惩罚 (gradient penalty)"),
    (r"基张量|底层张量", "基础张量 (a view's base)"),
    (r"错误信息|报错消息|错误消息", "报错信息 (an error's message)"),
    # moves the version counter: the counter (or the version) 增加, by N: 加 N (review issue 14)
    (r"前进|推进|增大|版本号[^，。；：]{0,4}(?:改变|变化)|计数器(?:没有|各|都)?(?:改变|变化)|改变[^，。；：]{0,6}(?:计数器|版本)", "版本号增加 / 版本计数器加 N (moves the version counter)"),
    (r"(?<![A-Za-z_.])(?:actor|critic)(?![A-Za-z_(])", "Actor / Critic, capitalised"),
    # review issues 16, 19-22, 24
    (r"生成样本", "假样本 (fake samples)"),
    (r"\bPR\b(?!）)|\bissue\b(?!）)|pull request", "议题 (issue), 拉取请求（PR） (pull request)"),
    (r"Python 数(?![值组据])|Python 值", "Python 数值 (a Python number)"),
    (r"头部网络|头网络", "输出头 (head)"),
    (r"(?<!计算)(?<!这段)历史", "计算历史 (history)"),
    (r"置零", "清零 (zero)"),
    (r"累积", "累加 (accumulate)"),
    # Chinese review 3: the site is 本站; no colloquial 算数 / 无事可做
    (r"构建网站", "构建本站 (when the site is built)"),
    (r"(?<!计)算数", "计入 / 都会被检查到 (counts): 算数 is colloquial"),
    (r"无事可做", "无须实际转换 (a no-op conversion)"),
    # Chinese review 4
    (r"无需", "无须"),
    (r"中的错误(?:失败|：|。)", "中的报错 (the error of a linked page)"),
    (r"(?<!算术)(?<!乘法)(?<!加法)(?<!除法)(?<!四则)运算(?!符)", "操作 (运算 only for arithmetic)"),
    # Chinese review 14
    (r"拷贝", "复制 (copy): 深度复制 for a deep copy"),
]


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.relative_to(CATALOGS).as_posix())
def test_term_forms_use_the_one_translation(path):
    problems = []
    forms = [(re.compile(en, re.I), zh) for en, zh in TERM_FORMS]
    for m in messages(path):
        if m.string == m.id or HAN.search(m.id):
            continue
        english = PROPER_NAMES_EN.sub(" ", prose(m.id))
        for pattern, zh in forms:
            if pattern.search(english) and zh not in m.string:
                problems.append(f"line {m.lineno}: {pattern.pattern!r} must read {zh!r}: {m.string[:80]!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.relative_to(CATALOGS).as_posix())
def test_no_variant_of_a_term(path):
    problems = []
    for m in messages(path):
        for variant, term in VARIANTS:
            for hit in re.finditer(variant, prose(m.string)):
                problems.append(f"line {m.lineno}: {hit.group(0)!r}, write {term}")
    assert not problems, "\n".join(problems)


def _target(span: str) -> str:
    """``{doc}`text <target>``` -> ``{doc}`<target>```: the target is what must not move."""
    match = re.fullmatch(r"(\{[\w:+-]+\}|:[\w:+-]+:)`(?:[^`<]*<([^`>]+)>|([^`]*))`", span)
    if not match:
        return span
    role, target, plain = match.groups()
    return f"{role}`{target or plain}`"


ENGLISH_RUN = re.compile(r"(?:\b[A-Za-z][a-z']+\b[ ,;:]+){4,}[A-Za-z][a-z']+")


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.relative_to(CATALOGS).as_posix())
def test_no_english_prose_left(path):
    problems = []
    for m in messages(path):
        if m.string == m.id:
            continue
        run = ENGLISH_RUN.search(CITED_TITLES.sub(" ", prose(m.string)))
        if run:
            problems.append(f"line {m.lineno}: English left in the translation: {run.group(0)!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.relative_to(CATALOGS).as_posix())
def test_every_entry_translated(path):
    with path.open("rb") as fh:
        catalog = read_po(fh)
    todo = [m.lineno for m in catalog if m.id and (not m.string or m.fuzzy)]
    assert not todo, f"untranslated or fuzzy entries at lines {todo}"


def test_gallery_boilerplate_reads_one_way():
    """sphinx-gallery's fixed sentences (the download links…) read as `make po` writes
    them, on every example page: none worded by hand another way."""
    from gradcut.tools.build.catalogs import BOILERPLATE

    problems = []
    for path in catalogs():
        for m in messages(path):
            for pattern, replacement in BOILERPLATE["zh_CN"]:
                if pattern.match(m.id):
                    if m.string != pattern.sub(replacement, m.id):
                        problems.append(f"{path.relative_to(CATALOGS)}:{m.lineno}: {m.string!r}")
                    break
    assert not problems, "\n".join(problems)


def test_sweep_values_read_as_the_tables_word_them():
    """What another release measured is shown in the site's words for a sweep's values
    (gradcut.sphinxext.versions.SWEEP_VALUES) when the table at hand lacks the value:
    those words are the ones the tables use for it."""
    from gradcut.sphinxext.versions import SWEEP_VALUES

    words = SWEEP_VALUES["zh_CN"]
    problems = [
        f"{path.relative_to(CATALOGS)}:{m.lineno}: {m.id!r} is {m.string!r}, the history says {words[m.id]!r}"
        for path in catalogs()
        if path.name != "glossary.po"  # a term, not a table's cell
        for m in messages(path)
        if m.id in words and m.string != words[m.id]
    ]
    assert not problems, "\n".join(problems)


def test_identical_translations_are_code_only():
    """A msgstr equal to its msgid only where nothing is English prose.

    Code and names read the same in both languages; so does a quotation that is already
    Chinese.
    """
    problems = []
    for path in catalogs():
        for m in messages(path):
            if m.string == m.id and re.search(r"[A-Za-z]{3,}", prose(m.id)) and not HAN.search(m.id):
                problems.append(f"{path.relative_to(CATALOGS)}:{m.lineno}: {m.id[:70]!r}")
    assert not problems, "\n".join(problems)


def test_every_page_has_a_catalog():
    pages = {
        p.relative_to(ROOT / "docs").with_suffix("").as_posix()
        for p in (ROOT / "docs").rglob("*.md")
    }
    have = {p.relative_to(CATALOGS).with_suffix("").as_posix() for p in catalogs()}
    assert pages <= have, sorted(pages - have)


def test_catalog_paths_are_under_locale():
    assert CATALOGS.is_dir() and Path(CATALOGS / "sphinx.po").is_file()


# reST (the gallery's catalogs): inline markup must start after whitespace or opening
# punctuation and end before whitespace or closing punctuation. A Chinese character or a
# full-width opening bracket right against it silently swallows the text that follows.
REST_MARKUP = re.compile(r"``.+?``|:[\w:+-]+:`[^`]+`|\*\*[^*\s](?:[^*]*?[^*\s])?\*\*|\*[^*\s](?:[^*]*?[^*\s])?\*")
REST_BAD_NEIGHBOUR = re.compile(r"[\u4e00-\u9fffA-Za-z0-9（）【】「」『』“”]")


@pytest.mark.parametrize(
    "path",
    sorted((CATALOGS / "examples").glob("*.po")),
    ids=lambda p: p.name,
)
def test_rest_inline_markup_is_delimited(path):
    problems = []
    for m in messages(path):
        text = m.string
        for hit in REST_MARKUP.finditer(text):  # left to right: each span once
            before = text[hit.start() - 1] if hit.start() else " "
            after = text[hit.end()] if hit.end() < len(text) else " "
            bad_before = REST_BAD_NEIGHBOUR.match(before) and before not in "（【「『“"
            bad_after = REST_BAD_NEIGHBOUR.match(after) and after not in "）】」』”"
            if bad_before or bad_after:
                problems.append(f"line {m.lineno}: {text[max(0, hit.start() - 8):hit.end() + 8]!r}")
    assert not problems, "use a space or an escaped space (\\ ) next to the markup:\n" + "\n".join(problems)


# -- what the code prints: the same for readers of both languages -------------------
# The code of the gallery's examples and of the pages is never translated, and neither
# is what it prints: the Chinese page, its downloads and its transcripts show the same
# output as the English ones. A label that the code prints (or draws on a figure) is
# therefore code, a name or expression the code itself uses (``print("c.requires_grad =",
# c.requires_grad)``), or punctuation; never words of English prose. The same goes for a
# docstring or a comment in a reader's code: the text around the code says it, in the
# page's language.

import ast  # noqa: E402
import builtins  # noqa: E402
import io  # noqa: E402
import keyword  # noqa: E402
import tokenize  # noqa: E402

GALLERY = ROOT / "gallery"
PAGES = ROOT / "docs"
LABEL_CALLS = {"set_title", "set_xlabel", "set_ylabel", "suptitle", "text", "annotate"}
LABEL_KEYWORDS = {"label", "title"}
DIRECTIVE = re.compile(r"#\s*(?:doctest:|fmt:|noqa\b|type:|%%|sphinx_gallery_)")
WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def code_names(tree: ast.AST) -> set[str]:
    """Every name the code writes: variables, attributes, functions, arguments, keywords,
    imports, and Python's own keywords and builtins."""
    names = set(keyword.kwlist) | set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.update((node.asname or node.name).split("."))
            names.update(node.name.split("."))
    return names


def _literal_parts(node: ast.AST) -> list[str]:
    """The literal text of a string argument: a constant, or the constant parts of an
    f-string (not its format specs)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value for v in node.values if isinstance(v, ast.Constant)]
    if isinstance(node, ast.Tuple):
        return [part for element in node.elts for part in _literal_parts(element)]
    return []


def shown_strings(tree: ast.AST, top_level_values: bool = False) -> list[tuple[int, str]]:
    """(line, text) of the literal text the code prints or draws: the arguments of
    ``print()``, the titles and labels of a figure, and (in a transcript, where the value of
    an expression is printed) a string an expression statement evaluates to."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name == "print" or (isinstance(func, ast.Attribute) and name in LABEL_CALLS):
                for arg in node.args:
                    found += [(node.lineno, part) for part in _literal_parts(arg)]
            for kw in node.keywords:
                if kw.arg in LABEL_KEYWORDS or (name == "print" and kw.arg in ("sep", "end")):
                    found += [(node.lineno, part) for part in _literal_parts(kw.value)]
        elif top_level_values and isinstance(node, ast.Expr) and node in getattr(tree, "body", []):
            found += [(node.lineno, part) for part in _literal_parts(node.value)]
    return found


def prose_words(text: str, names: set[str]) -> list[str]:
    """The words of a printed label that are not names of the code."""
    return [w for w in WORDS.findall(text) if w not in names]


def docstrings(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                found.append((node.lineno, doc))
    return found


def comments(source: str) -> list[tuple[int, str]]:
    """(line, comment) of the comments in code that are not directives (``# doctest:``,
    ``# fmt: skip``, sphinx-gallery's markers)."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and not DIRECTIVE.match(token.string):
            found.append((token.start[0], token.string))
    return found


def example_code(path: Path) -> tuple[str, list[tuple[int, str]]]:
    """An example's code as its reader gets it (no ignore blocks), and its comments
    that are not text blocks."""
    from gradcut.sphinxext.gallery import downloadable

    code = downloadable(path.read_text(encoding="utf-8"))
    # text blocks: "# %%" and the comment lines right after it; the rest are comments
    text_lines, in_text = set(), False
    for lineno, line in enumerate(code.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("# %%"):
            in_text = True
        elif in_text and stripped.startswith("#") and line.startswith("#"):
            pass
        else:
            in_text = False
            continue
        text_lines.add(lineno)
    code_comments = [(n, c) for n, c in comments(code) if n not in text_lines]
    return code, code_comments


def pycon_blocks(page: Path) -> list[tuple[int, str]]:
    """(line, code) of each ``pycon`` block of a page: its ``>>>`` and ``...`` lines."""
    blocks, current, start, fence = [], [], 0, None
    for lineno, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.strip()
        if fence is None:
            match = re.match(r"(`{3,}|~{3,})\s*(?:\{code-block\}\s*)?pycon\b", stripped)
            if match:
                fence, current, start = match.group(1), [], lineno + 1
            continue
        if stripped.startswith(fence) and stripped.strip("`~") == "":
            blocks.append((start, "\n".join(current)))
            fence = None
        elif stripped.startswith((">>> ", "... ")) or stripped in (">>>", "..."):
            current.append(stripped[4:])
    return blocks


def _parse(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


EXAMPLES = sorted(GALLERY.glob("plot_*.py"))
PAGE_FILES = sorted(p for p in PAGES.rglob("*.md") if "_torch_runs" not in p.parts)


def embedded_scripts(tree: ast.AST) -> list[tuple[int, ast.Module]]:
    """(line, tree) of the Python scripts an example holds as strings (the code each
    process of a multi-process example runs, written to a file)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "print(" in node.value:
            script = _parse(node.value)
            if script is not None and len(script.body) > 1:
                found.append((node.lineno, script))
    return found


def example_problems(path: Path) -> list[str]:
    code, code_comments = example_code(path)
    tree = ast.parse(code)
    names = code_names(tree)
    scripts = embedded_scripts(tree)
    for _line, script in scripts:
        names |= code_names(script)
    problems = [
        f"line {line} of the download: prints {text!r}: {words}"
        for line, text in shown_strings(tree)
        if (words := prose_words(text, names))
    ]
    problems += [
        f"line {start + line - 1} of the download (a script it runs): prints {text!r}: {words}"
        for start, script in scripts
        for line, text in shown_strings(script)
        if (words := prose_words(text, names))
    ]
    problems += [f"line {line}: a docstring {doc!r}" for line, doc in docstrings(tree)]
    problems += [f"line {line}: a comment {text!r}" for line, text in code_comments]
    return problems


def page_problems(page: Path) -> list[str]:
    blocks = pycon_blocks(page)
    trees = [(line, _parse(code), code) for line, code in blocks]
    names = set().union(*(code_names(tree) for _, tree, _ in trees if tree)) if trees else set()
    problems = []
    for line, tree, code in trees:
        if tree is None:
            problems.append(f"block at line {line}: not Python")
            continue
        problems += [
            f"block at line {line}: prints {text!r}: {words}"
            for _, text in shown_strings(tree, top_level_values=True)
            if (words := prose_words(text, names))
        ]
        problems += [f"block at line {line}: a docstring {doc!r}" for _, doc in docstrings(tree)]
        problems += [f"block at line {line}: a comment {text!r}" for _, text in comments(code)]
    return problems


def test_the_label_check_tells_code_from_prose():
    tree = ast.parse(
        "c = t.detach()\nsame = True\nprint('c.requires_grad =', c.requires_grad)\n"
        "print(f'step {same}: loss', same)\nprint('same memory:', same)\n"
        "ax.set_xlabel('training step')\nax.plot([1], label='c')\n"
    )
    names = code_names(tree)
    shown = [(text, prose_words(text, names)) for _, text in shown_strings(tree)]
    assert shown == [
        ("c.requires_grad =", []),
        ("step ", ["step"]),
        (": loss", ["loss"]),
        ("same memory:", ["memory"]),
        ("training step", ["training", "step"]),
        ("c", []),
    ]
    assert [c for _, c in comments("x = 1  # a note\ny = 2  # doctest: +SKIP\n")] == ["# a note"]
    assert [d for _, d in docstrings(ast.parse('def f():\n    """Say it."""\n'))] == ["Say it."]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_print_no_english(path):
    """What an example prints or draws, its docstrings and its code comments: code and
    punctuation only (the downloads of both languages carry the same code)."""
    problems = example_problems(path)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", PAGE_FILES, ids=lambda p: p.relative_to(PAGES).as_posix())
def test_page_transcripts_print_no_english(page):
    """The same for the transcripts of the pages (``pycon`` blocks): their code is shown,
    and what it prints pasted, unchanged on the Chinese page."""
    problems = page_problems(page)
    assert not problems, "\n".join(problems)


# -- one style for links, bold lead-ins, punctuation and spacing ----------------------
# A link to another page reads as that page's title: a bare {doc}`target` (Sphinx writes
# the title), or the title itself as the link's text; never 《…》 around it, nor 一页 or
# 页面 after it. A bold lead-in keeps its punctuation outside: **本站实测**：. Prose uses
# full-width punctuation, …… for an ellipsis, and a space between Chinese and Latin
# letters, digits or code.

DOC_LINK = re.compile(
    r"(?:\{doc\}|:doc:)`(?:(?P<text>[^`<]*?)\s*<(?P<target>[^`>]+)>|(?P<bare>[^`]+))`"
    r"|\[(?P<mdtext>[^\]]*)\]\((?P<mdtarget>[^)\s#:]+\.md)\)"
)


def page_titles() -> dict[str, str]:
    """Each page's Chinese title, as plain text (code marks removed), by page name."""
    titles = {}
    for path in catalogs():
        name = path.relative_to(CATALOGS).with_suffix("").as_posix()
        if name == "sphinx" or name.startswith("examples/plot_"):
            continue
        first = next(iter(messages(path)), None)
        if first is not None:
            titles[name] = first.string.replace("`", "")
    for path in sorted((CATALOGS / "examples").glob("plot_*.po")):
        # a gallery page's title is the first line of its docstring's entry
        title = [m for m in messages(path) if not m.id.startswith(":ref:`")]
        if title:
            titles[f"examples/{path.stem}"] = title[0].string.replace("``", "")
    # a label's section: a bare {ref}`label` shows its heading, in Chinese
    for md in sorted((ROOT / "docs").rglob("*.md")):
        name = md.relative_to(ROOT / "docs").with_suffix("").as_posix()
        po = CATALOGS / f"{name}.po"
        if not po.is_file():
            continue
        zh = {m.id: m.string for m in messages(po) if m.string}
        for hit in re.finditer(r"^\(([\w-]+)\)=\n+#+ (.+)$", md.read_text(encoding="utf-8"), re.M):
            heading = hit.group(2).strip()
            titles[f"ref:{hit.group(1)}"] = zh.get(heading, heading).replace("`", "")
    return titles


def _resolve(page: str, target: str) -> str:
    target = target.removesuffix(".md")
    if target.startswith("/"):
        return target.lstrip("/")
    parts = page.split("/")[:-1] + target.split("/")
    out = []
    for part in parts:
        if part == "..":
            out.pop()
        elif part not in ("", "."):
            out.append(part)
    return "/".join(out)


def link_problems(text: str, page: str, titles: dict[str, str]) -> list[str]:
    problems = []
    for hit in DOC_LINK.finditer(text):
        shown = hit.group("text") if hit.group("target") else hit.group("mdtext")
        target = hit.group("target") or hit.group("mdtarget")
        if shown is None:
            continue  # {doc}`target`: Sphinx writes the title
        title = titles.get(_resolve(page, target))
        # inside a sentence a title that is a question drops its ？ (Chinese review 3)
        if title is not None and shown.replace("`", "") not in (title, title.removesuffix("？")):
            problems.append(f"link to {target} reads {shown!r}, not its title {title!r}")
    for hit in re.finditer(r"《|》", text):
        problems.append(f"{text[max(0, hit.start() - 10):hit.end() + 10]!r}: no 《》 around a title")
    after = re.compile(r"(?:`|\]\([^)]*\))\s*(?:这一页|一页|页面|这篇)")
    problems += [f"{hit.group(0)!r}: no 一页 after a link" for hit in after.finditer(text)]
    return problems


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.relative_to(CATALOGS).as_posix())
def test_links_to_pages_read_as_their_titles(path):
    titles = page_titles()
    page = path.relative_to(CATALOGS).with_suffix("").as_posix()
    problems = [
        f"line {m.lineno}: {problem}"
        for m in messages(path)
        if m.string != m.id
        for problem in link_problems(m.string, page, titles)
    ]
    assert not problems, "\n".join(problems)


BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
PUNCTUATION_INSIDE = re.compile(r"[：:。，,；;！!？?、]$")
HALF_WIDTH_NEXT_TO_HAN = re.compile(
    r"[\u4e00-\u9fff][,;:!?]|[,;:!?](?=[\u4e00-\u9fff])|\([^()]*[\u4e00-\u9fff][^()]*\)"
)
LONE_ELLIPSIS = re.compile(r"(?<!…)…(?!…)|\.\.\.")
# a quotation of what torch prints keeps its characters: “output … of”, “…”
QUOTED_ENGLISH = re.compile(r"“[^“”\u4e00-\u9fff]*”")
# Latin letters, digits or code right against a Chinese character; link and role texts
# count as what they show
NO_SPACE = re.compile(r"[\u4e00-\u9fff][A-Za-z0-9`]|[A-Za-z0-9`](?=[\u4e00-\u9fff])")
# a link shows as 中·中 (its text's first and last characters): Chinese text meets a
# Chinese link text without a space (review issue 47); Latin or code keeps its space
WIDE = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef“”‘’]")
LINK_SPACE = re.compile(r"[\u4e00-\u9fff] +(?=中·)|(?<=·中) +[\u4e00-\u9fff]")


def style_problems(text: str, titles: dict[str, str], page: str) -> list[str]:
    problems = []
    for hit in BOLD.finditer(text):
        if PUNCTUATION_INSIDE.search(hit.group(1)) and HAN.search(hit.group(1)):
            problems.append(f"{hit.group(0)!r}: punctuation outside the bold")
    plain = QUOTED_ENGLISH.sub("“”", prose(text))
    for hit in HALF_WIDTH_NEXT_TO_HAN.finditer(plain):
        problems.append(f"{hit.group(0)!r}: full-width punctuation in Chinese prose")
    for hit in LONE_ELLIPSIS.finditer(plain):
        context = plain[max(0, hit.start() - 8):hit.end() + 8]
        problems.append(f"{context!r}: …… for an ellipsis")
    shown = _shown_text(text, titles, page)
    for hit in NO_SPACE.finditer(shown):
        context = shown[max(0, hit.start() - 8):hit.end() + 8]
        problems.append(f"{context!r}: a space between Chinese and Latin, digits or code")
    if not page.startswith("examples/plot_"):  # reST needs a space (or an escaped one)
        for hit in LINK_SPACE.finditer(shown):
            context = shown[max(0, hit.start() - 8):hit.end() + 8]
            problems.append(f"{context!r}: no space between Chinese and a link whose text is Chinese")
    return problems


def _shown_text(text: str, titles: dict[str, str], page: str) -> str:
    """The text with each role and link as what the reader sees of it (a Chinese link
    text as Chinese, code as `x`), and reST's escaped spaces (which show nothing) gone."""

    def role(match):
        inner = match.group(0)
        target = re.search(r"<([^>]+)>`$", inner)
        text_part = re.sub(r"^[^`]*`|\s*<[^>]+>`$|`$", "", inner)
        if match.group(0).startswith(("{doc}", ":doc:")) and not target:
            text_part = titles.get(_resolve(page, text_part), text_part)
        if match.group(0).startswith(("{ref}", ":ref:")) and not target:
            text_part = titles.get(f"ref:{text_part}", text_part)
        if not text_part:
            return "`x`"
        # full-width punctuation (？“”) reads as Chinese: no space next to it either
        first = "中" if WIDE.match(text_part) else "x"
        last = "中" if WIDE.match(text_part[-1]) else "x"
        return first + "·" + last

    text = text.replace("\\ ", "")
    text = re.sub(r"(?:\{[\w:+-]+\}|:[\w:+-]+:)`[^`]*`", role, text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", lambda m: role(re.match(r".*", "`" + m.group(1) + "`")), text)
    text = re.sub(r"``[^`]+``|`[^`]+`", "`x`", text)
    return re.sub(r"https?://\S+", "x", text)


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.relative_to(CATALOGS).as_posix())
def test_punctuation_and_spacing(path):
    titles = page_titles()
    page = path.relative_to(CATALOGS).with_suffix("").as_posix()
    problems = [
        f"line {m.lineno}: {problem}"
        for m in messages(path)
        if m.string != m.id and HAN.search(m.string) and path.name != "sphinx.po"
        for problem in style_problems(m.string, titles, page)
    ]
    assert not problems, "\n".join(problems)


def test_the_style_checks_find_what_they_look_for():
    titles = {"howto/to-numpy": "如何安全地把张量转换为 NumPy 数组"}
    assert link_problems("见 {doc}`/howto/to-numpy`。", "index", titles) == []
    titles["ref:sweep-x"] = "原地写法"
    assert len(style_problems("见 {ref}`sweep-x`）", titles, "x")) == 1
    assert style_problems("见{ref}`sweep-x`）", titles, "x") == []
    assert link_problems("见 {doc}`如何安全地把张量转换为 NumPy 数组 <howto/to-numpy>`。", "index", titles) == []
    assert len(link_problems("见 {doc}`转换 <howto/to-numpy>` 一页。", "index", titles)) == 2
    assert len(link_problems("见《{doc}`howto/to-numpy`》。", "index", titles)) == 2
    assert link_problems("[转换](../howto/to-numpy.md)", "explanation/x", titles) != []
    assert style_problems("**本站实测**：见下。", titles, "x") == []
    assert len(style_problems("**本站实测：**见下。", titles, "x")) == 1
    assert len(style_problems("你想要…", titles, "x")) == 1
    assert style_problems("你想要……以“…”结尾", titles, "x") == []
    assert len(style_problems("梯度,然后(见下)", titles, "x")) == 2
    assert len(style_problems("调用`detach()`之后", titles, "x")) == 2
    assert style_problems("调用 `detach()` 之后，见{ref}`上表 <t>`。", titles, "x") == []
    assert style_problems(":ref:`跳到末尾 <x>`\\ 下载", titles, "x") == []
    assert style_problems("见{ref}`上表 <t>`中的第一行", titles, "x") == []
    assert len(style_problems("见 {ref}`上表 <t>` 中的第一行", titles, "x")) == 2
    assert len(style_problems("见 [转换](../howto/to-numpy.md)。", titles, "x")) == 1


# -- rows of a sweep table named in prose ----------------------------------------------
# "the row `X` of {ref}`… <sweep-…>`", "见 {ref}`… <sweep-…>` 中“X”这一行": the row named
# must be a row of a table on the page the reference points to, as that table reads in
# the same language (a Chinese sentence names the row as the Chinese table shows it).

ROW_LABEL = r"(?:``[^`]+``|`[^`]+`|\"[^\"]+\"|“[^”]+”)"
REF = r"(?:\{ref\}|:ref:)`(?:[^`<]*?<(?P<target>[^>`]+)>|(?P<bare>[^`<]+))`"
ROW_REF_EN = re.compile(
    rf"\b(?:the|their) rows? (?P<labels>{ROW_LABEL}(?:(?:,? and |, ){ROW_LABEL})*) (?:of|in) (?:the )?{REF}"
)
ROW_REF_ZH = re.compile(rf"{REF} ?中 ?(?P<labels>{ROW_LABEL}(?: ?[和、] ?{ROW_LABEL})*) ?[这那][一两几]?行")


def _row_labels(text: str) -> list[str]:
    from gradcut.claims.sweeps import plain

    return [plain(label.strip('"“”')) for label in re.findall(ROW_LABEL, text)]


def sweep_rows() -> dict[str, dict[str, set[str]]]:
    """For each label of the pages (``(sweep-saved)=``): the first cells of the sweep
    tables of its page, in English and as its catalog translates them."""
    from gradcut.claims.sweeps import plain, tables_in

    rows = {}
    for page in PAGE_FILES:
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(PAGES).with_suffix("").as_posix()
        catalog = CATALOGS / f"{name}.po"
        zh = {m.id: m.string for m in messages(catalog)} if catalog.is_file() else {}
        cells = [
            line.strip().strip("|").split("|")[0].strip()
            for _sweep, lines in tables_in(text)
            for _n, line in lines[2:]
            if line.strip()
        ]
        found = {"en": {plain(c) for c in cells}, "zh_CN": {plain(zh.get(c, c)) for c in cells}}
        for label in re.findall(r"^\(([\w-]+)\)=$", text, re.M):
            rows[label] = found
    return rows


def row_reference_problems(en: str, zh: str, rows: dict) -> list[str]:
    problems = []
    for language, pattern, text in (("en", ROW_REF_EN, en), ("zh_CN", ROW_REF_ZH, zh)):
        for match in pattern.finditer(text):
            target = (match["target"] or match["bare"]).strip()
            if target not in rows:
                continue  # not a page with sweep tables
            problems += [
                f"{language}: row {label!r} of {target}" for label in _row_labels(match["labels"]) if label not in rows[target][language]
            ]
    return problems


def test_the_row_reference_check_finds_rows():
    rows = {"sweep-x": {"en": {"y.numpy()", "no context (grad mode)"}, "zh_CN": {"y.numpy()", "无上下文（梯度模式）"}}}
    en = 'the rows `y.numpy()` and "no context (grad mode)" of {ref}`The table <sweep-x>`; the row `z` of {ref}`sweep-x`'
    zh = "见 {ref}`表 <sweep-x>` 中 `y.numpy()` 和“无上下文（梯度模式）”这两行；{ref}`sweep-x` 中“no context (grad mode)”这一行"
    assert row_reference_problems(en, zh, rows) == [
        "en: row 'z' of sweep-x",
        "zh_CN: row 'no context (grad mode)' of sweep-x",
    ]


def test_rows_named_in_prose_are_rows_of_the_table_in_that_language():
    rows = sweep_rows()
    problems = [
        f"{path.relative_to(CATALOGS)}:{m.lineno}: {problem}"
        for path in catalogs()
        for m in messages(path)
        for problem in row_reference_problems(m.id, m.string, rows)
    ]
    assert not problems, "\n".join(problems)


def test_a_chinese_link_text_keeps_quotes_in_the_meta_description():
    """The meta description is the first paragraph as plain text: a link whose text is
    Chinese reads as a quoted title there (review 2, issue 21), a Latin one as it is."""
    from docutils import nodes

    from gradcut.sphinxext.i18n import page_description

    para = nodes.paragraph(
        "",
        "",
        nodes.Text("还是使用它的操作：见\x00 "),  # 见\ :ref:`…`
        nodes.reference("", "", nodes.inline("", "哪些张量会被保存"), refuri="x.html"),
        nodes.Text("。见 "),
        nodes.reference("", "", nodes.literal("", "detach()"), refuri="y.html"),
        nodes.Text("。见 "),
        nodes.reference("", "", nodes.inline("", "detach_()：原地分离"), refuri="z.html"),
        nodes.Text("。"),
    )
    doc = nodes.document(None, None)
    doc += para
    assert page_description(doc) == "还是使用它的操作：见“哪些张量会被保存”。见 detach()。见“detach_()：原地分离”。"


@pytest.mark.parametrize(
    ("first", "described"),
    [
        ("这里涉及两个开关，它们的作用各不相同：", "这里涉及两个开关，它们的作用各不相同…"),
        ("There are two different things you may want:", "There are two different things you may want…"),
        ("修正方法是写成 `d：e`。", "修正方法是写成 `d：e`。"),
    ],
)
def test_a_description_does_not_end_in_a_colon(first, described):
    """A first paragraph that leads into a list or a session ends in a colon; the
    snippet shows nothing after it, so it ends as a cut one does (Chinese review 17)."""
    from docutils import nodes

    from gradcut.sphinxext.i18n import page_description

    doc = nodes.document(None, None)
    doc += nodes.paragraph("", "", nodes.Text(first))
    assert page_description(doc) == described


def colon_chains(text: str) -> list[str]:
    """Chinese sentences with more than one full-width colon outside code and link
    targets (Chinese review 3, issue 16): the one colon left introduces what follows.
    A bold label (**来源**：) does not count; a legend ("A"：…；"B"：…) is allowed."""
    text = re.sub(r"`[^`]*`|\]\([^)]*\)", "", text)
    found = []
    for sentence in re.split(r"(?<=[。！？])", text):
        colons = sentence.count("：") - len(re.findall(r"\*\*：", sentence))
        legend = re.search(r"”：[^；]*；\s*“", sentence)
        if colons >= 2 and not legend:
            found.append(sentence.strip()[:60])
    return found


def test_the_colon_check_allows_a_label_and_a_legend():
    assert colon_chains("请在其中完成：在那里修改不会被记录，因而是允许的：")
    assert not colon_chains("**本站实测**：下面是报错信息：")
    assert not colon_chains("“正确”：梯度对；“无”：不需要梯度；“—”：报错。")
    assert not colon_chains("修正方法是写成 `d：e`：")


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.relative_to(CATALOGS).as_posix())
def test_one_colon_per_sentence(path):
    problems = [
        f"line {m.lineno}: {chain!r}"
        for m in messages(path)
        if m.string != m.id
        for chain in colon_chains(m.string)
    ]
    assert not problems, "\n".join(problems)
