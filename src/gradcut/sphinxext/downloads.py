"""The gallery's downloads in the page's language.

sphinx-gallery writes one ``.py``, ``.ipynb`` and ``.zip`` per example, in English, and
every language's pages offer them. In another language, once the pages are written,
the downloads of each example are rewritten from its page's catalog: the text blocks
(the docstring and the ``# %%`` comment blocks) take the translation of each of their
paragraphs, the code stays byte for byte what the English download holds (without the blocks only
the build runs, :func:`gradcut.sphinxext.gallery.downloadable`). A paragraph the catalog does
not hold (none should be missing: the build fails on an untranslated page) stays English.

In every language, English too, the notebook is made again from the script: its
Markdown keeps none of reST's escaped spaces, and a ``:doc:`` or ``:ref:`` becomes a link
to the published page (:func:`notebook_text`), where sphinx-gallery leaves them as reST.
"""

import ast
import re
import unicodedata
import zipfile
from pathlib import Path

from babel.messages.pofile import PoFileError
from sphinx.util import logging

from gradcut.sphinxext.i18n import SOURCE_LANGUAGE, page_catalog
from gradcut.sphinxext.pofile import read_catalog

logger = logging.getLogger(__name__)

# sphinx-gallery's text blocks: a "# %%" line, then the comment lines under it.
TEXT_BLOCK = re.compile(r"(?P<header>^# ?%%.*\n)(?P<text>(?:^#.*\n?)*)", re.M)
UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>])\1+$")
BULLET = re.compile(r"^([-*+] |\d+\. )")


def width(text: str) -> int:
    """Columns that docutils counts for a title: East Asian wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def translate_rst(text: str, messages: dict[str, str]) -> str:
    """Translate a block of reStructuredText paragraph by paragraph."""
    out = []
    for paragraph in re.split(r"\n\s*\n", text.strip("\n")):
        lines = paragraph.split("\n")
        if len(lines) == 2 and UNDERLINE.match(lines[1].strip()):
            title = messages.get(lines[0].strip(), lines[0].strip())
            out.append(f"{title}\n{lines[1].strip()[0] * max(width(title), len(lines[1].strip()))}")
        elif BULLET.match(lines[0]):
            items = []
            for line in lines:
                if BULLET.match(line) or not items:
                    items.append([line])
                else:
                    items[-1].append(line)
            translated = []
            for item in items:
                marker = BULLET.match(item[0])[0]
                body = " ".join(x.strip() for x in item)[len(marker) :]
                translated.append(marker + messages.get(body, body))
            out.append("\n".join(translated))
        else:
            key = " ".join(line.strip() for line in lines)
            out.append(messages.get(key, paragraph))
    return "\n\n".join(out) + "\n"


def translate_script(source: str, messages: dict[str, str]) -> str:
    """The example's script with its text blocks translated; the code is untouched."""
    module = ast.parse(source)
    doc = module.body[0] if module.body else None
    head = ""
    rest = source
    if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str):
        lines = source.splitlines(keepends=True)
        text = translate_rst(doc.value.value, messages)
        # a translation's reST may escape a space (见\ :ref:`…`): a raw docstring keeps
        # it as written, where a plain one would warn of an invalid escape sequence
        head = ('r"""\n' if "\\" in text else '"""\n') + text + '"""\n'
        rest = "".join(lines[doc.end_lineno :])

    def block(match):
        text = "".join(line[1:].removeprefix(" ") for line in match["text"].splitlines(keepends=True))
        if not text.strip():
            return match[0]
        translated = translate_rst(text, messages)
        comment = "".join(f"# {line}".rstrip() + "\n" for line in translated.splitlines())
        return match["header"] + comment

    return head + TEXT_BLOCK.sub(block, rest)


ESCAPED_SPACE = re.compile(r"\\ ")
DOC_ROLE = re.compile(r":doc:`(?:(?P<text>[^`<]*?)\s*<(?P<target>[^`>]+)>|(?P<bare>[^`]+))`")
REF_ROLE = re.compile(r":ref:`(?:(?P<text>[^`<]*?)\s*<(?P<target>[^`>]+)>|(?P<bare>[^`]+))`")


def notebook_text(text: str, docname: str, link) -> str:
    """A text block of an example as a notebook's Markdown shows it, where
    sphinx-gallery's conversion leaves reST: no escaped spaces (``\\ `` only keeps
    markup apart from the Chinese next to it), and a ``:doc:`` or ``:ref:`` as a link to
    the published page. ``link(kind, target, docname)`` gives ``(text, url)``, or None
    for a target the site does not know (then its text alone)."""
    # an escaped space before a literal stays a space-less join in Markdown too
    text = ESCAPED_SPACE.sub("", text)

    def role(kind):
        def replace(match):
            target = (match["target"] or match["bare"]).strip()
            found = link(kind, target, docname)
            label = match["text"] or (found[0] if found else target)
            return f"[{label}]({found[1]})" if found else label

        return replace

    return REF_ROLE.sub(role("ref"), DOC_ROLE.sub(role("doc"), text))


def _site_link(app):
    """``link`` of :func:`notebook_text` for this build: the page's title and its address
    on the published site of this language."""
    from gradcut.sphinxext.i18n import language_url

    base = language_url(app.config.gradcut_site_url or "", app.config.language or SOURCE_LANGUAGE)
    env = app.env

    def link(kind, target, docname):
        if kind == "doc":
            name = target.lstrip("/") if target.startswith("/") else f"{docname.rsplit('/', 1)[0]}/{target}"
            if name not in env.titles:
                return None
            return env.titles[name].astext(), f"{base}{name}.html"
        found = env.domaindata.get("std", {}).get("labels", {}).get(target)
        if not found:
            return None
        name, anchor, title = found
        return title, f"{base}{name}.html" + (f"#{anchor}" if anchor else "")

    return link


def _messages(app, docname: str) -> dict[str, str]:
    """The translations of a page's catalog; none when it has no sound catalog (a new
    example before `make po`, a malformed file): :mod:`.i18n` has said so, naming the
    file, and the build fails on that, not here."""
    try:
        catalog = read_catalog(page_catalog(app, docname))
    except (OSError, UnicodeDecodeError, ValueError, PoFileError):
        return {}
    return {m.id: m.string for m in catalog if m.id and m.string and not m.fuzzy}


def _translate_downloads(app, exception):
    if exception or app.builder.format != "html":
        return
    # English keeps sphinx-gallery's text; its notebook is made again all the same, for
    # the links and escapes of notebook_text
    english = (app.config.language or SOURCE_LANGUAGE) == SOURCE_LANGUAGE
    from sphinx_gallery import py_source_parser
    from sphinx_gallery.gen_rst import _clean_script_blocks
    from sphinx_gallery.notebook import jupyter_notebook, save_notebook

    from gradcut.sphinxext.gallery import _gallery_dirs, downloadable

    if "sphinx_gallery_conf" not in app.config:
        return  # a site without sphinx-gallery
    gallery_conf = app.config.sphinx_gallery_conf
    downloads = Path(app.outdir, "_downloads")
    # each download's source file -> where the build put its copies
    copies: dict[Path, list[Path]] = {}
    for src, (_, dest) in app.env.dlfiles.items():
        copies.setdefault(Path(app.srcdir, src).resolve(), []).append(downloads / dest)
    for _, gallery_dir, dst in _gallery_dirs(app):
        for script in sorted(gallery_dir.glob("*.py")):
            docname = f"{dst}/{script.stem}"
            if docname not in app.env.found_docs:
                continue
            # as the English download: without the build's own checks (the ignore blocks)
            source = script.read_text(encoding="utf-8")
            translated = downloadable(source if english else translate_script(source, _messages(app, docname)))
            targets = {
                suffix: copies.get(script.with_suffix(suffix).resolve(), [])
                for suffix in (".py", ".ipynb", ".zip")
            }
            for path in targets[".py"]:
                path.write_text(translated, encoding="utf-8")
            if targets[".ipynb"] or targets[".zip"]:
                work = Path(app.doctreedir).parent / "translated-downloads" / app.config.language
                work.mkdir(parents=True, exist_ok=True)
                py = work / script.name
                py.write_text(translated, encoding="utf-8")
                # the notebook is made as sphinx-gallery makes the English one
                _, blocks = py_source_parser.split_code_and_text_blocks(py)
                link = _site_link(app)
                blocks = [
                    (kind, notebook_text(content, docname, link) if kind == "text" else content, *rest)
                    for kind, content, *rest in blocks
                ]
                blocks, _ = _clean_script_blocks(gallery_conf, py_source_parser, blocks, [])
                notebook = work / script.with_suffix(".ipynb").name
                save_notebook(jupyter_notebook(blocks, gallery_conf, gallery_dir), notebook)
                for path in targets[".ipynb"]:
                    path.write_bytes(notebook.read_bytes())
                for path in targets[".zip"]:
                    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
                        for member in (py, notebook):
                            # a fixed date: the same sources make the same archive
                            info = zipfile.ZipInfo(member.name, date_time=(1980, 1, 1, 0, 0, 0))
                            archive.writestr(info, member.read_bytes(), zipfile.ZIP_DEFLATED)


def setup(app):
    app.connect("build-finished", _translate_downloads)
