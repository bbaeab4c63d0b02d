"""A failing ``assert`` in a gallery example says what it compared.

The examples check what they show with bare asserts (``assert out._version == 1``).
When one fails, sphinx-gallery reports the example's traceback: the line, and
``AssertionError`` with nothing after it -- the author cannot tell which side is wrong,
nor by how much. Before sphinx-gallery formats the error, :func:`explain` gives the
assertion a message: the condition, then the value of each of its parts, evaluated again
in the frame where it failed (an example's asserts read state; they do not change it)::

    AssertionError: assert out._version == c._version == 2
        out._version = 1
        c._version = 1

sphinx-gallery has no hook for this: its ``handle_exception`` is wrapped once per
process (:func:`setup`); when a release renames it, the build says so.
"""

import ast
import functools
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

#: How much of a value's repr an explanation shows, per part.
LIMIT = 400


def _frame_in(tb, src_file):
    """The innermost frame of the traceback that runs the example's own file."""
    target = Path(src_file).resolve()
    found = None
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == target:
            found = (tb.tb_frame, tb.tb_lineno)
        tb = tb.tb_next
    return found


def _assert_at(source: str, lineno: int) -> ast.Assert | None:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert) and node.lineno <= lineno <= (node.end_lineno or node.lineno):
            return node
    return None


def _parts(node: ast.expr, values) -> list[ast.expr]:
    """The sub-expressions worth showing: the operands of a comparison, the failing
    operand of ``and`` (all of ``or``), a call's arguments, names and attributes."""
    if isinstance(node, ast.Compare):
        return [part for operand in (node.left, *node.comparators) for part in _leaf(operand, values)]
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            for value in node.values:
                ok, result = values(value)
                if ok and not result:
                    return _parts(value, values)
            return []
        return [part for value in node.values for part in _parts(value, values)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _parts(node.operand, values)
    return _leaf(node, values)


def _leaf(node: ast.expr, values) -> list[ast.expr]:
    if isinstance(node, ast.Constant):
        return []
    if isinstance(node, ast.Call):
        return [arg for arg in (*node.args, *(k.value for k in node.keywords)) if not isinstance(arg, ast.Constant)]
    return [node]


def _short(text: str) -> str:
    return text if len(text) <= LIMIT else text[: LIMIT - 1] + "…"


def _text(source: str, node: ast.expr) -> str:
    """The expression as the example writes it; on one line when it spans several."""
    segment = ast.get_source_segment(source, node)
    return segment if segment and "\n" not in segment else ast.unparse(node)


def explanation(source: str, lineno: int, f_globals: dict, f_locals: dict) -> str | None:
    """The message for the bare assert at ``lineno`` of ``source``, or None."""
    node = _assert_at(source, lineno)
    if node is None or node.msg is not None:
        return None

    def values(expr):
        try:
            code = compile(ast.fix_missing_locations(ast.Expression(expr)), "<assert>", "eval")
            return True, eval(code, f_globals, f_locals)  # noqa: S307 -- the example's own code
        except Exception as error:  # noqa: BLE001 -- shown as what it is
            return False, error

    lines = [f"assert {_text(source, node.test)}"]
    seen = set()
    for part in _parts(node.test, values):
        text = _text(source, part)
        if text in seen:
            continue
        seen.add(text)
        ok, value = values(part)
        shown = repr(value) if ok else f"(could not be read again: {type(value).__name__}: {value})"
        shown = _short(shown).replace("\n", "\n" + " " * (len(text) + 7))
        lines.append(f"    {text} = {shown}")
    return "\n".join(lines)


def explain(exc_info, src_file) -> None:
    """Give a bare ``AssertionError`` raised by the example ``src_file`` its message."""
    etype, exc, tb = exc_info
    if not isinstance(exc, AssertionError) or exc.args:
        return
    found = _frame_in(tb, src_file)
    if found is None:
        return
    frame, lineno = found
    try:
        source = Path(src_file).read_text(encoding="utf-8")
        message = explanation(source, lineno, frame.f_globals, frame.f_locals)
    except (OSError, SyntaxError, ValueError):
        return
    if message:
        exc.args = (message,)


def _wrap(handle_exception):
    @functools.wraps(handle_exception)
    def handle(exc_info, src_file, *args, **kwargs):
        explain(exc_info, src_file)
        return handle_exception(exc_info, src_file, *args, **kwargs)

    handle.gradcut_explains_asserts = True
    return handle


def _install(app):
    if "sphinx_gallery_conf" not in app.config:
        return  # a site without sphinx-gallery
    from sphinx_gallery import gen_rst

    current = getattr(gen_rst, "handle_exception", None)
    if current is None:
        logger.warning(
            "sphinx-gallery has no gen_rst.handle_exception any more: a failing assert "
            "in an example will not show its values (update gradcut.sphinxext.asserts)",
            type="gradcut",
        )
        return
    if not getattr(current, "gradcut_explains_asserts", False):
        gen_rst.handle_exception = _wrap(current)


def setup(app):
    # before sphinx-gallery runs the examples (builder-inited, priority 500)
    app.connect("builder-inited", _install, priority=450)
