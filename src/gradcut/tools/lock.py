"""One build at a time in a tree: a lock on the build folder.

Every command that writes the build folder (``_build/``) or the gallery's outputs in the
sources (``docs/examples/``, shared by the builds of every torch) holds
``_build/.lock`` while it runs: the doctests, Sphinx in each language, the assembly of
the site, ``make dist``, ``make po``, ``make test``; ``make livehtml`` while it
rebuilds (not while it waits for an edit, so that the gate runs beside it). A second command
waits for the first and says so once, naming it (its pid and command line); with
``GRADCUT_LOCK=fail`` it stops at once with that message instead.

The lock is ``fcntl.flock`` on the lock file: the kernel drops it when the last process
holding it ends, however it ends, so a killed build leaves no stale lock. It is passed
down to the processes a command starts (the file stays open in them, and
``GRADCUT_LOCK_HELD`` names it, so that they do not wait for their own parent).

``python -m gradcut.tools.lock LOCKFILE COMMAND...`` runs COMMAND holding the lock (what the
Makefile's recipes use).
"""

import contextlib
import fcntl
import os
import shlex
import sys
from pathlib import Path

HELD = "GRADCUT_LOCK_HELD"
MODE = "GRADCUT_LOCK"  # "wait" (the default) or "fail"


class Busy(Exception):
    """Another build holds the lock and the caller chose not to wait."""


def holder(path: Path) -> str:
    """Who holds the lock, as its holder wrote it: ``pid N: command``."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError:
        text = ""
    return text or "another build"


def _command(pid: int) -> str:
    """The command line of process ``pid`` (Linux), or ''."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return shlex.join(arg.decode(errors="replace") for arg in raw.split(b"\0") if arg)


def acquire(path: Path, what: str | None = None, wait: bool | None = None) -> int | None:
    """Take the lock at ``path``; return its file descriptor (None: an ancestor holds it).

    Waits while another process holds it (saying so once, on stderr), or raises
    :class:`Busy` when ``wait`` is false (default: ``GRADCUT_LOCK`` is not ``fail``).
    """
    path = Path(path).resolve()
    if os.environ.get(HELD) == str(path):
        return None
    if wait is None:
        wait = os.environ.get(MODE, "wait") != "fail"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        other = holder(path)
        if not wait:
            os.close(fd)
            raise Busy(f"{path.parent} is in use by another build ({other}); try again when it ends") from None
        print(f"waiting for the other build in {path.parent} to end ({other}) ...", file=sys.stderr, flush=True)
        fcntl.flock(fd, fcntl.LOCK_EX)
    what = what or shlex.join([Path(sys.executable).name, *sys.argv])
    parent = _command(os.getppid())
    if parent and parent.split()[0].endswith("make"):
        what = f"{what} (under `{parent}`)"
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()}: {what}\n".encode(), 0)
    os.environ[HELD] = str(path)
    return fd


@contextlib.contextmanager
def locked(path: Path, what: str | None = None):
    """Hold the lock at ``path`` for the ``with`` block; a busy lock exits with one line."""
    try:
        fd = acquire(path, what)
    except Busy as busy:
        raise SystemExit(f"build: {busy}") from None
    try:
        yield
    finally:
        if fd is not None:
            os.environ.pop(HELD, None)
            os.close(fd)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print("usage: python -m gradcut.tools.lock LOCKFILE COMMAND...", file=sys.stderr)
        return 2
    path, command = Path(argv[0]), argv[1:]
    try:
        fd = acquire(path, shlex.join(command))
    except Busy as busy:
        print(f"build: {busy}", file=sys.stderr)
        return 75  # EX_TEMPFAIL
    if fd is not None:
        os.set_inheritable(fd, True)  # exec keeps the pid: the lock file names the command
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"build: cannot run {command[0]}: {error}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main())
