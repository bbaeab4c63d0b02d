"""A 404 page in each language that works at whatever address it is served for.

A web server answers a missing address such as ``/en/howto/old-name.html`` or
``/zh_CN/a/b/c`` with the 404 page's file, so the page cannot rely on relative links the
way the other pages do. ``<lang>/404.html`` therefore starts its ``<head>`` with a
``<base>`` pointing at its own language folder:

- written into the page: the path of ``gradcut_site_url`` (``/`` when unset) plus the
  language, right when the site is served from there;
- corrected by a line of script when the address shows where the site really lives
  (the part before ``/en/`` or ``/zh_CN/``), so the page also works under another
  prefix and from ``file://``; same-page links (``#main-content``) are kept on the page.

The page's words come from the site's template catalog (``sphinx.po``), like the rest of
the theme's text. The root ``404.html`` that static hosts serve for any missing address
is written by :mod:`gradcut.tools.build`.
"""

import urllib.parse

PAGENAME = "404"


def base_path(site_url: str, language: str) -> str:
    prefix = urllib.parse.urlsplit(site_url).path if site_url else "/"
    return "/" + "/".join(p for p in (*prefix.split("/"), language) if p) + "/"


def _collect(app):
    if app.builder.format != "html" or app.builder.name == "singlehtml":
        return []
    context = {
        "title": app.translator.gettext("Page not found"),
        "body": "",
        "gradcut_404_base": base_path(app.config.gradcut_site_url, app.config.language),
        "gradcut_404_folder": app.config.language,
        "gradcut_404_languages": list(app.config.gradcut_languages),
    }
    return [(PAGENAME, context, "gradcut-404.html")]


def setup(app):
    app.connect("html-collect-pages", _collect)
