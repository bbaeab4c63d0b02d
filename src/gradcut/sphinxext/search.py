"""Chinese full-text search that works in the browser.

Sphinx 9.0's Chinese search has three holes, closed here:

1. Its ``language_data.js`` ends with ``window.Stemmer = ChineseStemmer``, a name nothing
   defines, so the search page throws before it searches (fixed upstream in Sphinx 9.1.1).
   Here the stemmer is the English one the indexer uses for Latin words.
2. Without jieba the index silently holds no Chinese word at all. jieba is a requirement
   of the site and :func:`check_jieba` fails the build without it; the site's own terms
   (``zh_userdict.txt``) are added to jieba's dictionary so that 版本计数器 is one word.
3. The browser splits a query at spaces only, so 原地操作 typed as one run of characters
   is looked up as a single term. The splitter here cuts each run of Han characters into
   the longest terms that the index holds (forward maximum matching against the index
   itself), so a query typed without spaces finds what the indexer segmented.

And in both languages, search ranks first the page that answers what a reader typed:
``search_scorer.js`` (Sphinx's ``html_search_scorer``) replaces Sphinx's ranking, which
requires every word of the query and scores a page by its single best word.
"""

import hashlib
import marshal
from pathlib import Path

import sphinx.search
from sphinx.errors import ExtensionError
from sphinx.search.zh import SearchChinese

from gradcut.sphinxext.kept import keep

USERDICT = Path(__file__).with_name("zh_userdict.txt")
SCORER = Path(__file__).with_name("search_scorer.js")
_MINIFIED = Path(sphinx.search.__file__).with_name("minified-js")

SPLITTER_JS = r"""
/* gradcut: segment runs of Han characters against the terms of the index. */
function gradcutSegmentHan(run) {
  const index = typeof Search !== "undefined" ? Search._index : null;
  if (!index) return [run];
  const has = (w) =>
    Object.prototype.hasOwnProperty.call(index.terms, w) ||
    Object.prototype.hasOwnProperty.call(index.titleterms, w);
  const out = [];
  let i = 0;
  while (i < run.length) {
    let j = run.length;
    while (j > i + 1 && !has(run.slice(i, j))) j--;
    // a single character that is no term of its own is dropped: the index never holds
    // one-character words, and a required term that matches nothing empties the results
    if (j > i + 1 || has(run[i])) out.push(run.slice(i, j));
    i = j;
  }
  return out.length ? out : [run];
}
var splitQuery = (query) => {
  const out = [];
  query
    .split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu)
    .filter((term) => term)
    .forEach((part) => {
      part.match(/\p{Script=Han}+|[^\p{Script=Han}]+/gu).forEach((run) => {
        if (/\p{Script=Han}/u.test(run)) out.push(...gradcutSegmentHan(run));
        else out.push(run);
      });
    });
  return out;
};
"""


class SearchSimplifiedChinese(SearchChinese):
    """Sphinx's Chinese search with a stemmer that exists and a segmenting splitter."""

    js_stemmer_rawcode = ""
    js_stemmer_code = "\n".join(
        (
            (_MINIFIED / "base-stemmer.js").read_text(encoding="utf-8"),
            (_MINIFIED / "english-stemmer.js").read_text(encoding="utf-8"),
            "var Stemmer = EnglishStemmer;",
        )
    )
    js_splitter_code = SPLITTER_JS

    def __init__(self, options):
        check_jieba()
        import logging

        import jieba

        jieba.setLogLevel(logging.WARNING)  # its progress lines are not build problems
        if _DICTIONARY_LOADED and "dict" not in options:
            options = {**options, "dict": ""}  # loaded already, by load_dictionary()
        super().__init__(options)
        jieba.load_userdict(str(USERDICT))


# Whether this process (or the one it was forked from) has loaded jieba's dictionary as
# Sphinx's Chinese search does (load_dictionary).
_DICTIONARY_LOADED = False


def load_dictionary(cache: Path | None = None) -> None:
    """Load jieba's dictionary, then load it again as a user dictionary, as Sphinx's
    Chinese search does when it starts (the second load weighs the words): once, ahead
    of the languages' builds (gradcut.tools.build forks them from this process). The search
    then skips its own second load, and cuts the text into the same words.

    ``cache``: a folder to keep the result in (the second load reads 350,000 words, a
    second and a half); kept per version of jieba and of its dictionary."""
    global _DICTIONARY_LOADED
    import jieba
    from sphinx.search.zh import JIEBA_DEFAULT_DICT

    default = Path(JIEBA_DEFAULT_DICT) if JIEBA_DEFAULT_DICT else None
    kept = None
    if cache is not None and default is not None and default.is_file():
        stat = default.stat()
        key = hashlib.sha256(
            f"{jieba.__version__} {jieba.__file__} {stat.st_size} {stat.st_mtime_ns}".encode()
        ).hexdigest()[:16]
        kept = cache / f"jieba-{key}.marshal"
    if kept is not None and kept.is_file():
        try:
            freq, total, tags = marshal.loads(kept.read_bytes())  # load(file): 4x slower
        except (OSError, EOFError, ValueError, TypeError):
            pass
        else:
            jieba.dt.FREQ, jieba.dt.total = freq, total
            jieba.dt.user_word_tag_tab.update(tags)
            jieba.dt.initialized = True
            _DICTIONARY_LOADED = True
            return
    jieba.initialize()
    if default is not None and default.is_file():
        jieba.load_userdict(str(default))
    _DICTIONARY_LOADED = True
    if kept is not None:
        keep(kept, marshal.dumps((jieba.dt.FREQ, jieba.dt.total, dict(jieba.dt.user_word_tag_tab))))


def check_jieba():
    try:
        import jieba  # noqa: F401
    except ImportError as err:
        raise ExtensionError(
            "jieba is not installed: Sphinx would index no Chinese word at all. "
            "Install the site's requirements (make html does)."
        ) from err


def _keep_index_entries(app):
    """Keep in the search index the entries of the pages an incremental build does not
    write again (a glossary's terms): Sphinx restores every other part of the index from
    the last build's ``searchindex.js``, but not these, so one edit of another page
    would drop them, and with them a term's page from the top of its results."""
    builder = app.builder
    load = getattr(builder, "load_indexer", None)
    if load is None:
        return

    def load_indexer(docnames):
        load(docnames)
        if builder.indexer is not None:
            restore_index_entries(builder, set(builder.env.all_docs) - set(docnames))

    builder.load_indexer = load_indexer


def restore_index_entries(builder, keep: set[str]) -> None:
    """Put back the index entries of the pages ``keep`` from the last ``searchindex.js``."""
    path = Path(builder.outdir) / builder.searchindex_filename
    try:
        with open(path, encoding="utf-8") as fh:
            frozen = builder.indexer_format.load(fh)
        docnames = frozen["docnames"]
        entries: dict[str, list[tuple[str, str, str]]] = {}
        for term, refs in frozen.get("indexentries", {}).items():
            for doc, target, main in refs:
                if docnames[doc] in keep:
                    entries.setdefault(docnames[doc], []).append((term, target, "main" if main else ""))
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return  # no usable index: Sphinx rebuilds it from the pages it writes
    for docname in sorted(entries):
        builder.indexer._index_entries.setdefault(docname, sorted(entries[docname]))


def _use_scorer(app, config):
    if not config.html_search_scorer:
        config.html_search_scorer = str(SCORER)


def setup(app):
    app.add_search_language(SearchSimplifiedChinese)
    app.connect("config-inited", _use_scorer)
    app.connect("builder-inited", _keep_index_entries)
