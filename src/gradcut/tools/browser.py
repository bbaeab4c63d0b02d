"""The browser the site is checked in: Debian's Chromium, driven by Playwright.

Playwright is only the driver here; it never downloads a browser. ``make test`` installs
``chromium`` (and the CJK fonts the Chinese pages need) with apt when it is missing.
"""

import time
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
# Headless, and quiet on the network: no update checks, no sync, no QUIC probing, so that
# every request the tests see comes from the page itself.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


class as_phone:
    """``with as_phone(tab, cdp):`` the page open in ``tab`` (desktop size) as a phone of
    the size ``PHONE`` shows it, without loading it again: Chromium's device emulation
    (DevTools' device toolbar; ``cdp``, a DevTools session of ``tab``) with a mobile
    viewport, which honours the page's ``<meta name="viewport">``, and touch. The page is
    laid out again at that width, its media queries apply; on leaving, the desktop size is
    back."""

    def __init__(self, tab, cdp, phone: dict = PHONE):
        self.tab, self.cdp, self.phone = tab, cdp, phone

    def _metrics(self, size: dict, mobile: bool) -> None:
        self.cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {
                "width": size["width"],
                "height": size["height"],
                "screenWidth": size["width"],
                "screenHeight": size["height"],
                "deviceScaleFactor": 1,
                "mobile": mobile,
            },
        )
        self.cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": mobile, "maxTouchPoints": 1})

    def __enter__(self):
        self._desktop = self.tab.viewport_size
        self._metrics(self.phone, mobile=True)
        return self.tab

    def __exit__(self, *exc):
        self._metrics(self._desktop, mobile=False)


class BrowserMissing(RuntimeError):
    pass


# A proxy nobody listens on: with it, every request that would leave 127.0.0.1 fails in the
# browser itself (Chromium never sends loopback addresses to a proxy), while the HTTP cache
# works as it does for readers (Playwright's request routing would turn it off).
OFFLINE = ["--proxy-server=http://127.0.0.1:1"]


def launch(playwright, offline: bool = False):
    """Start Debian's Chromium through ``playwright`` (a started ``sync_playwright()``);
    ``offline``: nothing outside 127.0.0.1 can be fetched."""
    if not CHROMIUM.is_file():
        raise BrowserMissing(
            f"{CHROMIUM} is missing: `make test` installs it "
            "(apt-get install chromium chromium-driver fonts-noto-cjk)"
        )
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=ARGS + (OFFLINE if offline else [])
    )


class InFlight:
    """The requests of a page that have not finished yet."""

    def __init__(self, page):
        self.pending = set()
        page.on("request", lambda r: self.pending.add(r))
        page.on("requestfinished", lambda r: self.pending.discard(r))
        page.on("requestfailed", lambda r: self.pending.discard(r))


def wait_until_quiet(tab, inflight: InFlight, quiet_ms: int = 100, timeout_s: float = 30) -> None:
    """Wait until no request of ``tab`` has been in flight for ``quiet_ms``: what scripts
    fetch after the load event (the search index, fonts, late images) has arrived or
    failed. Playwright's "networkidle" waits a fixed 500 ms, which over hundreds of page
    loads is most of the browser tests' time."""
    quiet_since = None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if inflight.pending:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= quiet_ms / 1000:
            return
        tab.wait_for_timeout(20)
    raise TimeoutError(f"{tab.url}: requests still in flight after {timeout_s} s: {inflight.pending}")
