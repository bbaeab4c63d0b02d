# The gallery half of the site's configuration, with the execution cache of
# gradcut.sphinxext.gallery: each example logs its runs to ../runs.log.
extensions = ["sphinx_gallery.gen_gallery", "gradcut.sphinxext.gallery"]
exclude_patterns = ["_build", "gallery", "**/*.ipynb", "examples/*.py", "examples/*.md5"]
sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "examples",
    "filename_pattern": r".*",
    "image_scrapers": (),
    "reset_modules": (),
    "write_computation_times": False,
    "download_all_examples": False,
    "backreferences_dir": None,
}
