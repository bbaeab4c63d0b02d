"""`make … TORCH=latest`: the newest torch release pip finds, as configured, uncapped.

Each case gives pip a configuration of its own (no config file, no index, a folder of
stand-in torch wheels as find-links, maybe a constraint) and reads, from a dry run of make,
which venv and build folder `latest` became. A constraint file that caps torch (as a
machine-wide one may) does not hide the newest release: `latest` means the newest.
"""

import fnmatch
import os
import re
import subprocess
import zipfile

import yaml

from conftest import ROOT


def fake_torch_wheel(folder, version):
    """A wheel that pip resolves as torch ``version`` (it holds nothing else)."""
    dist_info = f"torch-{version}.dist-info"
    path = folder / f"torch-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as whl:
        whl.writestr(f"{dist_info}/METADATA", f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
        whl.writestr(
            f"{dist_info}/WHEEL",
            "Wheel-Version: 1.0\nGenerator: gradcut-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        whl.writestr(f"{dist_info}/RECORD", "")
    return path


def dry_run(tmp_path, wheels, constraint=None):
    """``make -n venv doctest TORCH=latest`` in an empty project, pip configured by env."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("requirements.txt", "pyproject.toml"):
        (project / name).write_text("")
    links = tmp_path / "wheels"
    links.mkdir()
    for version in wheels:
        fake_torch_wheel(links, version)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "MAKE"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(links))
    if constraint:
        (tmp_path / "constraints.txt").write_text(constraint + "\n")
        env["PIP_CONSTRAINT"] = str(tmp_path / "constraints.txt")
    return subprocess.run(
        ["make", "-n", "-f", str(ROOT / "Makefile"), "venv", "doctest", "TORCH=latest"],
        cwd=project, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_latest_is_the_newest_release(tmp_path):
    result = dry_run(tmp_path, ["2.14.1", "2.15.0", "2.9.0"])
    assert result.returncode == 0, result.stderr
    assert "TORCH=latest is torch 2.15.0" in result.stdout
    assert "-m venv .venv-torch-2.15.0\n" in result.stdout
    assert "torch==2.15.0/" in result.stdout  # the pin in the requirements it installs
    assert "_build/torch-2.15.0/drift-report.md" in result.stdout


def test_latest_is_not_capped_by_a_constraint_file(tmp_path):
    result = dry_run(tmp_path, ["2.14.1", "2.15.0"], constraint="torch<=2.14.1")
    assert result.returncode == 0, result.stderr
    assert "-m venv .venv-torch-2.15.0\n" in result.stdout
    # ... nor is the install of that release
    install = next(line for line in result.stdout.splitlines() if "pip install" in line)
    assert install.startswith("PIP_CONSTRAINT=/dev/null "), install


def test_latest_skips_pre_releases(tmp_path):
    result = dry_run(tmp_path, ["2.14.1", "2.15.0rc1"])
    assert result.returncode == 0, result.stderr
    assert "-m venv .venv-torch-2.14.1\n" in result.stdout


def test_no_torch_to_be_found_stops_make(tmp_path):
    result = dry_run(tmp_path, [])
    assert result.returncode != 0
    assert "TORCH=latest: pip resolved no torch" in result.stderr
    assert ".venv-torch-" not in result.stdout


def test_the_weekly_workflow_finds_the_report_make_writes(tmp_path):
    result = dry_run(tmp_path, ["2.15.0"])
    (written,) = re.findall(r"--gradcut-report=(\S+)", result.stdout)
    workflow = yaml.safe_load((ROOT / ".github/workflows/torch-latest.yml").read_text())
    (shown,) = [
        word
        for step in workflow["jobs"]["gate"]["steps"]
        for word in step.get("run", "").split()
        if word.endswith("drift-report.md")
    ]
    assert fnmatch.fnmatch(written, shown), (written, shown)
