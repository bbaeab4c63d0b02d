"""The site's code, in three roles, each a folder:

``gradcut.claims``
    What the claims run: helpers that pages' doctests and gallery examples import, and
    the measurements behind the tables. Runs with torch alone, on every release.
``gradcut.sphinxext``
    The Sphinx extension: checked tables, the history of each claim across releases,
    the gallery's and the translation's glue, search, the theme's templates.
``gradcut.tools``
    The machinery that builds (``tools.build``, one module per ``make`` target),
    verifies (``tools.pytest_plugin``, ``tools.releases``, ``tools.drift``) and measures
    (``tools.bench``, ``tools.weight``) the site.

:mod:`gradcut.runs` sits below the extension and the tools: what both read of a run of
the claims. Nothing imports upwards: ``claims`` imports none of the others, the extension
does not import the tools.
"""

__version__ = "0.1.0"
