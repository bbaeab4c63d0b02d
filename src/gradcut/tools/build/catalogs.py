"""``make po``: refresh the translation catalogs after an English edit.

Extracts the English strings (Sphinx's gettext builder), updates the catalogs under
``locale/`` (sphinx-intl), removes catalogs of pages that are gone, fills
sphinx-gallery's fixed sentences, and lists every entry that needs a translator.
"""

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from gradcut.sphinxext.i18n import catalog_problems, read_catalog
from gradcut.tools.build import LOCALE, LOCK, ROOT, SOURCE_LANGUAGE, command_line, exit_now
from gradcut.tools.build.languages import sphinx
from gradcut.tools.lock import locked


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
            r":download:`下载 Jupyter 笔记本：\g<f> <\g<f>>`",
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


def main(argv=None) -> int:
    return po_command(command_line(__doc__).parse_args(argv))


if __name__ == "__main__":
    exit_now(main())
