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
    r"\{[\w:+-]+\}`[^`]*`|:[\w:+-]+:`[^`]*`|``[^`]+``|`[^`]+`|https?://\S+|<[^<>\s]+>"
)
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
            if m.string == m.id:
                continue  # a string of code or names, kept as is
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
    """A msgstr equal to its msgid is allowed only where nothing is prose."""
    problems = []
    for path in catalogs():
        for m in messages(path):
            if m.string == m.id and re.search(r"[A-Za-z]{3,}", prose(m.id)):
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
