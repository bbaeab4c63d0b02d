"""The site's Sphinx extension: one ``setup`` that registers every piece.

- :mod:`.i18n`: page titles per language, the language switcher and ``hreflang`` links,
  and the translation gate (no missing, stale, malformed, fuzzy or untranslated string).
- :mod:`.inventory`: an intersphinx inventory of torch written from the installed torch,
  so references to torch's API resolve offline.
- :mod:`.gallery`: sphinx-gallery's figure scraper, the reset between examples and the
  execution cache keyed on torch and on the helpers each example imports.
- :mod:`.search`: Chinese search that works in the browser.
- :mod:`.footer`: the torch version and date of the build on every page.
- :mod:`.reference`: the ``gradcut-reference`` directive, a table that torch must agree
  with cell by cell.
- :mod:`.versions`: the "torch versions" page, from the results of the runs made.
"""

from pathlib import Path

from gradcut import __version__
from gradcut.sphinxext import footer, gallery, i18n, inventory, pages, reference, search, versions
from gradcut.sphinxext.gallery import reset_state, svg_scraper

__all__ = ["reset_state", "setup", "svg_scraper"]

HERE = Path(__file__).parent


def _add_paths(app, config):
    config.templates_path.append(str(HERE / "templates"))
    config.html_static_path.append(str(HERE / "static"))


def setup(app):
    app.connect("config-inited", _add_paths)
    app.add_css_file("gradcut.css")
    i18n.setup(app)
    inventory.setup(app)
    gallery.setup(app)
    search.setup(app)
    footer.setup(app)
    pages.setup(app)
    reference.setup(app)
    versions.setup(app)
    return {
        "version": __version__,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
