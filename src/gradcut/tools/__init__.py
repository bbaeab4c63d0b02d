"""The machinery that builds, verifies and measures the site.

- builds: :mod:`gradcut.tools.build` (a module per ``make`` target), :mod:`gradcut.tools.lock`;
- verifies: :mod:`gradcut.tools.pytest_plugin` (each doctest example a recorded claim),
  :mod:`gradcut.tools.releases` (every claim on every torch release),
  :mod:`gradcut.tools.drift` (simulated torch releases that the gate must catch);
- measures: :mod:`gradcut.tools.bench` (build speed), :mod:`gradcut.tools.weight` (page
  weight), with :mod:`gradcut.tools.serve` and :mod:`gradcut.tools.browser` (the built
  site served and visited in Chromium, for the browser tests too).
"""
