"""The drift simulation itself: each patch changes what it says, and the gate names the page."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from gradcut.tools.drift.gate import HOOK
from gradcut.tools.drift.patches import PATCHES

# The doctest step of the Makefile, less the folders (the test project has docs/ only).
DOCTEST = "-q -p no:cacheprovider --doctest-plus --doctest-only --doctest-glob='*.md' " \
    "--doctest-continue-on-failure --tb=no --ignore=docs/examples"


def run_probe(patch: str | None, code: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(HOOK), PYTHONDONTWRITEBYTECODE="1")
    env.pop("GRADCUT_DRIFT", None)
    if patch:
        env["GRADCUT_DRIFT"] = patch
    proc = subprocess.run(
        [sys.executable, "-c", "import torch\n" + code],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


# Runs (after ``import torch``) each patch's probe twice, each time in a child forked
# from this process: on the real torch, then with the patch applied as the hook applies
# it (``apply`` on the freshly imported torch). One import of torch for all, not one for
# each patch; the hook itself is checked by test_the_hook_applies_the_patch_it_is_given.
PROBE_ALL = """
import json, os, sys, traceback
from gradcut.tools.drift.patches import PATCHES, apply

def probe(name, patched):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.dup2(write, 1)
        sys.stdout = os.fdopen(1, "w", closefd=False)
        try:
            if patched:
                apply(name)
            exec(PATCHES[name].probe, {"torch": torch})
            sys.stdout.flush()
        except BaseException:
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as fh:
        out = fh.read().strip()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"the probe of {name} failed ({'patched' if patched else 'on the real torch'})")
    return out

print(json.dumps({name: [probe(name, False), probe(name, True)] for name in sorted(PATCHES)}))
"""


@pytest.fixture(scope="module")
def probes() -> dict[str, tuple[str, str]]:
    """(output on the real torch, output under the patch) of every patch's probe.

    One process, with the hook on PYTHONPATH and no patch chosen (the hook must then
    change nothing), runs every probe in a child of its own, unpatched and patched.
    """
    return {name: tuple(outputs) for name, outputs in json.loads(run_probe(None, PROBE_ALL)).items()}


def test_enough_distinct_patches():
    assert len(PATCHES) >= 12
    for patch in PATCHES.values():
        assert patch.before != patch.after, patch.name
        assert re.fullmatch(r"[a-z_-]+", patch.name), patch.name


@pytest.mark.xdist_group("drift_probes")  # one process runs the probes once for all
@pytest.mark.parametrize("name", sorted(PATCHES))
def test_patch_changes_the_behaviour_it_names(probes, name):
    real, drifted = probes[name]
    assert real == PATCHES[name].before, "the probe does not show today's torch"
    assert drifted == PATCHES[name].after, "the patch does not change what it says"


def test_the_hook_applies_the_patch_it_is_given():
    """GRADCUT_DRIFT names the patch that the hook applies at ``import torch`` (the way
    every process of the gate gets it)."""
    patch = PATCHES["detach-copies"]
    assert run_probe(None, patch.probe) == patch.before
    assert run_probe(patch.name, patch.probe) == patch.after


def test_unknown_patch_is_an_error():
    env = dict(os.environ, PYTHONPATH=str(HOOK), GRADCUT_DRIFT="no-such-patch")
    proc = subprocess.run(
        [sys.executable, "-c", "import torch"], env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode != 0
    assert "no such patch" in proc.stderr


@pytest.fixture
def project(tmp_path):
    """A copy of tests/roots/drift-project: a page, a reference table, a gallery example."""
    target = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "roots" / "drift-project", target)
    return target


def drift(project, *args):
    cmd = [sys.executable, "-m", "gradcut.tools.drift", "--root", str(project),
           "--out", str(project / "out"), "--doctest", f"{DOCTEST} docs", "-j", "2", *args]  # fmt: skip
    return subprocess.run(cmd, cwd=project, capture_output=True, text=True, timeout=600, check=False)


def test_gate_names_the_page_and_line_of_each_broken_claim(project):
    proc = drift(
        project,
        "--patch", "numpy-error-reworded",
        "--patch", "no-grad-fn-error-reworded",
        "--patch", "print-precision",
        "--patch", "data-tracked",
    )  # fmt: skip
    out = proc.stdout
    # 3 doctest examples, 1 gallery example, the 12 rows of a sweep table and its header
    assert "real torch: the gate passes (17 claims)" in out, out + proc.stderr
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    # A page's doctest, a gallery example: each at the line of the claim.
    assert "killed by docs/page.md:8 " in lines["numpy-error-reworded"]
    assert "killed by gallery/plot_00_backward.py:14 " in lines["no-grad-fn-error-reworded"]
    # Nothing in the project shows a printed float: a hole, reported as such.
    assert lines["print-precision"].split()[-1] == "SURVIVED"
    # A sweep table's row, at its line.
    assert "killed by docs/table.md:8 " in lines["data-tracked"]
    assert "killed 3/4" in out
    assert proc.returncode == 1

    report = (project / "out" / "report.txt").read_text(encoding="utf-8")
    assert (
        "docs/page.md:8: the page claims\n"
        ">>> a.numpy()\n"
        "  expected:\n"
        "    RuntimeError: Can't call numpy() on Tensor that requires grad. "
        "Use tensor.detach().numpy() instead.\n"
        "  got:\n"
        "    RuntimeError: Cannot call numpy() on a Tensor that requires grad: "
        "call tensor.detach().numpy() instead.\n"
    ) in report
    assert "gallery/plot_00_backward.py (page examples/plot_00_backward):14" in report
    assert "element 0 of the outputs does not require grad and has no grad_fn" in report
    assert ">>> print(torch.tensor([1 / 3]))\n    tensor([0.3333])" in report
    assert (
        "docs/table.md:8: the table claims\n"
        "    | `y.data` | no |\n"
        "  expected:\n"
        "    torch agrees with every cell\n"
        "  got:\n"
        "    y.data / Shares version counter: the table says 'no', torch"
    ) in report


def test_all_killed_exits_zero(project):
    proc = drift(project, "--patch", "numpy-error-reworded")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "killed 1/1" in proc.stdout


def test_gate_that_fails_on_the_real_torch_measures_nothing(project):
    page = project / "docs" / "page.md"
    page.write_text(page.read_text().replace("instead.", "at once."), encoding="utf-8")
    proc = drift(project, "--patch", "detach-copies")
    assert proc.returncode == 2
    assert "fails on the real torch already" in proc.stderr
    assert "docs/page.md:8" in proc.stderr
    assert "detach-copies" not in proc.stdout


def test_make_drift_runs_the_doctest_step_of_make_doctest():
    """The gate must verify the very claims the build does: same pytest arguments."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}

    def recipe(target):
        proc = subprocess.run(
            ["make", "-n", "-B", target], cwd=ROOT, env=env, capture_output=True, text=True, check=True
        )
        return proc.stdout.replace("\\\n", " ")  # one line per command

    # What only the build's own run writes: its results (gradcut.tools.build.doctests adds the others).
    args = re.search(r'gradcut\.tools\.build\.doctests .*--doctest "([^"]*)"', recipe("doctest")).group(1)
    args = re.sub(r"--gradcut-(results|report)=\S+", "", args)
    given = re.search(r'--doctest "([^"]*)"', recipe("drift")).group(1)
    assert shlex.split(given) == shlex.split(args)
