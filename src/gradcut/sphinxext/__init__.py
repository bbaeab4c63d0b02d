"""The site's Sphinx extension: one ``setup`` that registers every piece.

- :mod:`.i18n`: page titles per language, the language switcher and ``hreflang`` links,
  and the translation gate (no missing, stale, malformed, fuzzy or untranslated string).
- :mod:`.inventory`: an intersphinx inventory of torch written from the installed torch,
  so references to torch's API resolve offline.
- :mod:`.gallery`: sphinx-gallery's figure scraper, the reset between examples and the
  execution cache keyed on torch and on the helpers each example imports.
- :mod:`.asserts`: a failing ``assert`` in an example shows the values it compared.
- :mod:`.downloads`: the gallery's downloads in the page's language.
- :mod:`.pinyin_index`: the Chinese general index in pinyin order.
- :mod:`.search`: search that ranks first the page that answers the query, and Chinese
  search that works in the browser.
- :mod:`.head`: one viewport tag per page; link previews (OpenGraph) per language.
- :mod:`.headings`: headings that are error messages, marked to read as headings.
- :mod:`.footer`: the torch version and date of the build on every page.
- :mod:`.sweep`: the ``gradcut-sweep`` directive, a table of a sweep that torch must
  agree with cell by cell.
- :mod:`.versions`: the "torch versions" page, from the results of the runs made.
- :mod:`.lean`: pages load only the scripts and icon glyphs they use.
- :mod:`.notfound`: a 404 page in each language that works at any address.
- :mod:`.pages`: the list of pages the sources make, so that deleted ones are not published.
- :mod:`.live`: in ``make livehtml``'s view, a page whose claims do not hold (or were not
  checked) says so at its top.
"""

import hashlib
import warnings
from pathlib import Path

from gradcut import __version__
from gradcut.sphinxext import (
    asserts,
    downloads,
    footer,
    gallery,
    head,
    headings,
    i18n,
    inventory,
    lean,
    live,
    notfound,
    pages,
    pinyin_index,
    search,
    sweep,
    versions,
)
from gradcut.sphinxext.gallery import reset_state, svg_scraper

__all__ = ["reset_state", "setup", "svg_scraper"]

HERE = Path(__file__).parent
ICON = "gradcut-icon.svg"


def assets_digest() -> str:
    """A digest of this extension's code, templates and static files."""
    digest = hashlib.sha256()
    for path in sorted(HERE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(HERE).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _add_paths(app, config):
    # Sphinx rewrites unchanged pages only when an "html" config value changes: without
    # this one, a page would keep an old stylesheet's ?v= checksum, or an old template.
    config.gradcut_assets = assets_digest()
    config.templates_path.append(str(HERE / "templates"))
    config.html_static_path.append(str(HERE / "static"))
    # A tab icon; without one, browsers ask the server root for /favicon.ico on every page.
    if not config.html_favicon:
        config.html_favicon = str(HERE / "static" / ICON)


def _keep_compiled_templates(app):
    """Keep the theme's templates compiled between builds (jinja's bytecode cache, in the
    build's own folder; a template whose source changes is compiled again)."""
    templates = getattr(app.builder, "templates", None)
    environment = getattr(templates, "environment", None)
    if environment is None or environment.bytecode_cache is not None:
        return
    from jinja2 import FileSystemBytecodeCache

    folder = Path(app.doctreedir) / "templates"
    folder.mkdir(parents=True, exist_ok=True)
    environment.bytecode_cache = FileSystemBytecodeCache(str(folder))


def _quiet_others_deprecations():
    """Sphinx shows its deprecation warnings whatever code reads the deprecated name; in
    another package's code (myst-parser reading ``.app``) they are that package's to fix,
    and an author can only read past them. Those of this project's own code stay shown:
    they are ours to fix."""
    from sphinx.deprecation import RemovedInSphinx10Warning, RemovedInSphinx11Warning

    for category in (RemovedInSphinx10Warning, RemovedInSphinx11Warning):
        warnings.filterwarnings("ignore", category=category, module=r"(?!gradcut\b)")
        warnings.filterwarnings("default", category=category, module=r"gradcut\b")


def setup(app):
    _quiet_others_deprecations()
    app.add_config_value("gradcut_assets", "", "html", types=[str])
    app.connect("config-inited", _add_paths)
    app.connect("builder-inited", _keep_compiled_templates)
    # last of the stylesheets, so that the site's rules win over the extensions' ones
    app.add_css_file("gradcut.css", priority=900)
    i18n.setup(app)
    inventory.setup(app)
    gallery.setup(app)
    asserts.setup(app)
    downloads.setup(app)
    pinyin_index.setup(app)
    index = search.setup(app)
    footer.setup(app)
    headings.setup(app)
    head.setup(app)
    pages.setup(app)
    sweep.setup(app)
    versions.setup(app)
    lean.setup(app)
    notfound.setup(app)
    live.setup(app)
    return {
        "version": __version__,
        # what the search index is made of: a change indexes every page again
        "env_version": index["env_version"],
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
