"""Build the bilingual site, one module per target of the Makefile.

=================  ===============================  ============================================
make target        module                           what it does
=================  ===============================  ============================================
``make html``      :mod:`~gradcut.tools.build.html`       doctests, then each language, then publish
``make doctest``   :mod:`~gradcut.tools.build.doctests`   the doctests of the pages and of ``src/``
``make dist``      :mod:`~gradcut.tools.build.dist`       the built site as one reproducible archive
``make po``        :mod:`~gradcut.tools.build.catalogs`   refresh the translation catalogs
``make livehtml``  :mod:`~gradcut.tools.build.live`       a live view of the pages being edited
=================  ===============================  ============================================

What ``make html`` puts together lives in modules of its own:
:mod:`~gradcut.tools.build.languages` runs each language's Sphinx as a child process
(start, wait, signals); :mod:`~gradcut.tools.build.site_pages` writes the site's own
pages (the root page that picks a language, the root 404 page, the sitemap, robots.txt);
:mod:`~gradcut.tools.build.publish` puts a new site in place of the last good one in one
step. Every command that writes ``_build/`` holds the build lock (:mod:`gradcut.tools.lock`).
"""

import argparse
import os
import signal
import sys
import time
from pathlib import Path

__all__ = ["HOLD", "LANGUAGES", "LOCALE", "LOCK", "ROOT", "SOURCE_LANGUAGE", "checkpoint", "command_line", "exit_now"]

ROOT = Path.cwd()
LANGUAGES = {"en": "English", "zh_CN": "简体中文"}
SOURCE_LANGUAGE = "en"
LOCALE = ROOT / "locale"


# The lock every build of this tree holds (gradcut.tools.lock): the gallery writes its outputs
# into the sources (docs/examples/), which the builds of every torch share.
LOCK = ROOT / "_build" / ".lock"
# A checkpoint at which a build stops until it gets SIGUSR1 (or is killed): the tests of
# concurrent and interrupted builds set ``GRADCUT_BUILD_HOLD=<name>``.
HOLD = "GRADCUT_BUILD_HOLD"


def checkpoint(name: str) -> None:
    if os.environ.get(HOLD) != name:
        return
    released = []
    previous = signal.signal(signal.SIGUSR1, lambda *_: released.append(True))
    print(f"build: holding at {name} (pid {os.getpid()})", flush=True)
    while not released:
        time.sleep(0.05)
    signal.signal(signal.SIGUSR1, previous)


def _languages(value: str) -> list[str]:
    chosen = value.split()
    unknown = [x for x in chosen if x not in LANGUAGES]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"unknown language(s) {unknown}; choose from {list(LANGUAGES)}")
    return chosen


def command_line(doc: str) -> argparse.ArgumentParser:
    """The arguments every build command takes: the build folder and the languages."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--out", default="_build", help="build folder (default: _build)")
    parser.add_argument(
        "--languages",
        type=_languages,
        default=list(LANGUAGES),
        help=f"space-separated, from {' '.join(LANGUAGES)} (default: all)",
    )
    return parser


def exit_now(status) -> None:
    """End the process once its work is done and the lock released, without tearing
    down torch, Sphinx and the extensions (a second or two every build would wait for)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status if isinstance(status, int) else 1)
