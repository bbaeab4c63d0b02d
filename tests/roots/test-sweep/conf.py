"""A one-page site with a ``gradcut-sweep`` table (tests/test_sweeps.py)."""

from gradcut.sphinxext import sweep

extensions = ["myst_parser"]
exclude_patterns = ["_build"]


def setup(app):
    sweep.setup(app)
