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
    Runs the code cells of a notebook in order, in one namespace, as a Jupyter kernel
    does: a cell whose last statement is an expression shows its value (its repr, unless
    it is None or the cell ends with ``;``). A failing cell is reported with its number
    and its line.

``runner.py script PATH``
    Runs PATH as ``python -I PATH`` does (``__main__``, ``sys.argv``, tracebacks, exit
    status, ``atexit``). Used by the server below; without it the test runs the download
    itself.

``runner.py serve``
    A fork server. Starting a Python and importing torch is most of what each of the
    runs above costs, and every download and page imports torch first. The server
    imports torch (what ``import torch`` imports, nothing more), then reads jobs, one
    JSON line each on stdin: ``{"id", "command", "args", "cwd", "env", "stdout",
    "stderr", "timeout"}``. For each it forks a child that goes to ``cwd``, takes
    ``env`` as its environment, writes its file descriptors 1 and 2 to the files
    ``stdout`` and ``stderr``, runs the command as above, and exits with its status. A
    fresh fork per job: no job sees what another did. When the server reaps a child it
    writes ``id status`` on stdout (status as ``subprocess`` reports it: negative for a
    signal).

    A forked child differs from a fresh ``python -I`` only in having torch imported
    before the job's first line. That is the same state as after the job's own
    ``import torch`` provided nothing but imports runs before it, so a child checks the
    job first (``preloaded_is_safe``): when the job runs anything else before importing
    torch, or never imports torch, the child executes a fresh ``python -I`` instead. A
    job that uses a name it did not import still fails: the preload puts modules in
    ``sys.modules``, never names in the job's namespace. Random state is reseeded in
    each child as a fresh interpreter seeds it (Python's ``random`` does so itself at
    fork; torch's and NumPy's global generators here).
"""

import ast
import io
import json
import os
import select
import signal
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


def notebook_cells(path: str) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        notebook = json.load(fh)
    return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]


def shows_its_value(source: str, tree: ast.Module) -> bool:
    """Whether a kernel shows the value of the cell's last statement (IPython's default,
    ``ast_node_interactivity = "last_expr"``; a trailing ``;`` hides it)."""
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return False
    code_lines = [line.split("#", 1)[0].rstrip() for line in source.splitlines()]
    code_lines = [line for line in code_lines if line]
    return not (code_lines and code_lines[-1].endswith(";"))


def run_notebook(path: str) -> None:
    namespace = {"__name__": "__main__"}
    for number, source in enumerate(notebook_cells(path), 1):
        filename = f"{path}, code cell {number}"
        tree = compile(source, filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        last = None
        if shows_its_value(source, tree):
            last = ast.Interactive(body=[tree.body.pop()])
        exec(compile(tree, filename, "exec", dont_inherit=True), namespace)
        if last is not None:
            sys.displayhook = sys.__displayhook__
            exec(compile(last, filename, "single", dont_inherit=True), namespace)


# -- as `python -I file.py` ---------------------------------------------------------------


def run_script(path: str) -> int:
    """Run ``path`` as ``__main__``; return the exit status ``python -I path`` has."""
    import importlib.machinery
    import types

    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__cached__ = None
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    sys.argv = [path]
    try:
        with open(path, "rb") as fh:
            code = compile(fh.read(), path, "exec", dont_inherit=True)
        exec(code, main.__dict__)
    except SystemExit as stop:
        return exit_status(stop)
    except BaseException as error:
        # The traceback starts at the script, as the interpreter's does.
        tb = error.__traceback__.tb_next if error.__traceback__ else None
        sys.excepthook(type(error), error.with_traceback(tb), tb)
        return 1
    return 0


def exit_status(stop: SystemExit) -> int:
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        return stop.code & 0xFF
    print(stop.code, file=sys.stderr)
    return 1


def guarded(run, *args) -> int:
    """Run one of the runner's own commands; an error in it is a traceback and status 1."""
    try:
        run(*args)
    except SystemExit as stop:
        return exit_status(stop)
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


# -- the fork server ---------------------------------------------------------------------

PRELOADED = "torch"


def imports_of(node: ast.stmt) -> list[str] | None:
    """The top-level modules an import statement imports; None for another statement."""
    if isinstance(node, ast.Import):
        return [alias.name.split(".")[0] for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        return [(node.module or "").split(".")[0]] if node.level == 0 else ["."]
    return None


def preloaded_is_safe(sources: list[str]) -> bool:
    """Whether the code (in order) imports torch before running anything but imports.

    A module docstring and a cell or example with nothing but comments count as nothing.
    """
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return False  # fails the same either way; the fresh run reports it
        body = tree.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        for node in body:
            modules = imports_of(node)
            if modules is None:
                return False
            if PRELOADED in modules:
                return True
    return False


def job_sources(command: str, args: list[str]) -> list[str]:
    if command == "script":
        with open(args[0], encoding="utf-8") as fh:
            return [fh.read()]
    if command == "notebook":
        return notebook_cells(args[0])
    if command == "transcript":
        with open(args[0], encoding="utf-8") as fh:
            spec = json.load(fh)
        return [e["source"] for e in spec["examples"] if not e["skip"]]
    return []


def child(job: dict, protocol: int) -> None:
    """In the forked child: become the job, and exit with its status. Never returns."""
    status = 1
    try:
        os.close(protocol)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.chdir(job["cwd"])
        os.environ.clear()
        os.environ.update(job["env"])
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            target = os.open(job[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(target, fd)
            os.close(target)
        signal.alarm(int(job["timeout"]))  # the default action ends the child
        command, args = job["command"], job["args"]
        if not preloaded_is_safe(job_sources(command, args)):
            runner = os.path.abspath(__file__)
            line = [runner, command, *args] if command != "script" else list(args)
            os.execv(sys.executable, [sys.executable, "-I", *line])
        reseed()
        if command == "script":
            status = run_script(args[0])
        elif command == "notebook":
            sys.argv = [__file__, command, *args]
            status = guarded(run_notebook, *args)
        elif command == "transcript":
            sys.argv = [__file__, command, *args]
            status = guarded(run_transcript, *args)
        else:
            print(f"unknown command {command!r}", file=sys.stderr)
        status = finish(status)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)


def reseed() -> None:
    """Seed the global generators as a fresh interpreter would: from the OS."""
    torch = sys.modules["torch"]
    torch.seed()
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()


def finish(status: int) -> int:
    """What the interpreter does at exit: wait for threads, run atexit, flush."""
    import atexit
    import threading

    threading._shutdown()
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except Exception:
        return 120
    return status


def serve() -> None:
    __import__(PRELOADED)
    protocol = os.dup(1)
    running: dict[int, str] = {}
    pending = b""
    open_input = True
    while open_input or running:
        if open_input:
            ready, _, _ = select.select([0], [], [], 0.02)
            if ready:
                data = os.read(0, 65536)
                if not data:
                    open_input = False
                pending += data
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if not line.strip():
                        continue
                    job = json.loads(line)
                    sys.stdout.flush()
                    sys.stderr.flush()
                    pid = os.fork()
                    if pid == 0:
                        child(job, protocol)
                    running[pid] = job["id"]
        else:
            select.select([], [], [], 0.02)
        while running:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            code = os.waitstatus_to_exitcode(wait_status)
            os.write(protocol, f"{running.pop(pid)} {code}\n".encode())


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "transcript":
        run_transcript(*args)
    elif command == "notebook":
        run_notebook(*args)
    elif command == "script":
        sys.exit(run_script(*args))
    elif command == "serve":
        serve()
    else:
        sys.exit(f"unknown command {command!r}")
