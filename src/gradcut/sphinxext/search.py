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
requires every word of the query and scores a page by its single best word. What it knows
of the words readers type (function words, words that compare, negations, qualifiers,
synonyms, in both languages) is data, ``search_words.toml``, checked here and written
into ``language_data.js`` in front of the scorer; jieba cuts the pages at its Chinese
words too. The index gains, for each section, the names its code mentions
(``gradcut_sections``), so that a section naming every API of a query ranks above a page
that names them in different places; and the negated phrases of the lists that a page
says ("without any error"), which the index would otherwise hold as the words negated.
"""

import builtins
import functools
import hashlib
import io
import json
import keyword
import marshal
import re
import tomllib
from pathlib import Path

import sphinx.search
from docutils import nodes
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.search import IndexBuilder
from sphinx.search.zh import SearchChinese
from sphinx.util import docname_join

from gradcut.sphinxext.kept import keep

USERDICT = Path(__file__).with_name("zh_userdict.txt")
SCORER = Path(__file__).with_name("search_scorer.js")
WORDS = Path(__file__).with_name("search_words.toml")
_MINIFIED = Path(sphinx.search.__file__).with_name("minified-js")

SPLITTER_JS = r"""
/* gradcut: segment runs of Han characters against the terms of the index and the words
   of search_words.toml (GRADCUT_SEARCH_WORDS, written in front of the scorer). */
var gradcutLexicon = null;
function gradcutSegmentHan(run) {
  const index = typeof Search !== "undefined" ? Search._index : null;
  if (!index) return [run];
  if (!gradcutLexicon || gradcutLexicon.index !== index) {
    const words = typeof GRADCUT_SEARCH_WORDS !== "undefined" ? GRADCUT_SEARCH_WORDS : null;
    const han = (list) =>
      (list || []).flatMap((w) => w.match(/\p{Script=Han}+/gu) || []);
    const all = words
      ? [
          ...Object.values(words.function),
          ...Object.values(words.comparison),
          ...Object.values(words.negation),
          ...words.qualifiers,
          ...words.synonyms,
        ].flatMap(han)
      : [];
    gradcutLexicon = {
      index,
      words: new Set(all),
      function: new Set(han(words ? Object.values(words.function).flat() : [])),
    };
  }
  const lexicon = gradcutLexicon;
  const has = (w) =>
    lexicon.words.has(w) ||
    Object.prototype.hasOwnProperty.call(index.terms, w) ||
    Object.prototype.hasOwnProperty.call(index.titleterms, w);
  const longest = (i) => {
    let j = run.length;
    while (j > i + 1 && !has(run.slice(i, j))) j--;
    return j;
  };
  const out = [];
  let i = 0;
  while (i < run.length) {
    let j = longest(i);
    // an index term that starts with a function word and goes on with a word of its own
    // (是因为: 是, 因为) is cut after the function word: the rest is what the reader asks
    if (!lexicon.words.has(run.slice(i, j))) {
      for (let k = i + 1; k < j - 1; k++) {
        if (lexicon.function.has(run.slice(i, k)) && longest(k) - k >= 2) {
          j = k;
          break;
        }
      }
    }
    // an index term that is a word of the lists followed by a function word (分离出来:
    // 分离, 出来) is cut before the function word: the word of the lists is what the
    // reader asks about, the rest how they ask
    if (!lexicon.words.has(run.slice(i, j))) {
      for (let k = j - 1; k > i + 1; k--) {
        const head = run.slice(i, k);
        if (lexicon.words.has(head) && !lexicon.function.has(head) &&
            lexicon.function.has(run.slice(k, j))) {
          j = k;
          break;
        }
      }
    }
    // a single character that is no word of its own is dropped: the index never holds
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
        for word in jieba_words():
            jieba.add_word(word)


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


def search_words(path: Path = WORDS) -> dict:
    """The word lists of ``search_words.toml``, checked: each list holds non-empty
    strings, once each; a group has two words at least; a function word is nothing else
    (a word that never counts cannot also be a synonym, a qualifier, a comparison or a
    negation), and a qualifier no synonym or comparison. Raises ExtensionError naming the
    file and the word."""

    def fail(message):
        raise ExtensionError(f"{path.name}: {message}")

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        fail(str(err))

    def words(where, value):
        if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
            fail(f"{where} is not a list of strings")
        cleaned = [" ".join(w.lower().split()) for w in value]
        if not all(cleaned):
            fail(f"{where} holds an empty word")
        seen = set()
        for w in cleaned:
            if w in seen:
                fail(f"{where} holds {w!r} twice")
            seen.add(w)
        return cleaned

    out = {}
    for kind in ("function", "comparison", "negation"):
        table = data.get(kind)
        if not isinstance(table, dict) or set(table) != {"en", "zh"}:
            fail(f"[{kind}] must have the lists en and zh")
        out[kind] = {lang: words(f"{kind}.{lang}", table[lang]) for lang in ("en", "zh")}
    for kind in ("qualifiers", "synonyms"):
        groups = data.get(kind, {}).get("groups")
        if not isinstance(groups, list) or not groups:
            fail(f"[{kind}] must have groups, a list of lists")
        out[kind] = [words(f"{kind} group {i + 1}", g) for i, g in enumerate(groups)]
        for i, group in enumerate(out[kind]):
            if len(group) < 2:
                fail(f"{kind} group {i + 1} ({group}) has fewer than two words")
    function = {w for lang in out["function"].values() for w in lang}
    others = {
        "comparison": {w for lang in out["comparison"].values() for w in lang},
        "negation": {w for lang in out["negation"].values() for w in lang},
        "qualifiers": {w for group in out["qualifiers"] for w in group},
        "synonyms": {w for group in out["synonyms"] for w in group},
    }
    for kind, found in others.items():
        if both := sorted(function & found):
            fail(f"function words that are {kind} too: {both}")
    if both := sorted(others["qualifiers"] & (others["synonyms"] | others["comparison"])):
        fail(f"qualifiers that are synonyms or comparisons too: {both}")
    return out


# Two Han characters or more (the CJK blocks Chinese text uses).
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}")


def jieba_words(path: Path = WORDS) -> list[str]:
    """The Chinese words of the word lists that jieba cuts the pages at, as it does the
    site's own terms (zh_userdict.txt), so that the index holds what the lists name:
    every word of two characters or more, but the function words."""
    data = search_words(path)
    lists = [*data["comparison"].values(), *data["negation"].values()]
    lists += [*data["qualifiers"], *data["synonyms"]]
    return sorted({run for words in lists for w in words for run in _HAN.findall(w)})


# What section_names() and Negations find: bumped when they find other things.
SECTIONS_VERSION = 6


def index_version() -> int:
    """Sphinx's env_version of the extension: it changes with what the index is made of
    (the words jieba cuts at, what a section's names are), so that a change of either
    indexes every page again, not only the pages an incremental build writes."""
    key = hashlib.sha256(USERDICT.read_bytes())
    key.update("\n".join(jieba_words()).encode())
    key.update(str(SECTIONS_VERSION).encode())
    return int(key.hexdigest()[:8], 16)


def words_js(path: Path = WORDS) -> str:
    """The word lists as the scorer and the splitter read them: a global of
    language_data.js (the search page loads no other file, and works from file://)."""
    data = json.dumps(search_words(path), ensure_ascii=False, separators=(",", ":"))
    return f"/* gradcut: {path.name} */\nvar GRADCUT_SEARCH_WORDS = {data};\n"


# The code a section shows: its inline code and its code blocks.
_CODE = (nodes.literal, nodes.literal_block, nodes.doctest_block)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Of a Python session, the lines typed (not what Python printed: outputs, tracebacks).
_TYPED = re.compile(r"^(?:>>>|\.\.\.)[ \t]?(.*)$", re.MULTILINE)
_KEYWORDS = frozenset(keyword.kwlist)
# Names that every piece of Python code has: they name no API.
_PYTHON = frozenset(keyword.kwlist) | frozenset(dir(builtins))
# What in a line of code is no name: a comment, a string.
_NOT_CODE = re.compile(r"#.*$|'[^'\n]*'|\"[^\"\n]*\"", re.MULTILINE)


def code_names(text: str) -> list[str]:
    """The names ``text`` (code) mentions: in a Python session, those of the lines typed;
    not the words of its comments and strings."""
    typed = _TYPED.findall(text)
    code = _NOT_CODE.sub(" ", "\n".join(typed) if typed else text)
    return [n for n in _NAME.findall(code) if n not in _PYTHON]


# A word of prose: two words of it in a row, neither a keyword of Python, are prose
# quoted as code (a message, `does not require grad`), not code (`with torch.no_grad()`).
_WORD = re.compile(r"[A-Za-z]{2,}")
# A bare name, as code writes it alone: `detach()`, `.data`, `no_grad`.
_BARE = re.compile(r"\.?[a-z_][a-z0-9_]*(?:\(\))?")
# A keyword argument alone, `requires_grad=False`: a name and a value, words of the index.
_KWARG = re.compile(r"[a-z_][a-z0-9_]*=[a-z0-9_.]+")


def code_text(text: str) -> str | None:
    """Code as the search compares it with code typed in a query: lower case, without
    spaces but one between two words (`x[:, 0] = f(x[:, 0])`: ``x[:,0]=f(x[:,0])``;
    `with torch.no_grad():` ``with torch.no_grad():``). None for a bare name or a keyword
    argument alone, which the index holds as words already, and for prose quoted as code. search_scorer.js reads
    the code of a query the same way."""
    parts = text.split()
    if any(
        _WORD.fullmatch(one) and _WORD.fullmatch(two) and not ({one, two} & _KEYWORDS)
        for one, two in zip(parts, parts[1:])
    ):
        return None
    # a space between two words ("with torch"), none next to a sign ("x += 1": "x+=1")
    code = re.sub(r"(?<=[A-Za-z0-9_])\s+(?=[A-Za-z0-9_])", " ", text.strip()).lower()
    code = re.sub(r"(?<![A-Za-z0-9_])\s+|\s+(?![A-Za-z0-9_])", "", code)
    if not 3 <= len(code) <= 80 or not re.search("[a-z]", code):
        return None
    if _BARE.fullmatch(code) or _KWARG.fullmatch(code):
        return None
    return code


def section_names(
    doctree: nodes.document, lang
) -> list[tuple[str, list[str], list[str], list[str]]]:
    """For each section of a page: its anchor ("" for the page's first section, the one
    its title heads), the names its own code mentions (not its subsections' code), and
    those of them that its prose writes as inline code of one piece (`x.detach()`, the
    APIs it talks about), as the index holds them (stemmed), in order; and the code its
    prose, its tables and its heading write inline (:func:`code_text`), which a reader
    may type as it is (`t[0:2] += 1`). Sections without code are left out."""
    out = []
    first = True
    for section in doctree.findall(nodes.section):
        anchor = "" if first or not section["ids"] else section["ids"][0]
        first = False
        names = set()
        inline = set()
        written = set()
        stack = list(section.children)
        while stack:
            node = stack.pop()
            if isinstance(node, (nodes.section, nodes.comment)):
                continue
            if isinstance(node, _CODE):
                found = set(_terms(lang, code_names(node.astext())))
                names |= found
                # `x.detach()`, not a message quoted as code (`does not require grad`)
                if isinstance(node, nodes.literal) and not re.search(r"\s", node.astext().strip()):
                    inline |= found
                if isinstance(node, nodes.literal) and (code := code_text(node.astext())):
                    written.add(code)
            elif isinstance(node, nodes.Element):
                stack.extend(node.children)
        if names:
            out.append((anchor, sorted(names), sorted(inline), sorted(written)))
    return out


def _terms(lang, words):
    """The index's terms for ``words``, as IndexBuilder.feed makes them."""
    for word in words:
        if (term := _term(lang, word)) is not None:
            yield term


@functools.cache
def _term(lang, word: str) -> str | None:
    if word.lower() in lang.stopwords:
        return None
    stemmed = lang.stem(word).lower()
    if lang.word_filter(stemmed):
        return stemmed
    return word if lang.word_filter(word) else None


# Words between a negation and what it negates ("without any error", "没有任何报错").
_FILLERS_ZH = ("任何", "什么", "一点", "再")
_ENGLISH = re.compile(r"[A-Za-z0-9_]+")


class Negations:
    """The negated phrases of the word lists ("no error", "not safe", "不报错"), and where a
    page says them. The index holds no negation ("not" is a stop word, 不 one character),
    so a page that says "wrong without any error" would hold only "wrong" and "error";
    here it also holds the negated phrase, under one name for all its negations: "not"
    and the stems of the English words negated ("not error"), 不 and the Chinese word
    (不报错). search_scorer.js names a negated phrase of the lists the same way."""

    def __init__(self, lang, words: dict):
        self.lang = lang
        self.english = set(words["negation"]["en"])
        # longest first: 没有 before 没
        self.chinese = sorted(words["negation"]["zh"], key=len, reverse=True)
        self.phrases: set[str] = set()
        for group in [*words["synonyms"], *words["qualifiers"]]:
            for phrase in group:
                if (name := self.name(phrase)) is not None:
                    self.phrases.add(name)
        negated = sorted(
            {p[1:] for p in self.phrases if not p.startswith("not ")}, key=len, reverse=True
        )
        neg = "|".join(map(re.escape, self.chinese))
        fill = "|".join(map(re.escape, _FILLERS_ZH))
        what = "|".join(map(re.escape, negated))
        self._han = re.compile(f"(?:{neg})(?:{fill})?({what})") if negated else None

    def _stem(self, word: str) -> str:
        return self.lang.stem(word).lower()

    def name(self, phrase: str) -> str | None:
        """The index's name of a negated ``phrase``, or None when it negates nothing."""
        for neg in self.chinese:
            if phrase.startswith(neg) and _HAN.fullmatch(phrase):
                rest = phrase[len(neg) :]
                for filler in _FILLERS_ZH:
                    rest = rest.removeprefix(filler)
                return "不" + rest if _HAN.fullmatch(rest) else None
        words = [w.lower() for w in _ENGLISH.findall(phrase)]
        for i, word in enumerate(words):
            contraction = word == "t" and i > 0 and words[i - 1].endswith("n")
            if word in self.english or contraction:
                rest = [self._stem(w) for w in words[i + 1 :] if w not in self.lang.stopwords]
                return "not " + " ".join(rest) if 0 < len(rest) <= 2 else None
        return None

    def found(self, text: str) -> set[str]:
        """The negated phrases of the lists that ``text`` says."""
        out = set()
        if self._han is not None:
            out |= {"不" + m.group(1) for m in self._han.finditer(text)}
        words = [w.lower() for w in _ENGLISH.findall(text)]
        for i, word in enumerate(words):
            contraction = word == "t" and i > 0 and words[i - 1].endswith("n")
            if word not in self.english and not contraction:
                continue
            rest = [self._stem(w) for w in words[i + 1 : i + 6] if w not in self.lang.stopwords][:2]
            for n in (1, 2):
                if len(rest) >= n and (name := "not " + " ".join(rest[:n])) in self.phrases:
                    out.add(name)
        return out


def negated_terms(doctree: nodes.document, negations: Negations) -> tuple[set[str], set[str]]:
    """The negated phrases a page says in its headings, and in the rest of its prose."""
    headings, text = [], []

    def walk(node, in_title):
        for child in node.children:
            if isinstance(child, nodes.Text):
                (headings if in_title else text).append(child.astext())
            elif not isinstance(child, (*_CODE, nodes.comment, nodes.raw)):
                walk(child, in_title or isinstance(child, nodes.title))

    walk(doctree, False)
    return negations.found("\n".join(headings)), negations.found("\n".join(text))


# A line of Python's output that states an exception or a warning: its class, its message.
_MESSAGE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Warning): .+$", re.MULTILINE)
# The words of a message that are kept: readers paste its start.
MESSAGE_WORDS = 40


def message_words(text: str) -> list[str]:
    """The words by which a pasted message is compared with the messages the pages quote:
    lower case, a number as "#" (the versions, shapes and indices differ from one run to
    the next). search_scorer.js reads a query the same way."""
    return ["#" if w.isdigit() else w for w in re.findall(r"[a-z0-9_]+", text.lower())]


def quoted_messages(doctree: nodes.document) -> list[str]:
    """The messages of the exceptions and warnings that a page's code blocks print
    ("RuntimeError: ..."), each as its first MESSAGE_WORDS words (message_words), its
    class first."""
    found = set()
    for node in doctree.findall(lambda n: isinstance(n, (nodes.literal_block, nodes.doctest_block))):
        for line in _MESSAGE.findall(node.astext()):
            found.add(" ".join(message_words(line)[:MESSAGE_WORDS]))
    return sorted(found)


def message_rows(doctree: nodes.document) -> list[tuple[str, list[tuple[str, str]]]]:
    """The rows of an index of messages: a table row whose first cell quotes a message as
    code (prose, not code: :func:`code_text`) and whose other cells link to the pages
    or sections that answer it, as the troubleshooting index does. Each row: the message
    (message_words, joined) and its links, (reference type, target) as written."""
    rows = []
    for row in doctree.findall(nodes.row):
        cells = [cell for cell in row.children if isinstance(cell, nodes.entry)]
        quoted = next(iter(cells[0].findall(nodes.literal)), None) if cells else None
        if quoted is None or code_text(quoted.astext()) is not None:
            continue
        words = message_words(quoted.astext())
        links = [
            (ref["reftype"], ref["reftarget"])
            for cell in cells[1:]
            for ref in cell.findall(addnodes.pending_xref)
            if ref.get("refdomain") == "std" and ref.get("reftype") in ("doc", "ref")
        ]
        if len(words) >= 3 and links:
            rows.append((" ".join(words), links))
    return rows


def _collect_messages(app, doctree):
    env = app.env
    if not hasattr(env, "gradcut_messages"):
        env.gradcut_messages = {}
    quoted, rows = quoted_messages(doctree), message_rows(doctree)
    if quoted or rows:
        env.gradcut_messages[env.docname] = (quoted, rows)
    else:
        env.gradcut_messages.pop(env.docname, None)


def _purge_messages(app, env, docname):
    getattr(env, "gradcut_messages", {}).pop(docname, None)


def _merge_messages(app, env, docnames, other):
    if not hasattr(env, "gradcut_messages"):
        env.gradcut_messages = {}
    theirs = getattr(other, "gradcut_messages", {})
    env.gradcut_messages.update({d: theirs[d] for d in docnames if d in theirs})


def messages(env, docnames: list[str]) -> list[list]:
    """The index's ``gradcut_messages``: for each row of an index of messages
    (:func:`message_rows`) among the pages ``docnames`` (the pages searched), the message
    as the row quotes it and as the pages quote it in full (:func:`quoted_messages`: those
    that start with it), then the pages and sections it links to, as [page's position in
    ``docnames``, anchor]. A quoted message belongs to the row whose message it starts
    with, the longest. search_scorer.js ranks those pages first for a query that pastes
    a part of the message."""
    found = getattr(env, "gradcut_messages", {})
    position = {d: i for i, d in enumerate(docnames)}
    std = env.get_domain("std")
    rows = {}
    for doc in docnames:
        for words, links in found.get(doc, ((), ()))[1]:
            targets = rows.setdefault(words, [])
            for kind, target in links:
                if kind == "doc":
                    where = (docname_join(doc, target), "")
                else:
                    label = std.labels.get(target.lower())
                    where = (label[0], label[1]) if label else None
                if where and where[0] in position:
                    at = [position[where[0]], where[1]]
                    if at not in targets:
                        targets.append(at)
    texts = {words: {words} for words, targets in rows.items() if targets}
    by_length = sorted(texts, key=len, reverse=True)
    for doc in docnames:
        for line in found.get(doc, ((), ()))[0]:
            body = line.split(" ", 1)[1] if " " in line else ""
            row = next((w for w in by_length if (body + " ").startswith(w + " ")), None)
            if row is not None:
                texts[row].add(line)
    return [[sorted(texts[words]), rows[words]] for words in sorted(texts)]


class SectionIndexBuilder(IndexBuilder):
    """Sphinx's search index, plus the names each section's code mentions
    (``gradcut_sections``: the names and the code written inline, and for each section its
    page, its anchor, the positions of its names, of those its prose writes as inline code,
    and of the code it writes inline). A page that an incremental build does not write
    again keeps its sections from the last ``searchindex.js``, as it keeps its words."""

    _gradcut_sections: dict[str, list[tuple[str, list[str], list[str], list[str]]]]

    @classmethod
    def adopt(cls, indexer: IndexBuilder, env) -> None:
        """Make Sphinx's indexer one of these, the words of search_words.toml in front
        of its scorer; ``env``: the build environment (the messages the pages quote)."""
        indexer.__class__ = cls
        indexer._gradcut_env = env
        indexer._gradcut_sections = {}
        indexer._gradcut_negations = Negations(indexer.lang, search_words())
        indexer.js_scorer_code = words_js() + indexer.js_scorer_code

    def feed(self, docname, filename, title, doctree):
        super().feed(docname, filename, title, doctree)
        self._gradcut_sections[docname] = section_names(doctree, self.lang) if title else []
        if title:
            headings, text = negated_terms(doctree, self._gradcut_negations)
            for term in headings:
                self._title_mapping.setdefault(term, set()).add(docname)
            for term in text - headings:
                self._mapping.setdefault(term, set()).add(docname)

    def load(self, stream, format):
        text = stream.read()
        kind = self.formats[format] if isinstance(format, str) else format
        super().load(io.StringIO(text) if isinstance(text, str) else io.BytesIO(text), format)
        frozen = kind.loads(text)
        try:
            docnames = frozen["docnames"]
            names = frozen["gradcut_sections"]["names"]
            code = frozen["gradcut_sections"]["code"]
            sections = {}
            for doc, anchor, positions, inline, written in frozen["gradcut_sections"]["sections"]:
                sections.setdefault(docnames[doc], []).append(
                    (
                        anchor,
                        [names[i] for i in positions],
                        [names[i] for i in inline],
                        [code[i] for i in written],
                    )
                )
        except (KeyError, IndexError, TypeError, ValueError):
            return  # an index without sections: the pages written now have theirs
        self._gradcut_sections = sections

    def prune(self, docnames):
        super().prune(docnames)
        keep = set(docnames)
        self._gradcut_sections = {d: s for d, s in self._gradcut_sections.items() if d in keep}

    def freeze(self):
        frozen = super().freeze()
        fn2index = {doc: i for i, doc in enumerate(frozen["docnames"])}
        pages = [d for d in sorted(self._gradcut_sections) if d in fn2index]
        names = sorted(
            {n for d in pages for _, found, _, _ in self._gradcut_sections[d] for n in found}
        )
        code = sorted({c for d in pages for *_, written in self._gradcut_sections[d] for c in written})
        position = {n: i for i, n in enumerate(names)}
        at = {c: i for i, c in enumerate(code)}
        frozen["gradcut_sections"] = {
            "names": names,
            "code": code,
            "sections": [
                [
                    fn2index[d],
                    anchor,
                    [position[n] for n in found],
                    [position[n] for n in inline],
                    [at[c] for c in written],
                ]
                for d in pages
                for anchor, found, inline, written in self._gradcut_sections[d]
            ],
        }
        frozen["gradcut_messages"] = messages(self._gradcut_env, list(frozen["docnames"]))
        return frozen


def _extend_indexer(app):
    """The site's index (SectionIndexBuilder), and the index entries of the pages an
    incremental build does not write again (a glossary's terms): Sphinx restores every
    other part of the index from the last build's ``searchindex.js``, but not these, so
    one edit of another page would drop them, and with them a term's page from the top
    of its results."""
    builder = app.builder
    load = getattr(builder, "load_indexer", None)
    if load is None:
        return

    def load_indexer(docnames):
        if builder.indexer is not None:
            SectionIndexBuilder.adopt(builder.indexer, builder.env)
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
    app.connect("builder-inited", _extend_indexer)
    app.connect("doctree-read", _collect_messages)
    app.connect("env-purge-doc", _purge_messages)
    app.connect("env-merge-info", _merge_messages)
    return {"env_version": index_version(), "parallel_read_safe": True, "parallel_write_safe": True}
