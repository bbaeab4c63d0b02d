"""Two languages from one source: titles, twins, and the translation gate.

English is the source language. Every other language comes from one gettext catalog
per page under ``locale/<lang>/LC_MESSAGES/<docname>.po`` (``gettext_compact = False``)
plus ``sphinx.po`` for the strings of the site's templates. A build in another language
fails, naming the file and line, when

- a catalog is malformed, or holds a fuzzy or untranslated entry;
- a page has no catalog, or a catalog has no page (stale);
- a string of a page has no translation in its catalog (the English changed since the
  catalogs were last refreshed with ``make po``).

A fuzzy entry is one whose English changed after it was translated: ``make po`` marks it
so and keeps the English it was translated from (``#| msgid``). The build and ``make po``
show the old English, the new English and the current translation together, and say
what clears it: review the translation, then take ``fuzzy`` out of the entry's ``#,``
line.
"""

import difflib
import functools
import html
import re
from pathlib import Path

from babel.messages.pofile import PoFileError
from docutils import nodes
from sphinx import addnodes
from sphinx.locale import _
from sphinx.transforms import SphinxTransform
from sphinx.util import docname_join, logging
from sphinx.util.nodes import clean_astext, extract_messages

from gradcut.sphinxext.gallery import _gallery_dirs
from gradcut.sphinxext.pofile import read_catalog

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
    return _catalog_dir(app.srcdir, app.config) / f"{docname}.po"


def _catalog_dir(srcdir, config) -> Path:
    return _locale_dir(srcdir, config) / config.language / "LC_MESSAGES"


def _locale_dir(srcdir, config) -> Path:
    return Path(srcdir, config.locale_dirs[0]).resolve()


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
            yield lineno, fuzzy_problem(message)
        elif not _translated(message.string):
            yield lineno, f"untranslated entry: {_short(message.id)}: write its translation in the msgstr below it"


FUZZY = (
    "fuzzy entry: the English changed since it was translated. Review the translation "
    "against the new English, then take `fuzzy` out of the entry's `#,` line (the whole "
    "line if nothing else is on it) and delete its `#|` lines"
)


def fuzzy_problem(message) -> str:
    """What a translator needs to clear a fuzzy entry: the English it was translated
    from (when the catalog kept it), the English now, the translation now."""
    rows = []
    if message.previous_id:
        rows.append(("was", _full(message.previous_id)))
    rows.append(("now", _full(message.id)))
    if message.previous_id:
        rows.append(("changed", changed_words(_text(message.previous_id), _text(message.id))))
    rows.append(("translation", _full(message.string)))
    return FUZZY + ":" + "".join(f"\n    {label:>11}: {text}" for label, text in rows)


def changed_words(old: str, new: str, context: int = 3) -> str:
    """Where two versions of a string differ, word by word, with a few words around
    each change -- what a long paragraph hides: ``… get a {+private+} copy of …``.

    >>> changed_words("To get a copy of a tensor", "To get a private copy of a tensor")
    'To get a {+private+} copy of a …'
    """
    a, b = old.split(), new.split()
    groups = list(difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context))
    words = []
    for group in groups:
        if group[0][1] > 0:  # words left out before this group
            words.append("…")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                words.extend(a[i1:i2])
                continue
            if i2 > i1:
                words.append("[-" + " ".join(a[i1:i2]) + "-]")
            if j2 > j1:
                words.append("{+" + " ".join(b[j1:j2]) + "+}")
    if groups and groups[-1][-1][2] < len(a):
        words.append("…")
    # "…" twice in a row: the words between two groups
    text = " ".join(w for i, w in enumerate(words) if not (w == "…" and i and words[i - 1] == "…"))
    return text or "(only the spacing)"


def _text(text) -> str:
    if isinstance(text, tuple | list):
        text = text[0]
    return " ".join(str(text or "").split())


def _full(text) -> str:
    if isinstance(text, tuple | list):
        text = text[0]
    return repr(" ".join(str(text or "").split()))


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
    catalog_dir = _catalog_dir(app.srcdir, app.config)
    pages = set(env.found_docs)
    catalogs = {
        p.relative_to(catalog_dir).with_suffix("").as_posix(): p
        for p in sorted(catalog_dir.rglob("*.po"))
    }
    for docname in sorted(pages - set(catalogs)):
        logger.warning(
            "page has no catalog %s (run `make po`)",
            _rel(app.srcdir, app.config, catalog_dir / f"{docname}.po"),
            location=docname,
            type="gradcut",
            subtype="i18n",
        )
    for name in sorted(set(catalogs) - pages - NON_PAGE_CATALOGS):
        logger.warning(
            "stale catalog: no page %r in the sources; delete it or run `make po`",
            name,
            location=f"{_rel(app.srcdir, app.config, catalogs[name])}:1",
            type="gradcut",
            subtype="i18n",
        )
    for path in catalogs.values():
        for lineno, problem in catalog_problems(path):
            logger.warning(
                "%s",
                problem,
                location=f"{_rel(app.srcdir, app.config, path)}:{lineno}",
                type="gradcut",
                subtype="i18n",
            )


def _rel(srcdir, config, path: Path) -> str:
    """A catalog's path as an author finds it: from the folder that holds ``locale/``."""
    try:
        return str(Path(path).resolve().relative_to(_locale_dir(srcdir, config).parent))
    except ValueError:
        return str(path)


def _entries_to_do(path: Path) -> frozenset[str]:
    """The ids of a catalog's fuzzy and untranslated entries, which the catalog check
    reports at their line (none when the catalog cannot be read: the check says why)."""
    try:
        stat = path.stat()
    except OSError:
        return frozenset()
    return _read_entries_to_do(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _read_entries_to_do(path: Path, mtime_ns: int, size: int) -> frozenset[str]:
    try:
        catalog = read_catalog(path)
    except (OSError, UnicodeDecodeError, ValueError, PoFileError):
        return frozenset()
    return frozenset(
        m.id for m in catalog
        if isinstance(m.id, str) and m.id and (m.fuzzy or not _translated(m.string))
    )  # fmt: skip


class UntranslatedStrings(SphinxTransform):
    """Fail on a page string that its catalog does not translate.

    Runs after Sphinx's ``Locale`` transform (priority 20), which marks each translatable
    node ``translated`` or not. Only strings that the catalog lacks are reported here
    (the English changed since ``make po``): a page with no catalog at all, and an
    entry that is fuzzy or untranslated, are reported once by the catalog check, at the
    catalog's line and with what to do there.
    """

    default_priority = 26

    def apply(self, **kwargs):
        if self.config.language == SOURCE_LANGUAGE:
            return
        from sphinx.builders.gettext import MessageCatalogBuilder

        if issubclass(self.env._builder_cls, MessageCatalogBuilder):
            return
        docname = self.env.current_document.docname
        catalog = _catalog_dir(self.env.srcdir, self.config) / f"{docname}.po"
        if not catalog.is_file():
            return
        to_do = _entries_to_do(catalog)
        for node, msg in extract_messages(self.document):
            if node.get("translated", False) or not _needs_translation(msg) or msg in to_do:
                continue
            logger.warning(
                "untranslated string %s (its catalog is %s; run `make po`, then translate it there)",
                _short(msg),
                _rel(self.env.srcdir, self.config, catalog),
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
        text = _tight_quotes(" ".join(_plain_text(para).split()))
        if text:
            if len(text) > limit:
                return _cut(text, limit - 1) + "…"
            # a paragraph that leads into a list or a session ends in a colon, which a
            # snippet shows with nothing after it: it goes on, as a cut one does
            return re.sub(r"\s*[:：]$", "…", text)
    return ""


def _tight_quotes(text: str) -> str:
    """No space between Chinese and the quotes a link's title gets: 见 “detach_()：原地
    分离” (the space kept the link's Latin text apart from the Chinese) reads 见“…”."""
    text = re.sub(r"(?<=[\u4e00-\u9fff，。；：、（]) “", "“", text)
    return re.sub(r"” (?=[\u4e00-\u9fff，。；：、）])", "”", text)


def _plain_text(para) -> str:
    """A paragraph as plain text. A link whose text has Chinese in it keeps a mark of
    what it names once the link is gone: quotes (见“哪些张量会被保存”, 见“detach_()：原地
    分离”), as Chinese prose quotes a title; a Latin or code link text reads as it is."""
    def text(node) -> str:
        if isinstance(node, nodes.Text):
            return node.astext()  # reST's escaped spaces (见\ :ref:) show nothing
        inner = "".join(text(child) for child in node.children)
        if isinstance(node, nodes.reference) and re.search(r"[\u4e00-\u9fff]", inner):
            return f"“{inner.strip()}”"
        return inner

    return text(para)


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


_TRANSLATIONS_JS = re.compile(r"^(?P<head>\s*Documentation\.addTranslations\()(?P<catalog>.*)(?P<tail>\);\s*)$", re.S)


def _site_words_in_translations_js(app, exception):
    """Sphinx's scripts (the search's results, the link that clears its highlights) take
    their words from ``translations.js``, Sphinx's own catalog; the site's catalog
    (``sphinx.po``, templates/gradcut-interface-strings.html) words some of them better,
    and its words replace Sphinx's there too, as they do in the templates."""
    if exception or app.builder.format != "html" or (app.config.language or SOURCE_LANGUAGE) == SOURCE_LANGUAGE:
        return
    import json

    path = Path(app.outdir, "_static", "translations.js")
    po = Path(app.srcdir, app.config.locale_dirs[0], app.config.language, "LC_MESSAGES", "sphinx.po")
    if not path.is_file() or not po.is_file():
        return
    match = _TRANSLATIONS_JS.match(path.read_text(encoding="utf-8"))
    if match is None:
        logger.warning("translations.js is no longer Documentation.addTranslations({...})", type="gradcut", subtype="i18n")
        return
    catalog = json.loads(match["catalog"])
    ours = {m.id: m.string for m in read_catalog(po) if m.id and m.string and not m.fuzzy}
    words = {key: ours[key] for key in catalog.get("messages", {}) if key in ours}
    if all(catalog["messages"][key] == value for key, value in words.items()):
        return
    catalog["messages"].update(words)
    path.write_text(
        match["head"] + json.dumps(catalog, ensure_ascii=False, indent=4, sort_keys=True) + match["tail"], encoding="utf-8"
    )


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
    holds its target, ``/howto/freeze-vs-detach``). A link to a page or a section whose
    text is Chinese keeps a mark of what it names, as in the meta description
    (:func:`_plain_text`): quotes, so that a title such as 如何在……中阻断梯度 does not run
    into the words after it."""
    node = node.deepcopy()
    for ref in list(node.findall(addnodes.pending_xref)):
        if ref.get("refdomain") != "std" or ref.get("reftype") not in ("doc", "ref"):
            continue
        title = None
        if ref.get("reftype") == "doc":
            target = docname_join(ref.get("refdoc", ""), ref["reftarget"])
            if target in env.titles:
                title = clean_astext(env.titles[target])
        else:
            label = env.domains.standard_domain.labels.get(ref["reftarget"])
            title = label[2] if label else None
        text = ref.astext().strip() if ref.get("refexplicit") else title and title.strip()
        if not text:
            continue
        # a title is quoted, also as a sentence carries it without its question mark; an
        # explicit text that is no title (见此处) reads as it is
        named = text.rstrip("？?") == (title or "").strip().rstrip("？?")
        ref.replace_self(nodes.Text(f"“{text}”" if named and re.search(r"[\u4e00-\u9fff]", text) else text))
    return _tight_quotes(node.astext())


def _replace_raw(node, pattern, text):
    if not text:
        return
    new = pattern.sub(lambda m: m[1] + html.escape(text, quote=True) + m[3], node.astext(), count=1)
    node.replace_self(nodes.raw("", new, format=node.get("format", "html")))


def setup(app):
    app.connect("doctree-resolved", _translate_gallery_cards)
    app.connect("build-finished", _fix_copybutton)
    app.connect("build-finished", _site_words_in_translations_js)
    app.add_config_value("gradcut_titles", {}, "env", types=[dict])
    app.add_config_value("gradcut_languages", {}, "env", types=[dict])
    app.add_config_value("gradcut_site_url", "", "html", types=[str])
    app.connect("config-inited", _configure)
    app.connect("env-before-read-docs", _check_catalogs)
    app.add_transform(UntranslatedStrings)
    app.connect("html-page-context", _page_context)
