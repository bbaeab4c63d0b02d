"""Two pages: a glossary, with a section that names code and says a negated phrase of the
search's word lists, and another page that an incremental build writes again
(tests/test_search_index.py)."""

extensions = ["gradcut.sphinxext.search"]
exclude_patterns = ["_build"]
