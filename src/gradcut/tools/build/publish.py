"""Publishing a build: a new folder under ``_build/sites/`` put in place of the last good
site in one step.

``_build/html`` is a link to the published folder, replaced by a new link with one
``rename``: a failed, killed or interrupted build leaves the last good site untouched,
and the next build removes what it left. Old site folders are moved to ``_build/trash/``
and deleted in the background.
"""

import errno
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

from gradcut.sphinxext.pages import prune
from gradcut.tools.build import LANGUAGES, checkpoint
from gradcut.tools.build.site_pages import robots, root_404, root_index, site_url, sitemap


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
            ignore=shutil.ignore_patterns(".buildinfo", ".buildinfo.bak", ".doctrees", "_sources"),
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
