"""Files a build keeps between builds, one version at a time (the cut-down icon font,
the Chinese search's dictionary)."""

import os
from pathlib import Path


def keep(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (``<name>-<key><suffix>``) in one step, after removing
    the other versions of it (the same name and suffix, another key)."""
    name = path.name.removesuffix(path.suffix).rsplit("-", 1)[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    for old in path.parent.glob(f"{name}-*{path.suffix}"):
        old.unlink(missing_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
