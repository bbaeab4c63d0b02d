"""sphinx-gallery's execution cache is keyed on torch: a switch re-runs every example, no switch none.

The examples of tests/roots/test-gallery-cache log each run to ``runs.log``. The fast
test fakes a torch switch (the version the key reads); the slow one builds the same
sources with two real venvs of different torch, as ``make html`` and
``make html TORCH=…`` do on the shared ``docs/examples/``.
"""

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT


def runs(srcdir: Path) -> list[str]:
    log = srcdir / "runs.log"
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return sorted(lines)


def build(make_app, srcdir):
    app = make_app("html", srcdir=srcdir, freshenv=False)
    try:
        app.build()
        assert app.warning.getvalue() == ""
    finally:
        app.cleanup()


@pytest.fixture
def srcdir(tmp_path, rootdir) -> Path:
    target = tmp_path / "gallery-cache"
    shutil.copytree(rootdir / "test-gallery-cache", target)
    return target


def test_examples_rerun_exactly_when_torch_changes(srcdir, make_app, monkeypatch):
    torch = importlib.metadata.version("torch")
    build(make_app, srcdir)
    assert runs(srcdir) == [f"a {torch}", f"b {torch}"]

    build(make_app, srcdir)
    assert runs(srcdir) == [], "nothing changed, yet examples ran again"

    real = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata, "version", lambda name: "99.0.0" if name == "torch" else real(name)
    )
    build(make_app, srcdir)
    assert runs(srcdir) == ["a 99.0.0", "b 99.0.0"], "another torch, but not every example ran"

    build(make_app, srcdir)
    assert runs(srcdir) == []

    monkeypatch.undo()
    build(make_app, srcdir)
    assert runs(srcdir) == [f"a {torch}", f"b {torch}"], "back to the first torch: all run again"

    # The control: an edited example runs again, alone.
    example = srcdir / "gallery" / "plot_b.py"
    example.write_text(example.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    build(make_app, srcdir)
    assert runs(srcdir) == [f"b {torch}"]


def other_torch_python() -> Path | None:
    """A venv of the project whose torch differs from this one's."""
    mine = importlib.metadata.version("torch")
    for venv in sorted(ROOT.glob(".venv*")):
        python = venv / "bin" / "python"
        if not python.is_file() or Path(sys.prefix).resolve() == venv.resolve():
            continue
        found = subprocess.run(
            [python, "-c", "import importlib.metadata as m; print(m.version('torch'))"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if found.returncode == 0 and found.stdout.strip() != mine:
            return python
    return None


@pytest.mark.two_torches
def test_real_torch_switch_between_two_venvs(tmp_path):
    other = other_torch_python()
    assert other is not None, "needs a second venv with another torch: make test-two-torches TORCH=<version>"
    srcdir = tmp_path / "site"
    shutil.copytree(ROOT / "tests" / "roots" / "test-gallery-cache", srcdir)

    def sphinx(python) -> list[str]:
        proc = subprocess.run(
            [python, "-m", "sphinx", "-b", "html", "-q", "-W", str(srcdir), str(srcdir / "_build")],
            capture_output=True, text=True, check=False,
            env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return [line.split()[1] for line in runs(srcdir)]

    mine, theirs = importlib.metadata.version("torch"), None
    assert sphinx(sys.executable) == [mine, mine]
    assert sphinx(sys.executable) == []
    ran = sphinx(other)
    assert len(ran) == 2 and ran[0] == ran[1] != mine
    theirs = ran[0]
    assert sphinx(other) == []
    assert sphinx(sys.executable) == [mine, mine], f"back from torch {theirs}: all run again"


def test_second_language_rereads_the_examples_the_first_one_ran(srcdir, make_app, monkeypatch):
    """The first language runs a stale example; the second finds its output cached but
    must still re-read its page (new figures can hide behind the same text)."""

    def build_in(name: str) -> dict[str, int]:
        outdir = srcdir / "_build" / name
        app = make_app("html", srcdir=srcdir, builddir=outdir, freshenv=False)
        try:
            app.build()
            assert app.warning.getvalue() == ""
        finally:
            app.cleanup()
        return {p.stem: p.stat().st_mtime_ns for p in (outdir / "doctrees").rglob("plot_*.doctree")}

    build_in("first"), build_in("second")
    runs(srcdir)
    before = build_in("second")
    assert build_in("second") == before, "nothing ran, yet the second build re-read a page"

    # A run that prints the same: the torch the key reads changes for example b alone.
    (srcdir / "examples" / "plot_b.py.md5").unlink()
    build_in("first")
    assert runs(srcdir) == [f"b {importlib.metadata.version('torch')}"]
    after = build_in("second")
    assert runs(srcdir) == []
    assert [name for name in after if after[name] != before[name]] == ["plot_b"]


def test_downloads_leave_out_ignore_blocks_and_the_cache_holds(srcdir, make_app):
    """The ``.py`` download (alone and in the ``.zip``) is the example without its
    ``sphinx_gallery_start_ignore`` blocks, while sphinx-gallery's own copy of the
    example, the key of its cache, stays whole: a second build runs nothing."""
    import zipfile

    def build_and_read() -> tuple[str, str]:
        app = make_app("html", srcdir=srcdir, builddir=srcdir / "_build", freshenv=False)
        try:
            app.build()
            assert app.warning.getvalue() == ""
        finally:
            app.cleanup()
        (py,) = (app.outdir / "_downloads").rglob("plot_a.py")
        (zipped,) = (app.outdir / "_downloads").rglob("plot_a.zip")
        with zipfile.ZipFile(zipped) as archive:
            return py.read_text(encoding="utf-8"), archive.read("plot_a.py").decode("utf-8")

    source = (srcdir / "gallery" / "plot_a.py").read_text(encoding="utf-8")
    assert "sphinx_gallery_start_ignore" in source
    first = build_and_read()
    torch = importlib.metadata.version("torch")
    assert runs(srcdir) == [f"a {torch}", f"b {torch}"]
    assert "only the build runs this" in (srcdir / "examples" / "plot_a.rst").read_text(encoding="utf-8")
    for text in first:
        assert "sphinx_gallery" not in text and "only the build runs this" not in text, text
        assert text.startswith('"""\nExample a\n') and "log.write" in text
    assert (srcdir / "examples" / "plot_a.py").read_text(encoding="utf-8") == source

    assert build_and_read() == first
    assert runs(srcdir) == [], "the stripped download made sphinx-gallery's cache miss"
