"""The package's folders are its roles, and nothing imports upwards.

``gradcut.claims`` runs in a torch release's venv, which holds only torch, NumPy,
matplotlib, pytest, pytest-doctestplus and packaging (gradcut.tools.releases.COMPANIONS):
it imports nothing else, and nothing of the project outside itself. ``gradcut.runs`` sits
below the extension and the tools. The extension does not import the tools.
"""

import ast
import sys
from pathlib import Path

import pytest

from gradcut.tools.releases import COMPANIONS

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "gradcut"


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at its top or inside a function."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py")) if folder else [PACKAGE / "runs.py", PACKAGE / "__init__.py"]


def test_the_roots_folders_are_the_roles():
    entries = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    assert entries == {"__init__.py", "runs.py", "claims", "sphinxext", "tools"}


@pytest.mark.parametrize("path", modules("claims"), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_claims_run_with_torch_alone(path):
    allowed = {"torch", *(name.replace("-", "_") for name in COMPANIONS), "gradcut"}
    for name in imports(path):
        top = name.split(".")[0]
        assert top in allowed or top in sys.stdlib_module_names, f"{path.name} imports {name}"
        if top == "gradcut":
            assert name.startswith("gradcut.claims"), f"{path.name} imports {name}"


@pytest.mark.parametrize("path", modules(""), ids=lambda p: p.name)
def test_runs_is_below_the_extension_and_the_tools(path):
    assert not [name for name in imports(path) if name.split(".")[0] == "gradcut"]


@pytest.mark.parametrize("path", modules("sphinxext"), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_the_extension_does_not_import_the_tools(path):
    assert not [name for name in imports(path) if name.startswith("gradcut.tools")]
