"""sphinx-gallery's side of the site: figures, a clean slate per example, and the cache.

sphinx-gallery re-runs an example only when the example's own file changes (its ``.md5``
next to the generated page). That misses the two other things an example's output depends
on: the torch that runs it and the helpers of this package it imports. Before
sphinx-gallery looks at its cache, :func:`invalidate_stale_examples` compares a key of
those (kept in ``<example>.py.deps``) and removes the ``.md5`` of each example whose key
moved, so exactly those examples run again.

Two more holes of an incremental build are closed here:

- sphinx-gallery copies an example's figures when Sphinx writes its page, and Sphinx
  writes only the pages it re-reads. An example that re-runs and prints the same text
  keeps its page source byte for byte, so its new figures would never reach the site:
  every language re-reads the page of each example that ran since it last read it (and
  the gallery's index, for the thumbnails) (:func:`_reread_reruns`).
- :func:`prepare_reruns`: sphinx-gallery looks for a thumbnail as ``.png`` before ``.svg``: the placeholder
  ``.png`` of an example that had no figure would hide the figure it draws now. The
  figures and thumbnails of an example that re-runs are removed before it does, and so
  are the generated files of an example that no longer exists.

What the reader downloads is the example without the build's own checks: the blocks
between ``# sphinx_gallery_start_ignore`` and ``# sphinx_gallery_end_ignore`` run when
the site is built and are left out of the rendered code and of the notebook by
sphinx-gallery, but its ``.py`` download (and the ``.py`` in the ``.zip``) is a plain
copy of the source. :func:`_strip_downloads` rewrites those two files in the built site,
never in the source tree, where sphinx-gallery's copy of the example is the key of its
execution cache (:func:`downloadable`).
"""

import ast
import contextlib
import functools
import gc
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import random
import sys
import warnings
import zipfile
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

PACKAGE = "gradcut"
# Distributions whose version changes what an example prints.
RUNTIME = ("torch", "numpy", "matplotlib")
# The variable that holds the pipe on which a language's build says that the gallery has
# run (gradcut.tools.build: the next language then starts).
GALLERY_FD = "GRADCUT_GALLERY_DONE_FD"


def svg_scraper(block, block_vars, gallery_conf):
    """Save figures as SVG: sharp at any zoom and a fraction of a PNG's weight."""
    from sphinx_gallery.scrapers import matplotlib_scraper

    return matplotlib_scraper(
        block, block_vars, gallery_conf, format="svg", metadata={"Date": None}
    )


def reset_state(gallery_conf, fname):
    """Give every example the same fresh process state, whatever ran before it."""
    import matplotlib
    import numpy as np
    import torch

    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.autograd.set_detect_anomaly(False)
    warnings.resetwarnings()
    warnings.simplefilter("default")
    # Text stays text (light, searchable, selectable); ids and metadata stay the same
    # from one build to the next.
    matplotlib.rcParams.update(
        {"svg.fonttype": "none", "svg.hashsalt": "gradcut", "figure.dpi": 100}
    )


# -- execution cache ----------------------------------------------------------


def _module_file(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _imports(source: str, module: str = "") -> set[str]:
    """Names of the package's modules that ``source`` imports (not transitively)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import inside the package
                parent = module.rsplit(".", node.level)[0]
                base = f"{parent}.{base}" if base else parent
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name == PACKAGE or name.startswith(PACKAGE + "."):
                found.add(name)
    return found


def helper_files(source: str) -> dict[str, Path]:
    """The package's source files that ``source`` imports, directly or not."""
    files: dict[str, Path] = {}
    todo = sorted(_imports(source))
    while todo:
        name = todo.pop()
        # importing a.b.c runs a/__init__.py and a/b/__init__.py too
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            prefix = ".".join(parts[:i])
            if prefix in files:
                continue
            path = _module_file(prefix)
            if path is None:
                continue
            files[prefix] = path
            stat = path.stat()
            todo.extend(_file_imports(path, stat.st_mtime_ns, stat.st_size, prefix))
    return files


@functools.cache
def _file_imports(path: Path, mtime_ns: int, size: int, module: str) -> frozenset[str]:
    """:func:`_imports` of a helper module, parsed once per version of the file (every
    example that imports it asks again)."""
    return frozenset(_imports(path.read_text(encoding="utf-8"), module))


def runtime() -> dict[str, str]:
    """The versions of what the examples run on."""
    return {name: importlib.metadata.version(name) for name in RUNTIME}


def cache_key(example: Path, versions: dict[str, str] | None = None) -> dict:
    """What an example's output depends on besides its own text (``versions``: those
    of :func:`runtime`, when the caller has them already).

    An example that does not parse has no helpers to name: sphinx-gallery runs it and
    reports the syntax error with its file and line.
    """
    source = example.read_text(encoding="utf-8")
    try:
        helpers = helper_files(source)
    except SyntaxError:
        helpers = {}
    return {
        "python": sys.version.split()[0],
        "runtime": versions if versions is not None else runtime(),
        "helpers": {
            name: hashlib.sha256(path.read_bytes()).hexdigest()
            for name, path in sorted(helpers.items())
        },
    }


def invalidate_stale_examples(examples_dir: Path, gallery_dir: Path) -> list[str]:
    """Drop the ``.md5`` of each example whose key changed; return their names."""
    stale = []
    versions = runtime()
    for example in sorted(examples_dir.rglob("*.py")):
        rel = example.relative_to(examples_dir)
        target = gallery_dir / rel
        deps = target.with_name(target.name + ".deps")
        key = json.dumps(cache_key(example, versions), sort_keys=True, indent=1)
        if deps.exists() and deps.read_text(encoding="utf-8") == key:
            continue
        md5 = target.with_name(target.name + ".md5")
        if md5.exists():
            md5.unlink()
            stale.append(rel.as_posix())
        deps.parent.mkdir(parents=True, exist_ok=True)
        deps.write_text(key, encoding="utf-8")
    return stale


def _generated(gallery_dir: Path, stem: str) -> list[Path]:
    """The files sphinx-gallery generated for the example ``stem``."""
    return [
        *(p for p in gallery_dir.glob(f"{stem}.*") if p.is_file()),
        *gallery_dir.glob(f"images/sphx_glr_{stem}_[0-9][0-9][0-9]*.*"),
        *gallery_dir.glob(f"images/thumb/sphx_glr_{stem}_thumb.*"),
    ]


def remove_orphans(examples_dir: Path, gallery_dir: Path) -> list[str]:
    """Delete every generated file of an example that no longer exists; return them.

    sphinx-gallery never removes the page of a deleted or renamed example; left behind,
    it is a page in no toctree (a failed build) or worse, a stale page on the site.
    """
    sources = {p.relative_to(examples_dir).with_suffix("").as_posix()
               for p in examples_dir.rglob("*.py")}  # fmt: skip
    removed = []
    for generated in sorted(gallery_dir.rglob("*.py")):
        rel = generated.relative_to(gallery_dir).with_suffix("").as_posix()
        if rel not in sources:
            for path in _generated(generated.parent, generated.stem):
                path.unlink()
            removed.append(rel)
    return removed


def prepare_reruns(examples_dir: Path, gallery_dir: Path) -> list[str]:
    """Clear the way for the examples sphinx-gallery is about to run; return them.

    Removes the figures and thumbnails of each example that will run (its text changed
    or its ``.md5`` was dropped).
    """
    from sphinx_gallery.utils import get_md5sum

    rerun = []
    for source in sorted(examples_dir.rglob("*.py")):
        rel = source.relative_to(examples_dir).with_suffix("").as_posix()
        md5 = gallery_dir / f"{rel}.py.md5"
        if md5.exists() and md5.read_text() == get_md5sum(source, mode="t"):
            continue
        target = (gallery_dir / rel).parent
        for path in _generated(target, Path(rel).name):
            if "images" in path.relative_to(target).parts:
                path.unlink()
        rerun.append(rel)
    return rerun


def _gallery_dirs(app):
    conf = app.config.sphinx_gallery_conf
    examples, galleries = conf["examples_dirs"], conf["gallery_dirs"]
    if isinstance(examples, str):
        examples, galleries = [examples], [galleries]
    return [
        (Path(app.srcdir, src).resolve(), Path(app.srcdir, dst).resolve(), dst)
        for src, dst in zip(examples, galleries, strict=True)
    ]


def _invalidate(app):
    executing = str(app.config.plot_gallery).lower() not in ("false", "0")
    for src, dst, _ in _gallery_dirs(app):
        for name in remove_orphans(src, dst):
            logger.info("gallery: removed the generated files of %s (no such example)", name)
        if not executing:
            continue
        stale = invalidate_stale_examples(src, dst)
        for name in stale:
            logger.info("gallery: %s re-runs (torch or an imported helper changed)", name)
        prepare_reruns(src, dst)


def run_stamps(app) -> dict[str, int]:
    """For each example's page, when the example last ran (its ``.md5``'s mtime)."""
    stamps = {}
    for _, dst, docdir in _gallery_dirs(app):
        for md5 in dst.rglob("*.py.md5"):
            rel = md5.relative_to(dst).as_posix().removesuffix(".py.md5")
            stamps[f"{docdir}/{rel}"] = md5.stat().st_mtime_ns
    return stamps


def _reread_reruns(app, env, added, changed, removed):
    """Pages of examples that ran again since this language last read them, whatever
    Sphinx thinks of their sources: an example that prints the same text keeps its page
    byte for byte, but its figures are new. The first language to build runs the
    examples; the others notice the runs here, by the stamps their environment keeps."""
    stamps = run_stamps(app)
    seen = getattr(env, "gradcut_run_stamps", {})
    env.gradcut_run_stamps = stamps
    reruns = {doc for doc, stamp in stamps.items() if seen.get(doc) != stamp}
    if reruns:
        reruns |= {f"{docdir}/index" for _, _, docdir in _gallery_dirs(app)}
    return sorted(doc for doc in reruns if doc in env.found_docs and doc not in added | changed)


# -- downloads ----------------------------------------------------------------


def downloadable(source: str) -> str:
    r"""The example as a reader downloads it: without the ignore blocks (the checks and
    figures only the build runs) and without sphinx-gallery's configuration comments,
    exactly as the rendered code and the notebook leave them out.

    >>> print(downloadable(
    ...     "x = 1\n"
    ...     "# sphinx_gallery_start_ignore\n"
    ...     "assert x == 1\n"
    ...     "# sphinx_gallery_end_ignore\n"
    ...     "try:\n"
    ...     "    1 / 0\n"
    ...     "    # sphinx_gallery_start_ignore\n"
    ...     "    raise AssertionError\n"
    ...     "    # sphinx_gallery_end_ignore\n"
    ...     "except ZeroDivisionError as err:\n"
    ...     "    print(err)\n"
    ...     "# sphinx_gallery_thumbnail_number = 2\n"
    ... ), end="")
    x = 1
    try:
        1 / 0
    except ZeroDivisionError as err:
        print(err)
    """
    from sphinx_gallery.py_source_parser import remove_config_comments, remove_ignore_blocks

    return remove_config_comments(remove_ignore_blocks(source))


# Fixed: the same example gives the same archive, whenever it is built.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _strip_downloads(app, exception):
    """Rewrite each example's ``.py`` download, and the ``.py`` in its ``.zip``, in the
    built site (Sphinx copies the downloads on every build, so this runs on every build)."""
    if exception is not None or app.builder.format != "html":
        return
    downloads = Path(app.outdir, "_downloads")
    galleries = [dst for _, dst, _ in _gallery_dirs(app)]
    for src, (_, dest) in app.env.dlfiles.items():
        path = Path(app.srcdir, src).resolve()
        if not any(path.is_relative_to(dst) for dst in galleries):
            continue
        target = downloads / dest
        if path.suffix == ".py":
            target.write_text(downloadable(path.read_text(encoding="utf-8")), encoding="utf-8")
        elif path.suffix == ".zip":
            with zipfile.ZipFile(path) as old:
                members = [(info.filename, old.read(info)) for info in old.infolist()]
            tmp = target.with_name(target.name + ".new")
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as new:
                for name, data in members:
                    if name.endswith(".py"):
                        data = downloadable(data.decode("utf-8")).encode("utf-8")
                    new.writestr(zipfile.ZipInfo(name, _ZIP_TIME), data, zipfile.ZIP_DEFLATED)
            tmp.replace(target)


def _freeze_heap(app):
    """sphinx-gallery calls ``gc.collect()`` before each example it runs; in a Sphinx
    process a full collection walks every object of the environment and the extensions
    (a fifth of a second here), which was most of the gallery's cost over running its
    code. Frozen, the objects that exist before the gallery runs are left out of those
    collections; the examples' own garbage is still collected."""
    gc.freeze()


def _unfreeze_heap(app):
    gc.unfreeze()


_WARNING_FILTERS: dict[int, warnings.catch_warnings] = {}


def _keep_warning_filters(app):
    """:func:`reset_state` gives each example Python's default warning filters (what a
    reader running it sees); the rest of the build keeps the filters it had. Left as the
    last example set them, the build printed every pending deprecation of the
    extensions it runs (myst-parser's RemovedInSphinx11Warning)."""
    keep = warnings.catch_warnings()
    keep.__enter__()
    _WARNING_FILTERS[id(app)] = keep


def _restore_warning_filters(app):
    keep = _WARNING_FILTERS.pop(id(app), None)
    if keep is not None:
        keep.__exit__(None, None, None)


def _forget_failed_runs(app):
    """An example that failed runs again at the next build, whatever its source then is.
    sphinx-gallery keeps the ``.md5`` of the example's last good run when a run fails,
    but writes the failure's page: an example put back as it was would match that
    ``.md5`` and keep the failure's page."""
    failing = app.config.sphinx_gallery_conf.get("failing_examples", {})
    for src_file in failing:
        path = Path(src_file).resolve()
        for src, dst, _ in _gallery_dirs(app):
            if path.is_relative_to(src):
                md5 = dst / path.relative_to(src).with_name(path.name + ".md5")
                md5.unlink(missing_ok=True)


def _say_gallery_done(app):
    """Tell the build (gradcut.tools.build) that the gallery has run: the next language may
    start beside this one, the pages of the examples being written."""
    fd = os.environ.pop(GALLERY_FD, None)
    if fd is not None:
        with contextlib.suppress(OSError):
            os.write(int(fd), b"1")
            os.close(int(fd))


def setup(app):
    # Before sphinx-gallery reads its cache and generates the pages (priority 500).
    app.connect("builder-inited", _invalidate, priority=400)
    app.connect("builder-inited", _freeze_heap, priority=450)
    app.connect("builder-inited", _keep_warning_filters, priority=450)
    app.connect("builder-inited", _unfreeze_heap, priority=550)
    app.connect("builder-inited", _restore_warning_filters, priority=550)
    app.connect("builder-inited", _forget_failed_runs, priority=800)
    app.connect("builder-inited", _say_gallery_done, priority=900)
    app.connect("env-get-outdated", _reread_reruns)
    app.connect("build-finished", _strip_downloads)
