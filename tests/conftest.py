"""Shared fixtures: where the built site is, and its pages."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = tuple(os.environ.get("GRADCUT_LANGUAGES", "en zh_CN").split())

pytest_plugins = ["sphinx.testing.fixtures", "browser_fixtures"]


def build_dir() -> Path:
    return ROOT / os.environ.get("GRADCUT_BUILD", "_build")


@pytest.fixture(scope="session")
def site() -> Path:
    """The built site (``make test`` builds it first)."""
    html = build_dir() / "html"
    if not (html / "en" / "index.html").is_file():
        pytest.fail(f"no built site in {html}: run `make html` (make test does)")
    return html


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
