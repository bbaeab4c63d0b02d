"""``make livehtml``: a live view of the pages being edited, checked at every rebuild.

Serves one language's pages (English unless ``--language``) and rebuilds them when a
source changes, with sphinx-autobuild's watcher, server and reload script. Each rebuild

1. holds the build lock (:mod:`gradcut.tools.lock`) while it builds, and only then: the
   live view and ``make html`` or ``make test`` run side by side, taking turns for the
   minutes that write the gallery's outputs in ``docs/examples/``; a rebuild that waits
   says so once, naming the build it waits for;
2. runs the doctests of the files changed since their claims last held (the doctest
   step, with a cache and results of its own under ``_build/live/``, seeded from the
   gate's) and writes what they found for the pages (:mod:`gradcut.sphinxext.live`): a
   page with a claim that does not hold opens with a box that says so, expected vs.
   got, and the terminal says it too -- the live view never shows a wrong value as
   if it were verified;
3. builds the language with Sphinx (quiet: warnings only) into ``_build/live/<lang>/``.

The watcher ignores what builds write into the watched folders (the gallery's pages in
``docs/examples/``, compiled catalogs, bytecode, editors' scratch files): after one
edit, one rebuild, then nothing until the next edit. sphinx-autobuild's ``--ignore``
patterns are resolved against the folder it starts in, so ``*/docs/examples/*`` named
``<project>/*/docs/examples/*`` and matched nothing under ``<project>/docs/examples/``;
here the folders are given as paths.
"""

import argparse
import importlib.metadata
import json
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from gradcut.tools.build import LANGUAGES, LOCK, ROOT, SOURCE_LANGUAGE, exit_now
from gradcut.tools.build.doctests import doctest_options
from gradcut.tools.lock import locked

#: What the live view watches, from the project's folder.
WATCHED = ("docs", "gallery", "src", "locale", "conf.py")
#: Folders that builds write into, inside the watched ones.
WRITTEN = ("docs/examples", "docs/sg_execution_times.rst")
#: Files no author writes: compiled catalogs, bytecode, editors' scratch and backups.
SCRATCH = (
    r"\.mo$", r"/__pycache__/", r"\.py[co]$", r"\.egg-info/", r"/\.ipynb_checkpoints/",
    r"/\.#[^/]*$", r"~$", r"\.sw[a-p]$", r"/4913$", r"\.tmp$",
)  # fmt: skip


def ignore_filter():
    """sphinx-autobuild's filter, with the written folders as paths (they match as
    prefixes) and the scratch files as regular expressions."""
    from sphinx_autobuild.filter import IgnoreFilter

    return IgnoreFilter([str(ROOT / path) for path in WRITTEN], list(SCRATCH))


class Rebuild:
    """One rebuild of the live view: lock, doctests, Sphinx. Called by the watcher in a
    worker process of its own (so it is plain data: it is pickled there)."""

    def __init__(self, out: Path, language: str, doctest: list[str], url: str):
        self.live = out / "live"
        self.gate = out
        self.language = language
        self.doctest = doctest
        self.url = url

    @property
    def claims(self) -> Path:
        return self.live / "claims.json"

    @property
    def results(self) -> Path:
        return self.live / "results"

    def __call__(self, *, changed_paths=()):
        # as sphinx-autobuild: the files that are still there (an editor's temporary
        # file, renamed into place, was a change too)
        changed = sorted({_rel(p) for p in changed_paths if Path(p).exists()})
        if changed:
            print(f"\nlive: {', '.join(changed[:5])}{' …' if len(changed) > 5 else ''} changed: rebuilding", flush=True)
        asked = time.monotonic()
        with locked(LOCK, what=f"make livehtml (rebuilding the live view, {self.language})"):
            started = time.monotonic()
            status = self.run_doctests()
            built, warnings = self.run_sphinx()
        self.report(status, built, warnings, time.monotonic() - started, started - asked)

    def run_doctests(self) -> dict:
        """Run the doctests whose files changed; return what the pages must say."""
        cache = self.live / ".doctest-cache.json"
        if not cache.exists() and (self.gate / ".doctest-cache.json").is_file():
            cache.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.gate / ".doctest-cache.json", cache)  # what the gate checked
        args = doctest_options(self.live, self.doctest)
        results = self.results / f"torch-{importlib.metadata.version('torch')}.json"
        rc = subprocess.call([sys.executable, "-m", "pytest", *args], cwd=ROOT)
        if rc == 5:  # pytest's "no tests collected": a site without doctests
            status = {"checked": True, "pages": {}}
        elif rc not in (0, 1) or not results.is_file():
            status = {"checked": False, "reason": f"the doctest step failed (pytest exit status {rc})"}
        else:
            claims = json.loads(results.read_text(encoding="utf-8"))["claims"]
            broken: dict[str, list] = {}
            for claim in claims:
                if claim["status"] == "changed":
                    broken.setdefault(claim["page"], []).append(claim)
            status = {"checked": True, "pages": broken}
            if rc == 1 and not broken:
                status = {"checked": False, "reason": "the doctest step failed (see its messages)"}
        _write_json(self.claims, status)
        return status

    def run_sphinx(self) -> tuple[bool, int]:
        """Build the language; return whether it built and how many warnings it gave."""
        warnings = self.live / f"warnings-{self.language}.txt"
        argv = [
            sys.executable, "-m", "sphinx", "build", "-b", "html", "-q",
            "-c", str(ROOT), str(ROOT / "docs"), str(self.live / self.language),
            "-d", str(self.live / f"doctrees-{self.language}"), "-w", str(warnings),
            "-D", f"language={self.language}",
            "-D", f"gradcut_results_dir={self.results}",
            "-D", f"gradcut_live_claims={self.claims}",
        ]  # fmt: skip
        rc = subprocess.call(argv, cwd=ROOT)
        try:
            count = sum(1 for line in warnings.read_text(encoding="utf-8").splitlines() if "WARNING" in line)
        except OSError:
            count = 0
        return rc == 0, count

    def report(self, status: dict, built: bool, warnings: int, seconds: float, waited: float) -> None:
        shown = "every page says so at its top" if built else "(the pages cannot say so: Sphinx stopped)"
        lines = []
        if not status["checked"]:
            lines.append(f"live: NOT VERIFIED: {status['reason']}; {shown}")
        elif status["pages"]:
            where = [f"{c['page']}:{c['line']}" for claims in status["pages"].values() for c in claims]
            if built:
                shown = "its page says so at the top" if len(status["pages"]) == 1 else "their pages say so at the top"
            lines.append(
                f"live: NOT VERIFIED: {len(where)} claim{' does' if len(where) == 1 else 's do'} not hold "
                f"({', '.join(where[:5])}{' …' if len(where) > 5 else ''}); {shown}"
            )
        else:
            lines.append("live: every claim holds")
        if not built:
            lines.append("live: Sphinx stopped (see its message above): the view is the last one it built")
        elif warnings:
            lines.append(f"live: {warnings} Sphinx warning{'s' if warnings != 1 else ''} above (`make html` fails on each)")
        wait = f", after {waited:.0f} s waiting for the other build" if waited >= 1 else ""
        lines.append(f"live: rebuilt in {seconds:.0f} s{wait}; serving {self.url}")
        print("\n".join(lines), flush=True)


def _rel(path) -> str:
    try:
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def _write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def serve(rebuild: Rebuild, host: str, port: int) -> None:
    """Build once, then serve and rebuild on every change, as sphinx-autobuild does."""
    import uvicorn
    from sphinx_autobuild.middleware import JavascriptInjectorMiddleware
    from sphinx_autobuild.server import RebuildServer
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.routing import Mount, WebSocketRoute
    from starlette.staticfiles import StaticFiles

    rebuild()
    watched = [ROOT / path for path in WATCHED if (ROOT / path).exists()]
    watcher = RebuildServer(watched, ignore_filter(), change_callback=rebuild)
    served = rebuild.live / rebuild.language
    app = Starlette(
        routes=[
            WebSocketRoute("/websocket-reload", watcher, name="reload"),
            Mount("/", app=StaticFiles(directory=served, html=True), name="static"),
        ],
        middleware=[Middleware(JavascriptInjectorMiddleware, ws_url=f"{host}:{port}")],
        lifespan=watcher.lifespan,
    )
    print(f"live: watching {', '.join(_rel(p) for p in watched)}; Ctrl-C stops", flush=True)
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning")
    except KeyboardInterrupt:
        pass


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="_build", help="build folder (default: _build)")
    parser.add_argument("--language", default=SOURCE_LANGUAGE, choices=list(LANGUAGES))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0: a free port")
    parser.add_argument("--doctest", metavar="ARGS", required=True, help="pytest arguments of the doctest step")
    args = parser.parse_args(argv)
    if args.port == 0:
        from sphinx_autobuild.utils import find_free_port

        args.port = find_free_port()
    url = f"http://{args.host}:{args.port}/"
    rebuild = Rebuild(Path(args.out).resolve(), args.language, shlex.split(args.doctest), url)
    serve(rebuild, args.host, args.port)
    return 0


if __name__ == "__main__":
    exit_now(main())
