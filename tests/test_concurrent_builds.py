"""Builds that cannot hurt each other: concurrent, killed and failing builds keep the last
good site.

Each case runs `make html` (the project's Makefile, conf.py and extension) on the small
site of tests/fixtures/minisite, built once. A build is stopped at a phase with
``GRADCUT_BUILD_HOLD=<phase>`` (it prints ``build: holding at <phase> (pid N)`` and waits
for SIGUSR1), then killed or let go; every case ends with the published site whole.

The cases run in order on one process, as one story: the build after each killed one is
the next case's (it must start without any clean-up and get past the phase the killed
one stopped in), and after the last kill a whole build must publish
(``test_builds_again_after_every_kill``). A failure names the kills before it.
"""

import errno
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from test_bad_input import new_minisite, run

# one process: the cases take turns on one built site, each after the one before it
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("concurrent_builds")]

# An edit that needs no translation: a doctest (which runs again) with a new string.
EDIT = (">>> 1 + 1\n2\n", '>>> len("edited")\n6\n')


def env(**extra):
    environment = {**os.environ, "LC_ALL": "C.UTF-8", **extra}
    for name in ("GRADCUT_BUILD", "GRADCUT_LANGUAGES", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "TORCH",
                 "LANGUAGES", "SPHINXOPTS", "GRADCUT_LOCK_HELD", "GRADCUT_LOCK", "GRADCUT_BUILD_HOLD"):  # fmt: skip
        environment.pop(name, None)
    environment.update(extra)
    return environment


class Build:
    """`make html` in the background, in a process group of its own (as a terminal or a
    CI runner would signal it)."""

    def __init__(self, site: Path, **extra):
        self.proc = subprocess.Popen(
            ["make", "html"], cwd=site, env=env(**extra), text=True, start_new_session=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.lines: list[str] = []

    def wait_for(self, text: str, context: str = "", timeout: float = 300) -> str:
        deadline = time.monotonic() + timeout
        for line in self.proc.stdout:
            self.lines.append(line)
            if text in line:
                return line
            if time.monotonic() > deadline:
                break
        self.kill()
        pytest.fail(f"{text!r} never came{context}:\n{''.join(self.lines)}")

    def held_pid(self, phase: str, after: list[str] = ()) -> int:
        """The pid of the build held at ``phase``; ``after``: the builds killed before
        this one, named if it never gets there (it must start without any clean-up)."""
        context = f" (the build after: {', '.join(after)})" if after else ""
        line = self.wait_for(f"build: holding at {phase} (pid ", context)
        return int(line.rsplit("pid ", 1)[1].rstrip(")\n"))

    def finish(self, timeout: float = 600) -> tuple[int, str]:
        rest, _ = self.proc.communicate(timeout=timeout)
        output = "".join(self.lines) + rest
        return self.proc.returncode, output

    def kill(self, signum=signal.SIGTERM):
        try:
            os.killpg(self.proc.pid, signum)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def built_minisite(tmp_path_factory):
    """The small site of test_bad_input, built once."""
    site = new_minisite(tmp_path_factory.mktemp("site"))
    proc = run(["make", "html"], site)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return site


@pytest.fixture(scope="module")
def killed() -> list[str]:
    """The builds killed so far, in order ("SIGTERM in en", ...)."""
    return []


@pytest.fixture
def site(built_minisite):
    """The small site, built, with its page edited; put back afterwards."""
    page = built_minisite / "docs" / "index.md"
    original = page.read_text()
    assert EDIT[0] in original
    page.write_text(original.replace(*EDIT))
    yield built_minisite
    page.write_text(original)
    run(["git", "checkout", "-q", "--", "."], built_minisite, check=True)


def published(site: Path) -> dict:
    """What a reader of _build/html gets now: every file, and where the link points."""
    html = site / "_build" / "html"
    assert html.is_symlink(), "the published site is a link, swapped in one step"
    files = {p.relative_to(html).as_posix(): p.read_bytes() for p in html.rglob("*") if p.is_file()}
    assert {"index.html", "en/index.html", "zh_CN/index.html"} <= set(files)
    return {"target": os.readlink(html), "files": files}


def test_a_second_build_waits_for_the_first_and_says_so_once(site):
    first = Build(site, GRADCUT_BUILD_HOLD="en")
    holder = first.held_pid("en")
    second = Build(site)
    waiting = second.wait_for("waiting for the other build")
    assert f"pid {holder}" in waiting, waiting
    assert "make html" in waiting, waiting
    time.sleep(2)  # the second really waits: it has not started its own phases
    os.kill(holder, signal.SIGUSR1)
    rc1, out1 = first.finish()
    rc2, out2 = second.finish()
    assert rc1 == 0, out1
    assert rc2 == 0, out2
    assert out2.count("waiting for the other build") == 1, out2
    assert "Traceback" not in out1 + out2
    assert "Built en, zh_CN" in out1 and "Built en, zh_CN" in out2
    # the second build began its phases only once the first had swapped its site in
    assert out2.index("waiting for the other build") < out2.index("+ sphinx")
    published(site)
    assert "edited" in (site / "_build" / "html" / "en" / "index.html").read_text()


def test_a_second_build_can_stop_at_once_naming_the_first(site, killed):
    first = Build(site, GRADCUT_BUILD_HOLD="en")
    holder = first.held_pid("en", killed)
    try:
        before = published(site)
        proc = subprocess.run(
            ["make", "html"], cwd=site, env=env(GRADCUT_LOCK="fail"), capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
        assert proc.returncode != 0
        message = [line for line in proc.stderr.splitlines() if line.startswith("build:")]
        assert len(message) == 1, proc.stderr
        assert f"pid {holder}" in message[0] and "make html" in message[0], message[0]
        assert "Traceback" not in proc.stdout + proc.stderr
        assert published(site) == before
    finally:
        first.kill()
        first.finish()
        killed.append("SIGTERM in en, while a second build stopped")


@pytest.mark.parametrize("phase", ["doctests", "en", "zh_CN", "assembly", "swap"])
def test_sigterm_in_any_phase_keeps_the_last_good_site(site, killed, phase):
    before = published(site)
    build = Build(site, GRADCUT_BUILD_HOLD=phase)
    build.held_pid(phase, killed)
    assert published(site) == before
    build.kill(signal.SIGTERM)
    killed.append(f"SIGTERM in {phase}")
    rc, out = build.finish(timeout=120)
    assert rc != 0, out
    assert "Traceback" not in out, out
    assert published(site) == before, "a killed build changed the published site"


def test_ctrl_c_during_a_language_keeps_the_last_good_site(site, killed):
    before = published(site)
    build = Build(site, GRADCUT_BUILD_HOLD="zh_CN")
    build.held_pid("zh_CN", killed)
    build.kill(signal.SIGINT)
    killed.append("SIGINT in zh_CN")
    rc, out = build.finish(timeout=120)
    assert rc != 0, out
    assert published(site) == before


def test_builds_again_after_every_kill(site, killed):
    """After the killed builds above (each next one started without any clean-up and got
    past the phase the one before it stopped in), the next build runs (no stale lock)
    and publishes the edit as a new site, clearing what the killed ones left."""
    after = f"after {', '.join(killed) or 'no killed build'}"
    before = published(site)["target"]
    proc = run(["make", "html"], site)
    assert proc.returncode == 0, f"{after}:\n{proc.stdout}{proc.stderr}"
    assert published(site)["target"] != before, f"{after}: no new site published"
    assert "edited" in (site / "_build" / "html" / "en" / "index.html").read_text(), after
    sites = sorted(p.name for p in (site / "_build" / "sites").iterdir())
    assert len(sites) <= 2, f"{after}: old sites pile up: {sites}"
    leftovers = sorted(p.name for p in (site / "_build").glob(".html.link-*"))
    assert not leftovers, f"{after}: left beside the site: {leftovers}"


@pytest.mark.parametrize(
    "error",
    [OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), PermissionError(errno.EACCES, os.strerror(errno.EACCES))],
    ids=["disk-full", "unwritable"],
)
def test_a_failure_during_assembly_keeps_the_last_good_site(built_minisite, monkeypatch, capsys, error):
    """A full disk or an unwritable folder half-way through assembling: one line, and the
    last good site stays published."""
    from gradcut.tools.build import publish, site_pages

    out = built_minisite / "_build"
    before = published(built_minisite)
    real_copy = shutil.copyfile  # what copytree's copy2 calls for each file
    copied = []

    def failing_copy(src, dst, *args, **kwargs):
        if len(copied) == 3:
            error.filename = str(dst)
            raise error
        copied.append(dst)
        return real_copy(src, dst, *args, **kwargs)

    monkeypatch.setattr(shutil, "copyfile", failing_copy)
    monkeypatch.setattr(site_pages, "ROOT", built_minisite)
    assert publish.publish(out, ["en", "zh_CN"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("build FAILED: cannot write the site: ")
    assert os.strerror(error.errno) in err[0] and "last good site" in err[0]
    assert published(built_minisite) == before
    # nothing half-written is left beside it
    assert [p.name for p in (out / "sites").iterdir()] == [Path(before["target"]).name]
    monkeypatch.undo()
    assert publish.publish(out, ["en", "zh_CN"]) == 0
    # the retry publishes what the languages' builds left in .work, every file of it
    after = published(built_minisite)["files"]
    assert set(after) == set(before["files"])
    for language in ("en", "zh_CN"):
        built = out / ".work" / language / "html"
        for rel, data in after.items():
            if rel.startswith(f"{language}/"):
                assert data == (built / rel.removeprefix(f"{language}/")).read_bytes(), rel
