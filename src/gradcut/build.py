"""Build the bilingual site; refresh the translation catalogs.

``python -m gradcut.build html`` (what ``make html`` runs), holding the build lock
(:mod:`gradcut.lock`) throughout, in one process that imports torch and the extensions
once and forks a child for each step:

1. with ``--doctest``, runs the doctests (pytest; only the files whose key changed, see
   :mod:`gradcut.pytest_plugin`) while it loads Sphinx, and stops when one fails;
2. builds each language with Sphinx into its own working folder under
   ``_build/.work/<lang>/``: English first, as it executes the gallery; the next language
   starts once the gallery has run (it reuses the captured outputs through
   sphinx-gallery's cache), the two then building side by side, each on a core; its
   messages are shown after English's;
3. only when every language built without a warning, assembles a new folder under
   ``_build/sites/`` (both languages, the root page that picks one, the root 404 page,
   the files a static host needs: ``.nojekyll``, ``sitemap.xml`` with the hreflang twins
   of every page, ``robots.txt``) and points the link ``_build/html`` at it with one
   rename. A failed, killed or interrupted build leaves the last good site untouched,
   and the next build removes what it left. Old site folders are moved aside and deleted
   in the background; the process ends without tearing down what it imported.

``python -m gradcut.build doctest`` (what ``make doctest`` runs): step 1 alone.

``python -m gradcut.build dist`` (what ``make dist`` runs): packs ``_build/html/`` into
``_build/dist/gradcut-site-<torch>.tar.gz``, byte for byte the same for the same site.

``python -m gradcut.build po`` (what ``make po`` runs): extracts the English strings,
updates the catalogs under ``locale/``, removes catalogs of pages that are gone, and
lists every entry that needs a translator.
"""

import argparse
import contextlib
import errno
import gzip
import html
import importlib.metadata
import json
import os
import re
import runpy
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
from pathlib import Path
from xml.etree import ElementTree as ET

from gradcut.lock import locked
from gradcut.sphinxext import ICON
from gradcut.sphinxext.gallery import GALLERY_FD
from gradcut.sphinxext.i18n import catalog_problems, hreflang, language_url, read_catalog
from gradcut.sphinxext.pages import prune

ROOT = Path.cwd()
LANGUAGES = {"en": "English", "zh_CN": "简体中文"}
SOURCE_LANGUAGE = "en"
LOCALE = ROOT / "locale"


# The lock every build of this tree holds (gradcut.lock): the gallery writes its outputs
# into the sources (docs/examples/), which the builds of every torch share.
LOCK = ROOT / "_build" / ".lock"
# A checkpoint at which a build stops until it gets SIGUSR1 (or is killed): the tests of
# concurrent and interrupted builds set ``GRADCUT_BUILD_HOLD=<name>``.
HOLD = "GRADCUT_BUILD_HOLD"


def checkpoint(name: str) -> None:
    if os.environ.get(HOLD) != name:
        return
    released = []
    previous = signal.signal(signal.SIGUSR1, lambda *_: released.append(True))
    print(f"build: holding at {name} (pid {os.getpid()})", flush=True)
    while not released:
        time.sleep(0.05)
    signal.signal(signal.SIGUSR1, previous)


def sphinx(builder: str, outdir: Path, doctrees: Path, options: list[str]) -> int:
    """Run Sphinx in a child of this process (a fork: torch and the extensions are
    imported once per build, yet each language starts from a clean state)."""
    return wait(start_sphinx(builder, outdir, doctrees, options))


def start_sphinx(builder: str, outdir: Path, doctrees: Path, options: list[str], **child) -> int:
    """Start Sphinx in a forked child (:func:`start`); its pid."""
    from sphinx.cmd.build import build_main

    argv = ["-b", builder, "-c", str(ROOT), str(ROOT / "docs"), str(outdir), "-d", str(doctrees), *options]
    print("+ sphinx", shlex.join(argv), flush=True)
    return start(build_main, argv, **child)


def start(function, *args, output: Path | None = None, gallery_fd: int | None = None) -> int:
    """Start ``function(*args)`` in a forked child; its pid (:func:`wait` for it).
    ``output``: a file the child's output goes to, instead of this process's;
    ``gallery_fd``: the end of a pipe the child's Sphinx writes to once the gallery has
    run (gradcut.sphinxext.gallery; the pipe closes unwritten if it never runs)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        rc = 1
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            if output is not None:
                fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                os.close(fd)
            if gallery_fd is not None:
                os.environ[GALLERY_FD] = str(gallery_fd)
            rc = function(*args)
        except SystemExit as exit:
            rc = exit.code if isinstance(exit.code, int) else 1
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc or 0)
    CHILDREN.add(pid)
    return pid


def wait(pid: int) -> int:
    """The exit status of the child ``pid``, once it has ended."""
    try:
        _, status = os.waitpid(pid, 0)
    finally:
        CHILDREN.discard(pid)
    return os.waitstatus_to_exitcode(status)


CHILDREN: set[int] = set()


def stop_children(signum, frame):
    """On SIGTERM/SIGINT: end the children, then this process (its ``finally`` blocks
    run; the last good site is untouched until the swap, which is one rename).

    Once: a second signal (make passes the one it got on to its children, and a
    process group gets it as well) must not break into the exit under way."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for pid in list(CHILDREN):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    print(
        f"\nbuild stopped ({signal.Signals(signum).name}); the last good site in "
        f"{OUT_FOR_MESSAGES[0] / 'html' if OUT_FOR_MESSAGES else '_build/html'} is untouched.",
        file=sys.stderr,
        flush=True,
    )
    raise SystemExit(128 + signum)


OUT_FOR_MESSAGES: list[Path] = []


class Language:
    """One language's Sphinx build, in its working folder ``_build/.work/<lang>/``."""

    def __init__(self, out: Path, language: str, options: list[str]):
        self.language = language
        self.options = options
        self.work = out / ".work" / language
        # Present while Sphinx works on the folder: a build killed half-way through
        # writing leaves pages Sphinx would take as up to date. The next build then
        # reads all again.
        self.unfinished = self.work / ".unfinished"
        self.output = self.work / "output.txt"
        self.pid = None
        self.rc = None  # once waited for
        self.started = 0.0

    def start(self, buffered: bool, gallery_fd: int | None = None) -> None:
        self.work.mkdir(parents=True, exist_ok=True)
        if self.unfinished.exists():
            (self.work / "doctrees" / "environment.pickle").unlink(missing_ok=True)
        self.unfinished.touch()
        self.buffered = buffered
        self.started = time.perf_counter()
        self.pid = start_sphinx(
            "html", self.work / "html", self.work / "doctrees",
            ["-D", f"language={self.language}", *self.options],
            output=self.output if buffered else None, gallery_fd=gallery_fd,
        )  # fmt: skip

    def ended(self) -> bool:
        """Whether the build has ended with a failure (it is then waited for)."""
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid == 0:
            return False
        CHILDREN.discard(self.pid)
        self.rc = os.waitstatus_to_exitcode(status)
        return self.rc != 0

    def finish(self) -> int:
        rc = wait(self.pid) if self.rc is None else self.rc
        if self.buffered and self.output.is_file():
            sys.stdout.write(self.output.read_text(encoding="utf-8", errors="replace"))
            sys.stdout.flush()
        if rc:
            # Sphinx keeps the environment of a failed build, and an incremental build
            # would not re-read (nor warn about) the pages that failed: make the next one
            # re-read all.
            (self.work / "doctrees" / "environment.pickle").unlink(missing_ok=True)
        else:
            self.unfinished.unlink()
        self.seconds = round(time.perf_counter() - self.started, 3)
        checkpoint(self.language)
        return rc


def build_languages(out: Path, languages: list[str], options: list[str], keep_going: bool) -> tuple[list[str], dict]:
    """Build every language: the first runs the gallery (it executes the examples and
    writes their pages into ``docs/examples/``, which every language reads); each next
    one starts as soon as the one before has run it, the two then building side by side
    (the other languages reuse the captured outputs through sphinx-gallery's cache). The
    output of a language that builds beside another is shown once it is done, in the
    order of the languages. Returns the languages that failed and each one's seconds."""
    failed, timings, running = [], {}, []
    for index, language in enumerate(languages):
        build = Language(out, language, options)
        last = index == len(languages) - 1
        read_end, write_end = (None, None) if last else os.pipe()
        build.start(buffered=bool(running), gallery_fd=write_end)
        if write_end is not None:
            os.close(write_end)
            with os.fdopen(read_end, "rb") as done:
                done.read(1)  # the gallery has run, or the build has ended
        running.append(build)
        if last:
            break
        if build.ended():
            break  # before its gallery ran: no other language starts
    for build in running:
        rc = build.finish()
        timings[build.language] = build.seconds
        print(f"{build.language}: {build.seconds:.1f} s", flush=True)
        if rc:
            failed.append(build.language)
            if not keep_going:
                for other in running[running.index(build) + 1 :]:
                    if other.rc is None:  # not waited for yet
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(other.pid, signal.SIGTERM)
                        wait(other.pid)
                break
    return failed, timings


# What the extensions import only once Sphinx sets them up or runs them (measured: the
# modules a language's build imports that the extensions' own modules do not). Not the
# icon font's cutter (fontTools): a build needs it only when the pages' icons change.
WARM = (
    "a11y_pygments", "docutils.core", "gradcut.draw", "markdown_it",
    "matplotlib.pyplot", "myst_nb.core.execute", "myst_nb.sphinx_", "myst_nb.sphinx_ext",
    "myst_parser.parsers.sphinx_", "nbformat", "sphinx.builders.html", "sphinx.search.en",
    "sphinx.search.zh", "sphinx_gallery.gen_gallery", "sphinx_gallery.gen_rst",
)  # fmt: skip


def warm_up(languages: list[str], cache: Path | None = None) -> None:
    """Import what every language's build imports (torch, Sphinx, the extensions of
    conf.py, the theme; the Chinese search's dictionary) and read the runs of each torch
    release, once for all of them. ``cache``: a folder for what is slow to read and
    seldom changes (the Chinese search's dictionary)."""
    import importlib
    import logging

    # Some of these configure logging when imported (a11y_pygments: the root logger at
    # INFO): the builds' output must stay what it is in a fresh process.
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import sphinx.application  # noqa: F401
        import sphinx.cmd.build  # noqa: F401
        import torch  # noqa: F401

        conf = runpy.run_path(str(ROOT / "conf.py"))
        for name in [*conf.get("extensions", []), conf.get("html_theme", ""), *WARM]:
            with contextlib.suppress(Exception):  # Sphinx reports what does not load
                if name:
                    importlib.import_module(name)
        with contextlib.suppress(Exception):  # the theme's code styles, found by plugin
            import pygments.styles

            for style in pygments.styles.get_all_styles():
                pygments.styles.get_style_by_name(style)
        with contextlib.suppress(Exception):  # every page reads the runs of each release
            from gradcut.sphinxext import versions

            versions.preload(ROOT / "docs" / conf.get("gradcut_torch_runs", "_torch_runs"))
        if any(language.startswith("zh") for language in languages):
            with contextlib.suppress(Exception):
                import jieba

                from gradcut.sphinxext import search

                jieba.setLogLevel(logging.WARNING)
                search.load_dictionary(cache)
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def icon_href(languages: dict[str, str]) -> str:
    """The tab icon of the root pages: the one the first language's pages use."""
    return f"{next(iter(languages))}/_static/{ICON}"


def root_index(languages: dict[str, str]) -> str:
    """The site's front door: sends the reader to their language, or offers both."""
    links = "\n".join(
        f'    <li><a href="{code}/index.html" hreflang="{hreflang(code)}" '
        f'lang="{hreflang(code)}">{html.escape(label)}</a></li>'
        for code, label in languages.items()
    )
    codes = json.dumps(list(languages))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Cutting gradients in PyTorch · PyTorch 中的梯度截断</title>
  <link rel="icon" href="{icon_href(languages)}">
  <style>
    body {{ font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto;
           padding: 0 1rem; line-height: 1.6; }}
    a {{ color: #0550ae; }}
  </style>
  <script>
    // Pick the reader's language: zh* -> zh_CN, anything else -> en.
    (function () {{
      var codes = {codes};
      var prefs = navigator.languages || [navigator.language || "en"];
      var choice = "en";
      for (var i = 0; i < prefs.length; i++) {{
        var p = String(prefs[i]).toLowerCase();
        if (p.indexOf("zh") === 0) {{ choice = "zh_CN"; break; }}
        if (p.indexOf("en") === 0) {{ choice = "en"; break; }}
      }}
      if (codes.indexOf(choice) >= 0) {{
        location.replace(choice + "/index.html" + location.search + location.hash);
      }}
    }})();
  </script>
</head>
<body>
  <h1>Cutting gradients in PyTorch</h1>
  <p>Choose a language · 选择语言:</p>
  <ul>
{links}
  </ul>
</body>
</html>
"""


NOT_FOUND = {
    "en": ("Page not found", "There is no page at this address.", "Go to the home page"),
    "zh_CN": ("找不到页面", "这个地址上没有页面。", "前往首页"),
}


def root_404(languages: dict[str, str], base: str = "/") -> str:
    """What static hosts (GitHub Pages, Netlify) send for any missing address.

    Self-contained, in every language. Its links resolve against a ``<base>`` that a line
    of script moves to where the site lives: the part of the address before a language
    folder, or the folder of ``404.html`` itself when it is opened as such (the site's
    root, ``file://``); ``base`` (the path of ``gradcut_site_url``) without script.
    """
    codes = json.dumps(list(languages))
    sections = "\n".join(
        f'  <section lang="{hreflang(code)}">\n'
        f"    <p>{html.escape(NOT_FOUND[code][1])} "
        f'<a href="{code}/index.html" hreflang="{hreflang(code)}">'
        f"{html.escape(NOT_FOUND[code][2])} ({html.escape(label)})</a></p>\n"
        f"  </section>"
        for code, label in languages.items()
    )
    title = " · ".join(NOT_FOUND[code][0] for code in languages)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <base href="{html.escape(base)}">
  <script>
    (function () {{
      var codes = {codes};
      var path = location.pathname;
      var root = /[/]404[.]html$/.test(path) ? path.replace(/404[.]html$/, "") : null;
      for (var i = 0; i < codes.length && root === null; i++) {{
        var at = path.indexOf("/" + codes[i] + "/");
        if (at >= 0) root = path.slice(0, at + 1);
      }}
      if (root !== null) document.querySelector("base").href = new URL(root, location.href).href;
    }})();
  </script>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <title>{html.escape(title)}</title>
  <link rel="icon" href="{icon_href(languages)}">
  <style>
    body {{ font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto;
           padding: 0 1rem; line-height: 1.6; }}
    a {{ color: #0550ae; }}
  </style>
</head>
<body>
  <main>
  <h1>{html.escape(title)}</h1>
{sections}
  </main>
</body>
</html>
"""


# -- publishing -----------------------------------------------------------------

# Pages that are not content: search engines have nothing to find in them.
NOT_CONTENT = {"search.html", "genindex.html", "py-modindex.html", "404.html"}
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"


def site_url() -> str:
    """The address the site is published at, as conf.py says (``gradcut_site_url``)."""
    return runpy.run_path(str(ROOT / "conf.py")).get("gradcut_site_url", "")


def content_pages(site: Path, language: str) -> list[str]:
    """The pages of one language worth finding, as paths relative to its folder."""
    pages = (path.relative_to(site / language) for path in (site / language).rglob("*.html"))
    return sorted(
        page.as_posix()
        for page in pages
        if not page.parts[0].startswith("_") and page.as_posix() not in NOT_CONTENT
    )


def sitemap(site: Path, languages: list[str], url: str) -> str:
    """A sitemap of every page in every language, each with its twins as alternates."""
    ET.register_namespace("", SITEMAP_NS)
    ET.register_namespace("xhtml", XHTML_NS)
    pages = {language: content_pages(site, language) for language in languages}
    urlset = ET.Element(f"{{{SITEMAP_NS}}}urlset")
    for page in sorted(set().union(*pages.values())):
        twins = [language for language in languages if page in pages[language]]
        for language in twins:
            entry = ET.SubElement(urlset, f"{{{SITEMAP_NS}}}url")
            ET.SubElement(entry, f"{{{SITEMAP_NS}}}loc").text = language_url(url, language) + page
            for twin in twins:
                ET.SubElement(
                    entry,
                    f"{{{XHTML_NS}}}link",
                    rel="alternate",
                    hreflang=hreflang(twin),
                    href=language_url(url, twin) + page,
                )
    ET.indent(urlset)
    return ET.tostring(urlset, encoding="unicode", xml_declaration=True) + "\n"


def robots(url: str) -> str:
    # Crawlers read robots.txt at the root of a host only: it takes effect on a domain of
    # the site's own. Under a project's Pages address (owner.github.io/project/) they never
    # see it, and the sitemap is to be submitted to them by hand.
    return f"User-agent: *\nAllow: /\n\nSitemap: {url.rstrip('/')}/sitemap.xml\n"


SITES = "sites"  # the published site's versions: _build/html is a link to one of them


def current_site(out: Path) -> Path | None:
    """The folder ``out/html`` links to (None: no site yet, or one of the old layout)."""
    link = out / "html"
    if not link.is_symlink():
        return None
    return (out / os.readlink(link)).resolve() if not os.path.isabs(os.readlink(link)) else Path(os.readlink(link))


def clear_leftovers(out: Path) -> None:
    """Remove what a killed build left behind: unfinished site folders and links."""
    keep = current_site(out)
    sites = out / SITES
    if sites.is_dir():
        for folder in sites.iterdir():
            if keep is None or folder.resolve() != keep:
                discard(out, folder)
    for name in ("html.new", "html.old"):  # the layout before html became a link
        rmtree(out / name)
    for leftover in out.glob(".html.link-*"):
        leftover.unlink(missing_ok=True)


def rmtree(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)


TRASH = "trash"  # site folders on their way out, removed in the background


def discard(out: Path, folder: Path) -> None:
    """Remove a site folder: moved out of ``sites/`` at once, deleted in the background
    (deleting hundreds of files takes a second that the build need not wait for)."""
    trash = out / TRASH
    trash.mkdir(exist_ok=True)
    try:
        os.rename(folder, tempfile.mkdtemp(dir=trash) + "/site")
    except OSError:
        rmtree(folder)


def empty_trash(out: Path) -> None:
    """Delete what :func:`discard` moved away, in a process of its own that outlives this
    one; a build that starts meanwhile may delete the same files, which is no harm."""
    trash = out / TRASH
    if trash.is_dir() and any(trash.iterdir()):
        subprocess.Popen(
            ["rm", "-rf", "--", *(str(p) for p in trash.iterdir())],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True,
        )  # fmt: skip


def assemble(out: Path, languages: list[str]) -> Path:
    """Put the built languages and the root files together in a new folder under
    ``out/sites/``, then point ``out/html`` at it in one step.

    ``out/html`` is a symbolic link, replaced by a new link with one ``rename``: at any
    instant it is the whole old site or the whole new one, whatever stops the build. The
    folder of the previous site is removed by the next build (a server may be reading
    it now).
    """
    clear_leftovers(out)
    link = out / "html"
    if link.is_dir() and not link.is_symlink():
        # A site of the layout before html became a link: moved once under sites/.
        (out / SITES).mkdir(parents=True, exist_ok=True)
        link.rename(out / SITES / "html-0")
        os.symlink(f"{SITES}/html-0", link)
    (out / SITES).mkdir(parents=True, exist_ok=True)
    # A new name for every build, even two in the same second of one process.
    staging = Path(tempfile.mkdtemp(prefix=time.strftime("html-%Y%m%dT%H%M%S-"), dir=out / SITES))
    staging.chmod(0o755)  # mkdtemp's folder is private; a server reads this one
    for language in languages:
        shutil.copytree(
            out / ".work" / language / "html",
            staging / language,
            ignore=shutil.ignore_patterns(".buildinfo", ".doctrees", "_sources"),
        )
        for page in prune(staging / language):
            print(f"not published: {language}/{page} (its source is gone)")
        checkpoint("assembly")
    (staging / "index.html").write_text(
        root_index({k: v for k, v in LANGUAGES.items() if k in languages}), encoding="utf-8"
    )
    url = site_url()
    (staging / "404.html").write_text(
        root_404(
            {k: v for k, v in LANGUAGES.items() if k in languages},
            base=urllib.parse.urlsplit(url).path or "/",
        ),
        encoding="utf-8",
    )
    # Hosts that run Jekyll (GitHub Pages from a branch) would drop the _static folders.
    (staging / ".nojekyll").write_text("")
    if url:  # a sitemap takes absolute addresses only
        (staging / "sitemap.xml").write_text(sitemap(staging, languages, url), encoding="utf-8")
        (staging / "robots.txt").write_text(robots(url), encoding="utf-8")
    previous = current_site(out)
    new_link = out / f".html.link-{os.getpid()}"
    new_link.unlink(missing_ok=True)
    os.symlink(staging.relative_to(out).as_posix(), new_link)
    checkpoint("swap")
    os.replace(new_link, link)
    # Older sites than the previous one: nobody is reading them.
    for folder in (out / SITES).iterdir():
        if folder.resolve() not in {staging.resolve(), previous}:
            discard(out, folder)
    empty_trash(out)
    return link


def publish(out: Path, languages: list[str]) -> int:
    """Assemble and swap in the site; a failure (a full disk, a folder that cannot be
    written) is one line, and the last good site stays."""
    try:
        final = assemble(out, languages)
    except OSError as error:
        keep = current_site(out)
        sites = out / SITES
        if sites.is_dir():
            for folder in sites.iterdir():
                if keep is None or folder.resolve() != keep:
                    rmtree(folder)
        reason = os.strerror(error.errno) if error.errno else str(error)
        where = f": {error.filename}" if error.filename else ""
        hint = " (free some space)" if error.errno == errno.ENOSPC else ""
        print(
            f"\nbuild FAILED: cannot write the site{where}: {reason}{hint}; "
            f"the last good site in {out / 'html'} is untouched.",
            file=sys.stderr,
        )
        return 1
    print(f"\nBuilt {', '.join(languages)}. Open {final / 'index.html'}")
    return 0


# -- doctests -------------------------------------------------------------------


def doctest_options(out: Path, args: list[str]) -> list[str]:
    """The doctest step's pytest arguments, with where it keeps its results and cache."""
    import importlib.metadata

    torch = importlib.metadata.version("torch")
    given = {arg.split("=", 1)[0] for arg in args}
    defaults = {
        "--gradcut-results": out / "results" / f"torch-{torch}.json",
        "--gradcut-report": out / "drift-report.md",
        "--gradcut-cache": out / ".doctest-cache.json",
    }
    return [*args, *(f"{name}={path}" for name, path in defaults.items() if name not in given)]


def run_doctests(out: Path, args: list[str]) -> int:
    """The doctests of the pages and of src/ (pytest, in this process)."""
    import pytest

    print("+ pytest", shlex.join(args), flush=True)
    rc = int(pytest.main(args))
    sys.stdout.flush()
    checkpoint("doctests")
    if rc == 0:
        (out / ".doctest.stamp").touch()
    return rc


def start_doctests(out: Path, args: list[str]) -> int:
    """Start the doctests in a child process (a fork: torch is imported already), while
    this one loads Sphinx and the extensions; return the child's pid."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child
        rc = 1
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            rc = run_doctests(out, args)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc)
    CHILDREN.add(pid)
    return pid


def doctest_command(args) -> int:
    out = Path(args.out).resolve()
    with locked(LOCK):
        return run_doctests(out, doctest_options(out, shlex.split(args.doctest)))


def html_command(args) -> int:
    out = Path(args.out).resolve()
    options = shlex.split(args.sphinxopts)
    languages = args.languages
    with locked(LOCK):
        return build(out, languages, options, args)


def build(out: Path, languages: list[str], options: list[str], args) -> int:
    out.mkdir(parents=True, exist_ok=True)
    OUT_FOR_MESSAGES[:] = [out]
    signal.signal(signal.SIGTERM, stop_children)
    signal.signal(signal.SIGINT, stop_children)
    import torch  # noqa: F401  (once, for the doctests and every language)

    child = None
    if args.doctest is not None:
        child = start_doctests(out, doctest_options(out, shlex.split(args.doctest)))
    warm_up(languages, out / ".work")
    if child:
        _, status = os.waitpid(child, 0)
        CHILDREN.discard(child)
        if os.waitstatus_to_exitcode(status):
            print(
                f"\nbuild FAILED (doctests): see the messages above; "
                f"the last good site in {out / 'html'} is untouched.",
                file=sys.stderr,
            )
            return 1
    failed, timings = build_languages(out, languages, options, args.keep_going)
    if failed:
        print(
            f"\nbuild FAILED ({', '.join(failed)}): see the messages above; "
            f"the last good site in {out / 'html'} is untouched.",
            file=sys.stderr,
        )
        return 1
    # Seconds each language took, for `make bench`.
    (out / ".work" / "timings.json").write_text(json.dumps(timings) + "\n", encoding="utf-8")
    return publish(out, languages)


def write_archive(site: Path, archive: Path, prefix: str, mtime: int = 0) -> None:
    """Pack ``site`` into a ``.tar.gz`` under the folder ``prefix``, reproducibly.

    Entries are sorted, and carry no owner, no time but ``mtime`` and no mode but 644/755;
    the gzip header has neither name nor time. The same site gives the same bytes.
    """
    archive.parent.mkdir(parents=True, exist_ok=True)
    tmp = archive.with_name(archive.name + ".tmp")

    def entry(name: str, path: Path) -> tarfile.TarInfo:
        info = tarfile.TarInfo(name)
        info.mtime, info.uid, info.gid, info.uname, info.gname = mtime, 0, 0, "", ""
        if path.is_dir():
            info.type, info.mode = tarfile.DIRTYPE, 0o755
        else:
            info.size, info.mode = path.stat().st_size, 0o644
        return info

    with tmp.open("wb") as raw, gzip.GzipFile("", "wb", 9, raw, mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            tar.addfile(entry(prefix, site))
            for rel in sorted(p.relative_to(site).as_posix() for p in site.rglob("*")):
                path = site / rel
                info = entry(f"{prefix}/{rel}", path)
                if info.isdir():
                    tar.addfile(info)
                else:
                    with path.open("rb") as fh:
                        tar.addfile(info, fh)
    tmp.replace(archive)


def dist_command(args) -> int:
    out = Path(args.out).resolve()
    with locked(LOCK):
        return dist(out, args)


def dist(out: Path, args) -> int:
    site = out / "html"
    missing = [lang for lang in args.languages if not (site / lang / "index.html").is_file()]
    if missing:
        print(f"no built site for {', '.join(missing)} in {site}: run `make html`", file=sys.stderr)
        return 1
    name = f"gradcut-site-{importlib.metadata.version('torch')}"
    archive = out / "dist" / f"{name}.tar.gz"
    # SOURCE_DATE_EPOCH: the reproducible-builds convention for "the time of the sources".
    write_archive(site, archive, name, int(os.environ.get("SOURCE_DATE_EPOCH", 0)))
    print(f"Packed {site} into {archive} ({archive.stat().st_size / 1e6:.1f} MB).")
    print(f"Serve it: tar -xzf {archive.name} && python -m http.server -d {name}")
    return 0


# -- translation catalogs -------------------------------------------------------


# Strings that sphinx-gallery writes on every example page, with the one translation each
# has on this site. `make po` fills them in, so that the same sentence never reads two ways.
BOILERPLATE = {
    "zh_CN": [
        (
            re.compile(r"^:ref:`Go to the end <(?P<ref>[^>]+)>` to download the full example code\.$"),
            r":ref:`跳到末尾 <\g<ref>>`\\ 下载完整的示例代码。",
        ),
        (
            re.compile(r"^:download:`Download Jupyter notebook: (?P<f>\S+) <(?P=f)>`$"),
            r":download:`下载 Jupyter notebook：\g<f> <\g<f>>`",
        ),
        (
            re.compile(r"^:download:`Download Python source code: (?P<f>\S+) <(?P=f)>`$"),
            r":download:`下载 Python 源代码：\g<f> <\g<f>>`",
        ),
        (
            re.compile(r"^:download:`Download zipped: (?P<f>\S+) <(?P=f)>`$"),
            r":download:`下载压缩包：\g<f> <\g<f>>`",
        ),
        # a thumbnail's link: the linked page's title, translated on that page
        (re.compile(r"^:doc:`[^`]+`$"), r"\g<0>"),
    ]
}


def fill_boilerplate(po: Path, language: str) -> int:
    """Translate sphinx-gallery's fixed sentences; return how many were filled."""
    from babel.messages.pofile import write_po

    rules = BOILERPLATE.get(language, [])
    catalog = read_catalog(po)
    filled = 0
    for message in catalog:
        if not message.id or (message.string and not message.fuzzy):
            continue
        for pattern, replacement in rules:
            if pattern.match(message.id):
                message.string = pattern.sub(replacement, message.id)
                message.flags.discard("fuzzy")
                filled += 1
                break
    if filled:
        with po.open("wb") as fh:
            write_po(fh, catalog, width=76)
    return filled


def drop_obsolete(po: Path) -> None:
    """Remove the ``#~`` entries sphinx-intl keeps for strings the pages no longer have."""
    from babel.messages.pofile import write_po

    catalog = read_catalog(po)
    if catalog.obsolete:
        catalog.obsolete.clear()
        with po.open("wb") as fh:
            write_po(fh, catalog, width=76)


def po_command(args) -> int:
    out = Path(args.out).resolve()
    with locked(LOCK):
        return po(out, args)


def po(out: Path, args) -> int:
    pot_dir = out / "gettext"
    # A fresh set of templates: a .pot left from a deleted page would keep its catalog.
    shutil.rmtree(pot_dir, ignore_errors=True)
    rc = sphinx("gettext", pot_dir, out / ".work" / "gettext" / "doctrees", ["-W", "--keep-going"])
    if rc:
        return rc
    for language in args.languages:
        if language == SOURCE_LANGUAGE:
            continue
        cmd = [sys.executable, "-m", "sphinx_intl", "update", "-p", str(pot_dir),
               "-l", language, "-d", str(LOCALE)]  # fmt: skip
        print("+", shlex.join(cmd), flush=True)
        if subprocess.call(cmd, cwd=ROOT):
            return 1
        catalog_dir = LOCALE / language / "LC_MESSAGES"
        pots = {p.relative_to(pot_dir).with_suffix("").as_posix() for p in pot_dir.rglob("*.pot")}
        for po in sorted(catalog_dir.rglob("*.po")):
            name = po.relative_to(catalog_dir).with_suffix("").as_posix()
            if name not in pots:
                print(f"removed stale catalog {po.relative_to(ROOT)} (its page is gone)")
                po.unlink()
        for po in sorted(catalog_dir.rglob("*.po")):
            drop_obsolete(po)
            fill_boilerplate(po, language)
        todo = 0
        for po in sorted(catalog_dir.rglob("*.po")):
            for lineno, problem in catalog_problems(po):
                print(f"{po.relative_to(ROOT)}:{lineno}: {problem}")
                todo += 1
        print(f"{language}: {todo} entr{'y' if todo == 1 else 'ies'} to translate")
    return 0


def _languages(value: str) -> list[str]:
    chosen = value.split()
    unknown = [x for x in chosen if x not in LANGUAGES]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"unknown language(s) {unknown}; choose from {list(LANGUAGES)}")
    return chosen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gradcut.build", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="_build", help="build folder (default: _build)")
    parser.add_argument(
        "--languages",
        type=_languages,
        default=list(LANGUAGES),
        help=f"space-separated, from {' '.join(LANGUAGES)} (default: all)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    html_p = sub.add_parser("html", help="build the site in every language")
    html_p.add_argument("--sphinxopts", default="-W --keep-going -n -q")
    html_p.add_argument("--keep-going", action="store_true", help="build the other languages after a failure")
    html_p.add_argument("--doctest", metavar="ARGS", help="run the doctests first (pytest arguments)")
    html_p.set_defaults(func=html_command)
    doctest_p = sub.add_parser("doctest", help="run the doctests of the pages and of src/")
    doctest_p.add_argument("--doctest", metavar="ARGS", required=True, help="pytest arguments")
    doctest_p.set_defaults(func=doctest_command)
    po_p = sub.add_parser("po", help="refresh the translation catalogs and list what to translate")
    po_p.set_defaults(func=po_command)
    dist_p = sub.add_parser("dist", help="pack the built site into one reproducible .tar.gz")
    dist_p.set_defaults(func=dist_command)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    status = main()
    # Done, the lock released: skip tearing down torch, Sphinx and the extensions,
    # which takes a second or two that every build would wait for.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status if isinstance(status, int) else 1)
