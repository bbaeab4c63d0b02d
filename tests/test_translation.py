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

# `code`, {role}`target`, :role:`target` (reST, in gallery pages), ``code``, URLs
CODE = re.compile(
    r"\{[\w:+-]+\}`[^`]*`|:[\w:+-]+:`[^`]*`|``[^`]+``|`[^`]+`|https?://[^\s)]+|<[^<>\s]+>"
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
    """The text without its code, references and addresses."""
    return CODE.sub(" ", text)


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
        run = ENGLISH_RUN.search(prose(m.string))
        if run:
            problems.append(f"line {m.lineno}: English left in the translation: {run.group(0)!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: p.relative_to(CATALOGS).as_posix())
def test_every_entry_translated(path):
    with path.open("rb") as fh:
        catalog = read_po(fh)
    todo = [m.lineno for m in catalog if m.id and (not m.string or m.fuzzy)]
    assert not todo, f"untranslated or fuzzy entries at lines {todo}"


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
REST_MARKUP = re.compile(r"``.+?``|:[\w:+-]+:`[^`]+`")
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


def example_problems(path: Path) -> list[str]:
    code, code_comments = example_code(path)
    tree = ast.parse(code)
    names = code_names(tree)
    problems = [
        f"line {line} of the download: prints {text!r}: {words}"
        for line, text in shown_strings(tree)
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
