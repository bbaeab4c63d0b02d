"""What a page's ``<head>`` says about it, once each.

``<meta name="viewport">``: Sphinx's basic layout writes one, docutils' HTML writer adds
its own to the page's meta tags, and pydata-sphinx-theme a third in its ``extrahead``
block. The basic layout's stays (it is outside any block); docutils' leaves the page's
meta tags here, the theme's through the ``gradcut_drop_viewport`` template filter
(``layout.html``).
"""

import re

_VIEWPORT = re.compile(r"""[ \t]*<meta\s+name=["']viewport["'][^>]*>[ \t]*\n?""")


def drop_viewport(html: str) -> str:
    """``html`` without its ``<meta name="viewport">`` tags."""
    return _VIEWPORT.sub("", html)


def _register_filter(app):
    if app.builder.format != "html":
        return
    app.builder.templates.environment.filters["gradcut_drop_viewport"] = drop_viewport


def _page_context(app, pagename, templatename, context, doctree):
    if app.builder.format != "html":
        return
    context["metatags"] = drop_viewport(context.get("metatags", ""))


def setup(app):
    app.connect("builder-inited", _register_filter)
    app.connect("html-page-context", _page_context)
