"""A one-page site with a ``gradcut-reference`` table (tests/test_reference.py)."""

from gradcut.sphinxext import reference

extensions = ["myst_parser"]
exclude_patterns = ["_build"]


def setup(app):
    reference.setup(app)
