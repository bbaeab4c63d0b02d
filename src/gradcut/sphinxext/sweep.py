"""``gradcut-sweep``: a table of a sweep, whose every cell torch must agree with.

The table is written by hand inside the directive, so that it reads, diffs and translates
like the rest of the page; the directive's argument names the sweep
(:mod:`gradcut.claims.sweeps`)::

    ```{gradcut-sweep} conversions
    | Conversion | Same object | Shares storage |
    |---|---|---|
    | `y.float()` | yes | yes |
    ```

When the page is read, each row is measured on the installed torch and each cell
compared (:func:`gradcut.claims.sweeps.check_table`); every cell that disagrees, every
row the sweep lacks and every row of the sweep the table leaves out is a warning at its
own line (``-W`` makes it an error). The table is then rendered as ordinary Markdown,
with a line that says what measured it; the history of its rows across torch releases
is added under it (:mod:`gradcut.sphinxext.versions`).
"""

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from gradcut.claims import sweeps

logger = logging.getLogger(__name__)


class SweepTable(SphinxDirective):
    has_content = True
    required_arguments = 1
    option_spec = {"class": directives.class_option}

    def run(self):
        name = self.arguments[0]
        # A change to the measuring code must re-read the pages it checks.
        self.env.note_dependency(sweeps.__file__)
        if name in sweeps.names():
            self.env.note_dependency(sweeps.get(name).file)
        # MyST gives the directive's own line and the content's offset from the line
        # after it.
        first = self.lineno + 1 + self.content_offset
        lines = [(first + i, text) for i, text in enumerate(self.content)]
        for problem in sweeps.check_table(name, lines):
            logger.warning(
                problem.message,
                location=(self.env.docname, problem.line),
                type="gradcut",
                subtype="sweep",
            )
        container = nodes.container(classes=["gradcut-sweep", *self.options.get("class", [])])
        container["sweep"] = name
        # The claims of ``make torch-runs``: the header and each row, as the page has them.
        container["row_texts"] = [text for _n, text in sweeps.claim_lines(lines)]
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
    app.add_directive("gradcut-sweep", SweepTable)
