"""The list of pages the current sources make, for pruning what older builds left.

Sphinx never deletes the HTML of a page whose source is gone (a renamed example, a
deleted page): its output folder keeps it, and a site assembled from that folder would
publish it. At the end of every HTML build this writes ``.gradcut-pages.json`` into the
output folder: every document of the environment plus every extra page (index, search)
written by this build. ``gradcut.tools.build`` publishes only those.
"""

import json
import re
from pathlib import Path

MANIFEST = ".gradcut-pages.json"


def _seen(app, pagename, templatename, context, doctree):
    if doctree is None:  # an extra page (genindex, search, …), rewritten on every build
        extra = app.builder.__dict__.setdefault("gradcut_extra_pages", set())
        extra.add(pagename)


def _write(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    pages = set(app.env.found_docs) | app.builder.__dict__.get("gradcut_extra_pages", set())
    suffix = app.builder.out_suffix
    names = sorted(f"{page}{suffix}" for page in pages)
    Path(app.outdir, MANIFEST).write_text(json.dumps(names, indent=0), encoding="utf-8")


# A gallery example's files among the assets: its downloads (plot_19_x.py, .ipynb, .zip)
# and its figures and thumbnail (sphx_glr_plot_19_x_001.svg, sphx_glr_plot_19_x_thumb.png).
EXAMPLE_ASSET = re.compile(r"^(?:sphx_glr_)?(?P<stem>plot_\w+?)(?:_\d{3}|_thumb)?\.\w+$")


def prune(site: Path) -> list[str]:
    """Delete the HTML pages of ``site`` that its manifest does not list, and the
    downloads and figures of the gallery's examples that are gone (an example renamed or
    renumbered); return them."""
    manifest = site / MANIFEST
    if not manifest.is_file():
        return []
    keep = set(json.loads(manifest.read_text(encoding="utf-8")))
    examples = {Path(page).stem for page in keep if page.startswith("examples/plot_")}
    removed = []
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site).as_posix()
        if rel.split("/", 1)[0].startswith("_"):
            continue  # _static, _images, _downloads: assets, not pages
        if rel not in keep:
            page.unlink()
            removed.append(rel)
    for folder in ("_downloads", "_images"):
        for asset in sorted((site / folder).rglob("*")) if (site / folder).is_dir() else []:
            match = EXAMPLE_ASSET.match(asset.name)
            if asset.is_file() and match and match["stem"] not in examples:
                asset.unlink()
                removed.append(asset.relative_to(site).as_posix())
    for empty in sorted((site / "_downloads").glob("*/"), reverse=True) if (site / "_downloads").is_dir() else []:
        if empty.is_dir() and not any(empty.iterdir()):
            empty.rmdir()
    manifest.unlink()
    return removed


def setup(app):
    app.connect("html-page-context", _seen)
    app.connect("build-finished", _write)
