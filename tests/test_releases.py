"""`make torch-runs`: which releases run, what their venvs hold, how outcomes are read."""

import json
import shutil
import sys
from pathlib import Path

import pytest

from gradcut.tools import releases
from gradcut.sphinxext.versions import _ranges, first_release


def test_the_releases_run_are_the_newest_patch_of_each_minor_release_from_1_13():
    assert releases.RELEASES[0] == "1.13.1" and releases.RELEASES[-1] == "2.15.0"
    minors = [v.rsplit(".", 1)[0] for v in releases.RELEASES]
    assert len(set(minors)) == len(minors) == 17


def test_old_releases_get_numpy_1():
    assert releases.requirements("2.2.2")[:2] == ["torch==2.2.2", "numpy<2"]
    assert releases.requirements("2.3.1")[:2] == ["torch==2.3.1", "numpy"]
    # the venv holds what the claims need, not the build's Sphinx stack
    assert not any("sphinx" in r.lower() for r in releases.requirements("2.15.0"))


def test_every_lock_file_pins_its_torch_and_nothing_unpinned():
    for path in sorted((releases.ROOT / releases.RUNS).glob("torch-*.requirements.txt")):
        version = path.name.removeprefix("torch-").removesuffix(".requirements.txt")
        pins = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
        assert f"torch=={version}" in [p.split("+")[0] for p in pins], path.name
        assert all("==" in p for p in pins), path.name
        assert version in releases.RELEASES, path.name


def test_claims_in_src_are_the_helpers_not_the_build_machinery():
    paths = releases.claim_paths()
    assert "docs" in paths and "src/gradcut/claims/tensors.py" in paths
    assert all(p == "docs" or p.startswith("src/gradcut/claims/") for p in paths)


def claim(line, source, status, got=None, page="docs/p.md"):
    c = {"page": page, "line": line, "source": source, "status": status, "expected": "", "kind": "doctest"}
    if got:
        c["got"] = got
    return c


def test_an_absent_api_is_na_with_its_reason_and_so_are_claims_that_needed_it():
    claims = [
        claim(1, "g = f(x)", "changed", "AttributeError: module 'torch' has no attribute 'Node'\n"),
        claim(2, "g.edges", "changed", "NameError: name 'g' is not defined\n"),
        claim(3, "x.sum().backward()", "changed", "RuntimeError: worded otherwise\n"),
        claim(4, "y.numpy(force=True)", "changed", "TypeError: numpy() got an unexpected keyword argument 'force'\n"),
        claim(1, "h.edges", "changed", "NameError: name 'h' is not defined\n", page="docs/q.md"),
    ]
    releases.classify(claims, "1.13.1")
    assert [c["status"] for c in claims] == ["n.a.", "n.a.", "changed", "n.a.", "changed"]
    assert claims[0]["reason"] == "not in torch 1.13.1: AttributeError: module 'torch' has no attribute 'Node'"
    assert claims[1]["reason"] == "needs line 1, which cannot run on torch 1.13.1"


def test_a_run_is_stale_when_a_claim_was_edited_not_when_prose_was(tmp_path):
    root = tmp_path
    (root / "docs").mkdir()
    (root / "gallery").mkdir()
    (root / "src").mkdir()
    (root / "requirements.txt").write_text("")
    page = root / "docs" / "p.md"
    page.write_text("Some prose.\n\n```pycon\n>>> 1 + 1\n2\n\n```\n")
    assert releases.stale("2.0.1", root) == ["no results"]
    results = releases.results_file("2.0.1", root)
    results.parent.mkdir(parents=True)
    results.write_text(json.dumps({"torch": "2.0.1", "claims": [], "pages": releases.current_claims(root)}))
    assert releases.stale("2.0.1", root) == []
    page.write_text("Other prose.\n\n```pycon\n>>> 1 + 1\n2\n\n```\n")
    assert releases.stale("2.0.1", root) == []
    page.write_text("Other prose.\n\n```pycon\n>>> 1 + 2\n3\n\n```\n")
    assert releases.stale("2.0.1", root) == ["claims edited or added: docs/p.md"]


def test_release_ranges():
    among = ["1.13.1", "2.0.1", "2.1.2", "2.3.1", "2.15.0"]
    assert _ranges(["2.0.1", "2.1.2", "2.15.0"], among) == "2.0.1 – 2.1.2, 2.15.0"
    assert _ranges(among, among) == "1.13.1 – 2.15.0"


def run(torch, status, page="docs/p.md", source="x.f()"):
    return {"torch": torch, "claims": [claim(5, source, status, page=page)]}


def test_the_first_release_that_behaves_as_today():
    runs = [run("1.13.1", "changed"), run("2.0.1", "changed"), run("2.1.2", "holds"), run("2.2.2", "holds")]
    assert first_release(runs, "docs/p.md", "x.f()") == ("2.1.2", False, False)
    # 2.0.1 not run: 2.1.2 is the first release *run* that behaves as today, no more
    assert first_release([runs[0], *runs[2:]], "docs/p.md", "x.f()") == ("2.1.2", False, True)
    # holds on every release run: the oldest, "or earlier"
    assert first_release(runs[2:], "docs/p.md", "x.f()") == ("2.1.2", True, False)
    assert first_release(runs, "docs/p.md", "y.g()") == (None, False, False)


@pytest.mark.slow
def test_a_page_that_hangs_is_stopped_and_the_other_pages_still_run(tmp_path, monkeypatch):
    """A release's run does not wait for ever on a page that hangs there (a multi-process
    example whose peer died): its claims are changed, with the reason, and the rest run."""
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    shutil.copy(releases.ROOT / "pyproject.toml", root)
    page = "```pycon\n{}\n\n```\n"
    (root / "docs/a.md").write_text(page.format(">>> 1 + 1\n2"))
    (root / "docs/b.md").write_text(page.format(">>> import time\n>>> time.sleep(600)"))
    (root / "docs/c.md").write_text(page.format(">>> 2 + 2\n4"))
    monkeypatch.setattr(releases, "STEP_TIMEOUT", 30)
    (out := tmp_path / "out").mkdir()
    claims = releases.run_doctests(Path(sys.executable), root, out)
    status = {(c["page"], c["source"]): c for c in claims}
    assert status[("docs/a.md", "1 + 1")]["status"] == "holds"
    assert status[("docs/c.md", "2 + 2")]["status"] == "holds"
    hung = status[("docs/b.md", "time.sleep(600)")]
    assert hung["status"] == "changed" and hung["got"].startswith("(no answer within 30 s")


def test_a_reason_names_no_path_of_the_machine_that_ran_it():
    from gradcut.runs import absent_reason, parse_reason

    error = (
        "ImportError: cannot import name 'get_ema_multi_avg_fn' from 'torch.optim.swa_utils' "
        "(/work/x/_build/torch-runs/venv-1.13.1/lib/python3.11/site-packages/torch/optim/swa_utils.py)"
    )
    written = absent_reason("1.13.1", error)
    assert "/work/" not in written and "(torch/optim/swa_utils.py)" in written
    # results written before the paths were cut read the same on the page
    old = "not in torch 1.13.1: " + error
    assert parse_reason(old)[1]["error"] == written.split(": ", 1)[1]
