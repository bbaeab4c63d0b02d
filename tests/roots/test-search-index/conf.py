"""Two pages: a glossary, and another page that an incremental build writes again
(tests/test_search_index.py)."""

extensions = ["gradcut.sphinxext.search"]
exclude_patterns = ["_build"]
