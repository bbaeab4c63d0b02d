"""The notebooks offered for download run top to bottom in a Jupyter kernel.

``make html`` writes one ``.ipynb`` per example into ``docs/examples/`` and offers it
on the example's page. The English one the built site offers must be a valid notebook
(nbformat's schema) and is run here once, with nbclient in an ipykernel of its own of
this venv (its kernelspec is written to a temporary folder: nothing is fetched, nothing
in the user's Jupyter folders is used), and what it prints (its ``stdout`` and the
values its cells show) must be what the page shows.

tests/test_runnable.py runs every offered notebook too, of both languages, in a venv
with torch alone, and compares what it prints with its page. That run is plain
``exec`` of the cells, imitating how a kernel shows a cell's last value with its repr.
A reader opens a ``.ipynb`` in Jupyter, and only a kernel checks what Jupyter does:
the file read by nbformat and executed by nbclient, IPython's input
transformations and its display formatter (not ``repr``), a kernel's matplotlib
backend and namespace. So each notebook runs once for each of the two questions: with
torch alone (there), in a kernel (here). The built site and its archive offer the same
bytes (tests/test_dist.py compares every file), so the kernel runs the built site's.

Each kernel is a fork of one Python that has imported ipykernel and torch
(tests/kernel_zygote.py), which saves starting a Python and importing torch per
notebook; Jupyter still starts it through a kernelspec and talks to it over its ports.
Only a notebook that imports nothing but modules before torch gets it; the tests at the
end show that a notebook that uses a name it did not import still fails in it, and
that a kernel does not see what an earlier one did.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from conftest import ROOT
from runnable_runner import preloaded_is_safe
from test_runnable import offered, shown

GALLERY = ROOT / "gallery"
NOTEBOOKS = ROOT / "docs" / "examples"
KERNEL = "gradcut-venv"
FORKED = "gradcut-venv-forked"
ZYGOTE = Path(__file__).with_name("kernel_zygote.py")


def kernelspec(home: Path, name: str, argv: list[str]) -> None:
    spec = home / "data" / "kernels" / name
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": f"Python 3 ({name})", "language": "python"})
    )


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    """Kernelspecs for this venv's Python, and Jupyter folders of our own.

    ``KERNEL`` starts ``python -m ipykernel_launcher``; ``FORKED`` forks the kernel from
    a Python that has imported ipykernel and torch (tests/kernel_zygote.py).
    """
    home = tmp_path_factory.mktemp("jupyter")
    socket_path = home / "zygote.sock"
    kernelspec(home, KERNEL, [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"])
    launch = [sys.executable, "-I", "-S", str(ZYGOTE), "launch", str(socket_path)]
    kernelspec(home, FORKED, [*launch, "-f", "{connection_file}"])
    mp = pytest.MonkeyPatch()
    mp.setenv("JUPYTER_PATH", str(home / "data"))
    mp.setenv("JUPYTER_DATA_DIR", str(home / "data"))
    mp.setenv("JUPYTER_RUNTIME_DIR", str(home / "runtime"))
    mp.setenv("JUPYTER_CONFIG_DIR", str(home / "config"))
    mp.setenv("IPYTHONDIR", str(home / "ipython"))
    mp.setenv("JUPYTER_PLATFORM_DIRS", "1")
    log = open(home / "zygote.log", "w")
    zygote = subprocess.Popen(
        [sys.executable, str(ZYGOTE), "serve", str(socket_path), "torch"],
        cwd=home, stdin=subprocess.PIPE, stdout=log, stderr=log,
    )  # fmt: skip
    waited = 0.0
    while not socket_path.exists() and zygote.poll() is None and waited < 300:
        time.sleep(0.05)
        waited += 0.05
    if not socket_path.exists():
        zygote.kill()
        pytest.fail(f"the kernel zygote did not start:\n{(home / 'zygote.log').read_text()}")
    yield home
    zygote.stdin.close()  # the zygote ends
    zygote.wait(timeout=60)
    log.close()
    mp.undo()


def kernel_for(nb) -> str:
    """The forked kernel, where importing torch in advance is what the notebook's
    first cells would do anyway; a fresh one otherwise."""
    cells = [cell.source for cell in nb.cells if cell.cell_type == "code"]
    return FORKED if preloaded_is_safe(cells) else KERNEL


def execute(nb, folder: Path):
    """Run ``nb`` in a kernel of its own; raises CellExecutionError, naming the cell,
    on any error."""
    client = NotebookClient(
        nb,
        kernel_name=kernel_for(nb),
        timeout=300,
        resources={"metadata": {"path": str(folder)}},  # the kernel's working folder
    )
    client.execute()


def examples():
    return sorted(GALLERY.glob("*.py"))


def test_every_example_has_a_notebook(built_site):
    for example in examples():
        assert (NOTEBOOKS / f"{example.stem}.ipynb").is_file(), f"no notebook for {example.name}"


def printed(nb) -> list[str]:
    """Lines the notebook printed, without blank ones."""
    lines = []
    for cell in nb.cells:
        # stdout is one stream: a kernel splits it into several outputs where stderr came
        # in between (a first Inductor compile warns mid-line), not where a line ends
        stdout = ""
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream" and output["name"] == "stdout":
                stdout += output["text"]
            elif output["output_type"] == "execute_result" and "text/plain" in output["data"]:
                lines += stdout.splitlines() + output["data"]["text/plain"].splitlines()
                stdout = ""
        lines += stdout.splitlines()
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
    nbformat.validate(nb)  # raises ValidationError, naming what is wrong
    execute(nb, tmp_path)
    assert printed(nb) == shown(page)


def notebook(*cells: str):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    return nb


@pytest.mark.slow
@pytest.mark.parametrize(
    "cells, kernel, error",
    [
        (["from torch import nn", "print(torch.ones(1))"], FORKED, "name 'torch' is not defined"),
        (["import torch", "print(np.ones(1))"], FORKED, "name 'np' is not defined"),
        (["print(torch.ones(1))"], KERNEL, "name 'torch' is not defined"),
    ],
)
def test_a_notebook_that_uses_what_it_did_not_import_fails(
    kernel_env, tmp_path, cells, kernel, error
):
    nb = notebook(*cells)
    assert kernel_for(nb) == kernel
    with pytest.raises(CellExecutionError, match=error):
        execute(nb, tmp_path)


@pytest.mark.slow
def test_a_forked_kernel_starts_from_what_a_fresh_kernel_has(kernel_env, tmp_path):
    spoil = notebook("import torch", "torch.set_default_dtype(torch.float64)\ntorch.spoiled = 1")
    check = notebook(
        "import torch",
        "assert torch.get_default_dtype() == torch.float32 and not hasattr(torch, 'spoiled')\n"
        "print(torch.rand(1).item())",
    )  # fmt: skip
    execute(spoil, tmp_path)
    execute(check, tmp_path)
    again = notebook(*(cell.source for cell in check.cells))
    execute(again, tmp_path)
    assert printed(check) != printed(again)  # seeded afresh, like a new Python
