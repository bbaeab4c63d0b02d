"""Headings that are error messages read as headings, not as code.

A troubleshooting page is titled by the message a reader pastes into a search engine,
verbatim as torch prints it: ``# `RuntimeError: one of the variables needed …` ``. As
inline code in a heading, the theme draws it at the heading's size in the code's font,
boxed: on a phone the title alone filled the first screen. Such a heading gets the class
``gradcut-error-heading`` (``static/gradcut.css`` gives it a reading size, in the text's
font); its text is untouched, so the page title, the search index, the outline and the
anchor hold the message exactly as before.
"""

import re

from docutils import nodes

CLASS = "gradcut-error-heading"
# `RuntimeError: …`, `TypeError: …`, `torch.OutOfMemoryError: …`
MESSAGE = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning): \S")


def is_error_message(title: nodes.title) -> bool:
    """The heading opens with an error message in code (a translation may add words after
    it: ``RuntimeError: …：反向传播需要的张量被原地操作修改了``)."""
    first = title.children[0] if title.children else None
    return isinstance(first, nodes.literal) and bool(MESSAGE.match(first.astext()))


def mark_error_headings(app, doctree, docname) -> None:
    """On each page as it is written (its translation applied): a change of this module
    rewrites every page (``gradcut_assets``) without reading the sources again."""
    for title in doctree.findall(nodes.title):
        if isinstance(title.parent, nodes.section) and is_error_message(title):
            if CLASS not in title["classes"]:
                title["classes"].append(CLASS)


def setup(app):
    app.connect("doctree-resolved", mark_error_headings)
