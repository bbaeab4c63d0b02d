"""The live view's pages say when what they show is not verified.

``make livehtml`` (:mod:`gradcut.tools.build.live`) runs the doctests before each
rebuild and writes what they found to the file named by ``gradcut_live_claims``: each
page's claims that do not hold, or that the doctests did not run at all. A page with a
claim that does not hold opens with a box that says so (the claim, expected and got);
when the doctests did not run, every page does. The published site never sets
``gradcut_live_claims``: its build fails instead.

A page is read again when what its box says changes, though its source did not (the
author fixed a helper, or the claim's expected output on another page).
"""

import hashlib
import json
from pathlib import Path

from docutils import nodes

TITLE = "Live view: not verified"
CLASS = "gradcut-unverified"


def read_status(path: str) -> dict:
    """``{"checked": bool, "reason": str, "pages": {page: [claim, ...]}}``."""
    try:
        status = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"checked": False, "reason": "the doctests have not run yet", "pages": {}}
    status.setdefault("pages", {})
    return status


def _docname(app, page: str) -> str | None:
    """``docs/howto/x.md`` (relative to the project) -> ``howto/x``."""
    path = Path(app.confdir, page).resolve()
    try:
        rel = path.relative_to(Path(app.srcdir).resolve())
    except ValueError:
        return None  # a module of src/: no page shows its claims
    return rel.with_suffix("").as_posix()


def _notes(app) -> dict[str, dict]:
    """What each page's box says: ``{docname: {"reason": ..., "claims": [...]}}``;
    ``"*"`` for every page."""
    status = read_status(app.config.gradcut_live_claims)
    if not status.get("checked"):
        return {"*": {"reason": status.get("reason") or "the doctests did not run", "claims": []}}
    notes = {}
    for page, claims in status["pages"].items():
        docname = _docname(app, page)
        if docname and claims:
            notes[docname] = {"reason": "", "claims": claims}
    return notes


def _digest(note) -> str:
    return hashlib.sha256(json.dumps(note, sort_keys=True).encode()).hexdigest() if note else ""


def _outdated(app, env, added, changed, removed):
    if not app.config.gradcut_live_claims:
        return []
    notes = _notes(app)
    seen = getattr(env, "gradcut_live_notes", {})
    now = {docname: _digest(notes.get(docname) or notes.get("*")) for docname in env.found_docs}
    env.gradcut_live_notes = now
    return sorted(d for d, digest in now.items() if seen.get(d, "") != digest and d not in added | changed)


def _box(note) -> nodes.Element:
    box = nodes.admonition(classes=["warning", CLASS])
    box += nodes.title(TITLE, TITLE)
    if note["reason"]:
        box += nodes.paragraph(text=f"The claims of this page were not checked: {note['reason']} (see the terminal).")
        return box
    claims = note["claims"]
    box += nodes.paragraph(
        "",
        "",
        nodes.Text(
            f"{len(claims)} claim{' does' if len(claims) == 1 else 's do'} not hold on this page "
            "(expected: what the page says; got: what torch printed); "
        ),
        nodes.literal("", "make html"),
        nodes.Text(f" fails until {'it holds' if len(claims) == 1 else 'each holds'}:"),
    )
    for claim in claims:
        text = (
            f"{claim['page']}:{claim['line']}\n"
            + "\n".join(
                (">>> " if i == 0 else "... ") + line for i, line in enumerate(claim["source"].splitlines())
            )
            + f"\nexpected:\n{claim['expected'] or '(no output)'}\ngot:\n{claim.get('got') or '(no output)'}"
        )
        box += nodes.literal_block(text, text, language="text")
    return box


def _add_box(app, doctree):
    if not app.config.gradcut_live_claims:
        return
    notes = _notes(app)
    docname = app.env.current_document.docname
    note = notes.get(docname) or notes.get("*")
    if not note:
        return
    section = doctree.next_node(nodes.section)
    if section is not None and section.children and isinstance(section[0], nodes.title):
        section.insert(1, _box(note))
    else:
        doctree.insert(0, _box(note))


def setup(app):
    # Empty: not a live view (the published site; its build fails instead).
    app.add_config_value("gradcut_live_claims", "", "env", types=[str])
    app.connect("env-get-outdated", _outdated)
    app.connect("doctree-read", _add_box)
