"""A one-page site whose gallery runs with the site's own sphinx-gallery settings.

The test copies an example into ``gallery/`` and names the site's conf.py in
``GRADCUT_SITE_CONF`` before building.
"""

import os
import runpy

_site = runpy.run_path(os.environ["GRADCUT_SITE_CONF"])

extensions = ["sphinx_gallery.gen_gallery"]
# The examples' sources live beside the pages here, not outside them as in the site.
exclude_patterns = [*_site["exclude_patterns"], "gallery"]
sphinx_gallery_conf = {
    **_site["sphinx_gallery_conf"],
    "examples_dirs": "gallery",
    "gallery_dirs": "examples",
}
