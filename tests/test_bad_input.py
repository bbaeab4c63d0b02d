"""Bad input stops the build with a message naming the file and line.

Each case runs the real entry point (`make html`, with the project's Makefile, conf.py
and extension) on a small site of its own, in a temporary git repository carrying the
project's .gitignore. The site starts good; each case breaks one thing and checks the
message, that the last good site is untouched, and that the build left `git status`
clean.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "minisite"
COPIED = ("conf.py", "Makefile", "requirements.txt", "pyproject.toml", ".gitignore")

# one process: the tests take turns breaking and repairing one built site
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("bad_input")]


def run(cmd, cwd, check=False):
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    # not the settings of a `make test` this runs under (MAKEFLAGS carries LANGUAGES=…,
    # and make exports its command-line variables, `make test TORCH=2.14.1`, too)
    for name in ("GRADCUT_BUILD", "GRADCUT_LANGUAGES", "MAKEFLAGS", "MFLAGS", "MAKELEVEL",
                 "TORCH", "LANGUAGES", "SPHINXOPTS", "PYTEST_ARGS", "JOBS", "PATCH"):  # fmt: skip
        env.pop(name, None)
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and proc.returncode:
        pytest.fail(f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def git_status(site):
    return run(["git", "status", "--porcelain", "--untracked-files=all"], site).stdout


def make_html(site, *args):
    """Build; fail the test if the build itself changed what git sees."""
    before = git_status(site)
    proc = run(["make", "html", *args], site)
    after = git_status(site)
    assert after == before, f"the build changed the work tree:\n{before}\n---\n{after}"
    return proc.returncode, proc.stdout + proc.stderr


def new_minisite(site: Path) -> Path:
    """The small site in ``site`` (a new folder), with the project's Makefile, conf.py
    and settings, in a git repository of its own; not built yet."""
    shutil.copytree(FIXTURE, site, dirs_exist_ok=True)
    for name in COPIED:
        shutil.copy2(ROOT / name, site / name)
    catalogs = site / "locale" / "zh_CN" / "LC_MESSAGES"
    shutil.copy2(ROOT / "locale" / "zh_CN" / "LC_MESSAGES" / "sphinx.po", catalogs)
    # The venv of the running tests stands in for the one `make` would create.
    (site / ".venv").symlink_to(Path(sys.prefix))
    for name in ("requirements.txt", "pyproject.toml"):
        os.utime(site / name, (0, 0))
    run(["git", "init", "-q"], site, check=True)
    run(["git", "add", "-A"], site, check=True)
    run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "site"], site, check=True)
    return site


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A good small site, built once; each test restores what it breaks."""
    site = new_minisite(tmp_path_factory.mktemp("site"))
    rc, out = make_html(site)
    assert rc == 0, out
    return site


def index_html(site):
    return (site / "_build" / "html" / "en" / "index.html").read_bytes()


def assert_failed_cleanly(site, rc, out, *expected):
    """The build failed, said where, and kept the last good site."""
    assert rc != 0, out
    for text in expected:
        assert text in out, f"{text!r} not in:\n{out}"
    assert (site / "_build" / "html" / "en" / "index.html").is_file()
    assert not (site / "_build" / "html.new").exists()


@pytest.fixture
def restore(site):
    """Put every tracked file back after a case."""
    yield
    run(["git", "checkout", "-q", "--", "."], site, check=True)
    run(["git", "clean", "-qfd", "gallery", "docs", "locale"], site, check=True)


def test_good_build_leaves_git_status_clean(site):
    assert git_status(site) == ""
    for lang in ("en", "zh_CN"):
        assert (site / "_build" / "html" / lang / "examples" / "plot_01_ok.html").is_file()


def test_example_raising_unexpectedly(site, restore):
    before = index_html(site)
    (site / "gallery" / "plot_02_boom.py").write_text(
        '"""\nBoom\n====\n\nIt raises.\n"""\n\n# %%\n# Raise.\nx = 1\nraise ValueError("boom")\n'
    )
    rc, out = make_html(site, "LANGUAGES=en")
    assert_failed_cleanly(site, rc, out, 'plot_02_boom.py", line 11', "ValueError: boom")
    assert index_html(site) == before


def test_syntax_error_in_example(site, restore):
    before = index_html(site)
    example = site / "gallery" / "plot_01_ok.py"
    example.write_text(example.read_text() + "\nprint((1,\n")
    rc, out = make_html(site, "LANGUAGES=en")
    assert_failed_cleanly(site, rc, out, 'plot_01_ok.py", line 12', "SyntaxError")
    assert index_html(site) == before


def test_failing_doctest(site, restore):
    before = index_html(site)
    page = site / "docs" / "index.md"
    page.write_text(page.read_text().replace(">>> 1 + 1\n2\n", ">>> 1 + 1\n3\n"))
    rc, out = make_html(site, "LANGUAGES=en")
    assert_failed_cleanly(site, rc, out, "docs/index.md:6", "expected:", "got:")
    assert index_html(site) == before


def test_broken_cross_reference(site, restore):
    before = index_html(site)
    page = site / "docs" / "index.md"
    page.write_text(page.read_text().replace("torch.Tensor.detach`", "torch.Tensor.detachh`"))
    rc, out = make_html(site, "LANGUAGES=en")
    assert_failed_cleanly(
        site, rc, out, "docs/index.md:3", "reference target not found: torch.Tensor.detachh"
    )
    assert index_html(site) == before


def test_broken_internal_link(site, restore):
    page = site / "docs" / "index.md"
    page.write_text(page.read_text() + "\nSee [nowhere](missing.md).\n")
    rc, out = make_html(site, "LANGUAGES=en")
    lines = page.read_text().count("\n")
    assert_failed_cleanly(site, rc, out, f"docs/index.md:{lines}", "missing.md")


def test_malformed_catalog(site, restore):
    before = index_html(site)
    po = site / "locale" / "zh_CN" / "LC_MESSAGES" / "index.po"
    text = po.read_text()
    po.write_text(text + '\nmsgid "x"\nmsgstr "y\n\nmsgid "unterminated\n')
    lines = len(po.read_text().splitlines())
    rc, out = make_html(site)
    assert_failed_cleanly(
        site, rc, out, f"locale/zh_CN/LC_MESSAGES/index.po:{lines - 1}", "malformed catalog"
    )
    assert index_html(site) == before


def test_untranslated_string(site, restore):
    page = site / "docs" / "index.md"
    page.write_text(page.read_text() + "\nA sentence nobody translated.\n")
    rc, out = make_html(site)
    assert_failed_cleanly(
        site, rc, out, "docs/index.md:", "untranslated string 'A sentence nobody translated.'"
    )


def test_deleted_page_is_not_published(site, restore):
    """A page whose source is gone leaves the site, though Sphinx keeps its old HTML."""
    page = site / "docs" / "extra.md"
    page.write_text("# Extra\n\nA page that will go.\n")
    index = site / "docs" / "index.md"
    index.write_text(index.read_text().replace("examples/index\n", "examples/index\nextra\n"))
    rc, out = make_html(site, "LANGUAGES=en")
    assert rc == 0, out
    assert (site / "_build" / "html" / "en" / "extra.html").is_file()
    run(["git", "checkout", "-q", "--", "."], site, check=True)
    page.unlink()
    rc, out = make_html(site, "LANGUAGES=en")
    assert rc == 0, out
    assert (site / "_build" / ".work" / "en" / "html" / "extra.html").is_file()  # Sphinx's
    assert not (site / "_build" / "html" / "en" / "extra.html").exists()
    assert "not published: en/extra.html" in out


def test_site_builds_again_once_repaired(site, restore):
    """After the failures above, the repaired sources build (no poisoned cache).

    The last case of the module: pytest runs them in order, on one process."""
    rc, out = make_html(site)
    assert rc == 0, out
