"""What `make bench` reads from a build, without timing anything (the timings are its own
output, not a test): which files the scratch copy gets, and what a rebuild redid."""

import subprocess

from gradcut.tools.bench import (
    Bench,
    copy_tree,
    imports_module,
    make_checkout,
    spread,
    worker_seconds,
)


def test_scratch_copy_is_the_working_tree_without_build_output(tmp_path):
    repo, scratch = tmp_path / "repo", tmp_path / "scratch"
    files = {
        "conf.py": "tracked",
        "docs/new-page.md": "untracked, not ignored",
        "ignored.log": "ignored",
        "_build/html/index.html": "build output",
        "docs/examples/plot_00.rst": "generated gallery page",
        "docs/sg_execution_times.rst": "generated",
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    (repo / ".gitignore").write_text("*.log\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "conf.py", ".gitignore"], check=True)

    copy_tree(repo, scratch)

    copied = sorted(str(p.relative_to(scratch)) for p in scratch.rglob("*") if p.is_file())
    assert copied == [".gitignore", "conf.py", "docs/new-page.md"]


def test_scratch_copy_is_a_checkout_that_git_answers_in(tmp_path):
    (tmp_path / ".gitignore").write_text("_build/\n")
    (tmp_path / "conf.py").write_text("x = 1\n")
    make_checkout(tmp_path)
    tracked = subprocess.run(["git", "ls-files"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert tracked.stdout.split() == [".gitignore", "conf.py"]
    ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", "_build/x"], cwd=tmp_path, check=False)
    assert ignored.returncode == 0


def test_edits_are_put_back_as_they_were(tmp_path):
    b = Bench(tmp_path, "make", verbose=False)
    page = tmp_path / "page.md"
    page.write_text("# Title\n")
    b.edit("page.md", "\n% bench: an edit\n")
    b.edit("page.md", "\n% bench: edit 2\n")
    assert page.read_text().count("bench:") == 2
    b.restore()
    assert page.read_text() == "# Title\n"
    assert b.originals == {}


def test_worker_time_puts_the_browser_tests_apart(tmp_path):
    junit = tmp_path / "junit.xml"
    junit.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_browser" name="test_page[index]" time="2.5"/>'
        '<testcase classname="tests.test_browser" name="test_search[q]" time="1.0"/>'
        '<testcase classname="tests.test_site" name="test_links" time="4.25"/>'
        "</testsuite></testsuites>"
    )
    assert worker_seconds(junit) == {"browser tests": 3.5, "the rest": 4.25}


def test_redone_names_the_examples_run_and_the_pages_read_per_language():
    before = {
        "docs/examples/plot_05_x.py.md5": 1,
        "docs/examples/plot_06_y.py.md5": 1,
        "_build/.work/en/doctrees/explanation/detach.doctree": 1,
        "_build/.work/zh_CN/doctrees/explanation/detach.doctree": 1,
        "_build/.work/zh_CN/doctrees/glossary.doctree": 1,
    }
    after = {
        **before,
        "docs/examples/plot_05_x.py.md5": 2,
        "_build/.work/zh_CN/doctrees/explanation/detach.doctree": 2,
        "_build/.work/en/doctrees/examples/plot_05_x.doctree": 1,  # new
    }
    assert Bench.redone(before, after) == {
        "executed": ["plot_05_x"],
        "read en": ["examples/plot_05_x"],
        "read zh_CN": ["explanation/detach"],
    }
    assert Bench.redone(before, dict(before)) == {"executed": []}


def test_helper_importers_are_found_through_the_package(tmp_path):
    direct = tmp_path / "plot_a.py"
    direct.write_text("from gradcut.claims.draw import graph_svg\n")
    package = tmp_path / "plot_b.py"
    package.write_text("import gradcut.claims\n")  # gradcut/claims/__init__.py imports tensors, not draw
    unrelated = tmp_path / "plot_c.py"
    unrelated.write_text("import torch\n")
    assert imports_module(direct, "gradcut.claims.draw")
    assert imports_module(package, "gradcut.claims.tensors")
    assert not imports_module(package, "gradcut.claims.draw")
    assert not imports_module(unrelated, "gradcut.claims.tensors")


def test_spread_is_fastest_to_slowest():
    assert spread([12.34, 10.0, 11.0]) == "10.0-12.3 s"
    assert spread(iter([5.0])) == "5.0-5.0 s"


def test_a_figure_in_seconds_is_met_at_its_target_and_missed_above(capsys):
    b = Bench.__new__(Bench)
    b.lines = []
    b.seconds("edit one page", 8.0, 8.0)
    b.seconds("make test", 480.5, 480.0, "(browser 200 s)")
    assert b.lines == [("edit one page", True), ("make test", False)]
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("ok   edit one page") and "8.0 s (target <= 8 s)" in out[0]
    assert out[1].startswith("MISS make test") and out[1].endswith("(browser 200 s)")
