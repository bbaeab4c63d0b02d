"""`make dist`: one archive of the built site, the same bytes for the same site.

That the unpacked archive is a working site is checked by every test of test_site.py,
which runs against both the build and the archive (the ``site`` fixture).
"""

import gzip
import hashlib
import tarfile

import pytest

from conftest import dist_archive
from gradcut.tools.build.dist import write_archive


@pytest.fixture(scope="module")
def archive():
    path = dist_archive()
    if not path.is_file():
        pytest.fail(f"no archive {path}: run `make dist` (make test does)")
    return path


def test_archive_holds_exactly_the_built_site(archive, built_site):
    prefix = archive.name.removesuffix(".tar.gz")
    with tarfile.open(archive) as tar:
        members = {m.name: m for m in tar.getmembers()}
        files = {
            name.removeprefix(prefix + "/"): hashlib.sha256(tar.extractfile(m).read()).hexdigest()
            for name, m in members.items()
            if m.isfile()
        }
    assert all(name == prefix or name.startswith(prefix + "/") for name in members)
    built = {
        p.relative_to(built_site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in built_site.rglob("*")
        if p.is_file()
    }
    assert files == built
    assert {"index.html", ".nojekyll", "sitemap.xml", "robots.txt", "en/index.html"} <= set(files)


def test_archive_is_reproducible(archive, built_site, tmp_path):
    with archive.open("rb") as fh:
        header = fh.read(10)
    # gzip: no file name (FLG.FNAME, 0x08) and no time (MTIME) in the header
    assert header[3] & 0x08 == 0 and header[4:8] == b"\0\0\0\0"
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names == sorted(names)
    assert {(m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, "", "")}
    assert len({m.mtime for m in members}) == 1
    assert {m.mode for m in members if m.isdir()} == {0o755}
    assert {m.mode for m in members if m.isfile()} == {0o644}
    # packing the same site again, elsewhere, gives the same bytes
    again = tmp_path / archive.name
    write_archive(built_site, again, archive.name.removesuffix(".tar.gz"), members[0].mtime)
    assert again.read_bytes() == archive.read_bytes()


def test_write_archive_ignores_file_times_and_modes(tmp_path):
    site = tmp_path / "site"
    for name in ("b/two.html", "a/one.html", ".nojekyll"):
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(name)
    first, second = tmp_path / "1.tar.gz", tmp_path / "2.tar.gz"
    write_archive(site, first, "s")
    for path in site.rglob("*"):
        path.touch()  # new mtimes
    (site / "a" / "one.html").chmod(0o600)
    write_archive(site, second, "s")
    assert first.read_bytes() == second.read_bytes()
    with tarfile.open(second) as tar:
        assert tar.getnames() == ["s", "s/.nojekyll", "s/a", "s/a/one.html", "s/b", "s/b/two.html"]
    assert gzip.decompress(first.read_bytes())  # a valid gzip stream

