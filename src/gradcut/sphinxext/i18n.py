"""Two languages from one source: titles, twins, and the translation gate.

English is the source language. Every other language comes from one gettext catalog
per page under ``locale/<lang>/LC_MESSAGES/<docname>.po`` (``gettext_compact = False``)
plus ``sphinx.po`` for the strings of the site's templates. A build in another language
fails, naming the file and line, when

- a catalog is malformed, or holds a fuzzy or untranslated entry;
- a page has no catalog, or a catalog has no page (stale);
- a string of a page has no translation in its catalog (the English changed since the
  catalogs were last refreshed with ``make po``).
"""

import html
import re
from pathlib import Path

from babel.messages.pofile import PoFileError, read_po
from docutils import nodes
from sphinx import addnodes
from sphinx.locale import _
from sphinx.transforms import SphinxTransform
from sphinx.util import docname_join, logging
from sphinx.util.nodes import clean_astext, extract_messages

from gradcut.sphinxext.gallery import _gallery_dirs

logger = logging.getLogger(__name__)

SOURCE_LANGUAGE = "en"
# Catalogs that belong to no page: the strings of the site's own templates.
NON_PAGE_CATALOGS = {"sphinx"}


def hreflang(language: str) -> str:
    """``zh_CN`` -> ``zh-CN``: the form HTML's ``lang`` and ``hreflang`` take."""
    return language.replace("_", "-")


def language_url(site_url: str, language: str) -> str:
    """Where the pages of a language are published: ``<site_url>/<language>/``."""
    return f"{site_url.rstrip('/')}/{language}/"


def _configure(app, config):
    titles = config.gradcut_titles
    if config.language not in config.gradcut_languages:
        logger.warning(
            "language %r is not one of the site's languages %s",
            config.language,
            sorted(config.gradcut_languages),
            type="gradcut",
        )
        return
    config.project = config.html_title = titles[config.language]
    if config.gradcut_site_url:
        config.html_baseurl = language_url(config.gradcut_site_url, config.language)


def page_catalog(app, docname: str) -> Path:
    return _catalog_dir(app) / f"{docname}.po"


def _catalog_dir(app) -> Path:
    locale_dir = Path(app.srcdir, app.config.locale_dirs[0]).resolve()
    return locale_dir / app.config.language / "LC_MESSAGES"


def read_catalog(path: Path):
    """Parse a ``.po`` file strictly, or raise ``PoFileError`` naming its line."""
    with path.open("rb") as fh:
        return read_po(fh, abort_invalid=True)


def catalog_problems(path: Path):
    """Yield ``(lineno, problem)`` for each fuzzy or untranslated entry of a catalog."""
    try:
        catalog = read_catalog(path)
    except PoFileError as err:
        yield getattr(err, "lineno", 0), f"malformed catalog: {err}"
        return
    except (OSError, UnicodeDecodeError, ValueError) as err:
        yield 0, f"unreadable catalog: {err}"
        return
    for message in catalog:
        if not message.id:
            continue  # the header
        lineno = message.lineno or 0
        if message.fuzzy:
            yield lineno, f"fuzzy entry: {_short(message.id)}"
        elif not _translated(message.string):
            yield lineno, f"untranslated entry: {_short(message.id)}"


def _translated(string) -> bool:
    if isinstance(string, tuple | list):
        return all(s.strip() for s in string)
    return bool(string and string.strip())


def _short(text, width: int = 70) -> str:
    if isinstance(text, tuple | list):
        text = text[0]
    text = " ".join(str(text).split())
    return repr(text if len(text) <= width else text[: width - 1] + "…")


def _check_catalogs(app, env, docnames):
    """Every page has a sound catalog, and every catalog a page."""
    if app.config.language == SOURCE_LANGUAGE or app.builder.format != "html":
        return
    catalog_dir = _catalog_dir(app)
    pages = set(env.found_docs)
    catalogs = {
        p.relative_to(catalog_dir).with_suffix("").as_posix(): p
        for p in sorted(catalog_dir.rglob("*.po"))
    }
    for docname in sorted(pages - set(catalogs)):
        logger.warning(
            "page has no catalog %s (run `make po`)",
            _rel(app, catalog_dir / f"{docname}.po"),
            location=docname,
            type="gradcut",
            subtype="i18n",
        )
    for name in sorted(set(catalogs) - pages - NON_PAGE_CATALOGS):
        logger.warning(
            "stale catalog: no page %r in the sources; delete it or run `make po`",
            name,
            location=f"{_rel(app, catalogs[name])}:1",
            type="gradcut",
            subtype="i18n",
        )
    for path in catalogs.values():
        for lineno, problem in catalog_problems(path):
            logger.warning(
                problem,
                location=f"{_rel(app, path)}:{lineno}",
                type="gradcut",
                subtype="i18n",
            )


def _rel(app, path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path(app.confdir).resolve()))
    except ValueError:
        return str(path)


class UntranslatedStrings(SphinxTransform):
    """Fail on a page string that its catalog does not translate.

    Runs after Sphinx's ``Locale`` transform (priority 20), which marks each translatable
    node ``translated`` or not.
    """

    default_priority = 26

    def apply(self, **kwargs):
        if self.config.language == SOURCE_LANGUAGE:
            return
        from sphinx.builders.gettext import MessageCatalogBuilder

        if issubclass(self.env._builder_cls, MessageCatalogBuilder):
            return
        docname = self.env.current_document.docname
        for node, msg in extract_messages(self.document):
            if node.get("translated", False) or not _needs_translation(msg):
                continue
            logger.warning(
                "untranslated string %s (its catalog is %s; run `make po`)",
                _short(msg),
                _rel(self.app, page_catalog(self.app, docname)),
                location=node,
                type="gradcut",
                subtype="i18n",
            )


def _needs_translation(msg: str) -> bool:
    # A string of nothing but markup and code (``x.detach()``) reads the same in every
    # language; Sphinx leaves it alone when the catalog repeats it, and so do we.
    return any(ch.isalpha() for ch in msg)


def _page_context(app, pagename, templatename, context, doctree):
    # The theme takes the search field's words from a theme option, which no catalog
    # translates; the site's catalog does (templates/gradcut-interface-strings.html).
    context["theme_search_bar_text"] = _("Search the docs …")
    languages = app.config.gradcut_languages
    current = app.config.language
    suffix = app.builder.out_suffix
    up = "../" * (pagename.count("/") + 1)
    twins = []
    alternates = []
    for language, label in languages.items():
        if language != current:
            twins.append(
                {
                    "url": f"{up}{language}/{pagename}{suffix}",
                    "hreflang": hreflang(language),
                    "label": label,
                }
            )
        if app.config.gradcut_site_url:
            base = language_url(app.config.gradcut_site_url, language)
        else:
            base = f"{up}{language}/"
        alternates.append(
            {"url": f"{base}{pagename}{suffix}", "hreflang": hreflang(language)}
        )
    context["gradcut_twins"] = twins
    context["gradcut_alternates"] = alternates
    context["gradcut_description"] = page_description(doctree)


def page_description(doctree, limit: int = 160) -> str:
    """The page's first paragraph, in the page's language, as its meta description.

    Asides do not describe a page: a paragraph in an admonition (sphinx-gallery's "Go to
    the end to download the full example code" note opens every example) is passed over.
    """
    if doctree is None:
        return ""
    for para in doctree.findall(nodes.paragraph):
        if _in_admonition(para):
            continue
        text = " ".join(para.astext().split())
        if text:
            return text if len(text) <= limit else _cut(text, limit - 1) + "…"
    return ""


def _cut(text: str, length: int) -> str:
    """The first ``length`` characters of ``text``, less a Latin word they would cut in
    two (``torch`` cut to ``tor``; Chinese has no words to cut) and an aside in brackets
    they would leave open (``内存不足（OOM，out…``)."""
    cut = text[:length]
    word = re.search(r"[\w.()\[\]]+$", cut, re.ASCII)
    if word and re.match(r"[\w.()\[\]]", text[length : length + 1], re.ASCII):
        if word.start() > length // 2:
            cut = cut[: word.start()]
    aside = cut.rfind("（")
    if aside > max(cut.rfind("）"), length // 2):
        cut = cut[:aside]
    return cut.rstrip()


def _in_admonition(node) -> bool:
    while node is not None:
        if isinstance(node, nodes.Admonition):
            return True
        node = node.parent
    return False


# sphinx-copybutton's own words, where they do not read as Chinese text should
# (half-width punctuation): (language, its words, ours).
COPYBUTTON_WORDS = [("zh_CN", "'复制成功!'", "'复制成功！'")]


def _fix_copybutton(app, exception):
    """Replace sphinx-copybutton's words in the built ``copybutton.js``; a release that
    words them differently is reported, so that the fix is not silently lost."""
    if exception or app.builder.format != "html":
        return
    words = [(old, new) for lang, old, new in COPYBUTTON_WORDS if lang == app.config.language]
    if not words:
        return
    path = Path(app.outdir, "_static", "copybutton.js")
    if not path.exists():
        return
    text = path.read_text(encoding="utf-8")
    for old, new in words:
        if old not in text and new not in text:
            logger.warning(
                "sphinx-copybutton no longer says %s: update COPYBUTTON_WORDS", old,
                type="gradcut", subtype="i18n",
            )
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")


_CARD_TOOLTIP = re.compile(r'(<div class="sphx-glr-thumbcontainer" tooltip=")([^"]*)(")')
_CARD_TITLE = re.compile(r'(<div class="sphx-glr-thumbnail-title">)(.*?)(</div>)', re.S)


def _translate_gallery_cards(app, doctree, docname):
    """Say the gallery's cards in the page's language.

    sphinx-gallery writes each card's title and tooltip into raw HTML, which no catalog
    translates. Each card links to its example (a ``:doc:`` reference, resolved by now):
    the card takes that page's translated title, and its first paragraph as the tooltip,
    as sphinx-gallery takes them from the English. In English too, the tooltip is the
    paragraph as the page reads: sphinx-gallery's shows a reference to another page as
    its address (``/howto/freeze-vs-detach``), not its title.
    """
    if app.builder.format != "html":
        return
    translated = app.config.language != SOURCE_LANGUAGE
    if "sphinx_gallery_conf" not in app.config:
        return  # a site without sphinx-gallery
    galleries = {dst for _, _, dst in _gallery_dirs(app)}
    if docname.rpartition("/")[0] not in galleries or not docname.endswith("/index"):
        return
    env = app.env
    by_uri = {}
    for other in env.found_docs:
        if other.startswith(docname.rpartition("/")[0] + "/") and other != docname:
            by_uri[app.builder.get_relative_uri(docname, other)] = other
    pending = []  # raw nodes of the card being read: tooltip first, title last
    for node in list(doctree.findall(lambda n: isinstance(n, nodes.raw | nodes.reference))):
        if isinstance(node, nodes.raw) and 'class="sphx-glr-thumbcontainer"' in node.astext():
            pending = [node, None]
        elif isinstance(node, nodes.reference) and pending and pending[1] is None:
            pending[1] = by_uri.get(node.get("refuri", "").partition("#")[0])
        elif isinstance(node, nodes.raw) and "sphx-glr-thumbnail-title" in node.astext():
            if pending and pending[1]:
                tooltip_node, target = pending
                title = env.titles[target].astext()
                summary = _first_paragraph(env, env.get_doctree(target))
                _replace_raw(tooltip_node, _CARD_TOOLTIP, summary)
                if translated:
                    _replace_raw(node, _CARD_TITLE, title)
            pending = []


def _first_paragraph(env, doctree) -> str:
    section = doctree.next_node(nodes.section)
    for child in section.children if section else ():
        if isinstance(child, nodes.paragraph):
            return " ".join(_reader_text(env, child).split())
    return ""


def _reader_text(env, node) -> str:
    """The text of ``node`` as the page shows it: a reference to a page or a section
    without a title of its own reads as that title (the doctree of a page as read still
    holds its target, ``/howto/freeze-vs-detach``)."""
    node = node.deepcopy()
    for ref in list(node.findall(addnodes.pending_xref)):
        if ref.get("refexplicit") or ref.get("refdomain") != "std":
            continue
        title = None
        if ref.get("reftype") == "doc":
            target = docname_join(ref.get("refdoc", ""), ref["reftarget"])
            if target in env.titles:
                title = clean_astext(env.titles[target])
        elif ref.get("reftype") == "ref":
            label = env.domains.standard_domain.labels.get(ref["reftarget"])
            title = label[2] if label else None
        if title:
            ref.replace_self(nodes.Text(title))
    return node.astext()


def _replace_raw(node, pattern, text):
    if not text:
        return
    new = pattern.sub(lambda m: m[1] + html.escape(text, quote=True) + m[3], node.astext(), count=1)
    node.replace_self(nodes.raw("", new, format=node.get("format", "html")))


def setup(app):
    app.connect("doctree-resolved", _translate_gallery_cards)
    app.connect("build-finished", _fix_copybutton)
    app.add_config_value("gradcut_titles", {}, "env", types=[dict])
    app.add_config_value("gradcut_languages", {}, "env", types=[dict])
    app.add_config_value("gradcut_site_url", "", "html", types=[str])
    app.connect("config-inited", _configure)
    app.connect("env-before-read-docs", _check_catalogs)
    app.add_transform(UntranslatedStrings)
    app.connect("html-page-context", _page_context)
