"""Pages load only what they use.

pydata-sphinx-theme loads, on every page, three things this site does not use there:

- the search machinery (``searchtools.js``, ``language_data.js`` and the whole
  ``searchindex.js``, which grows with every page written) for search-as-you-type,
  which is off: the search box sends the reader to the search page, which loads them;
- ``fontawesome.js``, there "so that users can add custom icons": the site has none;
- the Font Awesome solid font, 115 KB for the dozen icons the theme shows.

The first two leave the page's ``<head>`` through the ``gradcut_drop_scripts`` template
filter (``layout.html``); the font is cut down, after each build and always from the
theme's full font, to the glyphs that the built pages, the theme's script and its
stylesheet use (the file keeps its name, so the theme's CSS finds it).
"""

import hashlib
import io
import re
from pathlib import Path

from sphinx.util import logging

from gradcut.sphinxext.kept import keep

logger = logging.getLogger(__name__)

SEARCH_SCRIPTS = ("_static/searchtools.js", "_static/language_data.js", "searchindex.js")
ICON_SCRIPTS = ("_static/scripts/fontawesome.js",)
SOLID_FONT = Path("_static/vendor/fontawesome/webfonts/fa-solid-900.woff2")
THEME_CSS = Path("_static/styles/pydata-sphinx-theme.css")

_SCRIPT = re.compile(r"""[ \t]*<script\b[^>]*\bsrc="([^"]*)"[^>]*>\s*</script>[ \t]*\n?""")
# `.fa-house{--fa:"\f015"}` and the two-name form `.fa-home,.fa-house{--fa:"\f015"}`
_FA_CLASS = re.compile(r"""((?:\.fa-[a-z0-9-]+,?)+)\{--fa:"\\([0-9a-f]+)""")
_FA_USE = re.compile(r"""\bfa-([a-z0-9-]+)""")
# Private Use Area characters written literally in CSS: the theme's --pst-icon-* glyphs.
_PUA = re.compile("[\ue000-\uf8ff]")


def drop_scripts(html: str, paths) -> str:
    """Remove the ``<script src=…>`` elements whose source ends in one of ``paths``."""
    paths = tuple(paths)
    if not paths:
        return html

    def keep(match):
        src = match.group(1).split("?", 1)[0]
        return "" if src.endswith(paths) else match.group(0)

    return _SCRIPT.sub(keep, html)


def _register_filter(app):
    if app.builder.format != "html":
        return
    app.builder.templates.environment.filters["gradcut_drop_scripts"] = drop_scripts


def _page_context(app, pagename, templatename, context, doctree):
    if app.builder.format != "html":
        return
    unused = list(ICON_SCRIPTS)
    if pagename != "search" and not _as_you_type(app):
        unused += SEARCH_SCRIPTS
    context["gradcut_unused_scripts"] = unused


def _as_you_type(app) -> bool:
    value = app.config.html_theme_options.get("search_as_you_type", False)
    return str(value).lower() in {"true", "1", "yes"}


def icon_codepoints(outdir: Path) -> set[int]:
    """Codepoints of the solid icons that the built pages and the theme's CSS show."""
    css = (outdir / THEME_CSS).read_text(encoding="utf-8")
    by_name = {}
    for names, code in _FA_CLASS.findall(css):
        for name in names.split(","):
            if name:
                by_name[name.removeprefix(".fa-")] = int(code, 16)
    used = {ord(ch) for ch in _PUA.findall(css)}
    sources = list(outdir.rglob("*.html"))
    sources += [p for p in (outdir / "_static").rglob("*.js") if p.name != "fontawesome.js"]
    for path in sources:
        for name in _FA_USE.findall(path.read_text(encoding="utf-8", errors="replace")):
            if name in by_name:
                used.add(by_name[name])
    return used


def subset_icon_font(outdir: Path, cache: Path | None = None) -> tuple[int, int, int]:
    """Cut the solid icon font down to the used glyphs: (glyphs, bytes before, after).
    ``cache``: a folder that keeps the cut-down font of each set of glyphs (compressing
    it takes a second; most builds show the same icons as the last)."""
    path = outdir / SOLID_FONT
    original = _theme_font().read_bytes()
    codepoints = icon_codepoints(outdir)
    key = hashlib.sha256(original + repr(sorted(codepoints)).encode()).hexdigest()[:16]
    kept = cache / f"icon-font-{key}.woff2" if cache is not None else None
    if kept is not None and kept.is_file():
        data = kept.read_bytes()
    else:
        data = _subset(original, codepoints)
        if kept is not None:
            keep(kept, data)
    path.write_bytes(data)
    return len(codepoints), len(original), len(data)


def _subset(original: bytes, codepoints: set[int]) -> bytes:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    # recalcTimestamp=False: the font's 'modified' date stays the theme's, so the same
    # pages give the same bytes (the site's archive is reproducible).
    font = TTFont(io.BytesIO(original), recalcTimestamp=False)
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(codepoints))
    subsetter.subset(font)
    out = io.BytesIO()
    font.flavor = "woff2"
    font.save(out)
    return out.getvalue()


def _finish(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    if not all(p.is_file() for p in (outdir / SOLID_FONT, outdir / THEME_CSS, _theme_font())):
        logger.warning(
            "no %s to cut down: has pydata-sphinx-theme moved its icon font?",
            SOLID_FONT,
            type="gradcut",
            subtype="assets",
        )
        return
    try:
        glyphs, before, after = subset_icon_font(outdir, Path(app.doctreedir))
    except Exception as err:  # noqa: BLE001 - any failure is a build problem to report
        logger.warning("could not cut down the icon font: %s", err, type="gradcut", subtype="assets")
        return
    logger.info("icon font: %d glyphs, %d -> %d bytes", glyphs, before, after)


def _theme_font() -> Path:
    # The theme's own copy: the output folder may hold the cut-down font of a last build.
    import pydata_sphinx_theme

    return Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static" / SOLID_FONT.relative_to("_static")


def setup(app):
    app.connect("builder-inited", _register_filter)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _finish)
