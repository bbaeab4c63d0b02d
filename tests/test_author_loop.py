"""An author's session, step by step: every message names the next step.

A contributor's first hour (issue 30), with the real entry points (`make html`, `make po`)
on the small site of tests/fixtures/minisite: add a page with a transcript, build,
`make po`, translate, build; break the transcript; edit an English sentence and clear
the fuzzy entry it leaves; add an example before its catalog exists; break one of its
asserts. At each step the output is what the author acts on: no traceback, no Sphinx
crash report, no warning about code the author cannot change, and each message says
what to do. The cases run in order on one process, as one session.
"""

import re

import pytest

from gradcut.sphinxext.pofile import read_catalog, write_catalog
from test_bad_input import new_minisite, run

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("author_loop")]

CATALOGS = "locale/zh_CN/LC_MESSAGES"
PAGE = """\
# Gradients

A tensor made with `requires_grad=True` is a leaf.

```pycon
>>> import torch
>>> torch.ones(2, requires_grad=True).is_leaf
True

```
"""
EXAMPLE = '''\
"""
Adding up
=========

It adds two numbers.
"""

# %%
# Add them.
total = 1 + 1
print(total)
'''
# Output no author can act on, or that reads as the build breaking down.
NOISE = ("Extension error", "please open an issue", "RemovedInSphinx", "DeprecationWarning",
         "MdParserConfig", "Running Sphinx", "Not Changed")  # fmt: skip


def make(site, *args):
    proc = run(["make", *args], site)
    out = proc.stdout + proc.stderr
    for noise in NOISE:
        assert noise not in out, f"{noise!r} in the output of make {' '.join(args)}:\n{out}"
    return proc.returncode, out


def no_traceback(out):
    assert "Traceback" not in out, out


def translate(site, catalog):
    """What a translator does: a translation for every entry left empty."""
    path = site / CATALOGS / catalog
    messages = read_catalog(path)
    for message in messages:
        if message.id and not message.string:
            message.string = f"{message.id} （译文）"
    write_catalog(path, messages)


def po_entries(out):
    return [line for line in out.splitlines() if re.match(rf"{CATALOGS}/\S+\.po:\d+: ", line)]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The small site, not built yet: the session's first build is the author's."""
    return new_minisite(tmp_path_factory.mktemp("author"))


def test_a_new_page_asks_for_its_catalog_and_builds_once_translated(site):
    (site / "docs" / "grad.md").write_text(PAGE)
    index = site / "docs" / "index.md"
    index.write_text(index.read_text().replace("examples/index\n", "examples/index\ngrad\n"))

    rc, out = make(site, "html")
    assert rc != 0
    no_traceback(out)
    # one message for the page, which says what to run (not one per string of the page)
    assert f"page has no catalog {CATALOGS}/grad.po (run `make po`)" in out, out
    assert out.count("grad.po") == 1, out

    rc, out = make(site, "po")
    assert rc == 0, out
    entries = po_entries(out)
    assert [e.split(": ", 1)[1] for e in entries] == [
        "untranslated entry: 'Gradients': write its translation in the msgstr below it",
        "untranslated entry: 'A tensor made with `requires_grad=True` is a leaf.': "
        "write its translation in the msgstr below it",
    ], out
    # what to act on, and nothing else
    assert out.splitlines() == [
        f"created {CATALOGS}/grad.po (a new page)", *entries, out.splitlines()[-1]
    ], out
    assert out.splitlines()[-1].startswith("zh_CN: 2 entries to translate. Translate each entry")

    translate(site, "grad.po")
    rc, out = make(site, "html")
    assert rc == 0, out
    assert "Built en, zh_CN" in out


def test_a_transcript_the_author_broke_says_so(site):
    page = site / "docs" / "grad.md"
    page.write_text(PAGE.replace("True\n", "False\n"))
    rc, out = make(site, "html", "LANGUAGES=en")
    assert rc != 0
    no_traceback(out)
    assert "1 claim you wrote or edited does not hold" in out, out
    assert "docs/grad.md:7: the page claims\n>>> torch.ones(2, requires_grad=True).is_leaf\n" in out
    assert "  expected:\n    False\n  got:\n    True\n" in out
    assert "if 'got' is right, paste it as the expected output" in out

    # the closing fence right under the output: the rule is named
    page.write_text(PAGE.replace("True\n\n```", "True\n```"))
    rc, out = make(site, "html", "LANGUAGES=en")
    assert rc != 0
    assert "  expected:\n    True\n    ```\n  got:\n    True\n" in out, out
    assert "Leave a blank line before the closing fence" in out

    page.write_text(PAGE)
    rc, out = make(site, "html", "LANGUAGES=en")
    assert rc == 0, out


def test_an_edited_sentence_leaves_a_fuzzy_entry_that_says_how_to_clear_it(site):
    page = site / "docs" / "grad.md"
    catalog = site / CATALOGS / "grad.po"
    old, new = "A tensor made with", "A tensor created with"
    page.write_text(PAGE.replace(old, new))

    rc, out = make(site, "html")
    assert rc != 0
    no_traceback(out)
    assert f"untranslated string '{new} `requires_grad=True` is a leaf.' (its catalog is {CATALOGS}/grad.po; " \
        "run `make po`, then translate it there)" in out, out

    rc, out = make(site, "po")
    assert rc == 0, out
    # the old English, the new English and the translation, side by side
    side_by_side = (
        "            was: 'A tensor made with `requires_grad=True` is a leaf.'\n"
        "            now: 'A tensor created with `requires_grad=True` is a leaf.'\n"
        "        changed: A tensor [-made-] {+created+} with `requires_grad=True` is …\n"
        "    translation: 'A tensor made with `requires_grad=True` is a leaf. （译文）'\n"
    )
    assert side_by_side in out, out
    assert "take `fuzzy` out of" in out
    text = catalog.read_text()
    assert '#, fuzzy\n#| msgid "A tensor made with `requires_grad=True` is a leaf."\n' in text, text

    rc, again = make(site, "po")  # nothing changed: the same list, the same catalog
    assert again == out and catalog.read_text() == text

    rc, out = make(site, "html")
    assert rc != 0
    assert f"{CATALOGS}/grad.po:" in out and "fuzzy entry: the English changed since it was translated" in out
    assert side_by_side.rstrip("\n") in out, out  # then Sphinx's " [gradcut.i18n]"
    assert "untranslated string" not in out, "make po cannot fix it: the build must not say to run it"

    # the translator reviews it and clears the flag, as told
    fixed = re.sub(r"#, fuzzy\n(#\| .*\n)+", "", text).replace(
        'msgstr "A tensor made with `requires_grad=True` is a leaf. （译文）"',
        'msgstr "A tensor created with `requires_grad=True` is a leaf. （译文）"',
    )
    assert fixed != text
    catalog.write_text(fixed)
    rc, out = make(site, "html")
    assert rc == 0, out


def test_a_new_example_before_its_catalog_exists_gets_a_message_not_a_crash(site):
    (site / "gallery" / "plot_02_adding.py").write_text(EXAMPLE)
    rc, out = make(site, "html")
    assert rc != 0
    no_traceback(out)
    assert "FileNotFoundError" not in out
    assert f"page has no catalog {CATALOGS}/examples/plot_02_adding.po (run `make po`)" in out, out

    rc, out = make(site, "po")
    assert rc == 0, out
    assert f"created {CATALOGS}/examples/plot_02_adding.po (a new page)" in out
    # sphinx-gallery's fixed sentences are filled; the example's own text is listed
    listed = [e.split("untranslated entry: ", 1)[1].split("': ")[0] + "'" for e in po_entries(out)]
    assert listed == ["'Adding up'", "'It adds two numbers.'", "'Add them.'"], out
    translate(site, "examples/plot_02_adding.po")
    rc, out = make(site, "html")
    assert rc == 0, out


def test_a_failing_assert_shows_its_values_and_english_fails_first(site):
    example = site / "gallery" / "plot_02_adding.py"
    example.write_text(EXAMPLE.replace("print(total)\n", "print(total)\nassert total == 3\n"))
    rc, out = make(site, "html")
    assert rc != 0
    assert "AssertionError: assert total == 3\n        total = 2\n" in out, out
    assert "build FAILED (en)" in out
    # the Chinese build, stopped when English failed, does not show as started
    assert "language=zh_CN" not in out, out
