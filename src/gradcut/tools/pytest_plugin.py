"""pytest plugin: every doctest example is a claim; record each and report what broke.

pytest reports a failing doctest file as a wall of text and stops at the first failure
of a file unless told otherwise. The site's promise is sharper: *which claim* broke,
where, expected vs. got, all of them in one run. So this plugin

- records the outcome of every example of every doctest (holds / changed / n.a. when a
  ``doctest-requires`` or ``+SKIP`` leaves it out) and writes them as JSON to
  ``--gradcut-results`` (the "torch versions" page is generated from these files);
- ends the run with one short block per broken claim: ``page:line``, the code, the
  expected and the actual output, the claims grouped by what the last run knew of them
  (written or edited since, or unchanged since they held: :mod:`gradcut.tools.broken_claims`);
- writes the same report as Markdown to ``--gradcut-report`` (a CI job shows it as its
  summary), also when every claim holds, so that the file never tells of an older run;
- with ``--gradcut-cache``, runs again only the files whose doctests could have changed
  outcome: a file whose every example held last time, and whose key is the same (its
  text, the package sources it imports, the versions of torch and of what checks it),
  is not run; its claims of last time are merged into the results, which stay complete.
"""

import datetime
import doctest
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import traceback
from pathlib import Path

import pytest

from gradcut.runs import NO_ERROR, exception_only
from gradcut.tools import broken_claims

#: The package whose sources the doctests may run (src/gradcut).
PACKAGE = Path(__file__).resolve().parents[1]
_KEY = pytest.StashKey[list]()
_MARKERS = pytest.StashKey[list]()
_CACHE = pytest.StashKey[dict]()
_PREVIOUS = pytest.StashKey[object]()
# What a doctest's outcome depends on besides the file's own text.
_VERSIONS = ("torch", "numpy", "matplotlib", "pytest", "pytest-doctestplus")

# doctestplus reads a directive only from the last two lines of the text before an
# example: in a page, the MyST comment must stand right above the opening fence.
_DIRECTIVE = re.compile(r"^%\s*doctest-(?P<name>[a-z-]+)\s*(?:::(?P<args>.*))?$")
_FENCED = ("requires", "skip", "remote-data")
_REQUIREMENT = re.compile(r"^[A-Za-z_][\w.-]*(?:(?:==|!=|<=|>=|~=|<|>)[\w.*+!]+)?$")


def pytest_addoption(parser):
    group = parser.getgroup("gradcut")
    group.addoption(
        "--gradcut-results",
        metavar="PATH",
        default=os.environ.get("GRADCUT_RESULTS"),
        help="write the outcome of every doctest example (claim) to PATH as JSON",
    )
    group.addoption(
        "--gradcut-report",
        metavar="PATH",
        default=None,
        help="write the drift report (what the run says of the claims) to PATH as Markdown",
    )
    group.addoption(
        "--gradcut-cache",
        metavar="PATH",
        default=None,
        help="keep each file's claims in PATH; run only the files changed since they all held",
    )


def pytest_configure(config):
    config.stash[_KEY] = []
    config.stash[_MARKERS] = []
    _FAILED.clear()
    config.stash[_CACHE] = {"path": config.getoption("--gradcut-cache"), "entries": {},
                            "keys": {}, "cached": [], "failed": set(), "ran": set()}  # fmt: skip
    # what the last run knew of each claim, read before this run rewrites it
    config.stash[_PREVIOUS] = broken_claims.previous_outcomes(
        config.getoption("--gradcut-results"), config.getoption("--gradcut-cache")
    )


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return ""


def _common_key(config) -> bytes:
    """What every file's key holds: versions, this plugin, the pytest settings, a patch
    of ``make drift``, the package's sources (src/ files' doctests use them; a page that
    names the package may too)."""
    h = hashlib.sha256()
    for name in _VERSIONS:
        h.update(f"{name}={_version(name)}\n".encode())
    h.update(f"python={platform.python_version()} drift={os.environ.get('GRADCUT_DRIFT', '')}\n".encode())
    h.update(Path(__file__).read_bytes())
    pyproject = config.rootpath / "pyproject.toml"
    if pyproject.is_file():
        h.update(pyproject.read_bytes())
    return h.digest()


def _package_key() -> bytes:
    h = hashlib.sha256()
    package = PACKAGE
    for path in sorted(package.rglob("*.py")):
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return h.digest()


_IMPORTS_PACKAGE = re.compile(r"^\s*(?:>>>|\.\.\.)\s*(?:import|from)\s+gradcut\b", re.M)


def _file_key(path: Path, common: bytes, package: bytes) -> str:
    """A file's key: its text, and the package's sources it may run -- for a module, those
    it imports (directly or not); for a page that imports the package, all of them."""
    data = path.read_bytes()
    h = hashlib.sha256(common)
    h.update(data)
    if path.suffix == ".py":
        try:
            from gradcut.sphinxext.gallery import helper_files

            rel = path.resolve().relative_to(PACKAGE.parent).with_suffix("")
            name = ".".join(part for part in rel.parts if part != "__init__")
            helpers = helper_files(f"import {name}\n")
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
            h.update(package)
        else:
            for name, helper in sorted(helpers.items()):
                h.update(name.encode() + b"\0" + helper.read_bytes())
    elif _IMPORTS_PACKAGE.search(data.decode("utf-8", errors="replace")):
        h.update(package)
    return h.hexdigest()


def pytest_collection_modifyitems(session, config, items):
    state = config.stash[_CACHE]
    if not state["path"]:
        return
    try:
        entries = json.loads(Path(state["path"]).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        entries = {}
    common, package = _common_key(config), _package_key()
    keep, skip = [], []
    for item in items:
        page = _relpath(config, str(item.path))
        if page not in state["keys"]:
            state["keys"][page] = _file_key(Path(item.path), common, package)
        entry = entries.get(page)
        if entry and entry.get("key") == state["keys"][page]:
            skip.append(item)
            if page not in state["entries"]:
                state["entries"][page] = entry
                state["cached"].extend(entry["claims"])
        else:
            keep.append(item)
            state["ran"].add(page)
    if skip:
        config.hook.pytest_deselected(items=skip)
        items[:] = keep


def pytest_runtest_logreport(report):
    if report.failed:
        _FAILED.add(report.nodeid.split("::", 1)[0])


_FAILED: set[str] = set()  # node ids' files with a failure, in this run


def pytest_sessionfinish(session, exitstatus):
    state = session.config.stash.get(_CACHE, None)
    if not state or not state["path"]:
        return
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and state["cached"]:
        session.exitstatus = pytest.ExitCode.OK  # every file's claims came from the cache
    claims = session.config.stash[_KEY]
    by_page: dict[str, list] = {}
    for claim in claims:
        by_page.setdefault(claim["page"], []).append(claim)
    failed = {_relpath(session.config, str(session.config.rootpath / n)) for n in _FAILED}
    # The files kept from the cache, and those run now whose every example held; files no
    # longer collected (deleted) leave the cache.
    entries = dict(state["entries"])
    for page in state["ran"]:
        if page not in failed:
            entries[page] = {"key": state["keys"][page], "claims": by_page.get(page, [])}
    _write_text(Path(state["path"]), json.dumps(dict(sorted(entries.items())), ensure_ascii=False) + "\n")


def _installed(requirement: str) -> bool:
    name = re.split(r"[=!<>~]", requirement, maxsplit=1)[0]
    try:
        if importlib.util.find_spec(name) is not None:
            return True
    except (ImportError, ValueError):
        pass
    try:
        importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def marker_problems(text: str) -> list[tuple[int, str]]:
    """``(line, problem)`` for each doctestplus comment of a page that would not do what it says.

    doctestplus ignores a ``% doctest-requires::`` that is not right above the fence,
    splits its argument at spaces and commas (``torch >= 2.14`` and ``torch>=2.13,<2.14``
    become requirements that are never met) and skips, silently and forever, a claim
    whose requirement names something not installed.
    """
    problems = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = _DIRECTIVE.match(line.strip())
        if not match:
            continue
        name, args = match["name"], (match["args"] or "").strip()
        following = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if name in _FENCED and not following.startswith("```"):
            problems.append(
                (i + 1, f"`doctest-{name}` must stand right above the opening ``` of its "
                        "block (no blank line): doctestplus ignores it here")
            )
        if name in ("requires", "requires-all"):
            for requirement in re.split(r"\s*[,\s]\s*", args):
                if not _REQUIREMENT.match(requirement):
                    problems.append(
                        (i + 1, f"`{requirement}` is not a requirement doctestplus can read; "
                                "write each as name<op>version without spaces, several "
                                "separated by a space (torch>=2.13 torch<2.14)")
                    )
                elif not _installed(requirement):
                    problems.append(
                        (i + 1, f"`{requirement}` names nothing installed: the block would "
                                "never run")
                    )
    return problems


def _relpath(config, filename: str) -> str:
    path = Path(filename).resolve()
    try:
        return path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return path.as_posix()


def _test_lineno(test) -> int:
    """The 0-based line of the file where the test's text starts.

    doctest cannot tell it for a decorated function (``contextlib.contextmanager``):
    then the docstring is looked up in the file itself.
    """
    if test.lineno is not None:
        return test.lineno
    if test.docstring and test.filename:
        try:
            text = Path(test.filename).read_text(encoding="utf-8")
        except OSError:
            return 0
        found = text.find(test.docstring)
        if found >= 0:
            return text.count("\n", 0, found)
    return 0


def _claim(config, test, example, status, got=None):
    # doctest counts lines from 0 within the test; a text file's test starts at line 0
    line = _test_lineno(test) + example.lineno + 1
    claim = {
        "page": _relpath(config, test.filename),
        "line": line,
        "source": example.source.rstrip("\n"),
        "status": status,
        "expected": exception_only(example.want).rstrip("\n"),
    }
    if got is not None:
        claim["got"] = exception_only(got).rstrip("\n")
    return claim


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    runner = getattr(item, "runner", None)
    dtest = getattr(item, "dtest", None)
    if runner is None or dtest is None:
        return (yield)
    config = item.config
    claims = []
    seen = set()
    if os.environ.get("GRADCUT_PROGRESS") and dtest.filename:
        # which page runs now: a release's run (gradcut.tools.releases) stops one that
        # hangs and runs the others again without it
        Path(os.environ["GRADCUT_PROGRESS"]).write_text(_relpath(config, dtest.filename), encoding="utf-8")

    def record(example, status, got=None):
        seen.add(id(example))
        claims.append(_claim(config, dtest, example, status, got))

    orig_success = runner.report_success
    orig_failure = runner.report_failure
    orig_exception = runner.report_unexpected_exception

    def report_success(out, test, example, got):
        record(example, "holds")
        return orig_success(out, test, example, got)

    def report_failure(out, test, example, got):
        if example.exc_msg is not None and not got.startswith("Traceback"):
            got = f"{NO_ERROR}\n" + got
        record(example, "changed", got)
        return orig_failure(out, test, example, got)

    def report_unexpected_exception(out, test, example, exc_info):
        exc = exc_info[1]
        if not isinstance(exc, pytest.skip.Exception):
            got = "".join(traceback.format_exception_only(exc_info[0], exc))
            record(example, "changed", got)
        return orig_exception(out, test, example, exc_info)

    problems = []
    if dtest.filename and dtest.filename.endswith(".md"):
        page = _relpath(config, dtest.filename)
        text = Path(dtest.filename).read_text(encoding="utf-8")
        problems = [(page, line, problem) for line, problem in marker_problems(text)]
        config.stash[_MARKERS].extend(problems)

    runner.report_success = report_success
    runner.report_failure = report_failure
    runner.report_unexpected_exception = report_unexpected_exception
    try:
        result = yield
        if problems:
            pytest.fail(f"{len(problems)} misplaced or unreadable doctest comment(s)", pytrace=False)
        return result
    finally:
        runner.report_success = orig_success
        runner.report_failure = orig_failure
        runner.report_unexpected_exception = orig_exception
        for example in dtest.examples:
            if id(example) not in seen:
                claims.append(_claim(config, dtest, example, "n.a."))
        claims.sort(key=lambda c: (c["page"], c["line"]))
        config.stash[_KEY].extend(claims)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    state = config.stash.get(_CACHE, None)
    if state and state["cached"]:
        config.stash[_KEY].extend(state["cached"])
        state["cached"] = []
        terminalreporter.write_line(
            f"doctests: {len(state['ran'])} file(s) run, "
            f"{len(state['entries'])} kept from the last run (unchanged, all held)"
        )
    # page by page, in the order of their lines, whether they ran now or came from the
    # cache (a module's docstrings run in the order of their names): the same outcomes
    # give the same results file, and the pages built from it are not read again
    config.stash[_KEY].sort(key=lambda c: (c["page"], c["line"]))
    claims = config.stash.get(_KEY, [])
    broken = [c for c in claims if c["status"] == "changed"]
    if claims:
        terminalreporter.write_sep(
            "=", f"claims: {_counts(claims)} (torch {importlib.metadata.version('torch')})"
        )
    previous = config.stash.get(_PREVIOUS, None)
    torch = importlib.metadata.version("torch")
    for kind in (broken_claims.EDITED, broken_claims.NO_LONGER, broken_claims.STILL, broken_claims.UNKNOWN):
        group = [c for c in broken if broken_claims.kind(c, previous) == kind]
        if not group:
            continue
        title, advice = broken_claims.headline(kind, len(group), torch)
        terminalreporter.write_sep("!", title)
        if advice:
            terminalreporter.write_line(advice)
            terminalreporter.write_line("")
        for c in group:
            terminalreporter.write_line(f"{c['page']}:{c['line']}: the page claims")
            terminalreporter.write_line(_prompted(c["source"]))
            terminalreporter.write_line("  expected:")
            terminalreporter.write_line(_indent(c["expected"] or "(no output)", "    "))
            terminalreporter.write_line("  got:")
            terminalreporter.write_line(_indent(c.get("got") or "(no output)", "    "))
            if hint := broken_claims.hint(c):
                terminalreporter.write_line(f"  note: {hint}")
            terminalreporter.write_line("")
    markers = config.stash.get(_MARKERS, [])
    if markers:
        terminalreporter.write_sep("!", f"{len(markers)} doctest comment(s) would not do what they say")
        for page, line, problem in markers:
            terminalreporter.write_line(f"{page}:{line}: {problem}")
    path = config.getoption("--gradcut-results")
    if path and claims:
        write_results(Path(path), claims)
    report = config.getoption("--gradcut-report")
    if report:
        _write_text(Path(report), markdown_report(claims, int(exitstatus)))


def _counts(claims: list[dict]) -> str:
    counts = {s: sum(c["status"] == s for c in claims) for s in ("holds", "changed", "n.a.")}
    return f"{counts['holds']} hold, {counts['changed']} changed, {counts['n.a.']} n.a."


def _prompted(source: str) -> str:
    """The code of a claim as the page shows it: ``>>>`` first, ``...`` after."""
    lines = source.splitlines() or [""]
    return "\n".join([">>> " + lines[0], *("... " + line for line in lines[1:])])


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines()) or prefix


def _fenced(text: str, lang: str = "text") -> str:
    # A fence longer than any run of backticks in the text, so that nothing closes it early.
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def markdown_report(claims: list[dict], exitstatus: int = 0) -> str:
    """The drift report in Markdown: the counts, then one section per broken claim."""
    torch = importlib.metadata.version("torch")
    broken = [c for c in claims if c["status"] == "changed"]
    lines = [f"## Drift report: torch {torch}", ""]
    where = f"torch {torch}, Python {platform.python_version()}"
    if not claims:
        lines.append(f"No claim was checked (pytest exit status {exitstatus}): see the log.")
    elif broken:
        one = len(broken) == 1
        lines += [
            f"**{len(broken)} claim{'' if one else 's'} no longer hold{'s' if one else ''}** "
            f"on {where} ({_counts(claims)}).",
            "",
            f"To see {'it' if one else 'them'} on your machine: `make test TORCH={torch}`.",
        ]
    else:
        lines.append(f"Every claim holds on {where} ({_counts(claims)}).")
        if exitstatus:
            lines += ["", f"The run failed all the same (pytest exit status {exitstatus}): see the log."]
    for c in broken:
        lines += [
            "",
            f"### `{c['page']}:{c['line']}`",
            "",
            "The page claims:",
            "",
            _fenced(_prompted(c["source"]), "pycon"),
            "",
            "Expected:",
            "",
            _fenced(c["expected"] or "(no output)"),
            "",
            "Got:",
            "",
            _fenced(c.get("got") or "(no output)"),
        ]
    return "\n".join(lines) + "\n"


def _write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, and only when it changes: the pages built
    from the file (the "torch versions" page) are re-read only when their input moved."""
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def write_results(path: Path, claims: list[dict]) -> None:
    results = {
        "torch": importlib.metadata.version("torch"),
        "python": platform.python_version(),
        "date": datetime.date.today().isoformat(),
        "claims": claims,
    }
    _write_text(path, json.dumps(results, indent=1, ensure_ascii=False) + "\n")
