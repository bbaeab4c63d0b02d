sphinx_gallery_conf = {
    "examples_dirs": "../gallery",
    "gallery_dirs": "examples",
    "filename_pattern": r".*",
    "image_scrapers": (),
    "reset_modules": ("gradcut.sphinxext.reset_state",),
    "reset_modules_order": "before",
}
