"""`make livehtml`: one rebuild per edit, then quiet; checked; beside `make html`.

The live view of the small site (tests/fixtures/minisite) runs for the whole module, as
an author leaves it running, and the cases follow one session: an edit that breaks a
transcript is rebuilt once and the page says it is not verified; the edit put back, the
box goes; then the view stays idle for a minute (no rebuild, next to no CPU) while
`make html` runs beside it without waiting, its writes to the sources (the gallery's
pages, compiled catalogs) waking nothing; last, a rebuild that comes while `make html`
holds the build says whom it waits for and follows it.
"""

import os
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request

import psutil
import pytest

from test_bad_input import new_minisite, run
from test_concurrent_builds import EDIT, Build, env

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("livehtml")]

IDLE = 60  # seconds the view must stay quiet after a rebuild
REBUILDING = "changed: rebuilding"
REPORT = re.compile(r"^live: rebuilt in \d+ s.*; serving (?P<url>http://\S+)$")
TRANSCRIPT = (">>> 1 + 1\n2\n", ">>> 1 + 1\n3\n")


class Live:
    """`make livehtml` in the background, in a process group of its own; its output is
    read as it comes."""

    def __init__(self, site):
        self.proc = subprocess.Popen(
            ["make", "livehtml", "PORT=0"], cwd=site, env=env(), text=True, start_new_session=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.lines: list[str] = []
        self.new = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self.new:
                self.lines.append(line.rstrip("\n"))
                self.new.notify_all()

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def reports(self) -> list[str]:
        return [line for line in self.lines if REPORT.match(line)]

    def wait_for_report(self, count: int, timeout: float = 240) -> str:
        """The ``count``-th "rebuilt ... serving" line, once it came."""
        with self.new:
            if not self.new.wait_for(lambda: len(self.reports()) >= count, timeout):
                pytest.fail(f"no rebuild #{count} within {timeout} s:\n{self.output}")
        return self.reports()[count - 1]

    def cpu_seconds(self) -> float:
        """CPU time of the live view and everything it started that is still running."""
        try:
            parent = psutil.Process(self.proc.pid)
            total = 0.0
            for process in [parent, *parent.children(recursive=True)]:
                times = process.cpu_times()
                total += times.user + times.system + times.children_user + times.children_system
            return total
        except psutil.NoSuchProcess:
            return float("nan")

    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGINT)
            self.proc.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The small site, never built: the live view starts first, as on a fresh clone."""
    return new_minisite(tmp_path_factory.mktemp("live"))


@pytest.fixture(scope="module")
def live(site):
    view = Live(site)
    view.wait_for_report(1)
    yield view
    view.stop()
    assert "Traceback" not in view.output, view.output


def page(live) -> str:
    """The home page as the live view serves it (the server starts listening a moment
    after the first build's report)."""
    url = REPORT.match(live.reports()[-1])["url"] + "index.html"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return response.read().decode()
        except urllib.error.URLError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def edit(site, old, new):
    index = site / "docs" / "index.md"
    text = index.read_text()
    assert old in text
    index.write_text(text.replace(old, new))


def test_an_edit_is_rebuilt_once_and_checked(site, live):
    assert "live: every claim holds" in live.output
    assert "gradcut-unverified" not in page(live)
    edit(site, *TRANSCRIPT)
    live.wait_for_report(2)
    assert live.output.count(REBUILDING) == 1, live.output
    assert "live: NOT VERIFIED: 1 claim does not hold (docs/index.md:6); its page says so at the top" in live.output
    html = page(live)
    assert "Live view: not verified" in html and "gradcut-unverified" in html
    assert "expected:\n3\ngot:\n2" in html, html


def test_the_box_goes_once_the_claim_holds_again(site, live):
    edit(site, *reversed(TRANSCRIPT))
    report = live.wait_for_report(3)
    assert live.output.count(REBUILDING) == 2, live.output
    # the last line of that text: an earlier rebuild may have printed the same line
    # (same seconds, same address)
    at = len(live.lines) - 1 - live.lines[::-1].index(report)
    assert live.lines[at - 1] == "live: every claim holds", live.output
    assert "gradcut-unverified" not in page(live)


def test_then_it_stays_idle_while_make_html_runs_beside_it(site, live):
    """After the rebuild, a minute without one: `make html` meanwhile neither waits for
    the live view nor wakes it with what it writes (docs/examples/, compiled catalogs)."""
    start, cpu = time.monotonic(), live.cpu_seconds()
    proc = run(["make", "html"], site)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "waiting for the other build" not in out, out
    assert "Built en, zh_CN" in out
    time.sleep(max(0.0, IDLE - (time.monotonic() - start)))
    idle_cpu = live.cpu_seconds() - cpu
    assert live.output.count(REBUILDING) == 2, f"woken while idle:\n{live.output}"
    assert idle_cpu < 2.0, f"{idle_cpu:.1f} s of CPU in {IDLE} s idle"
    print(f"live view idle for {time.monotonic() - start:.0f} s: {idle_cpu:.2f} s of CPU")


def test_a_rebuild_during_make_html_waits_for_it_and_says_so(site, live):
    for stamp in (site / "_build").glob(".html-*.stamp"):
        stamp.unlink()  # a build to run, with no source touched (that would wake the view)
    build = Build(site, GRADCUT_BUILD_HOLD="en")
    holder = build.held_pid("en")
    try:
        edit(site, *EDIT)  # code only: nothing to translate
        deadline = time.monotonic() + 120
        while "waiting for the other build" not in live.output and time.monotonic() < deadline:
            time.sleep(0.5)
        waiting = [line for line in live.lines if "waiting for the other build" in line]
        assert len(waiting) == 1 and f"pid {holder}" in waiting[0] and "make html" in waiting[0], live.output
        time.sleep(2)
        assert len(live.reports()) == 3  # it really waits: no rebuild meanwhile
    finally:
        os.kill(holder, signal.SIGUSR1)
    build.finish()
    live.wait_for_report(4)
    assert "after" in live.reports()[-1] and "waiting for the other build" in live.reports()[-1]
