"""The torch version and build date that verified each page, shown in its footer."""

import datetime
import importlib.metadata
import os


def build_date() -> str:
    """The build's date, honouring ``SOURCE_DATE_EPOCH`` for reproducible builds."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (
        datetime.datetime.fromtimestamp(int(epoch), tz=datetime.UTC)
        if epoch
        else datetime.datetime.now(tz=datetime.UTC)
    )
    return when.date().isoformat()


def _page_context(app, pagename, templatename, context, doctree):
    # Set per page rather than in html_context: a config value that changes every day
    # would make Sphinx rewrite every page of an otherwise unchanged site.
    context["gradcut_torch_version"] = importlib.metadata.version("torch")
    context["gradcut_build_date"] = build_date()


def setup(app):
    app.connect("html-page-context", _page_context)
