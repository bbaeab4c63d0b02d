"""The site's search index after an incremental build: what a full build puts in it stays
(tests/roots/test-search-index). And the word lists the search reads
(src/gradcut/sphinxext/search_words.toml) are checked when the site is built."""

import json

import pytest
from sphinx.errors import ExtensionError

from gradcut.sphinxext import search


def index(app) -> dict:
    text = (app.outdir / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def sections(frozen: dict) -> dict:
    """Each section's names, those written as inline code, and the code it writes inline:
    {(page, anchor): (names, inline, code)}."""
    names = frozen["gradcut_sections"]["names"]
    code = frozen["gradcut_sections"]["code"]
    return {
        (frozen["docnames"][doc], anchor): (
            {names[i] for i in found},
            {names[i] for i in inline},
            {code[i] for i in written},
        )
        for doc, anchor, found, inline, written in frozen["gradcut_sections"]["sections"]
    }


@pytest.mark.sphinx("html", testroot="search-index", freshenv=True)
def test_glossary_entries_stay_when_another_page_is_rebuilt(make_app, app_params, app):
    app.build()
    full = index(app)
    assert {"leaf tensor", "view"} <= set(full["indexentries"]), full["indexentries"]
    # a section's names: its code's (not a comment's, not what Python printed), those
    # its prose writes as code apart; a negated phrase of the word lists, by its name
    found, inline, code = sections(full)["glossary", "cutting"]
    assert {"detach", "clone", "data", "detach_"} <= found and "comment" not in found, found
    assert {"detach", "clone", "data"} <= inline and "detach_" not in inline, inline
    # the code written inline as a query types it; not a bare name, a keyword argument
    # alone or prose quoted as code (the index holds their words)
    assert code == {"x[:,0]=f(x[:,0])", "y.detach()", "y.clone()"}, code
    glossary = full["docnames"].index("glossary")
    assert full["terms"]["not error"] in (glossary, [glossary]), full["terms"].get("not error")
    page = app.srcdir / "index.rst"
    page.write_text(page.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
    args, kwargs = app_params
    again = make_app(*args, **{**kwargs, "freshenv": False})
    again.build()
    assert again.env.all_docs and "index" not in again.builder.get_outdated_docs()
    rebuilt = index(again)
    assert rebuilt["indexentries"] == full["indexentries"]
    assert sections(rebuilt) == sections(full)
    assert rebuilt["terms"]["not error"] == full["terms"]["not error"]


def test_the_word_lists_are_checked(tmp_path):
    words = search.search_words()
    assert "区别" in words["comparison"]["zh"]
    assert any({"拷贝", "复制", "copy"} <= set(group) for group in words["synonyms"])
    bad = tmp_path / "words.toml"
    good = search.WORDS.read_text(encoding="utf-8")
    copy_is_a_function_word = good.replace('en = [\n  "how",', 'en = [\n  "copy", "how",', 1)
    bad.write_text(copy_is_a_function_word, encoding="utf-8")
    with pytest.raises(ExtensionError, match=r"function words that are synonyms too: \['copy'\]"):
        search.search_words(bad)
    bad.write_text(good + '\n[extra]\nen = "x"\n', encoding="utf-8")
    search.search_words(bad)  # another table is no list the search reads
    bad.write_text(good.replace('["gpu", "cuda", "显卡"]', '["gpu"]'), encoding="utf-8")
    with pytest.raises(ExtensionError, match="fewer than two words"):
        search.search_words(bad)
