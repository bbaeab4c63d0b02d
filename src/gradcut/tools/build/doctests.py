"""``make doctest``: the doctests of the pages and of ``src/``, each example a claim.

pytest runs them with the project's plugin (:mod:`gradcut.tools.pytest_plugin`), which
records every claim's outcome in ``_build/results/torch-<version>.json`` and runs again
only the files whose doctests could have changed outcome. ``make html`` runs them first,
in a child process, while it loads Sphinx.
"""

import importlib.metadata
import shlex
import sys
from pathlib import Path

from gradcut.tools.build import LOCK, checkpoint, command_line, exit_now
from gradcut.tools.build.languages import start
from gradcut.tools.lock import locked


def doctest_options(out: Path, args: list[str]) -> list[str]:
    """The doctest step's pytest arguments, with where it keeps its results and cache."""
    torch = importlib.metadata.version("torch")
    given = {arg.split("=", 1)[0] for arg in args}
    defaults = {
        "--gradcut-results": out / "results" / f"torch-{torch}.json",
        "--gradcut-report": out / "drift-report.md",
        "--gradcut-cache": out / ".doctest-cache.json",
    }
    return [*args, *(f"{name}={path}" for name, path in defaults.items() if name not in given)]


def run_doctests(out: Path, args: list[str]) -> int:
    """The doctests of the pages and of src/ (pytest, in this process)."""
    import pytest

    print("+ pytest", shlex.join(args), flush=True)
    rc = int(pytest.main(args))
    sys.stdout.flush()
    checkpoint("doctests")
    if rc == 0:
        (out / ".doctest.stamp").touch()
    return rc


def start_doctests(out: Path, args: list[str]) -> int:
    """Start the doctests in a child process (a fork: torch is imported already), while
    this one loads Sphinx and the extensions; return the child's pid."""
    return start(run_doctests, out, args)


def doctest_command(args) -> int:
    out = Path(args.out).resolve()
    with locked(LOCK):
        return run_doctests(out, doctest_options(out, shlex.split(args.doctest)))


def main(argv=None) -> int:
    parser = command_line(__doc__)
    parser.add_argument("--doctest", metavar="ARGS", required=True, help="pytest arguments")
    return doctest_command(parser.parse_args(argv))


if __name__ == "__main__":
    exit_now(main())
