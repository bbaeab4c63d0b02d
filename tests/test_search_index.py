"""The site's search index after an incremental build: what a full build puts in it stays
(tests/roots/test-search-index)."""

import json

import pytest


def index(app) -> dict:
    text = (app.outdir / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


@pytest.mark.sphinx("html", testroot="search-index", freshenv=True)
def test_glossary_entries_stay_when_another_page_is_rebuilt(make_app, app_params, app):
    app.build()
    full = index(app)
    assert {"leaf tensor", "view"} <= set(full["indexentries"]), full["indexentries"]
    page = app.srcdir / "index.rst"
    page.write_text(page.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
    args, kwargs = app_params
    again = make_app(*args, **{**kwargs, "freshenv": False})
    again.build()
    assert again.env.all_docs and "index" not in again.builder.get_outdated_docs()
    assert index(again)["indexentries"] == full["indexentries"]
