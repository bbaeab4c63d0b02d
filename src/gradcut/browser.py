"""The browser the site is checked in: Debian's Chromium, driven by Playwright.

Playwright is only the driver here; it never downloads a browser. ``make test`` installs
``chromium`` (and the CJK fonts the Chinese pages need) with apt when it is missing.
"""

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


class BrowserMissing(RuntimeError):
    pass


def launch(playwright):
    """Start Debian's Chromium through ``playwright`` (a started ``sync_playwright()``)."""
    if not CHROMIUM.is_file():
        raise BrowserMissing(
            f"{CHROMIUM} is missing: `make test` installs it "
            "(apt-get install chromium chromium-driver fonts-noto-cjk)"
        )
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
