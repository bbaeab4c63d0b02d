"""What a reader copies or downloads runs with nothing but torch, numpy and matplotlib.

A venv with only those three (the versions of the venv running the tests, which
requirements.txt pins; no project package, no ``src/`` on the path) is made once and
kept under the build folder, named after those versions: the files pip installed for
them and what they require in the venv running the tests, linked (pip installs them
when that venv does not have them). In it:

- every page's transcripts run in ONE fresh session per page, block after block, as a
  reader pastes them: the examples are the ones the doctest step collects (pytest-
  doctestplus's own parser, so ``% doctest-requires::`` comments and option flags such
  as ``FLOAT_CMP`` count as they do there), and each output is compared with doctest's
  checker (doctestplus's, for its flags). A failure names the page and the line;
- every gallery download the built site offers, ``.py`` and ``.ipynb``, runs to the end
  from an empty folder (``python -I file.py``; a notebook's code cells in order in one
  namespace, a cell's last value shown as a kernel shows it), and prints what its page
  shows, in every language. A failure names the file (and cell) and the line. The
  downloads of another language differ from the English ones in their prose only: the
  test reads that from the file (the same Python once its module docstring is left out,
  ``ast``; the same code cells in a valid notebook, ``nbformat``), and then what the
  English download printed is what the same code prints, compared with that
  language's page.

Each run is a child forked from one Python of that venv that has imported torch
(tests/runnable_runner.py, ``serve``): importing torch is most of what a fresh Python
per run costs. A fresh fork per run, so no run sees another's state, and torch imported
in advance only for code that imports nothing but modules before its own ``import
torch`` (other code gets a fresh ``python -I``). The tests at the end show that what
this could hide still fails: a name used but not imported, the project imported, state
left by an earlier run. The notebooks' run in a Jupyter kernel is tests/test_notebooks.py.

A download runs once, whichever tests ask for it.
"""

import ast
import doctest
import fcntl
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import LANGUAGES, ROOT, build_dir
from runnable_runner import preloaded_is_safe

RUNTIME = ("torch", "numpy", "matplotlib")
RUNNER = Path(__file__).with_name("runnable_runner.py")
PAGES = sorted(
    path
    for path in (ROOT / "docs").rglob("*.md")
    if "examples" not in path.relative_to(ROOT / "docs").parts[:1]
    and ">>> " in path.read_text(encoding="utf-8")
)
EXAMPLES = sorted((ROOT / "gallery").glob("*.py"))
WORKERS = max(1, min(2, os.cpu_count() or 1))
TIMEOUT = 600


# -- the bare venv --------------------------------------------------------------------


def required() -> dict[str, str]:
    """torch, numpy and matplotlib as requirements.txt pins them."""
    text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    found = dict(re.findall(r"^(torch|numpy|matplotlib)==(\S+)$", text, re.M))
    assert sorted(found) == sorted(RUNTIME), f"requirements.txt pins {found}"
    return found


def pins() -> dict[str, str]:
    """torch, numpy and matplotlib as requirements.txt pins them; torch as installed
    when the tests run against another torch (``make test TORCH=…``)."""
    found = required()
    installed = importlib.metadata.version("torch").split("+")[0]
    if installed != found["torch"]:
        found["torch"] = installed
    return found


def bare_env(home: Path) -> dict[str, str]:
    """An environment with nothing of this project or of the venv running the tests.

    The one thing passed on is where Inductor keeps what it compiled
    (``TORCHINDUCTOR_CACHE_DIR``, which the Makefile sets): a cache, so that code that
    calls ``torch.compile`` reuses the build's compiled code instead of compiling it again.
    """
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": str(home / ".matplotlib"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if os.environ.get("TORCHINDUCTOR_CACHE_DIR"):
        env["TORCHINDUCTOR_CACHE_DIR"] = os.environ["TORCHINDUCTOR_CACHE_DIR"]
    return env


@pytest.fixture(scope="session")
def bare_python() -> Path:
    versions = pins()
    key = hashlib.sha256(
        json.dumps({"python": sys.version.split()[0], "pins": versions}, sort_keys=True).encode()
    ).hexdigest()[:12]
    venv = build_dir() / "runnable" / f"venv-{key}"
    python = venv / "bin" / "python"
    venv.parent.mkdir(parents=True, exist_ok=True)
    # Both test processes (pytest-xdist) need it: one makes it, the other waits.
    with open(venv.parent / f"venv-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".ready").is_file():
            make_bare_venv(venv, python, versions)
    return python


def make_bare_venv(venv: Path, python: Path, versions: dict[str, str]) -> None:
    shutil.rmtree(venv, ignore_errors=True)
    installed = runtime_distributions(versions)
    if installed is not None:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        site = Path(
            subprocess.run(
                [python, "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                capture_output=True, text=True, check=True,
            ).stdout.strip()
        )  # fmt: skip
        link_installed(installed, site)
        (venv / ".ready").write_text(json.dumps(versions) + "\n")
        return
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    requirements = [f"{name}=={version}" for name, version in sorted(versions.items())]
    environment = dict(os.environ)
    if versions["torch"] != required()["torch"]:
        # Another torch (make test TORCH=…): as the Makefile installs it, past a
        # constraint file that caps torch.
        environment["PIP_CONSTRAINT"] = "/dev/null"
    done = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *requirements],
        capture_output=True, text=True, check=False, env=environment,
    )  # fmt: skip
    if done.returncode:
        pytest.fail(f"could not make the bare venv {venv}:\n{done.stdout}{done.stderr}")
    (venv / ".ready").write_text(json.dumps(versions) + "\n")


def runtime_distributions(versions: dict[str, str]):
    """torch, numpy and matplotlib as installed in the venv running the tests, with
    what they require (the requirements pip installs: markers evaluated here, no
    extras); None when one of the three is not installed at the version wanted."""
    from packaging.markers import default_environment
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    found = {}
    todo = list(versions)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in found:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            return None
        if name in versions and dist.version.split("+")[0] != versions[name]:
            return None
        if dist.files is None:  # no RECORD: not a pip install
            return None
        found[name] = dist
        for text in dist.requires or []:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is None or marker.evaluate({**default_environment(), "extra": ""}):
                todo.append(requirement.name)
    return found


def link_installed(distributions: dict, site: Path) -> None:
    """The files pip installed for these distributions into the venv running the
    tests (their RECORD), linked into ``site``: what installing the same wheels in the
    bare venv writes, without unpacking them again. Scripts outside site-packages
    (console entry points) are left out: they name the other venv's Python."""
    for dist in distributions.values():
        for file in dist.files:
            if file.parts[0] == "..":
                continue
            source, target = Path(file.locate()), site / file
            if not source.is_file():
                continue  # RECORD lists .pyc files Python may not have written
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(source, target)
            except OSError:
                shutil.copy2(source, target)


def test_the_bare_venv_has_torch_numpy_matplotlib_and_nothing_of_the_project(
    bare_python, tmp_path
):
    probe = (
        "import importlib.metadata as m, importlib.util as u, json, sys\n"
        "print(json.dumps({\n"
        "    'versions': {n: m.version(n).split('+')[0] for n in ('torch', 'numpy', 'matplotlib')},\n"
        "    'found': [n for n in ('gradcut', 'pytest', 'sphinx', 'IPython', 'nbclient',\n"
        "                          'bs4', 'doctestplus') if u.find_spec(n)],\n"
        "    'path': sys.path,\n"
        "}))\n"
    )
    done = subprocess.run(
        [bare_python, "-I", "-c", probe], capture_output=True, text=True, cwd=tmp_path,
        env=bare_env(tmp_path), check=True,
    )  # fmt: skip
    found = json.loads(done.stdout)
    assert found["versions"] == pins()
    assert found["found"] == []
    project = [p for p in found["path"] if Path(p) == ROOT or Path(p).is_relative_to(ROOT / "src")]
    assert not project, found["path"]


# -- running things in it ---------------------------------------------------------------


class Jobs:
    """Runs submitted once, two at a time, results by key."""

    def __init__(self):
        self.pool = ThreadPoolExecutor(max_workers=WORKERS)
        self.futures = {}
        self.lock = threading.Lock()

    def get(self, key, fn, *args):
        with self.lock:
            if key not in self.futures:
                self.futures[key] = self.pool.submit(fn, *args)
        return self.futures[key]


@pytest.fixture(scope="session")
def jobs():
    pool = Jobs()
    yield pool
    pool.pool.shutdown(wait=False, cancel_futures=True)


@pytest.fixture(scope="session")
def runner(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("runner")
    shutil.copy(RUNNER, folder / "runner.py")
    return folder / "runner.py"


class Server:
    """The runner's fork server (``runnable_runner.py serve``) in the bare venv: it
    imports torch once and forks a child per job; ``run`` waits for one job's result."""

    def __init__(self, python: Path, runner: Path, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.log = open(folder / "server.log", "w")
        self.process = subprocess.Popen(
            [str(python), "-I", str(runner), "serve"], cwd=folder, env=bare_env(folder),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
        )  # fmt: skip
        self.lock = threading.Lock()
        self.waiting: dict[str, list] = {}
        self.count = 0
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.process.stdout:
            key, status = line.split()
            with self.lock:
                slot = self.waiting[key]
            slot.append(int(status))
            slot[0].set()
        with self.lock:  # the server is gone: nothing more will finish
            for slot in self.waiting.values():
                slot[0].set()

    def run(
        self, command: str, args: list, folder: Path, timeout: int = TIMEOUT
    ) -> subprocess.CompletedProcess:
        folder.mkdir(parents=True, exist_ok=True)
        with self.lock:
            self.count += 1
            key = str(self.count)
            out, err = self.folder / f"{key}.out", self.folder / f"{key}.err"
            slot = self.waiting[key] = [threading.Event()]
            job = {
                "id": key, "command": command, "args": [str(a) for a in args],
                "cwd": str(folder), "env": bare_env(folder), "stdout": str(out),
                "stderr": str(err), "timeout": timeout,
            }  # fmt: skip
            self.process.stdin.write(json.dumps(job) + "\n")
            self.process.stdin.flush()
        slot[0].wait()
        if len(slot) == 1:
            self.log.flush()
            log = (self.folder / "server.log").read_text(encoding="utf-8", errors="replace")
            pytest.fail(f"the runner's fork server stopped:\n{log}")
        return subprocess.CompletedProcess(
            [command, *args], slot[1], out.read_text(encoding="utf-8", errors="replace"),
            err.read_text(encoding="utf-8", errors="replace"),
        )  # fmt: skip

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)
        self.log.close()


@pytest.fixture(scope="session")
def server(bare_python, runner, tmp_path_factory):
    serving = Server(bare_python, runner, tmp_path_factory.mktemp("server"))
    yield serving
    serving.close()


# -- transcripts ------------------------------------------------------------------------


def collect_examples(request, page: Path):
    """The doctest of ``page`` exactly as the doctest step collects it (doctestplus's
    parser: directives in comments set SKIP, option flags are parsed), and its runner's
    option flags."""
    plugin = request.config.pluginmanager.getplugin("doctestplus")
    if plugin is None:
        pytest.fail("pytest-doctestplus is not active (pyproject.toml enables it)")
    module = plugin._doctest_textfile_item_cls.from_parent(request.session, path=page)
    items = list(module.collect())
    if not items:
        return None, 0
    (item,) = items
    return item.dtest, item.runner.optionflags


def judge(page: str, test, optionflags: int, results: list) -> list[str]:
    """Compare each example's result with the page, as doctest's runner does."""
    from pytest_doctestplus.output_checker import OutputChecker

    checker = OutputChecker()
    problems = []
    for example, result in zip(test.examples, results, strict=True):
        if result is None:  # skipped, as in the doctest step
            continue
        flags = optionflags
        for flag, on in example.options.items():
            flags = flags | flag if on else flags & ~flag
        where = f"{page}:{test.lineno + example.lineno + 1}"
        code = "\n".join(">>> " + line for line in example.source.rstrip("\n").splitlines())
        if result["exc_msg"] is None:
            if example.exc_msg is not None:
                problems.append(
                    f"{where}\n{code}\nexpected the error:\n{example.exc_msg}"
                    f"but nothing was raised; printed:\n{result['got']}"
                )
            elif not checker.check_output(example.want, result["got"], flags):
                problems.append(
                    f"{where}\n{code}\nexpected:\n{example.want}got:\n{result['got']}"
                )
            continue
        if example.exc_msg is None:
            problems.append(f"{where}\n{code}\nraised:\n{result['traceback']}")
            continue
        same = checker.check_output(example.exc_msg, result["exc_msg"], flags)
        if not same and flags & doctest.IGNORE_EXCEPTION_DETAIL:
            strip = doctest._strip_exception_details
            same = checker.check_output(strip(example.exc_msg), strip(result["exc_msg"]), flags)
        if not same:
            problems.append(
                f"{where}\n{code}\nexpected the error:\n{example.exc_msg}"
                f"got:\n{result['exc_msg']}"
            )
    return problems


def run_page(server: Server, folder: Path, page: str, test) -> list:
    spec = {
        "name": page,
        "examples": [
            {
                "source": example.source,
                "lineno": test.lineno + example.lineno + 1,
                "skip": bool(example.options.get(doctest.SKIP)),
            }
            for example in test.examples
        ],
    }
    folder.mkdir(parents=True)
    spec_path, out_path = folder.parent / f"{folder.name}.json", folder.parent / f"{folder.name}.out"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    done = server.run("transcript", [spec_path, out_path], folder)
    if done.returncode or not out_path.is_file():
        return [f"{page}: the session itself failed:\n{done.stdout}{done.stderr}"]
    return json.loads(out_path.read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_transcripts_run_with_torch_alone(
    request, server, jobs, tmp_path_factory, page
):
    name = page.relative_to(ROOT).as_posix()
    test, optionflags = collect_examples(request, page)
    if test is None:
        pytest.fail(f"{name}: the doctest step finds no example in it")
    folder = tmp_path_factory.getbasetemp() / "pages" / re.sub(r"\W", "_", name)
    results = jobs.get(("page", name), run_page, server, folder, name, test).result()
    if results and isinstance(results[0], str):
        pytest.fail(results[0])
    problems = judge(name, test, optionflags, results)
    assert not problems, (
        f"{len(problems)} example(s) of {name} do not run as the page shows, in a Python "
        "with torch alone:\n\n" + "\n\n".join(problems[:5])
    )


# -- gallery downloads ------------------------------------------------------------------


def offered(page_path: Path, suffix: str) -> Path:
    page = BeautifulSoup(page_path.read_text(encoding="utf-8"), "html.parser")
    links = [
        a["href"]
        for a in page.select("a[href]")
        if "_downloads/" in a["href"] and a["href"].endswith(suffix)
    ]
    assert len(set(links)) == 1, f"{page_path}: {suffix} downloads offered: {links}"
    return (page_path.parent / links[0]).resolve()


def shown(page_path: Path) -> list[str]:
    """The lines the example's page shows as its outputs, without blank ones."""
    page = BeautifulSoup(page_path.read_text(encoding="utf-8"), "html.parser")
    lines = []
    for div in page.select("div.sphx-glr-script-out"):
        lines += div.get_text().splitlines()
    return [line.rstrip() for line in lines if line.strip()]


def code_of(path: Path):
    """What of a download runs: a script's syntax tree without its module docstring (a
    syntax error raises), a notebook's code cells (an invalid notebook raises)."""
    if path.suffix == ".py":
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an invalid escape in the prose: a warning a reader sees
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant):
            tree.body = tree.body[1:]
        return ast.dump(tree)
    import nbformat

    notebook = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(notebook)
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def run_download(server: Server, folder: Path, path: Path) -> subprocess.CompletedProcess:
    """Copy the download into a folder of its own; run it from another, empty one."""
    (folder / "download").mkdir(parents=True)
    copy = folder / "download" / path.name
    shutil.copy(path, copy)
    command = "script" if path.suffix == ".py" else "notebook"
    return server.run(command, [copy], folder / "empty")


def where_it_failed(stderr: str, name: str) -> str:
    """The last line of the traceback that points into the download, and the error."""
    lines = stderr.rstrip().splitlines()
    frames = [
        (i, line) for i, line in enumerate(lines) if line.lstrip().startswith("File ") and name in line
    ]
    at = ""
    if frames:
        i, line = frames[-1]
        following = lines[i + 1] if i + 1 < len(lines) else ""
        code = following.strip() if following.startswith("    ") and "File " not in following else ""
        at = f"{line.strip()}\n" + (f"    {code}\n" if code else "")
    return at + (lines[-1] if lines else "(no message)")


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".py", ".ipynb"])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "example",
    # an example's downloads in one process: the other languages' take the English run
    [pytest.param(p, id=p.stem, marks=pytest.mark.xdist_group(f"downloads-{p.stem}")) for p in EXAMPLES],
)
def test_downloads_run_with_torch_alone(
    built_site, server, jobs, tmp_path_factory, example, language, suffix
):
    page = built_site / language / "examples" / f"{example.stem}.html"
    assert page.is_file(), f"no page for {example.name} in {language}: run `make html`"
    path = offered(page, suffix)
    shown_as = f"{language}/{path.relative_to(built_site / language).as_posix()}"
    if language != "en":
        # The same code as the English download's: its run is the English one's.
        english = offered(built_site / "en" / "examples" / f"{example.stem}.html", suffix)
        assert code_of(path) == code_of(english), (
            f"{shown_as}: its code is not the English download's ({english.name})"
        )
        path = english
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    folder = tmp_path_factory.getbasetemp() / "downloads" / f"{digest[:16]}{suffix}"
    done = jobs.get(("download", digest), run_download, server, folder, path).result()
    assert done.returncode == 0, (
        f"{shown_as} (offered by {language}/examples/{example.stem}.html) stops in a Python "
        f"with torch alone:\n{where_it_failed(done.stderr, path.name)}"
    )
    printed = [line.rstrip() for line in done.stdout.splitlines() if line.strip()]
    assert printed == shown(page), f"{shown_as} prints something else than its page shows"


# -- the checks can fail ----------------------------------------------------------------


@pytest.mark.slow
def test_a_transcript_that_needs_the_project_fails_naming_page_and_line(
    request, server, tmp_path
):
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n\n```pycon\n>>> import torch\n>>> torch.ones(2).sum()\ntensor(2.)\n\n```\n\n"
        "```pycon\n>>> from gradcut.claims import describe\n>>> describe(torch.ones(1))\n'x'\n>>> 1 + 1\n2\n\n```\n",
        encoding="utf-8",
    )
    test, optionflags = collect_examples(request, page)
    results = run_page(server, tmp_path / "run", "page.md", test)
    problems = judge("page.md", test, optionflags, results)
    assert len(problems) == 2, problems
    assert problems[0].startswith("page.md:11\n>>> from gradcut.claims import describe\nraised:")
    assert "ModuleNotFoundError: No module named 'gradcut'" in problems[0]
    assert problems[1].startswith("page.md:12\n>>> describe(torch.ones(1))\nraised:")
    assert "NameError: name 'describe' is not defined" in problems[1]


def notebook(*cells: str) -> str:
    return json.dumps(
        {
            "cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
        }  # fmt: skip
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, text, where, error",
    [
        # needs the project
        ("plot_x.py", "import torch\nprint(torch.ones(1))\nimport gradcut\n",
         'plot_x.py", line 3', "ModuleNotFoundError: No module named 'gradcut'"),
        # forgot `import torch`; torch is imported in the server (by `from torch import`)
        ("plot_x.py", "from torch import nn\nprint(nn.Identity())\nprint(torch.ones(1))\n",
         'plot_x.py", line 3', "NameError: name 'torch' is not defined"),
        # forgot `import numpy`; torch imports numpy, in the server too
        ("plot_x.py", "import torch\n\nprint(np.ones(1))\n",
         'plot_x.py", line 3', "NameError: name 'np' is not defined"),
        # forgot `import torch`, and imports nothing else before using it
        ("plot_x.py", '"""Doc."""\nx = torch.ones(1)\n',
         'plot_x.py", line 2', "NameError: name 'torch' is not defined"),
        ("plot_x.ipynb", notebook("import torch", "x = torch.ones(1)\nprint(np.asarray(x))"),
         'plot_x.ipynb, code cell 2", line 2', "NameError: name 'np' is not defined"),
        ("plot_x.ipynb", notebook("import numpy as np", "print(torch.ones(1))"),
         'plot_x.ipynb, code cell 2", line 1', "NameError: name 'torch' is not defined"),
    ],
)  # fmt: skip
def test_a_download_that_needs_more_than_it_imports_fails_naming_file_and_line(
    server, tmp_path, name, text, where, error
):
    script = tmp_path / name
    script.write_text(text, encoding="utf-8")
    done = run_download(server, tmp_path / "run", script)
    assert done.returncode == 1, done
    at = where_it_failed(done.stderr, script.name)
    assert where in at.splitlines()[0], at
    assert at.endswith(error), at


@pytest.mark.slow
def test_each_run_starts_from_what_a_fresh_python_has(server, tmp_path):
    """No run sees what an earlier one changed; code that runs before its own
    ``import torch`` sees a Python without torch; exit status as ``python`` gives it."""
    spoil = tmp_path / "spoil.py"
    spoil.write_text(
        "import sys\nimport torch\nimport builtins\n"
        "torch.set_default_dtype(torch.float64)\ntorch.set_grad_enabled(False)\n"
        "torch.spoiled = True\nbuiltins.spoiled = True\nsys.modules['spoiled'] = sys\n"
        "torch.manual_seed(0)\nprint(torch.rand(1).item())\n",
        encoding="utf-8",
    )
    check = tmp_path / "check.py"
    check.write_text(
        "import sys\nimport torch\nimport numpy as np\n\n"
        "assert torch.get_default_dtype() == torch.float32\n"
        "assert torch.is_grad_enabled()\n"
        "assert not hasattr(torch, 'spoiled') and 'spoiled' not in sys.modules\n"
        "assert 'spoiled' not in dir(__builtins__)\n"
        "print(torch.rand(1).item())\nprint(np.random.rand())\n"
        "sys.exit(3)\n",
        encoding="utf-8",
    )
    before = tmp_path / "before.py"
    before.write_text("import sys\nprint('torch' in sys.modules)\nimport torch\n", encoding="utf-8")
    first = server.run("script", [spoil], tmp_path / "1")
    assert first.returncode == 0, first.stderr
    second = server.run("script", [check], tmp_path / "2")
    third = server.run("script", [check], tmp_path / "3")
    assert (second.returncode, second.stderr) == (3, "")
    # Seeded afresh, like a new Python: torch's generator and NumPy's.
    torch_draws, numpy_draws = zip(second.stdout.splitlines(), third.stdout.splitlines())
    assert len(set(torch_draws)) == len(set(numpy_draws)) == 2, (second.stdout, third.stdout)
    assert first.stdout.strip() not in torch_draws
    assert server.run("script", [before], tmp_path / "4").stdout == "False\n"


@pytest.mark.slow
def test_a_notebook_shows_the_value_of_a_cell_that_ends_in_an_expression(server, tmp_path):
    path = tmp_path / "plot_x.ipynb"
    path.write_text(
        notebook("import torch\nx = torch.ones(2)\nx.sum()", "x.sum();", "print(x)\nx[0]  # first", "None"),
        encoding="utf-8",
    )  # fmt: skip
    done = run_download(server, tmp_path / "run", path)
    assert (done.returncode, done.stdout) == (0, "tensor(2.)\ntensor([1., 1.])\ntensor(1.)\n"), done


@pytest.mark.slow
def test_a_run_that_takes_too_long_is_stopped(server, tmp_path):
    script = tmp_path / "plot_x.py"
    script.write_text("import torch\nwhile True:\n    pass\n", encoding="utf-8")
    done = server.run("script", [script], tmp_path / "run", timeout=1)
    assert done.returncode == -signal.SIGALRM


def test_the_runner_imports_torch_in_advance_only_where_nothing_else_runs_first():
    assert preloaded_is_safe(['"""Doc."""\nimport copy\nimport numpy as np\nimport torch\nx = 1'])
    assert preloaded_is_safe(["# only a comment", "from torch import nn\nnn.Identity()"])
    assert preloaded_is_safe(["import torch.nn.functional as F"])
    assert not preloaded_is_safe(["import os\nos.environ['OMP_NUM_THREADS'] = '1'\nimport torch"])
    assert not preloaded_is_safe(["import numpy as np\nprint(np.ones(1))"])
    assert not preloaded_is_safe(["from .torch import x"])
    assert not preloaded_is_safe(["x = ("])


def test_a_download_of_another_language_runs_as_the_english_one_only_with_its_code(tmp_path):
    english = tmp_path / "en.py"
    english.write_text('"""\nA title\n"""\nimport torch\nprint("x:", torch.ones(1))  # a comment\n')
    chinese = tmp_path / "zh.py"
    chinese.write_text('"""\n标题\n"""\nimport torch\nprint("x:", torch.ones(1))  # 注释\n')
    assert code_of(chinese) == code_of(english)
    chinese.write_text('"""\n标题\n"""\nimport torch\nprint("x：", torch.ones(1))\n')
    assert code_of(chinese) != code_of(english)  # a label translated in the code
    chinese.write_text('"""\n标题 """ 引号\n"""\nimport torch\n')
    with pytest.raises(SyntaxError):
        code_of(chinese)  # prose that breaks the script
    chinese.write_text('"""\n见\\ :ref:`标题 <x>`\n"""\nimport torch\n')
    with pytest.raises(SyntaxError):
        code_of(chinese)  # prose that makes Python warn: "invalid escape sequence"
    cells = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    notebook = tmp_path / "en.ipynb"
    cells["cells"] = [
        {"cell_type": "markdown", "id": "a", "metadata": {}, "source": "A title"},
        {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": None, "outputs": [], "source": "x = 1"},
    ]
    notebook.write_text(json.dumps(cells))
    translated = tmp_path / "zh.ipynb"
    cells["cells"][0]["source"] = "标题"
    translated.write_text(json.dumps(cells))
    assert code_of(translated) == code_of(notebook)
    cells["cells"][1]["source"] = "x = 2"
    translated.write_text(json.dumps(cells))
    assert code_of(translated) != code_of(notebook)
