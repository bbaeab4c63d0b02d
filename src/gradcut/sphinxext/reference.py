"""``gradcut-reference``: a Markdown table whose every cell torch must agree with.

The table is written by hand inside the directive, so that it reads, diffs and translates
like the rest of the page::

    ```{gradcut-reference}
    | Operation | Shares storage | requires_grad |
    |---|---|---|
    | `y.detach()` | yes | False |
    ```

When the page is read, each cell is compared with what :func:`gradcut.claims.reference.measure`
gets from the installed torch; every cell that disagrees is a warning at its own line
(``-W`` makes it an error). The table is then rendered as ordinary Markdown.
"""

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from gradcut.claims import reference

logger = logging.getLogger(__name__)


class ReferenceTable(SphinxDirective):
    has_content = True

    def run(self):
        # A change to the measuring code must re-read the pages it checks.
        self.env.note_dependency(reference.__file__)
        # MyST gives the directive's own line and the content's offset from the line
        # after it.
        first = self.lineno + 1 + self.content_offset
        lines = [(first + i, text) for i, text in enumerate(self.content)]
        for problem in reference.check_table(lines):
            logger.warning(
                problem.message,
                location=(self.env.docname, problem.line),
                type="gradcut",
                subtype="reference",
            )
        container = nodes.container(classes=["gradcut-reference"])
        self.state.nested_parse(self.content, self.content_offset, container)
        # The cells come out of the nested parse without a source; Sphinx's gettext
        # machinery skips such nodes, which would leave the table untranslated and
        # unchecked by the translation gate. Give them the page and the table's line.
        source = str(self.env.doc2path(self.env.docname))
        for node in container.findall(nodes.TextElement):
            if not node.source:
                node.source, node.line = source, self.lineno
        return [container]


def setup(app):
    app.add_directive("gradcut-reference", ReferenceTable)
