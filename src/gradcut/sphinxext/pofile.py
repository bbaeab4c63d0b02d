"""Gettext catalogs read and written as GNU gettext writes them, with the English each
fuzzy entry was translated from (its ``#| msgid``).

babel, which Sphinx and sphinx-intl use, reads a ``#|`` line as a translator's comment,
and writes a previous msgid as a comment wrapped like prose (a long one comes out as no
valid string, which msgmerge and the editors cannot read). Here a catalog is read with
babel, then each entry's ``#|`` lines become its ``previous_id`` again; it is written
with babel, and the previous msgid of each fuzzy entry goes right above its ``msgid``,
in strings, as msgmerge writes it::

    #, fuzzy
    #| msgid "The English it was translated from."
    msgid "The English now."
    msgstr "The translation, to review."
"""

import io
from pathlib import Path

from babel.messages.pofile import denormalize, generate_po, normalize, read_po

#: sphinx-intl's width
WIDTH = 76


def read_catalog(path: Path):
    """Parse a ``.po`` file strictly, or raise ``PoFileError`` naming its line."""
    with Path(path).open("rb") as fh:
        catalog = read_po(fh, abort_invalid=True)
    for message in catalog:
        previous = [c for c in message.user_comments if c.startswith("|")]
        if not previous:
            continue
        message.user_comments = [c for c in message.user_comments if not c.startswith("|")]
        message.previous_id = _previous_id([c[1:].strip() for c in previous])
    return catalog


def _previous_id(lines: list[str]) -> list[str]:
    """``msgid "a" "b"`` (and ``msgid_plural …``), as lines without their ``#|``."""
    ids: list[list[str]] = []
    for line in lines:
        keyword, _, rest = line.partition(" ")
        if keyword in ("msgid", "msgid_plural"):
            ids.append([rest.strip()])
        elif line.startswith('"') and ids:
            ids[-1].append(line)
    try:
        return [denormalize("\n".join(parts)) for parts in ids]
    except Exception:  # noqa: BLE001 -- a garbled comment hides no translation
        return []


def write_catalog(path: Path, catalog, width: int = WIDTH) -> None:
    """Write ``catalog`` to ``path`` as :func:`read_catalog` reads it back."""
    previous = {}
    for message in catalog:
        if message.id and message.fuzzy and message.previous_id and isinstance(message.id, str):
            # babel's own prefix counts once per word (its #~ lines come out a few words
            # wide): wrapped without it, at the width left beside it
            lines = f"msgid {normalize(message.previous_id[0], width=width - 3)}".splitlines()
            block = "".join(f"#| {line}\n" for line in lines)
            previous[f"msgid {normalize(message.id, width=width)}\n"] = block
    out = io.BytesIO()
    for chunk in generate_po(catalog, width=width):
        for text in (previous.pop(chunk, ""), chunk):
            out.write(text.encode(catalog.charset, "backslashreplace"))  # as write_po does
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(out.getvalue())
