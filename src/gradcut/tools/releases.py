"""Run every claim of the site on past and newer torch releases, one venv at a time.

``python -m gradcut.tools.releases`` (``make torch-runs``) runs the claims on each release of
:data:`~gradcut.runs.RELEASES` whose results in ``docs/_torch_runs/`` are missing or stale (a claim
was added or edited since that run); ``--torch 2.0.1`` (``make torch-run TORCH=2.0.1``)
runs one release whatever its state; ``--list`` says which are stale and why.

A release's run:

1. creates a venv of its own holding only what the claims need -- torch, numpy,
   matplotlib, pytest, pytest-doctestplus, packaging -- pinned in
   ``docs/_torch_runs/torch-<version>.requirements.txt``, beside the results that venv produced, (the first run of a release without one lets
   pip choose, then writes it); the project's ``src/`` is put on ``PYTHONPATH``, the
   Sphinx stack is not installed;
2. runs the three kinds of claims the build verifies, as the build does:
   the doctests of the pages and of the helpers in ``src/`` (the pytest command of
   ``make doctest``, recorded by :mod:`gradcut.tools.pytest_plugin`), every row of the
   sweep tables (:mod:`gradcut.tools.drift.run_reference`) and every gallery example
   (run to its end, as a reader runs the downloaded script);
3. writes ``docs/_torch_runs/torch-<version>.json`` and deletes the venv: a CUDA
   build of torch takes several GB, and seventeen of them do not fit.

A claim that cannot run on a release because the API it uses does not exist there yet
(``AttributeError: ... has no attribute``, an unknown keyword argument, an import of a
name that is missing) is recorded as ``n.a.`` with that reason, and so are the
claims that only failed because such a claim left a name undefined.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime
import doctest
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gradcut.runs import RELEASES, absent_reason, needs_reason


ROOT = Path(__file__).resolve().parents[3]
RUNS = Path("docs/_torch_runs")
#: What a release's venv holds besides torch (and what torch itself pulls in).
COMPANIONS = ("numpy", "matplotlib", "pytest", "pytest-doctestplus", "packaging")
DOCTEST_ARGS = (
    "-q", "-p", "no:cacheprovider", "--doctest-plus", "--doctest-only", "--doctest-glob=*.md",
    "--doctest-continue-on-failure", "--tb=no", "--ignore=docs/examples",
)  # fmt: skip
ABSENT = re.compile(
    r"^(?:AttributeError: .*has no attribute '(?P<attr>\w+)'"
    r"|TypeError: .*(?:unexpected keyword argument|invalid keyword argument) '?(?P<kw>\w+)'?"
    r"|ImportError: cannot import name '(?P<name>\w+)'"
    r"|ModuleNotFoundError: No module named '(?P<module>[\w.]+)')",
    re.M,
)
NAME_ERROR = re.compile(r"^NameError: name '(?P<name>\w+)' is not defined", re.M)


def _key(version: str):
    return tuple(int(x) for x in re.findall(r"\d+", version)[:3])


def lock_file(version: str, root: Path = ROOT) -> Path:
    return root / RUNS / f"torch-{version}.requirements.txt"


def results_file(version: str, root: Path = ROOT) -> Path:
    return root / RUNS / f"torch-{version}.json"


def pip_env() -> dict[str, str]:
    """pip's environment for a release: the machine's cap on torch does not apply."""
    return {**os.environ, "PIP_CONSTRAINT": "/dev/null", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


# -- what the pages claim now ---------------------------------------------------------


def claim_paths(root: Path = ROOT) -> list[str]:
    """The doctest paths: ``docs`` and each module of :mod:`gradcut.claims` (the code that
    claims run, on torch alone) that holds doctests."""
    paths = ["docs"]
    for path in sorted((root / "src" / "gradcut" / "claims").rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            paths.append(path.relative_to(root).as_posix())
    return paths


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _examples(text: str) -> list[tuple[str, str]]:
    parser = doctest.DocTestParser()
    out = []
    for example in parser.get_examples(text):
        out.append((example.source.rstrip("\n"), example.want.rstrip("\n")))
    return out


def current_claims(root: Path = ROOT) -> dict[str, str]:
    """``{page: digest}`` of the claims each page, module and example makes now.

    A page's digest covers its doctest examples (code and expected output) and its
    sweep tables with the code that measures them, not its prose: editing a sentence
    does not make a run stale, editing a claim does. A gallery example's digest is that
    of the whole script.
    """
    from gradcut.claims.sweeps import tables_in  # noqa: PLC0415

    measuring = _digest("".join(
        p.read_text(encoding="utf-8") for p in sorted((root / "src/gradcut/claims/sweeps").glob("*.py"))
    ))  # fmt: skip

    pages = {}
    for rel in claim_paths(root):
        path = root / rel
        files = sorted(path.rglob("*.md")) if path.is_dir() else [path]
        for file in files:
            page = file.relative_to(root).as_posix()
            if page.startswith("docs/examples/"):
                continue
            text = file.read_text(encoding="utf-8")
            if file.suffix == ".py":
                docs = [
                    ast.get_docstring(n, clean=False) or ""
                    for n in ast.walk(ast.parse(text))
                    if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                ]
                examples = [e for d in docs for e in _examples(d)]
                tables = []
            else:
                examples = _examples(text)
                tables = [[name, measuring, [row for _, row in table]] for name, table in tables_in(text)]
            if examples or tables:
                pages[page] = _digest(json.dumps([examples, tables]))
    for file in sorted((root / "gallery").glob("plot_*.py")):
        pages[file.relative_to(root).as_posix()] = _digest(file.read_text(encoding="utf-8"))
    return pages


def stale(version: str, root: Path = ROOT, now: dict[str, str] | None = None) -> list[str]:
    """Why ``version`` must run again: ``[]`` when its results are up to date."""
    path = results_file(version, root)
    if not path.is_file():
        return ["no results"]
    data = json.loads(path.read_text(encoding="utf-8"))
    ran = data.get("pages")
    if not ran:
        return ["results of an older kind (doctests only)"]
    now = current_claims(root) if now is None else now
    edited = [p for p, d in now.items() if ran.get(p) != d]
    return [f"claims edited or added: {', '.join(edited[:5])}{' …' if len(edited) > 5 else ''}"] if edited else []


# -- lock files -----------------------------------------------------------------------


def requirements(version: str) -> list[str]:
    """What a release's venv asks pip for, before pinning."""
    reqs = [f"torch=={version}", *COMPANIONS]
    if _key(version) < (2, 3):  # built against NumPy 1: NumPy 2 cannot load them
        reqs[1] = "numpy<2"
    return reqs


def site_pins(root: Path = ROOT) -> list[str]:
    """The pins of the site's own venv (requirements.txt), torch aside."""
    return [
        line.strip()
        for line in (root / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if "==" in line and not line.startswith(("#", "torch=="))
    ]


def _write_lock(version: str, root: Path, pins: list[str]) -> Path:
    path = lock_file(version, root)
    header = [
        f"# The venv that runs the site's claims on torch {version} (`make torch-run TORCH={version}`):",
        f"# {', '.join(requirements(version))} and what they pull in, pinned as pip resolved",
        "# them (`pip freeze` of that venv; packages of requirements.txt held at its pins where",
        "# the release allows). The project's src/ goes on PYTHONPATH: no Sphinx stack here.",
    ]
    pins = sorted(pins, key=str.lower)
    path.write_text("\n".join([*header, *pins]) + "\n", encoding="utf-8")
    return path


def _pip(venv: Path, *args: str) -> int:
    cmd = [str(venv / "bin/python"), "-m", "pip", "install", "--quiet", "--no-cache-dir",
           "--only-binary=:all:", *args]  # fmt: skip
    return subprocess.call(cmd, env=pip_env())


def install_unlocked(version: str, venv: Path, root: Path = ROOT) -> Path:
    """Install a release without a lock file, then pin what pip chose in a new one.

    Packages requirements.txt pins are held at those pins when the release allows it
    (NumPy 1 aside for the releases built against it), so that the newest releases
    differ from the site's venv by torch and its CUDA libraries alone.
    """
    reqs = requirements(version)
    pins = [p for p in site_pins(root) if not (reqs[1] != "numpy" and p.startswith("numpy=="))]
    with tempfile.TemporaryDirectory() as tmp:
        cons = Path(tmp, "constraints.txt")
        cons.write_text("\n".join(pins) + "\n")
        if _pip(venv, "-c", str(cons), *reqs) != 0 and _pip(venv, *reqs) != 0:
            raise SystemExit(f"pip cannot install {' '.join(reqs)}")
    frozen = subprocess.check_output([str(venv / "bin/python"), "-m", "pip", "freeze"], text=True)
    return _write_lock(version, root, [line for line in frozen.splitlines() if "==" in line])


# -- a run ----------------------------------------------------------------------------


def _du(path: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_size
            except OSError:
                pass
    return total


def _log(msg: str) -> None:
    print(f"[{datetime.datetime.now(datetime.timezone.utc):%H:%M:%S}] {msg}", flush=True)


def venv_dir(version: str, root: Path = ROOT) -> Path:
    return root / "_build" / "torch-runs" / f"venv-{version}"


def install(version: str, root: Path, python: str) -> Path:
    venv = venv_dir(version, root)
    shutil.rmtree(venv, ignore_errors=True)
    lockf = lock_file(version, root)
    subprocess.check_call([python, "-m", "venv", str(venv)])
    if lockf.is_file():
        if _pip(venv, "-r", str(lockf)) != 0:
            raise SystemExit(f"pip cannot install {lockf.name}")
    else:
        _log(f"torch {version}: no {lockf.name}: installing, then pinning what pip chose")
        install_unlocked(version, venv, root)
    got = subprocess.check_output(
        [str(venv / "bin/python"), "-c", "import importlib.metadata as m; print(m.version('torch'))"],
        text=True,
    ).strip()
    if got.split("+")[0] != version:
        raise SystemExit(f"{venv} has torch {got}, not {version}")
    return venv


def _run_env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["MPLBACKEND"] = "Agg"
    env.pop("GRADCUT_DRIFT", None)
    return env


#: Seconds a step of a release's run may go without finishing a page or an example:
#: code that hangs there (a multi-process example waiting on a peer that died) is
#: stopped, its claims are "changed" with that reason, and the step goes on without it.
STEP_TIMEOUT = float(os.environ.get("GRADCUT_STEP_TIMEOUT", 600))
#: The file a step writes the page or example it is on to (read when it hangs).
PROGRESS = "GRADCUT_PROGRESS"


def _bounded(cmd: list[str], log: Path, cwd: Path, env: dict, progress: Path) -> str | None:
    """Run ``cmd`` (output appended to ``log``); None when it ended by itself, else what
    it was on (``progress``) when ``STEP_TIMEOUT`` passed without it ending. The whole
    process group is stopped: a hung example's own children too."""
    progress.unlink(missing_ok=True)
    with log.open("a") as out:
        proc = subprocess.Popen(
            cmd, cwd=cwd, env={**env, PROGRESS: str(progress)}, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        try:
            proc.wait(timeout=STEP_TIMEOUT)
            return None
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    hung = progress.read_text(encoding="utf-8").strip() if progress.is_file() else ""
    if not hung:
        raise RuntimeError(f"{cmd[:3]} hung before it started a page: see {log}")
    return hung


def _hung(page: str, root: Path) -> list[dict]:
    """A claim for each example of ``page``, which did not answer within the step's time."""
    got = f"(no answer within {STEP_TIMEOUT:.0f} s: the run of this page was stopped)"
    text = (root / page).read_text(encoding="utf-8")
    examples = doctest.DocTestParser().get_examples(text) if page.endswith(".md") else []
    if not examples:
        return [{"page": page, "line": 1, "source": "", "expected": "", "status": "changed", "got": got}]
    return [
        {"page": page, "line": e.lineno + 1, "source": e.source.rstrip("\n"), "expected": e.want.rstrip("\n"),
         "status": "changed", "got": got}
        for e in examples
    ]  # fmt: skip


def run_doctests(py: Path, root: Path, out: Path) -> list[dict]:
    results = out / "doctest.json"
    hung: list[str] = []
    while True:  # again without a page that hung, until no page hangs
        results.unlink(missing_ok=True)
        page = _bounded(
            [str(py), "-m", "pytest", *DOCTEST_ARGS, f"--rootdir={root}", f"--gradcut-results={results}",
             *(f"--ignore={p}" for p in hung), *claim_paths(root)],
            out / "doctest.log", root, _run_env(root), out / "doctest.progress",
        )  # fmt: skip
        if page is None:
            break
        if page in hung:
            raise RuntimeError(f"{page} hung again after it was left out: see {out / 'doctest.log'}")
        _log(f"a doctest of {page} gave no answer within {STEP_TIMEOUT:.0f} s: stopped; the others run again")
        hung.append(page)
    if not results.is_file():
        raise RuntimeError(f"the doctests left no results: see {out / 'doctest.log'}")
    claims = json.loads(results.read_text())["claims"] + [c for page in hung for c in _hung(page, root)]
    for c in claims:
        c["kind"] = "doctest"
    return claims


def run_reference(py: Path, root: Path, out: Path) -> list[dict]:
    results = out / "reference.json"
    with (out / "reference.log").open("w") as log:
        subprocess.call(
            [str(py), "-m", "gradcut.tools.drift.run_reference", "--results", str(results)],
            cwd=root, env=_run_env(root), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    if not results.is_file():
        return [_crashed("docs", "reference tables", out / "reference.log")]
    claims = json.loads(results.read_text())
    for c in claims:
        c["kind"] = "reference"
    return claims


def _crashed(page: str, what: str, log: Path) -> dict:
    tail = "\n".join(log.read_text(errors="replace").splitlines()[-8:])
    return {"page": page, "line": 0, "source": what, "kind": "crash", "status": "changed",
            "expected": "runs", "got": tail}  # fmt: skip


def run_gallery(py: Path, root: Path, out: Path) -> list[dict]:
    """Every gallery example, run to its end as a reader runs the downloaded script.

    One process runs them all (torch is imported once, as in the build), each example
    in a fresh namespace, with its warnings filters and figures reset after it. An
    example that hangs is stopped (``STEP_TIMEOUT``) and the ones after it run again.
    """
    results = out / "gallery.json"
    files = [str(p) for p in sorted((root / "gallery").glob("plot_*.py"))]
    claims: list[dict] = []
    while files:
        results.unlink(missing_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            hung = _bounded(
                [str(py), "-m", "gradcut.tools.releases", "--gallery-worker", str(results), *files],
                out / "gallery.log", Path(tmp), _run_env(root), out / "gallery.progress",
            )  # fmt: skip
        done = json.loads(results.read_text()) if results.is_file() else []
        claims += done
        if hung is None:
            if not results.is_file():
                return claims + [_crashed("gallery", "gallery examples", out / "gallery.log")]
            break
        _log(f"gallery example {Path(hung).name} gave no answer within {STEP_TIMEOUT:.0f} s: stopped")
        claims.append({"page": hung, "line": 1, "source": "", "kind": "gallery", "expected": "runs to the end",
                       "status": "changed", "got": f"(no answer within {STEP_TIMEOUT:.0f} s: stopped)"})  # fmt: skip
        files = files[files.index(hung) + 1 :]
    for c in claims:
        c["page"] = Path(c["page"]).relative_to(root).as_posix()
    return claims


def gallery_worker(results: str, files: list[str]) -> int:
    """In a release's venv: run each example file; write one claim per example."""
    import contextlib  # noqa: PLC0415
    import io  # noqa: PLC0415
    import runpy  # noqa: PLC0415
    import traceback  # noqa: PLC0415
    import warnings  # noqa: PLC0415

    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415
    import torch  # noqa: PLC0415

    from gradcut.tools.drift.run_gallery import failure  # noqa: PLC0415

    claims = []
    progress = os.environ.get(PROGRESS)
    for file in files:
        if progress:
            Path(progress).write_text(file, encoding="utf-8")
        claim = {"page": file, "line": 1, "source": "", "kind": "gallery", "expected": "runs to the end"}
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            try:
                torch.set_grad_enabled(True)
                runpy.run_path(file, run_name="__main__")
                claim["status"] = "holds"
            except BaseException:  # noqa: BLE001 -- every error of an example is its outcome
                claim.update(status="changed", **failure(Path(file), traceback.format_exc()))
            finally:
                plt.close("all")
        claims.append(claim)
        print(f"{file}: {claim['status']}", flush=True)
        # after each example: what ran is kept if a later one hangs
        Path(results).write_text(json.dumps(claims, indent=1) + "\n", encoding="utf-8")
    return 0


def classify(claims: list[dict], version: str) -> list[dict]:
    """Turn a "changed" that only says an API is absent on this release into "n.a."."""
    absent_on_page: dict[str, int] = {}
    for c in sorted(claims, key=lambda c: (c["page"], c["line"])):
        if c["status"] != "changed":
            continue
        got = c.get("got") or ""
        match = ABSENT.search(got)
        if match and not ABSENT.search(c.get("expected") or ""):
            c["status"] = "n.a."
            c["reason"] = absent_reason(version, match.group(0))
            absent_on_page.setdefault(c["page"], c["line"])
            continue
        if NAME_ERROR.search(got) and c["page"] in absent_on_page:
            first = absent_on_page[c["page"]]
            c["status"] = "n.a."
            c["reason"] = needs_reason(version, first)
    return claims


def run(version: str, root: Path = ROOT, python: str = sys.executable, keep: bool = False) -> dict:
    """Run every claim on ``version``; write its results file; return it."""
    out = root / "_build" / "torch-runs" / version
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    now = current_claims(root)
    start = time.monotonic()
    _log(f"torch {version}: installing {lock_file(version, root).name}")
    venv = install(version, root, python)
    installed = time.monotonic()
    disk = _du(venv)
    _log(f"torch {version}: installed in {installed - start:.0f} s, {disk / 2**30:.1f} GiB")
    py = venv / "bin/python"
    try:
        claims = run_doctests(py, root, out)
        claims += run_reference(py, root, out)
        claims += run_gallery(py, root, out)
        python_version = subprocess.check_output(
            [str(py), "-c", "import platform; print(platform.python_version())"], text=True
        ).strip()
    finally:
        if not keep:
            shutil.rmtree(venv, ignore_errors=True)
    classify(claims, version)
    claims.sort(key=lambda c: (c["kind"] != "doctest", c["page"], c["line"]))
    data = {
        "torch": version,
        "python": python_version,
        "date": datetime.date.today().isoformat(),
        "seconds": {"install": round(installed - start), "claims": round(time.monotonic() - installed)},
        "venv_bytes": disk,
        "pages": now,
        "claims": claims,
    }
    path = results_file(version, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    counts = {s: sum(c["status"] == s for c in claims) for s in ("holds", "changed", "n.a.")}
    _log(f"torch {version}: {counts} in {time.monotonic() - start:.0f} s -> {path.relative_to(root)}")
    return data


def summary(version: str, root: Path = ROOT, why: list[str] | None = None) -> str:
    """A few lines of Markdown on a release's results (a CI job's summary)."""
    path = results_file(version, root)
    if why == []:
        text = f"torch {version}: results up to date, not run again.\n"
    elif not path.is_file():
        text = f"torch {version}: no results (see the log).\n"
    else:
        data = json.loads(path.read_text(encoding="utf-8"))
        claims = data["claims"]
        counts = {s: sum(c["status"] == s for c in claims) for s in ("holds", "changed", "n.a.")}
        text = f"## torch {version}\n\n{counts['holds']} hold, {counts['changed']} changed, {counts['n.a.']} n.a.\n"
        for c in claims:
            if c["status"] == "changed":
                first = (c.get("source") or "").splitlines()[:1] or [""]
                text += f"\n- `{c['page']}:{c['line']}` `{first[0]}`"
        text += "\n"
    out = root / "_build" / "torch-runs" / version / "summary.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--torch", action="append", default=[], help="run this release (repeatable)")
    parser.add_argument("--only", action="append", default=[], help="of the stale releases, this one (repeatable)")
    parser.add_argument("--list", action="store_true", help="say which releases are stale, run nothing")
    parser.add_argument("--keep", action="store_true", help="keep the venv after the run")
    parser.add_argument("--python", default=sys.executable, help="the Python of the venvs")
    parser.add_argument("--gallery-worker", nargs="+", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.gallery_worker:
        return gallery_worker(args.gallery_worker[0], args.gallery_worker[1:])
    root = ROOT
    if args.torch:
        todo = args.torch
    else:
        now = current_claims(root)
        todo = []
        for version in args.only or RELEASES:
            why = stale(version, root, now)
            print(f"torch {version:8} {'stale: ' + '; '.join(why) if why else 'up to date'}")
            if why:
                todo.append(version)
            elif not args.list:
                summary(version, root, why)
    if args.list:
        return 0
    failed = []
    for version in todo:
        try:
            run(version, root, args.python, args.keep)
        except (subprocess.CalledProcessError, RuntimeError, SystemExit) as err:
            _log(f"torch {version}: the run failed: {err}")
            failed.append(version)
        summary(version, root)
    if failed:
        print(f"no results for: {' '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
