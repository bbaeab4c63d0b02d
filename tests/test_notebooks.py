"""The notebooks offered for download run top to bottom in a Jupyter kernel.

``make html`` writes one ``.ipynb`` per example into ``docs/examples/`` and offers it
on the example's page. The English one the built site offers is run here once, with
nbclient in a fresh ipykernel of this venv (its kernelspec is written to a temporary
folder: nothing is fetched, nothing in the user's Jupyter folders is used), and what it
prints (its ``stdout`` and the values its cells show) must be what the page shows.

tests/test_runnable.py runs every offered notebook too, of both languages, in a venv
with torch alone, and compares what it prints with its page. That run is plain
``exec`` of the cells, imitating how a kernel shows a cell's last value with its repr.
A reader opens a ``.ipynb`` in Jupyter, and only a kernel checks what Jupyter does:
the file read and validated by nbformat and executed by nbclient, IPython's input
transformations and its display formatter (not ``repr``), a kernel's matplotlib
backend and namespace. So each notebook runs once for each of the two questions: with
torch alone (there), in a kernel (here). The built site and its archive offer the same
bytes (tests/test_dist.py compares every file), so the kernel runs the built site's.
"""

import json
import sys

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT
from test_runnable import offered, shown

GALLERY = ROOT / "gallery"
NOTEBOOKS = ROOT / "docs" / "examples"
KERNEL = "gradcut-venv"


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    """A kernelspec for this venv's Python, and Jupyter folders of our own."""
    home = tmp_path_factory.mktemp("jupyter")
    spec = home / "data" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3 (gradcut)",
                "language": "python",
            }
        )
    )
    mp = pytest.MonkeyPatch()
    mp.setenv("JUPYTER_PATH", str(home / "data"))
    mp.setenv("JUPYTER_DATA_DIR", str(home / "data"))
    mp.setenv("JUPYTER_RUNTIME_DIR", str(home / "runtime"))
    mp.setenv("JUPYTER_CONFIG_DIR", str(home / "config"))
    mp.setenv("IPYTHONDIR", str(home / "ipython"))
    mp.setenv("JUPYTER_PLATFORM_DIRS", "1")
    yield home
    mp.undo()


def examples():
    return sorted(GALLERY.glob("*.py"))


def test_every_example_has_a_notebook(built_site):
    for example in examples():
        assert (NOTEBOOKS / f"{example.stem}.ipynb").is_file(), f"no notebook for {example.name}"


def printed(nb) -> list[str]:
    """Lines the notebook printed, without blank ones."""
    lines = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream" and output["name"] == "stdout":
                lines += output["text"].splitlines()
            elif output["output_type"] == "execute_result" and "text/plain" in output["data"]:
                lines += output["data"]["text/plain"].splitlines()
    return [line.rstrip() for line in lines if line.strip()]


@pytest.mark.slow
@pytest.mark.parametrize("example", examples(), ids=lambda p: p.stem)
def test_notebook_runs_and_prints_what_the_page_shows(
    built_site, kernel_env, tmp_path, example
):
    page = built_site / "en" / "examples" / f"{example.stem}.html"
    if not page.is_file():
        pytest.fail(f"no page for {example.name}: run `make html`")
    path = offered(page, ".ipynb")
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name=KERNEL,
        timeout=300,
        resources={"metadata": {"path": str(tmp_path)}},  # the kernel's working folder
    )
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    assert printed(nb) == shown(page)
