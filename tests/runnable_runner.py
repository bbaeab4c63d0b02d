"""Run what a reader copies or downloads, in a Python that has only torch, numpy and matplotlib.

tests/test_runnable.py copies this file into a temporary folder and runs it with the
bare venv's Python (``python -I``: no project package, no ``src/``, no user site). It
needs the standard library alone.

``runner.py transcript SPEC OUT``
    SPEC (JSON): ``{"name": page, "examples": [{"source", "lineno", "skip"}, ...]}``.
    Runs the examples of one page in order, in one namespace, as doctest runs them
    (``single`` mode: a bare expression prints its repr); writes for each what it
    printed and, when it raised, the exception line doctest compares
    (``traceback.format_exception_only(...)[-1]``) and the traceback.

``runner.py notebook PATH``
    Runs the code cells of a notebook in order, in one namespace. A failing cell is
    reported with its number and its line.

A ``.py`` download needs no runner: the test runs it as a reader does, ``python file.py``.
"""

import io
import json
import sys
import traceback


def run_transcript(spec_path: str, out_path: str) -> None:
    with open(spec_path, encoding="utf-8") as fh:
        spec = json.load(fh)
    namespace = {"__name__": "__main__"}
    results = []
    real_stdout = sys.stdout
    for example in spec["examples"]:
        if example["skip"]:
            results.append(None)
            continue
        buffer = io.StringIO()
        exc_msg = tb = None
        sys.stdout = buffer
        sys.displayhook = sys.__displayhook__
        try:
            code = compile(
                example["source"], f"{spec['name']}, line {example['lineno']}", "single",
                dont_inherit=True,
            )  # fmt: skip
            exec(code, namespace)
        except KeyboardInterrupt:
            raise
        except BaseException:
            kind, value, _ = sys.exc_info()
            exc_msg = traceback.format_exception_only(kind, value)[-1]
            tb = traceback.format_exc()
        finally:
            sys.stdout = real_stdout
        got = buffer.getvalue()
        if got and not got.endswith("\n"):  # as doctest's own capture does
            got += "\n"
        results.append({"got": got, "exc_msg": exc_msg, "traceback": tb})
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(results, fh)


def run_notebook(path: str) -> None:
    with open(path, encoding="utf-8") as fh:
        notebook = json.load(fh)
    namespace = {"__name__": "__main__"}
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    for number, cell in enumerate(cells, 1):
        source = "".join(cell["source"])
        exec(compile(source, f"{path}, code cell {number}", "exec"), namespace)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "transcript":
        run_transcript(*args)
    elif command == "notebook":
        run_notebook(*args)
    else:
        sys.exit(f"unknown command {command!r}")
