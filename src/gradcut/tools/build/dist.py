"""``make dist``: the built site packed into ``_build/dist/gradcut-site-<torch>.tar.gz``,
byte for byte the same for the same site."""

import gzip
import importlib.metadata
import os
import sys
import tarfile
from pathlib import Path

from gradcut.tools.build import LOCK, command_line
from gradcut.tools.lock import locked


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


def main(argv=None) -> int:
    return dist_command(command_line(__doc__).parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
