"""``make po``: refresh the translation catalogs after an English edit.

Extracts the English strings (Sphinx's gettext builder), updates the catalogs under
``locale/`` as ``sphinx-intl update`` does (babel's ``Catalog.update``, written only
when a catalog's strings change), removes catalogs of pages that are gone, fills
sphinx-gallery's fixed sentences, and lists every entry that needs a translator -- and
nothing else: what the author acts on is the whole output.

A translation whose English changed becomes fuzzy (babel's fuzzy matching). The catalog
keeps the English it was translated from as ``#| msgid`` lines, as msgmerge's
``--previous`` does (sphinx-intl's command line offers no such option, and babel writes
them wrapped as prose: :mod:`gradcut.sphinxext.pofile` reads and writes them), for as
long as the entry stays fuzzy; the list shows the old English, the new English and the
translation together, and says what clears the entry.
"""

import re
import shutil
from pathlib import Path

from babel.messages.pofile import PoFileError

from gradcut.sphinxext.i18n import catalog_problems
from gradcut.sphinxext.pofile import read_catalog, write_catalog
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


def update_catalog(po: Path, pot: Path, language: str) -> str:
    """``sphinx-intl update`` for one catalog, keeping the English each fuzzy entry was
    translated from. Returns "created", "updated" or "" (unchanged).

    Like sphinx-intl, a catalog is rewritten only when its set of strings changes (a
    fresh template differs by its date alone on every run).
    """
    template = read_catalog(pot)
    if not po.exists():
        template.locale = language
        write_catalog(po, template)
        return "created"
    catalog = read_catalog(po)
    before = {m.id: m for m in catalog if m.id}
    catalog.update(template)  # what sphinx-intl's update_with_fuzzy does
    # babel gives the old English only to an entry it makes fuzzy now: one still fuzzy
    # from an earlier run keeps the English the file has for it.
    for message in catalog:
        old = before.get(message.id)
        if message.id and message.fuzzy and not message.previous_id and old is not None:
            message.previous_id = list(old.previous_id)
    if set(before) == {m.id for m in catalog if m.id}:
        return ""
    write_catalog(po, catalog)
    return "updated"


def fill_boilerplate(po: Path, language: str) -> int:
    """Translate sphinx-gallery's fixed sentences, and put back the site's translation of
    one a translator worded otherwise; return how many were filled."""
    rules = BOILERPLATE.get(language, [])
    catalog = read_catalog(po)
    filled = 0
    for message in catalog:
        if not message.id:
            continue
        for pattern, replacement in rules:
            if pattern.match(message.id):
                wanted = pattern.sub(replacement, message.id)
                if message.string == wanted and not message.fuzzy:
                    break
                message.string = wanted
                message.flags.discard("fuzzy")
                message.previous_id = []
                filled += 1
                break
    if filled:
        write_catalog(po, catalog)
    return filled


def drop_obsolete(po: Path) -> None:
    """Remove the ``#~`` entries babel keeps for strings the pages no longer have."""
    catalog = read_catalog(po)
    if catalog.obsolete:
        catalog.obsolete.clear()
        write_catalog(po, catalog)


def po_command(args) -> int:
    out = Path(args.out).resolve()
    with locked(LOCK):
        return po(out, args)


WHAT_TO_DO = (
    "Translate each entry listed above in its catalog (the msgstr under its msgid); for a "
    "fuzzy one, review the translation against the new English, then take `fuzzy` out of "
    "its `#,` line. Then `make html`."
)


def po(out: Path, args) -> int:
    pot_dir = out / "gettext"
    # A fresh set of templates: a .pot left from a deleted page would keep its catalog.
    shutil.rmtree(pot_dir, ignore_errors=True)
    # -q: only Sphinx's warnings, which the author must act on (the pages must build).
    rc = sphinx("gettext", pot_dir, out / ".work" / "gettext" / "doctrees", ["-W", "--keep-going", "-q"],
                announce=False)  # fmt: skip
    if rc:
        print("make po: the English pages did not build (see above); no catalog was changed.")
        return rc
    pots = {p.relative_to(pot_dir).with_suffix("").as_posix(): p for p in sorted(pot_dir.rglob("*.pot"))}
    failed = 0
    for language in args.languages:
        if language == SOURCE_LANGUAGE:
            continue
        catalog_dir = LOCALE / language / "LC_MESSAGES"
        for po in sorted(catalog_dir.rglob("*.po")):
            name = po.relative_to(catalog_dir).with_suffix("").as_posix()
            if name not in pots:
                print(f"removed {po.relative_to(ROOT)} (its page is gone)")
                po.unlink()
        todo = 0
        for name, pot in pots.items():
            po = catalog_dir / f"{name}.po"
            try:
                done = update_catalog(po, pot, language)
                drop_obsolete(po)
                fill_boilerplate(po, language)
            except (PoFileError, UnicodeDecodeError, ValueError):
                # left as it is; the list below names the line to fix
                print(f"{po.relative_to(ROOT)}: not updated (malformed): fix it, then `make po` again")
                failed = 1
                continue
            if done == "created":
                print(f"created {po.relative_to(ROOT)} (a new page)")
        for po in sorted(catalog_dir.rglob("*.po")):
            for lineno, problem in catalog_problems(po):
                print(f"{po.relative_to(ROOT)}:{lineno}: {problem}")
                todo += 1
        if todo:
            print(f"{language}: {todo} entr{'y' if todo == 1 else 'ies'} to translate. {WHAT_TO_DO}")
        else:
            print(f"{language}: every entry is translated.")
    return failed


def main(argv=None) -> int:
    return po_command(command_line(__doc__).parse_args(argv))


if __name__ == "__main__":
    exit_now(main())
