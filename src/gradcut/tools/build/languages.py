"""Each language's Sphinx build as a child process of the build: start, wait, signals.

The build imports torch, Sphinx and the extensions once (:func:`warm_up`), then forks a
child per language (:func:`start_sphinx`): each starts from a clean state without paying
for the imports again. English goes first, as it executes the gallery; the next language
starts once the gallery has run (it reuses the captured outputs through sphinx-gallery's
cache) and the two build side by side, each on a core (:func:`build_languages`).
SIGTERM and SIGINT end the children first (:func:`stop_children`).
"""

import contextlib
import os
import runpy
import shlex
import signal
import sys
import time
from pathlib import Path

from gradcut.sphinxext.gallery import GALLERY_FD
from gradcut.tools.build import ROOT, checkpoint


def sphinx(builder: str, outdir: Path, doctrees: Path, options: list[str], announce: bool = True) -> int:
    """Run Sphinx in a child of this process (a fork: torch and the extensions are
    imported once per build, yet each language starts from a clean state)."""
    return wait(start_sphinx(builder, outdir, doctrees, options, announce=announce))


def start_sphinx(builder: str, outdir: Path, doctrees: Path, options: list[str], announce: bool = True, **child) -> int:
    """Start Sphinx in a forked child (:func:`start`); its pid. ``announce``: print the
    command line first -- in the child, so that it goes with the child's output (a
    language that builds beside another shows it with its messages, once the one before
    it is done, not before that one's summary)."""
    argv = ["-b", builder, "-c", str(ROOT), str(ROOT / "docs"), str(outdir), "-d", str(doctrees), *options]
    return start(_build_main, argv, announce, **child)


def _build_main(argv: list[str], announce: bool) -> int:
    from sphinx.cmd.build import build_main

    if announce:
        print("+ sphinx", shlex.join(argv), flush=True)
    return build_main(argv)


def start(function, *args, output: Path | None = None, gallery_fd: int | None = None) -> int:
    """Start ``function(*args)`` in a forked child; its pid (:func:`wait` for it).
    ``output``: a file the child's output goes to, instead of this process's;
    ``gallery_fd``: the end of a pipe the child's Sphinx writes to once the gallery has
    run (gradcut.sphinxext.gallery; the pipe closes unwritten if it never runs)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        rc = 1
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            if output is not None:
                fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                os.close(fd)
            if gallery_fd is not None:
                os.environ[GALLERY_FD] = str(gallery_fd)
            rc = function(*args)
        except SystemExit as exit:
            rc = exit.code if isinstance(exit.code, int) else 1
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc or 0)
    CHILDREN.add(pid)
    return pid


def wait(pid: int) -> int:
    """The exit status of the child ``pid``, once it has ended."""
    try:
        _, status = os.waitpid(pid, 0)
    finally:
        CHILDREN.discard(pid)
    return os.waitstatus_to_exitcode(status)


CHILDREN: set[int] = set()


def stop_children(signum, frame):
    """On SIGTERM/SIGINT: end the children, then this process (its ``finally`` blocks
    run; the last good site is untouched until the swap, which is one rename).

    Once: a second signal (make passes the one it got on to its children, and a
    process group gets it as well) must not break into the exit under way."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for pid in list(CHILDREN):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    print(
        f"\nbuild stopped ({signal.Signals(signum).name}); the last good site in "
        f"{OUT_FOR_MESSAGES[0] / 'html' if OUT_FOR_MESSAGES else '_build/html'} is untouched.",
        file=sys.stderr,
        flush=True,
    )
    raise SystemExit(128 + signum)


OUT_FOR_MESSAGES: list[Path] = []


class Language:
    """One language's Sphinx build, in its working folder ``_build/.work/<lang>/``."""

    def __init__(self, out: Path, language: str, options: list[str]):
        self.language = language
        self.options = options
        self.work = out / ".work" / language
        # Present while Sphinx works on the folder: a build killed half-way through
        # writing leaves pages Sphinx would take as up to date. The next build then
        # reads all again.
        self.unfinished = self.work / ".unfinished"
        self.output = self.work / "output.txt"
        self.pid = None
        self.rc = None  # once waited for
        self.started = 0.0

    def start(self, buffered: bool, gallery_fd: int | None = None) -> None:
        self.work.mkdir(parents=True, exist_ok=True)
        if self.unfinished.exists():
            (self.work / "doctrees" / "environment.pickle").unlink(missing_ok=True)
        self.unfinished.touch()
        self.buffered = buffered
        self.started = time.perf_counter()
        self.pid = start_sphinx(
            "html", self.work / "html", self.work / "doctrees",
            ["-D", f"language={self.language}", *self.options],
            output=self.output if buffered else None, gallery_fd=gallery_fd,
        )  # fmt: skip

    def ended(self) -> bool:
        """Whether the build has ended with a failure (it is then waited for)."""
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid == 0:
            return False
        CHILDREN.discard(self.pid)
        self.rc = os.waitstatus_to_exitcode(status)
        return self.rc != 0

    def finish(self) -> int:
        rc = wait(self.pid) if self.rc is None else self.rc
        if self.buffered and self.output.is_file():
            sys.stdout.write(self.output.read_text(encoding="utf-8", errors="replace"))
            sys.stdout.flush()
        if rc:
            # Sphinx keeps the environment of a failed build, and an incremental build
            # would not re-read (nor warn about) the pages that failed: make the next one
            # re-read all.
            (self.work / "doctrees" / "environment.pickle").unlink(missing_ok=True)
        else:
            self.unfinished.unlink()
        self.seconds = round(time.perf_counter() - self.started, 3)
        checkpoint(self.language)
        return rc


def build_languages(out: Path, languages: list[str], options: list[str], keep_going: bool) -> tuple[list[str], dict]:
    """Build every language: the first runs the gallery (it executes the examples and
    writes their pages into ``docs/examples/``, which every language reads); each next
    one starts as soon as the one before has run it, the two then building side by side
    (the other languages reuse the captured outputs through sphinx-gallery's cache). The
    output of a language that builds beside another is shown once it is done, in the
    order of the languages. Returns the languages that failed and each one's seconds."""
    failed, timings, running = [], {}, []
    for index, language in enumerate(languages):
        build = Language(out, language, options)
        last = index == len(languages) - 1
        read_end, write_end = (None, None) if last else os.pipe()
        build.start(buffered=bool(running), gallery_fd=write_end)
        if write_end is not None:
            os.close(write_end)
            with os.fdopen(read_end, "rb") as done:
                done.read(1)  # the gallery has run, or the build has ended
        running.append(build)
        if last:
            break
        if build.ended():
            break  # before its gallery ran: no other language starts
    for build in running:
        rc = build.finish()
        timings[build.language] = build.seconds
        print(f"{build.language}: {build.seconds:.1f} s", flush=True)
        if rc:
            failed.append(build.language)
            if not keep_going:
                for other in running[running.index(build) + 1 :]:
                    if other.rc is None:  # not waited for yet
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(other.pid, signal.SIGTERM)
                        wait(other.pid)
                break
    return failed, timings


# What the extensions import only once Sphinx sets them up or runs them (measured: the
# modules a language's build imports that the extensions' own modules do not). Not the
# icon font's cutter (fontTools): a build needs it only when the pages' icons change.
WARM = (
    "a11y_pygments", "docutils.core", "gradcut.claims.draw", "markdown_it",
    "matplotlib.pyplot", "myst_nb.core.execute", "myst_nb.sphinx_", "myst_nb.sphinx_ext",
    "myst_parser.parsers.sphinx_", "nbformat", "sphinx.builders.html", "sphinx.search.en",
    "sphinx.search.zh", "sphinx_gallery.gen_gallery", "sphinx_gallery.gen_rst",
)  # fmt: skip


def warm_up(languages: list[str], cache: Path | None = None) -> None:
    """Import what every language's build imports (torch, Sphinx, the extensions of
    conf.py, the theme; the Chinese search's dictionary) and read the runs of each torch
    release, once for all of them. ``cache``: a folder for what is slow to read and
    seldom changes (the Chinese search's dictionary)."""
    import importlib
    import logging

    # Some of these configure logging when imported (a11y_pygments: the root logger at
    # INFO): the builds' output must stay what it is in a fresh process.
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import sphinx.application  # noqa: F401
        import sphinx.cmd.build  # noqa: F401
        import torch  # noqa: F401

        conf = runpy.run_path(str(ROOT / "conf.py"))
        for name in [*conf.get("extensions", []), conf.get("html_theme", ""), *WARM]:
            with contextlib.suppress(Exception):  # Sphinx reports what does not load
                if name:
                    importlib.import_module(name)
        with contextlib.suppress(Exception):  # the theme's code styles, found by plugin
            import pygments.styles

            for style in pygments.styles.get_all_styles():
                pygments.styles.get_style_by_name(style)
        with contextlib.suppress(Exception):  # every page reads the runs of each release
            from gradcut.sphinxext import versions

            versions.preload(ROOT / "docs" / conf.get("gradcut_torch_runs", "_torch_runs"))
        if any(language.startswith("zh") for language in languages):
            with contextlib.suppress(Exception):
                import jieba

                from gradcut.sphinxext import search

                jieba.setLogLevel(logging.WARNING)
                search.load_dictionary(cache)
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
