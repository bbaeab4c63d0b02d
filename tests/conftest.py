"""Shared fixtures: where the built site is, and its pages."""

import importlib.metadata
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = tuple(os.environ.get("GRADCUT_LANGUAGES", "en zh_CN").split())

pytest_plugins = ["sphinx.testing.fixtures", "browser_fixtures", "xdist_groups"]


def build_dir() -> Path:
    return ROOT / os.environ.get("GRADCUT_BUILD", "_build")


def dist_archive() -> Path:
    """The archive ``make dist`` writes of the built site."""
    return build_dir() / "dist" / f"gradcut-site-{importlib.metadata.version('torch')}.tar.gz"


@pytest.fixture(scope="session")
def built_site() -> Path:
    """The built site (``make test`` builds it first).

    ``_build/html`` is a link to the current build, swapped when a new one
    finishes; the session reads the one that was current when it started, by
    its real path, so a build finishing meanwhile cannot mix two sites.
    """
    html = build_dir() / "html"
    if not (html / "en" / "index.html").is_file():
        pytest.fail(f"no built site in {html}: run `make html` (make test does)")
    return html.resolve()


@pytest.fixture(scope="session")
def site(built_site) -> Path:
    """The published site: as built in _build/html.

    The reader gets it from the archive of ``make dist``; tests/test_dist.py shows that
    the archive holds exactly these files, byte for byte, so every check of the built
    site holds of the archive as unpacked (the checks read files, never where they are).
    """
    return built_site


@pytest.fixture(scope="session")
def pages(site) -> dict[str, list[str]]:
    """Relative paths of the HTML pages of each language."""
    return {
        lang: sorted(
            p.relative_to(site / lang).as_posix()
            for p in (site / lang).rglob("*.html")
            if "_static" not in p.parts
        )
        for lang in LANGUAGES
    }


@pytest.fixture(scope="session")
def rootdir() -> Path:
    """Roots of the small sites that sphinx.testing builds (tests/roots/test-*)."""
    return ROOT / "tests" / "roots"
