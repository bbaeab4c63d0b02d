"""sphinx-gallery's side of the site: figures, a clean slate per example, and the cache.

sphinx-gallery re-runs an example only when the example's own file changes (its ``.md5``
next to the generated page). That misses the two other things an example's output depends
on: the torch that runs it and the helpers of this package it imports. Before
sphinx-gallery looks at its cache, :func:`invalidate_stale_examples` compares a key of
those (kept in ``<example>.py.deps``) and removes the ``.md5`` of each example whose key
moved, so exactly those examples run again.
"""

import ast
import hashlib
import importlib.metadata
import importlib.util
import json
import random
import sys
import warnings
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

PACKAGE = "gradcut"
# Distributions whose version changes what an example prints.
RUNTIME = ("torch", "numpy", "matplotlib")


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


def _imports(source: str, module: str = "", filename: str = "<unknown>") -> set[str]:
    """Names of the package's modules that ``source`` imports (not transitively)."""
    found = set()
    for node in ast.walk(ast.parse(source, filename=filename)):
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


def helper_files(source: str, filename: str = "<unknown>") -> dict[str, Path]:
    """The package's source files that ``source`` imports, directly or not."""
    files: dict[str, Path] = {}
    todo = sorted(_imports(source, filename=filename))
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
            todo.extend(_imports(path.read_text(encoding="utf-8"), prefix, str(path)))
    return files


def cache_key(example: Path) -> dict:
    """What an example's output depends on besides its own text."""
    source = example.read_text(encoding="utf-8")
    return {
        "python": sys.version.split()[0],
        "runtime": {name: importlib.metadata.version(name) for name in RUNTIME},
        "helpers": {
            name: hashlib.sha256(path.read_bytes()).hexdigest()
            for name, path in sorted(helper_files(source, str(example)).items())
        },
    }


def invalidate_stale_examples(examples_dir: Path, gallery_dir: Path) -> list[str]:
    """Drop the ``.md5`` of each example whose key changed; return their names."""
    stale = []
    for example in sorted(examples_dir.rglob("*.py")):
        rel = example.relative_to(examples_dir)
        target = gallery_dir / rel
        deps = target.with_name(target.name + ".deps")
        try:
            key = json.dumps(cache_key(example), sort_keys=True, indent=1)
        except SyntaxError:
            # sphinx-gallery reports it, naming the file and line; the example must run
            # (and fail) again on the next build too.
            key = ""
        if deps.exists() and deps.read_text(encoding="utf-8") == key:
            continue
        md5 = target.with_name(target.name + ".md5")
        if md5.exists():
            md5.unlink()
            stale.append(rel.as_posix())
        deps.parent.mkdir(parents=True, exist_ok=True)
        deps.write_text(key, encoding="utf-8")
    return stale


def remove_orphans(examples_dir: Path, gallery_dir: Path) -> list[str]:
    """Delete what sphinx-gallery generated for examples that no longer exist.

    sphinx-gallery never removes the page of a deleted or renamed example; left behind,
    it is a page in no toctree (a failed build) or worse, a stale page on the site.
    """
    if not gallery_dir.is_dir():
        return []
    removed = []
    for rst in sorted(gallery_dir.rglob("*.rst")):
        rel = rst.relative_to(gallery_dir).with_suffix(".py")
        if rst.name == "index.rst" or (examples_dir / rel).exists():
            continue
        stem = rst.stem
        for path in sorted(rst.parent.iterdir()):
            if path.is_file() and (path.name == stem or path.name.startswith(stem + ".")):
                path.unlink()
        for sub in ("images", "images/thumb"):
            folder = rst.parent / sub
            if folder.is_dir():
                for image in folder.glob(f"sphx_glr_{stem}_*"):
                    image.unlink()
        removed.append(rel.as_posix())
    return removed


def _invalidate(app):
    conf = app.config.sphinx_gallery_conf
    executing = str(app.config.plot_gallery).lower() not in ("false", "0")
    examples = conf["examples_dirs"]
    galleries = conf["gallery_dirs"]
    if isinstance(examples, str):
        examples, galleries = [examples], [galleries]
    for src, dst in zip(examples, galleries, strict=True):
        src_dir, dst_dir = Path(app.srcdir, src).resolve(), Path(app.srcdir, dst).resolve()
        for name in remove_orphans(src_dir, dst_dir):
            logger.info("gallery: removed the generated page of %s (no such example)", name)
        if not executing:
            continue
        stale = invalidate_stale_examples(src_dir, dst_dir)
        for name in stale:
            logger.info("gallery: %s re-runs (torch or an imported helper changed)", name)


def setup(app):
    # Before sphinx-gallery reads its cache and generates the pages (priority 500).
    app.connect("builder-inited", _invalidate, priority=400)
