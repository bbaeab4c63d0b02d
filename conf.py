"""Sphinx configuration of the detach / detach_ / .data site.

Sources live in ``docs/`` (pages) and ``gallery/`` (examples); build with ``make html``,
which runs ``sphinx-build -c . docs …`` once per language.
"""

import importlib.metadata
import math
import os

# -- Project information -----------------------------------------------------
# https://www.sphinx-doc.org/en/master/usage/configuration.html#project-information
project = "Cutting gradients in PyTorch"
author = "the gradcut authors"
copyright = "2026, the gradcut authors"
# The site documents the torch that builds it, so that is its version.
release = version = importlib.metadata.version("torch")

# -- General configuration ---------------------------------------------------
# https://www.sphinx-doc.org/en/master/usage/configuration.html#general-configuration
extensions = [
    "myst_nb",  # sets up myst-parser itself; listing both is an error
    "sphinx_gallery.gen_gallery",
    "sphinx_copybutton",
    "sphinx.ext.intersphinx",
    "sphinxext.opengraph",
    "gradcut.sphinxext",
]
# sphinx-gallery writes a notebook next to each generated page; myst-nb must not read
# them as pages of their own.
exclude_patterns = ["**/*.ipynb", "examples/*.py", "examples/*.md5"]
nitpicky = True
root_doc = "index"

# -- Internationalisation ----------------------------------------------------
# https://www.sphinx-doc.org/en/master/usage/configuration.html#options-for-internationalisation
language = "en"
locale_dirs = ["../locale"]
# One catalog per page, as CPython's docs do: a page's translation lives beside its name.
gettext_compact = False
gettext_uuid = False
smartquotes_excludes = {"languages": ["ja", "zh_CN"], "builders": ["man", "text"]}

# -- MyST / myst-nb ----------------------------------------------------------
# https://myst-parser.readthedocs.io/en/latest/configuration.html
# https://myst-nb.readthedocs.io/en/latest/configuration.html
myst_enable_extensions = ["colon_fence", "deflist", "attrs_inline"]
myst_heading_anchors = 3
# Pages are not notebooks: their code is checked by pytest-doctestplus before Sphinx
# runs, and the gallery executes the examples.
nb_execution_mode = "off"

# -- sphinx-gallery ----------------------------------------------------------
# https://sphinx-gallery.github.io/stable/configuration.html
sphinx_gallery_conf = {
    "examples_dirs": "../gallery",
    "gallery_dirs": "examples",
    # Every example is executed: a shown but unrun example would be unverified.
    "filename_pattern": r".*",
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("gradcut.sphinxext.svg_scraper",),
    "reset_modules": ("matplotlib", "gradcut.sphinxext.reset_state"),
    "reset_modules_order": "before",
    # An unexpected error is reported as a warning naming the example's file and line,
    # which -W turns into a failed build -- without Sphinx's crash report around it.
    "only_warn_on_example_error": True,
    # Timings change on every run; they would turn the translations fuzzy.
    "min_reported_time": math.inf,
    "write_computation_times": False,
    "show_signature": False,
    "remove_config_comments": True,
    "download_all_examples": False,
    "backreferences_dir": None,
}

# -- Cross-references to torch -----------------------------------------------
# https://www.sphinx-doc.org/en/master/usage/extensions/intersphinx.html
# The inventory is written from the installed torch at build time (gradcut.sphinxext), so
# references resolve offline and only to objects that torch really has.
intersphinx_mapping = {"torch": ("https://docs.pytorch.org/docs/stable/", None)}

# -- HTML output -------------------------------------------------------------
# https://www.sphinx-doc.org/en/master/usage/configuration.html#options-for-html-output
html_theme = "pydata_sphinx_theme"
html_theme_options = {
    "navbar_end": ["gradcut-language-switcher", "theme-switcher"],
    "footer_start": ["copyright"],
    "footer_end": ["gradcut-verified-by"],
    "secondary_sidebar_items": ["page-toc"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
# Follow the reader's system; unset, the theme logs a console error on a first visit.
html_context = {"default_mode": "auto"}
html_show_sourcelink = False
html_copy_source = False

# -- sphinx-copybutton -------------------------------------------------------
# https://sphinx-copybutton.readthedocs.io/en/latest/use.html
# Copied doctests are runnable code: the lines after a prompt, without it. The prompts
# (`.gp`) must stay visible to this regex: hidden, no line has a prompt and everything
# left is copied, tracebacks included. A bare `...` is a blank line of a block; the
# blank lines an output (`.go`) leaves behind are not copied.
copybutton_prompt_text = r">>> |\.\.\. |\.\.\.$"
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_copy_empty_lines = False
copybutton_exclude = ".linenos, .go"
# Outputs captured by sphinx-gallery are not code.
copybutton_selector = "div.highlight:not(.sphx-glr-script-out div.highlight) pre"

# -- sphinxext-opengraph (link previews) ------------------------------------
# https://sphinxext-opengraph.readthedocs.io/en/latest/
# Per language, gradcut.sphinxext.head sets the address (ogp_site_url), og:locale and the
# description. No generated card images: matplotlib's font has no Chinese, and a preview
# is the title and the description.
ogp_social_cards = {"enable": False}
# The site writes its own meta description (the page's first paragraph).
ogp_enable_meta_description = False

# -- gradcut -----------------------------------------------------------------
# Titles per language: Sphinx does not take `project` from the catalogs.
gradcut_titles = {
    "en": "Cutting gradients in PyTorch",
    "zh_CN": "在 PyTorch 中阻断梯度",
}
gradcut_languages = {"en": "English", "zh_CN": "简体中文"}
# The address the site is published at. Canonical links (`html_baseurl`), hreflang
# alternates and the sitemap are absolute, so they need it. The Pages workflow passes the
# address GitHub reports (actions/configure-pages' base_url); other builds assume this one.
gradcut_site_url = os.environ.get("GRADCUT_SITE_URL") or "https://gradcut.github.io/gradcut/"
