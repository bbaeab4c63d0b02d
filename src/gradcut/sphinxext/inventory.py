"""An intersphinx inventory of torch, written from the installed torch.

The build never fetches anything, yet the pages cross-reference torch's API with
nitpicky checking on. So the inventory intersphinx reads for ``torch`` is generated here,
from the torch that builds the site: a reference to a name that this torch does not have
(or does not document) stays unresolved and fails the build.
"""

import importlib
import importlib.metadata
import inspect
import zlib
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

# Bump when the inventory written for the same torch changes (it is kept per torch and
# schema, see inventory_path).
SCHEMA = 2

# (module, page of the module in torch's docs)
MODULES = {
    "torch": "torch.html",
    "torch.autograd": "autograd.html",
    "torch.autograd.graph": "autograd.html",
    "torch.nn": "nn.html",
    "torch.nn.functional": "nn.functional.html",
    "torch.nn.init": "nn.init.html",
    "torch.nn.utils": "nn.html",
    "torch.optim": "optim.html",
}
# Classes whose members torch documents one page per member.
MEMBER_PAGES = {"torch.Tensor", "torch.optim.Optimizer"}
# Classes whose members torch documents on the class's own page.
MEMBERS_ON_CLASS_PAGE = {
    "torch.nn.Module",
    "torch.nn.Parameter",
    "torch.autograd.Function",
    "torch.autograd.graph.Node",
    "torch.autograd.set_detect_anomaly",
    "torch.autograd.detect_anomaly",
}


def docs_url(torch_version: str) -> str:
    major, minor = torch_version.split(".")[:2]
    return f"https://docs.pytorch.org/docs/{major}.{minor}/"


def _documented(obj) -> bool:
    doc = getattr(obj, "__doc__", None)
    return isinstance(doc, str) and bool(doc.strip())


def _public(name: str) -> bool:
    return not name.startswith("_")


def torch_objects():
    """Yield ``(name, objtype, uri)`` for each documented public object of interest."""
    import torch  # noqa: F401  (imported for its side effect of loading submodules)

    yield "torch.Tensor", "class", "tensors.html#torch.Tensor"
    for modname, page in MODULES.items():
        module = importlib.import_module(modname)
        yield modname, "module", f"{page}#module-{modname}"
        for name in sorted(dir(module)):
            if not _public(name):
                continue
            obj = getattr(module, name)
            full = f"{modname}.{name}"
            if inspect.ismodule(obj) or not _documented(obj):
                continue
            if inspect.isclass(obj):
                yield full, "class", f"generated/{full}.html#{full}"
            elif callable(obj):
                yield full, "function", f"generated/{full}.html#{full}"
    for clsname in sorted(MEMBER_PAGES | MEMBERS_ON_CLASS_PAGE):
        modname, _, attr = clsname.rpartition(".")
        cls = getattr(importlib.import_module(modname), attr)
        for name in sorted(vars(cls) if clsname != "torch.Tensor" else dir(cls)):
            if not _public(name):
                continue
            member = inspect.getattr_static(cls, name, None)
            if not _documented(member):
                continue
            full = f"{clsname}.{name}"
            page = (
                f"generated/{full}.html#{full}"
                if clsname in MEMBER_PAGES
                else f"generated/{clsname}.html#{full}"
            )
            kind = "method" if callable(member) else "attribute"
            yield full, kind, page


def docs_version(torch_version: str) -> str:
    """``2.13.0+cpu`` -> ``2.13``: the version of torch's docs the links go to."""
    return ".".join(torch_version.split(".")[:2])


def _header(version: str) -> bytes:
    # Project and version make the tooltip of every link to torch's docs:
    # "(in PyTorch v2.13)", "（PyTorch v2.13 文档）".
    return (
        "# Sphinx inventory version 2\n"
        "# Project: PyTorch\n"
        f"# Version: {docs_version(version)}\n"
        "# The remainder of this file is compressed using zlib.\n"
    ).encode()


def inventory_path(cache_dir: Path, version: str) -> Path:
    """Where the inventory for this torch is kept: a new torch, or a new
    :data:`SCHEMA`, is a new file."""
    return cache_dir / f"torch-objects-{version}-{SCHEMA}.inv"


def write_inventory(path: Path, version: str) -> bool:
    """Write the inventory to ``path`` unless it is there already
    (:func:`inventory_path` names it after the torch and the schema).

    Return whether it was written. Skipping keeps ``import torch`` out of builds that
    execute nothing.
    """
    header = _header(version)
    if path.exists() and path.read_bytes().startswith(header):
        return False
    lines = sorted(
        {f"{name} py:{kind} 1 {uri} -" for name, kind, uri in torch_objects()}
    )
    data = header + zlib.compress(("\n".join(lines) + "\n").encode())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def _configure(app, config):
    version = importlib.metadata.version("torch")
    path = inventory_path(Path(app.doctreedir).parent, version)
    write_inventory(path, version)
    config.intersphinx_mapping["torch"] = (docs_url(version), str(path))


def setup(app):
    # Before intersphinx validates the mapping (config-inited, priority 800).
    app.connect("config-inited", _configure, priority=400)
