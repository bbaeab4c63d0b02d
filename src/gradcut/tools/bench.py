"""Build speed and page weight, measured on a scratch copy of the repository.

``python -m gradcut.tools.bench`` (what ``make bench`` runs) copies the working tree (tracked
and untracked files, no build output) to a temporary folder, points it at this venv, and
runs the scenarios an author meets there, never in the working tree. The copy is made a
git checkout of itself (one commit), as a clone is, for the tests that ask git:

- *floor*: ``python -c "import torch"``, and one process that imports torch and runs
  every gallery script -- what executing the examples cannot go below;
- *cold*: ``make html`` on a tree with no build and no gallery output;
- *no exec*: the same cold build with execution switched off (``-D plot_gallery=0``; the
  pages' notebooks are never executed, ``nb_execution_mode = "off"``); cold and no exec
  are each the best of three runs, taken in turns;
- *second language*: the last language built alone as the cold build builds it (a fresh
  environment, after the first language ran the examples), with execution on and
  off, in turns; the best of five each. Both show the same captured outputs: what differs is
  only whether the build could have executed anything;
- *no-op*: ``make html`` again, nothing changed;
- *edit example*, *edit page*, *edit helper*: one file touched, then ``make html``: which
  examples ran again (their ``.md5`` rewritten) and which pages were re-read (their
  doctree rewritten), in each language;
- *make test reuses the build*: on the built tree, ``make test`` would not build again;
- *edit one page* and *edit one example*, in seconds: ``make html`` after the edit, both
  languages (the page's doctests included), against the targets of the author's loop;
  each edited and built three times, the best and the range reported;
- *make test*: the edited files put back and built again, then ``make test`` as CI runs
  it, timed on the built tree; the browser tests' share of its worker time is read from
  its JUnit report;
- *page weight*: :mod:`gradcut.tools.weight` on the cold build.

Each figure is printed on one line with its target; the exit status is 1 when a target
is missed.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path.cwd()
# Targets of the build-speed issue: ratios.
SECOND_LANGUAGE_MAX = 1.10  # second language / same language with execution off
OVERHEAD_MAX = 2.0  # (cold - no exec) / floor
NOOP_MAX = 0.15  # no-op rebuild / cold
# Targets of the author's loop and of the gate: seconds.
EDIT_PAGE_MAX = 8.0  # edit one page, then make html (both languages, its doctests)
EDIT_EXAMPLE_MAX = 10.0  # edit one gallery example, then make html
TEST_MAX = 8 * 60.0  # make test on a tree make html has just built
# How many times each build is measured, in turns; the figure is the best. This machine's
# speed drifts by up to a fifth from one minute to the next, while the difference the
# second-language target looks for is a few per cent: that one takes more runs.
BUILD_REPEATS = 3  # cold builds, and builds with execution off
EDIT_REPEATS = 3  # each edit scenario: edit, build; the figure is the best
LANGUAGE_REPEATS = 5  # the second language alone, with execution on and off
# A file appended to for each edit scenario: a comment, so the output does not change.
EDIT_EXAMPLE = "gallery/plot_05_check_stays_silent.py"
EDIT_PAGE = "docs/explanation/detach.md"
EDIT_HELPER = "src/gradcut/claims/draw.py"
SPHINXOPTS = "-W --keep-going -n -q"  # the Makefile's
# Execution off: the gallery's; the pages' notebooks are never executed (nb_execution_mode).
NOEXEC = "-D plot_gallery=0"
SKIP = {"_build", "docs/examples", "docs/sg_execution_times.rst"}

FLOOR_SCRIPT = r"""
import contextlib, io, os, runpy, sys, time
start = time.perf_counter()
import torch
import matplotlib
matplotlib.use("agg")
import matplotlib.pyplot as plt
for path in sys.argv[1:]:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        runpy.run_path(path, run_name="__main__")
    plt.close("all")
"""


class Bench:
    def __init__(self, scratch: Path, make: str, verbose: bool):
        self.scratch = scratch
        self.make = make
        self.verbose = verbose
        self.env = dict(
            os.environ,
            # The scratch copy's package, not the working tree's (the venv's editable
            # install points there).
            PYTHONPATH=str(scratch / "src"),
            PYTHONDONTWRITEBYTECODE="1",
        )
        self.env.pop("MAKEFLAGS", None)
        self.env.pop("MAKELEVEL", None)
        self.lines: list[tuple[str, bool]] = []
        self.originals: dict[Path, str] = {}  # the files the edit scenarios touched

    # -- running --------------------------------------------------------------------

    def run(self, *args: str, check: bool = True) -> tuple[float, int, str]:
        start = time.perf_counter()
        proc = subprocess.run(
            args, cwd=self.scratch, env=self.env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False,
        )  # fmt: skip
        seconds = time.perf_counter() - start
        if self.verbose:
            print(proc.stdout, end="", flush=True)
        if check and proc.returncode:
            print(proc.stdout, file=sys.stderr)
            raise SystemExit(f"bench: `{' '.join(args)}` failed (exit {proc.returncode})")
        return seconds, proc.returncode, proc.stdout

    def make_html(self, *variables: str) -> float:
        return self.run(self.make, "html", *variables)[0]

    def build_language(self, language: str, options: str) -> float:
        """Seconds Sphinx takes to build ``language`` alone from a fresh environment, as
        ``make html`` builds it (``gradcut.tools.build.html``, into a folder of its own)."""
        out = self.scratch / "_build" / "bench-language"
        shutil.rmtree(out, ignore_errors=True)
        self.run(
            str(self.scratch / ".venv" / "bin" / "python"), "-m", "gradcut.tools.build.html",
            "--out", str(out), "--languages", language, "--sphinxopts",
            f"{SPHINXOPTS} {options} -D gradcut_results_dir={self.scratch / '_build' / 'results'}",
        )  # fmt: skip
        return self.timings(out)[language]

    def clean(self) -> None:
        for rel in SKIP:
            path = self.scratch / rel
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()

    def timings(self, out: Path | None = None) -> dict[str, float]:
        """Seconds each language of the last build into ``out`` (``_build``) took."""
        out = out or self.scratch / "_build"
        return json.loads((out / ".work" / "timings.json").read_text())

    # -- what a build did -----------------------------------------------------------

    def snapshot(self) -> dict[str, int]:
        """mtimes of the files a build writes only for what it redoes."""
        files = list((self.scratch / "docs" / "examples").glob("*.py.md5"))
        files += list((self.scratch / "_build" / ".work").glob("*/doctrees/**/*.doctree"))
        return {str(p.relative_to(self.scratch)): p.stat().st_mtime_ns for p in files}

    @staticmethod
    def redone(before: dict[str, int], after: dict[str, int]) -> dict[str, list[str]]:
        changed = sorted(k for k, v in after.items() if before.get(k) != v)
        done = {"executed": [Path(k).name.removesuffix(".py.md5") for k in changed if k.endswith(".md5")]}
        for key in changed:
            if key.endswith(".doctree"):
                lang, rest = key.split("/doctrees/", 1)
                lang = lang.rsplit("/", 1)[-1]
                done.setdefault(f"read {lang}", []).append(rest.removesuffix(".doctree"))
        return done

    def edit(self, rel: str, comment: str) -> None:
        # The file system stamps times in steps of a few milliseconds: an edit made in
        # the step in which the last build touched its stamp would look older than it.
        time.sleep(0.05)
        path = self.scratch / rel
        text = path.read_text(encoding="utf-8")
        self.originals.setdefault(path, text)
        path.write_text(text + comment, encoding="utf-8")

    def restore(self) -> None:
        """Put back what :meth:`edit` changed (the gate is timed on the tree as committed)."""
        for path, text in self.originals.items():
            time.sleep(0.05)  # see edit()
            path.write_text(text, encoding="utf-8")
        self.originals.clear()

    # -- reporting ------------------------------------------------------------------

    def report(self, name: str, ok: bool, text: str) -> None:
        self.lines.append((name, ok))
        print(f"{'ok  ' if ok else 'MISS'} {name:<28} {text}", flush=True)

    def seconds(self, name: str, value: float, limit: float, detail: str = "") -> None:
        self.report(name, value <= limit, f"{value:6.1f} s (target <= {limit:.0f} s)  {detail}".rstrip())

    def ratio(self, name: str, value: float, limit: float, detail: str) -> None:
        self.report(name, value <= limit, f"{value:5.2f} (target <= {limit:.2f})  {detail}")

    def same(self, name: str, got, expected) -> None:
        self.report(name, got == expected, f"got {got}" + ("" if got == expected else f", expected {expected}"))


def copy_tree(root: Path, scratch: Path) -> None:
    """The working tree as it is (tracked and untracked files, not ignored ones)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for rel in filter(None, listed):
        src = root / rel
        if not src.is_file() or any(rel == s or rel.startswith(s + "/") for s in SKIP):
            continue
        dst = scratch / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def make_checkout(scratch: Path) -> None:
    """Make ``scratch`` a git repository with everything in it committed once."""
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "--no-gpg-sign", "-m", "bench"]):
        subprocess.run(git + args, cwd=scratch, check=True, capture_output=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gradcut.tools.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--venv", default=".venv", help="the venv to build with (default: .venv)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy")
    parser.add_argument("--no-weight", action="store_true", help="skip the page weight")
    parser.add_argument("--no-test", action="store_true", help="skip timing make test")
    parser.add_argument(
        "--repeats", type=int, metavar="N",
        help=f"measure each build N times, not {BUILD_REPEATS} (the second language: not "
        f"{LANGUAGE_REPEATS}); fewer runs, noisier figures",
    )  # fmt: skip
    parser.add_argument("-v", "--verbose", action="store_true", help="show the builds' output")
    args = parser.parse_args(argv)

    venv = (ROOT / args.venv).resolve()
    stamp = venv / ".installed"
    if not stamp.is_file():
        raise SystemExit(f"bench: {venv} is not set up (run `make venv`)")
    scratch = Path(tempfile.mkdtemp(prefix="gradcut-bench-"))
    print(f"scratch copy: {scratch}", flush=True)
    # Timings are only as good as the machine is idle: another build running at the same
    # time adds seconds to one figure and not to another.
    print(f"load average at the start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)", flush=True)
    try:
        copy_tree(ROOT, scratch)
        make_checkout(scratch)
        (scratch / ".venv").symlink_to(venv)
        # The venv is up to date with these files: make must not reinstall it.
        old = stamp.stat().st_mtime - 1
        for name in ("requirements.txt", "pyproject.toml"):
            os.utime(scratch / name, (old, old))
        return run_scenarios(Bench(scratch, os.environ.get("MAKE", "make"), args.verbose), args)
    finally:
        if args.keep:
            print(f"kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def run_scenarios(b: Bench, args) -> int:
    python = str(b.scratch / ".venv" / "bin" / "python")
    scripts = sorted(str(p) for p in (b.scratch / "gallery").glob("plot_*.py"))

    # Floor: the best of three, each a fresh process.
    import_torch = min(b.run(python, "-c", "import torch")[0] for _ in range(3))
    floor = min(b.run(python, "-c", FLOOR_SCRIPT, *scripts)[0] for _ in range(3))
    print(f"floor: import torch {import_torch:.2f} s; import torch + {len(scripts)} "
          f"gallery scripts in one process {floor:.2f} s", flush=True)  # fmt: skip

    # Cold, and with execution off, each from nothing; the best of three of each, in
    # turns (a build's time varies by a few seconds from one run to the next, more than
    # the examples take to run).
    noexec_runs, cold_runs = [], []
    for _ in range(args.repeats or BUILD_REPEATS):
        b.clean()
        noexec_runs.append((b.make_html(f"SPHINXOPTS={SPHINXOPTS} {NOEXEC}"), b.timings()))
        b.clean()
        cold_runs.append((b.make_html(), b.timings()))
    noexec, noexec_lang = min(noexec_runs, key=lambda r: r[0])
    cold, cold_lang = min(cold_runs, key=lambda r: r[0])
    print(f"cold make html {cold:.1f} s ({', '.join(f'{k} {v:.1f} s' for k, v in cold_lang.items())}); "
          f"execution off {noexec:.1f} s ({', '.join(f'{k} {v:.1f} s' for k, v in noexec_lang.items())})",
          flush=True)  # fmt: skip
    b.ratio(
        "execution overhead", (cold - noexec) / floor, OVERHEAD_MAX,
        f"cold - execution off = {cold - noexec:.1f} s; floor {floor:.1f} s "
        f"(runs {spread(r[0] for r in cold_runs)} vs {spread(r[0] for r in noexec_runs)})",
    )  # fmt: skip

    # The second language, as the cold build builds it (a fresh environment, after the
    # first language ran the examples), with execution on and off: the best of five each.
    languages = list(cold_lang)
    second = languages[-1]
    runs = [
        (b.build_language(second, ""), b.build_language(second, NOEXEC))
        for _ in range(args.repeats or LANGUAGE_REPEATS)
    ]  # fmt: skip
    on, off = min(r[0] for r in runs), min(r[1] for r in runs)
    b.ratio(
        f"second language ({second})", on / off, SECOND_LANGUAGE_MAX,
        f"{on:.1f} s vs {off:.1f} s with execution off "
        f"(runs {spread(r[0] for r in runs)} vs {spread(r[1] for r in runs)})",
    )  # fmt: skip

    before = b.snapshot()
    noop = b.make_html()
    b.ratio("no-op rebuild", noop / cold, NOOP_MAX, f"{noop:.2f} s vs cold {cold:.1f} s")
    b.same("no-op: executed", b.redone(before, b.snapshot()), {"executed": []})

    # make test on this tree: the build is reused (make would run neither the doctests
    # nor Sphinx again).
    dry = b.run(b.make, "-n", "test")[2]
    rebuilds = [line for line in dry.splitlines() if "--sphinxopts" in line or "--doctest-plus" in line]
    b.report("make test reuses the build", not rebuilds,
             "`make -n test` runs neither the doctests nor Sphinx" if not rebuilds
             else f"`make test` would build again: {rebuilds[0].strip()}")  # fmt: skip

    reads = {f"read {lang}": [] for lang in languages}

    def scenario(name: str, rel: str, comment: str, expected: dict, repeats: int = 1) -> list[float]:
        """Edit ``rel``, build: what was redone must be ``expected``. ``repeats``: edit
        and build again that many times in all (each edit a new comment); the seconds
        of each build."""
        before = b.snapshot()
        b.edit(rel, comment)
        runs = [b.make_html()]
        got = {**reads, **b.redone(before, b.snapshot())}
        b.same(f"{name} ({runs[0]:.1f} s)", got, {**reads, **expected})
        for n in range(2, repeats + 1):
            b.edit(rel, comment.replace("an edit", f"edit {n}"))
            runs.append(b.make_html())
        return runs

    example = Path(EDIT_EXAMPLE).stem
    gallery_pages = [f"examples/{example}", "examples/index"]
    repeats = args.repeats or EDIT_REPEATS
    edit_example = scenario("edit one example", EDIT_EXAMPLE, "\n# bench: an edit\n", {
        "executed": [example], **{f"read {lang}": sorted(gallery_pages) for lang in languages},
    }, repeats)  # fmt: skip
    page = EDIT_PAGE.removeprefix("docs/").removesuffix(".md")
    edit_page = scenario("edit one page", EDIT_PAGE, "\n% bench: an edit\n", {
        "executed": [], **{f"read {lang}": [page] for lang in languages},
    }, repeats)  # fmt: skip
    helper = EDIT_HELPER.removeprefix("src/").removesuffix(".py").replace("/", ".")
    importers = sorted(Path(s).stem for s in scripts if imports_module(Path(s), helper))
    scenario(f"edit helper {Path(EDIT_HELPER).name}", EDIT_HELPER, "\n# bench: an edit\n", {
        "executed": importers,
        **{f"read {lang}": sorted([f"examples/{e}" for e in importers] + ["examples/index"])
           for lang in languages},
    })  # fmt: skip
    print(f"  ({len(importers)} of {len(scripts)} examples import {EDIT_HELPER})")
    b.seconds("edit one page: make html", min(edit_page), EDIT_PAGE_MAX,
              f"(both languages, its doctests; best of {len(edit_page)}, runs {spread(edit_page)})")  # fmt: skip
    b.seconds("edit one example: make html", min(edit_example), EDIT_EXAMPLE_MAX,
              f"(both languages; best of {len(edit_example)}, runs {spread(edit_example)})")  # fmt: skip

    if not args.no_test:
        # The gate as CI runs it, on the tree as committed: the edits put back and built
        # (make test then builds nothing: "make test reuses the build" above).
        b.restore()
        rebuilt = b.make_html()
        print(f"edits put back; make html {rebuilt:.1f} s", flush=True)
        junit = b.scratch / "_build" / "bench-junit.xml"
        b.env["PYTEST_ADDOPTS"] = f"--junitxml={junit}"
        try:
            wall, rc, out = b.run(b.make, "test", check=False)
        finally:
            del b.env["PYTEST_ADDOPTS"]
        shares = worker_seconds(junit) if junit.is_file() else {}
        detail = ", ".join(f"{k} {v:.0f} s" for k, v in shares.items())
        b.seconds("make test: wall time", wall, TEST_MAX,
                  (f"(worker time: {detail})" if detail else "")
                  + ("" if rc == 0 else f" (FAILED, exit {rc})"))  # fmt: skip
        if rc:  # what failed, so that a failing gate is not only a figure
            failed = [line for line in out.splitlines() if line.startswith(("FAILED ", "ERROR "))]
            print("make test failed:", *(failed or out.strip().splitlines()[-20:]), sep="\n  ")
        b.report("make test passes", not rc, out.strip().splitlines()[-1] if out.strip() else "")

    status = 0 if all(ok for _, ok in b.lines) else 1
    if not args.no_weight:
        print("\npage weight (python -m gradcut.tools.weight):", flush=True)
        weight = subprocess.run(
            [python, "-m", "gradcut.tools.weight", str(b.scratch / "_build" / "html")],
            cwd=b.scratch, env=b.env, check=False,
        )  # fmt: skip
        status = status or weight.returncode
    missed = [name for name, ok in b.lines if not ok]
    print(f"\nbench: {len(b.lines) - len(missed)} of {len(b.lines)} targets met"
          + (f"; missed: {', '.join(missed)}" if missed else ""))  # fmt: skip
    return status


def worker_seconds(junit: Path) -> dict[str, float]:
    """Seconds the pytest workers spent, the browser tests (``tests/test_browser*``) and
    the rest apart, from a JUnit report."""
    shares = {"browser tests": 0.0, "the rest": 0.0}
    for case in ET.parse(junit).iter("testcase"):
        browser = case.get("classname", "").startswith("tests.test_browser")
        shares["browser tests" if browser else "the rest"] += float(case.get("time") or 0)
    return shares


def spread(seconds) -> str:
    """The fastest and the slowest of some runs: how far one run is from the next."""
    seconds = sorted(seconds)
    return f"{seconds[0]:.1f}-{seconds[-1]:.1f} s"


def imports_module(example: Path, module: str) -> bool:
    """Whether ``example`` imports ``module`` of this package, directly or not."""
    from gradcut.sphinxext.gallery import helper_files

    return module in helper_files(example.read_text(encoding="utf-8"))


if __name__ == "__main__":
    sys.exit(main())
