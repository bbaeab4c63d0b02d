"""`make test` runs each ``xdist_group`` on one process (tests/xdist_groups.py)."""

import os
import subprocess
import sys
import textwrap

from conftest import ROOT

GROUPED = '''
import os
import pytest

@pytest.fixture(scope="module")
def costly(tmp_path_factory):
    with open(os.environ["SETUPS"], "a") as fh:
        fh.write("setup\\n")

def test_before():
    pass

@pytest.mark.xdist_group("g")
@pytest.mark.parametrize("n", range(12))
def test_grouped(costly, n):
    with open(os.environ["RAN"], "a") as fh:
        fh.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")

def test_after():
    pass
'''
OTHER = '''
import pytest

@pytest.mark.parametrize("n", range(12))
def test_other(n):
    pass
'''


def test_xdist_groups_stay_on_one_process(tmp_path):
    """A group's tests, interleaved with others, run on one process under `--dist
    loadgroup` (how `make test` distributes them), and its module fixture is set up once."""
    (tmp_path / "test_a.py").write_text(textwrap.dedent(GROUPED))
    for name in "bcd":
        (tmp_path / f"test_{name}.py").write_text(textwrap.dedent(OTHER))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]),
        "SETUPS": str(tmp_path / "setups"),
        "RAN": str(tmp_path / "ran"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist_groups",
         "-n", "2", "--dist", "loadgroup", "-c", os.devnull, "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "50 passed" in proc.stdout, proc.stdout
    workers = (tmp_path / "ran").read_text().split()
    assert len(workers) == 12 and len(set(workers)) == 1, workers
    assert (tmp_path / "setups").read_text() == "setup\n"
