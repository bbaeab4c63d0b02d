"""The GitHub workflows: valid, only glue around make targets that exist, on Python 3.11.

The schema check uses check-jsonschema's vendored copy of the workflow schema, so it runs
offline.
"""

import re
import shlex
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT

WORKFLOW_DIR = ROOT / ".github" / "workflows"
WORKFLOWS = sorted(WORKFLOW_DIR.glob("*.yml")) + sorted(WORKFLOW_DIR.glob("*.yaml"))
SUMMARY = '>> "$GITHUB_STEP_SUMMARY"'


def load(path):
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as True
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def steps(workflow):
    for job_id, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_id, step


def uses(workflow, action):
    return [step for _, step in steps(workflow) if step.get("uses", "").split("@")[0] == action]


def commands(script: str):
    """The commands of a `run:` script, one per logical line."""
    for line in script.replace("\\\n", " ").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            yield line


def check_jsonschema(*paths):
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
         *map(str, paths)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.fixture(scope="module")
def make_targets(tmp_path_factory) -> set[str]:
    # BUILD elsewhere: reading the Makefile records its source list in the build folder
    build = tmp_path_factory.mktemp("build")
    out = subprocess.run(
        ["make", "-s", "help", f"BUILD={build}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return {line.split()[0] for line in out.splitlines() if line.startswith("  ")}


def test_there_are_workflows():
    names = {path.name for path in WORKFLOWS}
    assert {"site.yml", "torch-latest.yml"} <= names


def test_workflows_match_the_schema():
    result = check_jsonschema(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_catches_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  build:\n    steps:\n      - run: make test\n")
    result = check_jsonschema(broken)
    assert result.returncode != 0 and "runs-on" in result.stdout + result.stderr


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_is_only_glue_around_make(path, make_targets):
    called = set()
    for job_id, step in steps(load(path)):
        for command in commands(step.get("run", "")):
            if command.startswith("make "):
                words = shlex.split(command)[1:]
                targets = [w for w in words if "=" not in w and not w.startswith("-")]
                assert targets, f"{job_id}: `{command}` names no target"
                called.update(targets)
            else:
                # the only other thing a workflow does: show a report as the job's summary
                assert command.endswith(SUMMARY), f"{path.name}/{job_id}: `{command}` is not a make target"
    assert called, f"{path.name} runs no make target"
    assert called <= make_targets, f"not in `make help`: {sorted(called - make_targets)}"


def test_make_help_lists_the_targets_the_workflows_need(make_targets):
    assert {"html", "test", "dist"} <= make_targets


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_job_that_runs_make_sets_up_python_311(path):
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    wanted = re.search(r"^PYTHON \?= python(3\.\d+)$", makefile, re.M).group(1)
    assert wanted == "3.11"
    for job_id, job in load(path)["jobs"].items():
        seen_python = None
        for step in job.get("steps", []):
            if step.get("uses", "").startswith("actions/setup-python@"):
                seen_python = step.get("with", {}).get("python-version")
            if "run" in step:
                assert seen_python == wanted, f"{job_id}: `{step['run']}` runs without Python {wanted}"
        assert job.get("runs-on", "").startswith("ubuntu-"), job_id


def test_site_workflow_builds_tests_and_publishes():
    wf = load(WORKFLOW_DIR / "site.yml")
    assert wf["on"]["push"]["branches"] == ["main"] and "pull_request" in wf["on"]
    runs = [step.get("run") for _, step in steps(wf)]
    assert runs.index("make html") < runs.index("make test") < runs.index("make dist")

    # pull requests: the built site as an artifact
    (artifact,) = uses(wf, "actions/upload-artifact")
    assert artifact["if"] == "github.event_name == 'pull_request'"
    assert artifact["with"]["path"].startswith("_build/dist/")

    # main: the Pages route, with the address GitHub reports passed to the build
    (pages,) = uses(wf, "actions/configure-pages")
    for _, step in steps(wf):
        if step.get("run") in {"make html", "make test"}:
            assert step["env"]["GRADCUT_SITE_URL"] == f"${{{{ steps.{pages['id']}.outputs.base_url }}}}"
    (upload,) = uses(wf, "actions/upload-pages-artifact")
    assert upload["with"]["path"] == "_build/html"
    deploy = wf["jobs"]["deploy"]
    assert deploy["needs"] == "build" and "refs/heads/main" in deploy["if"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert deploy["concurrency"]["cancel-in-progress"] is False
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
    assert wf["permissions"] == {"contents": "read"}


def test_torch_latest_workflow_reports_drift():
    wf = load(WORKFLOW_DIR / "torch-latest.yml")
    assert "workflow_dispatch" in wf["on"] and wf["on"]["schedule"][0]["cron"]
    assert [step["run"] for _, step in steps(wf) if "make" in step.get("run", "")] == ["make test TORCH=latest"]
    (report,) = [step for _, step in steps(wf) if SUMMARY in step.get("run", "")]
    # the report is shown when the gate fails, which is when it matters
    assert "always()" in report["if"] or "!cancelled()" in report["if"]
    assert "drift-report.md" in report["run"]


def test_torch_releases_workflow_runs_every_release_and_proposes_the_results():
    from gradcut.runs import RELEASES

    wf = load(WORKFLOW_DIR / "torch-releases.yml")
    assert "workflow_dispatch" in wf["on"] and wf["on"]["schedule"][0]["cron"]
    assert wf["permissions"] == {"contents": "read"}
    release = wf["jobs"]["release"]
    # one job per release, the same releases as `make torch-runs`
    assert release["strategy"]["matrix"]["torch"] == list(RELEASES)
    assert release["strategy"]["fail-fast"] is False
    (run,) = [step for step in release["steps"] if "make" in step.get("run", "")]
    assert run["run"] == 'make torch-runs TORCH="$TORCH"' and run["env"]["TORCH"] == "${{ matrix.torch }}"
    (artifact,) = uses(wf, "actions/upload-artifact")
    assert artifact["with"]["path"] == "docs/_torch_runs/torch-${{ matrix.torch }}.json"
    assert artifact["with"]["name"] == "torch-${{ matrix.torch }}"

    collect = wf["jobs"]["collect"]
    assert collect["needs"] == "release"
    assert collect["permissions"] == {"contents": "write", "pull-requests": "write"}
    (download,) = uses(wf, "actions/download-artifact")
    assert download["with"]["path"] == "docs/_torch_runs" and download["with"]["merge-multiple"] is True
    (pr,) = uses(wf, "peter-evans/create-pull-request")
    assert pr["with"]["add-paths"] == "docs/_torch_runs/*.json"
    # the collecting job sees the runs of this workflow only after they all ended
    assert [job for job, _ in steps(wf)].index("collect") > [job for job, _ in steps(wf)].index("release")
