"""The gallery: every example runs, shows clean output, and fails the build when torch drifts.

- every ``gallery/*.py`` has a page that shows what it printed (and nothing else is a page);
- an example whose expected error stops happening fails the build, naming file and line;
- what a reader downloads leaves out the checks and figures only the build runs;
- captured outputs carry no addresses, absolute paths or timings;
- an example prints the same whichever example ran before it.
"""

import ast
import contextlib
import io
import json
import re
import runpy
import shutil
import zipfile
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import LANGUAGES, ROOT
from test_runnable import shown

GALLERY = ROOT / "gallery"
EXAMPLES = sorted(GALLERY.glob("*.py"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def title_of(example: Path) -> str:
    """The reST title at the top of an example's docstring."""
    doc = ast.get_docstring(ast.parse(example.read_text(encoding="utf-8")))
    return doc.strip().splitlines()[0]


def outputs(page: BeautifulSoup) -> list[str]:
    return [div.get_text() for div in page.select("div.sphx-glr-script-out")]


def test_there_are_examples():
    assert len(EXAMPLES) >= 10
    assert all(re.fullmatch(r"plot_\d\d_[a-z0-9_]+\.py", p.name) for p in EXAMPLES), EXAMPLES


# -- (a) every example has an executed page -----------------------------------------


@pytest.fixture(scope="session")
def examples_dir(site) -> Path:
    return site / "en" / "examples"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_has_an_executed_page(examples_dir, example):
    page_path = examples_dir / f"{example.stem}.html"
    assert page_path.is_file(), f"no page for {example.name}"
    page = soup(page_path)
    assert page.h1.get_text().rstrip("#¶ ") == title_of(example)
    # executed: what it printed, or the figures it drew, is on the page
    assert outputs(page) or page.select("img.sphx-glr-single-img, img.sphx-glr-multi-img"), (
        f"{example.name} shows no output: was it executed?"
    )
    assert "Traceback" not in page.get_text(), f"{example.name} failed while the site was built"
    # both downloads offered, and there
    for suffix in (".py", ".ipynb"):
        name = example.stem + suffix
        links = [a["href"] for a in page.select("a[href]") if a["href"].endswith(name)]
        assert links, f"{example.name}: no {suffix} download"
        assert (page_path.parent / links[0]).is_file()


def test_every_example_page_comes_from_an_example(examples_dir):
    pages = {p.stem for p in examples_dir.glob("plot_*.html")}
    stale = "a page without an example is a stale build output (`make clean` removes it)"
    assert pages == {p.stem for p in EXAMPLES}, stale


def test_examples_are_listed_in_reading_order(examples_dir):
    index = soup(examples_dir / "index.html")
    listed = [
        div.select_one("a")["href"].removesuffix(".html").split("/")[-1]
        for div in index.select("div.sphx-glr-thumbcontainer")
    ]
    assert listed == [p.stem for p in EXAMPLES]


def thumbnail_number(example: Path) -> int:
    found = re.search(r"^# sphinx_gallery_thumbnail_number = (-?\d+)$", example.read_text(), re.M)
    return int(found.group(1)) if found else 1


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_figures_are_light_text_svgs_and_the_thumbnail_is_the_chosen_one(examples_dir, example):
    page = soup(examples_dir / f"{example.stem}.html")
    figures = [examples_dir / img["src"] for img in page.select("img.sphx-glr-single-img")]
    index = soup(examples_dir / "index.html")
    thumb = next(
        div.select_one("img")["src"]
        for div in index.select("div.sphx-glr-thumbcontainer")
        if div.select_one("a")["href"].endswith(f"{example.stem}.html")
    )
    if not figures:
        assert "sphx-glr-script-out" in str(page)
        return
    for fig in figures:
        svg = fig.read_text(encoding="utf-8")
        assert fig.suffix == ".svg" and "<text" in svg, f"{fig.name}: text must stay text"
        assert fig.stat().st_size < 100_000, f"{fig.name}: {fig.stat().st_size} bytes"
    chosen = figures[thumbnail_number(example) - 1]
    thumb_path = examples_dir / thumb
    assert thumb_path.suffix == ".svg"
    assert thumb_path.read_bytes() == chosen.read_bytes(), f"{example.name}: wrong thumbnail"


# -- downloads: the example without the build's own checks --------------------------


def code_lines(script: str) -> list[str]:
    """The lines of an example that are code: neither its docstring nor comment lines."""
    body = script.split('"""', 2)[2]
    return [line for line in body.splitlines() if not line.lstrip().startswith("#")]


def downloads(page_path: Path) -> dict[str, Path]:
    """The files an example's page offers, by suffix (``.py``, ``.ipynb``, ``.zip``)."""
    page = soup(page_path)
    found = {}
    for a in page.select("a[href]"):
        if "_downloads/" in a["href"]:
            found[Path(a["href"]).suffix] = page_path.parent / a["href"]
    return found


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_downloads_leave_out_what_only_the_build_runs(site, language, example):
    from gradcut.sphinxext.gallery import downloadable

    offered = downloads(site / language / "examples" / f"{example.stem}.html")
    assert sorted(offered) == [".ipynb", ".py", ".zip"], offered
    source = example.read_text(encoding="utf-8")
    script = offered[".py"].read_text(encoding="utf-8")
    if language == "en":
        assert script == downloadable(source)
    else:  # the text blocks are translated (tests/test_zh_site.py); the code is the same
        assert code_lines(script) == code_lines(downloadable(source))
    notebook = offered[".ipynb"].read_text(encoding="utf-8")
    code = "\n".join(
        "".join(cell["source"])
        for cell in json.loads(notebook)["cells"]
        if cell["cell_type"] == "code"
    )
    for name, text in ((".py", script), (".ipynb", code)):
        for leftover in ("sphinx_gallery_", "gradcut", "assert "):
            assert leftover not in text, f"{example.name}: {leftover!r} in the {name} download"
    with zipfile.ZipFile(offered[".zip"]) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    assert members == {
        f"{example.stem}.py": offered[".py"].read_bytes(),
        f"{example.stem}.ipynb": offered[".ipynb"].read_bytes(),
    }


def test_the_checks_are_there_to_leave_out():
    """The test above is not vacuous: every example has checks the build runs."""
    from gradcut.sphinxext.gallery import downloadable

    for example in EXAMPLES:
        source = example.read_text(encoding="utf-8")
        assert "# sphinx_gallery_start_ignore" in source, example.name
        assert downloadable(source) != source


# -- (b) an expected error that stops happening fails the build ---------------------

DRIFT_EXAMPLE = GALLERY / "plot_02_no_backward_from_detached.py"


def build_one_example(make_app, rootdir, tmp_path, monkeypatch, example: Path, **options):
    """Build a one-page site whose gallery is ``example``, with the site's settings."""
    src = tmp_path / "src"
    shutil.copytree(rootdir / "test-gallery-drift", src)
    shutil.copy(example, src / "gallery" / example.name)
    monkeypatch.setenv("GRADCUT_SITE_CONF", str(ROOT / "conf.py"))
    warnings = io.StringIO()
    app = make_app("html", srcdir=src, warning=warnings, freshenv=True, **options)
    return app, warnings, src / "gallery" / example.name


@pytest.mark.slow
def test_the_example_builds_while_torch_raises(make_app, rootdir, tmp_path, monkeypatch):
    app, warnings, _ = build_one_example(make_app, rootdir, tmp_path, monkeypatch, DRIFT_EXAMPLE)
    app.build()
    assert warnings.getvalue() == ""
    assert "RuntimeError: element 0 of tensors does not require grad" in (
        app.outdir / "examples" / f"{DRIFT_EXAMPLE.stem}.html"
    ).read_text(encoding="utf-8")


@pytest.mark.slow
def test_an_error_that_stops_happening_fails_the_build(make_app, rootdir, tmp_path, monkeypatch):
    import torch

    # A torch in which backward() never complains.
    monkeypatch.setattr(torch.Tensor, "backward", lambda self, *args, **kwargs: None)
    # The site builds with -W: the example's error is a warning, and the warning fails
    # the build.
    app, warnings, copy = build_one_example(
        make_app, rootdir, tmp_path, monkeypatch, DRIFT_EXAMPLE, warningiserror=True
    )
    app.build()
    assert app.statuscode == 1
    line = next(
        n
        for n, text in enumerate(copy.read_text().splitlines(), 1)
        if "not_raised(RuntimeError)" in text
    )
    report = ANSI.sub("", warnings.getvalue())
    assert f'File "{copy}", line {line}, in <module>' in report, report
    assert (
        "gradcut.claims.expect.ExpectationError: expected RuntimeError, but nothing was raised"
    ) in report, report


# -- (c) captured outputs are the same on every machine -----------------------------

NOISE = {
    "object address": re.compile(r"\b0x[0-9a-fA-F]{4,}"),
    "object repr": re.compile(r"<[\w.]+ object at "),
    "absolute path": re.compile(
        r"(?:^|[\s\"'(])(?:/(?:home|tmp|root|usr|work|opt|var)/|[A-Za-z]:\\)"
    ),
    "site-packages": re.compile(r"site-packages"),
    "timing": re.compile(
        r"\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds)\b|running time", re.I
    ),
}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_outputs_have_no_noise(examples_dir, example):
    page = soup(examples_dir / f"{example.stem}.html")
    for text in outputs(page):
        for what, pattern in NOISE.items():
            assert not pattern.search(text), f"{example.name}: {what} in output:\n{text}"
    assert not page.select(".sphx-glr-timing"), "timings on the page"


@pytest.mark.parametrize(
    "noisy",
    [
        "<SigmoidBackward0 object at 0x7f3a2c1d>",
        "/work/wt/gallery/x.py:3: UserWarning",
        "took 0.52 s",
    ],
)
def test_the_noise_patterns_catch_noise(noisy):
    assert any(p.search(noisy) for p in NOISE.values())


# -- (d) no example depends on which ran before it ----------------------------------


@pytest.fixture(scope="module")
def gallery_conf():
    """The site's sphinx-gallery settings, as its reset between examples sees them."""
    return runpy.run_path(str(ROOT / "conf.py"))["sphinx_gallery_conf"]


def run(example: Path, gallery_conf, reset: bool = True) -> str:
    """Run an example as the gallery does: reset first, then capture what it prints."""
    import matplotlib

    matplotlib.use("agg")
    from sphinx_gallery.scrapers import clean_modules

    if reset:
        clean_modules(gallery_conf, str(example), "before")
    code = compile(example.read_text(encoding="utf-8"), str(example), "exec")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"__name__": "__main__", "__file__": str(example)})
    matplotlib.pyplot.close("all")
    return out.getvalue()


@pytest.mark.slow
def test_outputs_do_not_depend_on_the_order_of_examples(examples_dir, gallery_conf):
    """The build ran the examples in reading order, one process; here they run in the
    reverse order, one process: each prints what its page shows."""
    for p in reversed(EXAMPLES):
        printed = [line.rstrip() for line in run(p, gallery_conf).splitlines() if line.strip()]
        assert printed == shown(examples_dir / f"{p.stem}.html"), (
            f"{p.name} prints differently after the examples that follow it"
        )


def test_the_reset_undoes_what_an_example_leaves_behind(tmp_path, gallery_conf):
    """The order test above can fail: without the reset, leftovers do change outputs."""
    leaky = tmp_path / "plot_leaky.py"
    leaky.write_text(
        "import torch\n"
        "torch.manual_seed(1)\n"
        "torch.set_printoptions(precision=1)\n"
        "torch.set_default_dtype(torch.float64)\n"
    )
    victim = tmp_path / "plot_victim.py"
    victim.write_text("import torch\nprint(torch.rand(2), torch.ones(1).dtype)\n")
    try:
        alone = run(victim, gallery_conf)
        run(leaky, gallery_conf)
        assert run(victim, gallery_conf, reset=False) != alone
        run(leaky, gallery_conf)
        assert run(victim, gallery_conf) == alone
    finally:
        run(victim, gallery_conf)  # leave the process as the reset makes it


# -- incremental builds: what re-runs reaches the site ------------------------------


def test_prepare_reruns_clears_old_figures_and_gone_examples(tmp_path):
    from sphinx_gallery.utils import get_md5sum

    from gradcut.sphinxext.gallery import prepare_reruns, remove_orphans

    src, out = tmp_path / "gallery", tmp_path / "docs" / "examples"
    (out / "images" / "thumb").mkdir(parents=True)
    src.mkdir()
    for name in ("plot_same", "plot_edited"):
        (src / f"{name}.py").write_text(f'"""\n{name}\n===\n"""\nprint(1)\n')
    files = {
        "plot_same.py.md5": get_md5sum(src / "plot_same.py", mode="t"),
        "plot_edited.py.md5": "the md5 of its previous text",
        "plot_gone.py": "", "plot_gone.rst": "", "plot_gone.py.md5": "",
        "images/sphx_glr_plot_gone_001.svg": "",
        "images/thumb/sphx_glr_plot_gone_thumb.png": "",
    }  # fmt: skip
    for name in ("plot_same", "plot_edited"):
        files[f"{name}.rst"] = ""
        files[f"images/sphx_glr_{name}_001.svg"] = ""
        files[f"images/thumb/sphx_glr_{name}_thumb.png"] = ""  # the placeholder of old
    for rel, text in files.items():
        (out / rel).write_text(text)

    assert remove_orphans(src, out) == ["plot_gone"]
    assert prepare_reruns(src, out) == ["plot_edited"]
    left = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert left == [
        "images/sphx_glr_plot_same_001.svg",
        "images/thumb/sphx_glr_plot_same_thumb.png",
        "plot_edited.py.md5",
        "plot_edited.rst",
        "plot_same.py.md5",
        "plot_same.rst",
    ]
