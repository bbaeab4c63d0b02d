"""What a page's ``<head>`` says about it, once each: the viewport, and the link preview.

- ``<meta name="viewport">``: Sphinx's basic layout writes one, docutils' HTML writer
  adds its own to the page's meta tags, and pydata-sphinx-theme a third in its
  ``extrahead`` block. The basic layout's stays (it is outside any block); docutils' leaves
  the page's meta tags here, the theme's through the ``gradcut_drop_viewport`` template
  filter (``layout.html``).
- Link previews (OpenGraph, read by chat apps and social sites, and a Twitter card):
  sphinxext-opengraph writes the tags; this module gives it what it cannot know per
  language. Its addresses are absolute, under the language's folder of
  ``gradcut_site_url`` (the same as the canonical link); ``og:locale`` is the page's
  language, ``og:locale:alternate`` the others; ``og:description`` is the page's meta
  description (:func:`gradcut.sphinxext.i18n.page_description`), in its language. No
  image: nothing for a preview to fetch but the page itself.
"""

import re

from gradcut.sphinxext.i18n import language_url, page_description

_VIEWPORT = re.compile(r"""[ \t]*<meta\s+name=["']viewport["'][^>]*>[ \t]*\n?""")
# OpenGraph names a language by its locale, language_TERRITORY.
OG_LOCALES = {"en": "en_US", "zh_CN": "zh_CN"}


def drop_viewport(html: str) -> str:
    """``html`` without its ``<meta name="viewport">`` tags."""
    return _VIEWPORT.sub("", html)


def og_locale(language: str) -> str:
    return OG_LOCALES.get(language, language)


def preview_tags(language: str, languages) -> list[str]:
    """The tags sphinxext-opengraph cannot write itself (``ogp_custom_meta_tags``)."""
    tags = [f'<meta property="og:locale" content="{og_locale(language)}" />']
    tags += [
        f'<meta property="og:locale:alternate" content="{og_locale(other)}" />'
        for other in languages
        if other != language
    ]
    # a summary card: the title and the description, no image
    tags.append('<meta name="twitter:card" content="summary" />')
    return tags


def _configure(app, config):
    if "sphinxext.opengraph" not in config.extensions:
        return
    if config.gradcut_site_url:
        config.ogp_site_url = language_url(config.gradcut_site_url, config.language)
    config.ogp_custom_meta_tags = preview_tags(config.language, config.gradcut_languages)


def _register_filter(app):
    if app.builder.format != "html":
        return
    app.builder.templates.environment.filters["gradcut_drop_viewport"] = drop_viewport


def _page_context(app, pagename, templatename, context, doctree):
    if app.builder.format != "html":
        return
    context["metatags"] = drop_viewport(context.get("metatags", ""))
    if doctree is not None:
        # sphinxext-opengraph (which runs after this) takes a page's og: fields as given
        description = page_description(doctree)
        if description:
            context["meta"] = {**(context.get("meta") or {}), "og:description": description}


def setup(app):
    # after gradcut.sphinxext.i18n's config-inited (the language's title and address)
    app.connect("config-inited", _configure, priority=600)
    app.connect("builder-inited", _register_filter)
    # before sphinxext-opengraph's (priority 500) reads the page's fields
    app.connect("html-page-context", _page_context, priority=400)
