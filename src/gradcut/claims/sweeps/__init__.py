"""Sweeps: a general rule about torch as a table measured over the cases readers meet.

A page that states a rule ("what a backward node saves", "how far an optimizer step
moves a parameter's version") shows the table that backs it, written out inside a
``gradcut-sweep`` directive so that it reads, diffs and translates like the rest of the
page::

    ```{gradcut-sweep} conversions
    | Conversion | Same object | Shares storage |
    |---|---|---|
    | `y.float()` | yes | yes |
    ```

When the page is read, every row is measured on the installed torch (each sweep is a
module of this package, one function a row, run from ``torch.manual_seed(0)``) and every cell is compared with what torch
gives; a cell that disagrees, a row the sweep does not have, or a row of the sweep that
the table leaves out is a warning at its line, which ``-W`` turns into a failed build.
The exceptions to a rule are rows of its table, not omissions: a table shows every row
of its sweep (and any of its columns). ``make torch-runs`` checks the same tables on
every torch release (:mod:`gradcut.tools.drift.run_reference`), each row a claim.

``python -m gradcut.claims.sweeps NAME`` prints a sweep's table as torch measures it, a
starting point for writing it on a page.
"""

import functools
import importlib
import pkgutil
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

__all__ = ["Problem", "Sweep", "check_table", "claim_lines", "get", "names", "tables_in", "tables_under"]


@dataclass
class Sweep:
    """A table of cases: ``columns`` maps each header to the key a row's measurement
    gives its cell; the first header names the rows (its key is None)."""

    name: str
    columns: dict[str, str | None]
    title: str = ""
    rows: dict[str, Callable[[], dict[str, str]]] = field(default_factory=dict)
    #: The module that measures it (a page that shows the sweep depends on it).
    file: str = ""

    def row(self, label: str):
        """Register the function that measures the row ``label`` (the first cell, as
        the page writes it without backticks)."""

        def register(measure: Callable[[], dict[str, str]]):
            if label in self.rows:
                raise ValueError(f"sweep {self.name}: two rows {label!r}")
            self.rows[label] = measure
            return measure

        return register

    @property
    def label_header(self) -> str:
        return next(iter(self.columns))

    def measure(self, label: str) -> dict[str, str]:
        """Every cell of one row, measured now (once per process)."""
        return _measure(self.name, label)

    def markdown(self, columns: Iterable[str] | None = None) -> str:
        headers = [self.label_header, *(columns or list(self.columns)[1:])]
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        for label in self.rows:
            cells = self.measure(label)
            lines.append("| " + " | ".join([f"`{label}`", *(cells[self.columns[h]] for h in headers[1:])]) + " |")
        return "\n".join(lines)


@functools.cache
def _measure(name: str, label: str) -> dict[str, str]:
    import torch

    sweep = get(name)
    # Each row from the same random state, and none left changed for what runs next in
    # the process (the build reads other pages; the gallery runs in it). Warnings that
    # torch gives once per process are given every time, so that a row that measures
    # one does not depend on what ran before it.
    warn_always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            cells = sweep.rows[label]()
    finally:
        torch.set_warn_always(warn_always)
    keys = {key for key in sweep.columns.values() if key}
    if set(cells) != keys:
        raise ValueError(f"sweep {name}, row {label!r}: measured {sorted(cells)}, columns {sorted(keys)}")
    return {key: str(value) for key, value in cells.items()}


@functools.cache
def _registry() -> dict[str, Sweep]:
    found = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("_"):  # __main__
            continue
        imported = importlib.import_module(f"{__name__}.{module.name}")
        sweep = getattr(imported, "SWEEP", None)
        if isinstance(sweep, Sweep):
            if sweep.name in found:
                raise ValueError(f"two sweeps named {sweep.name!r}")
            sweep.file = imported.__file__
            found[sweep.name] = sweep
    return found


def names() -> list[str]:
    return sorted(_registry())


def get(name: str) -> Sweep:
    try:
        return _registry()[name]
    except KeyError:
        raise KeyError(f"no sweep {name!r}; the sweeps are: {', '.join(names())}") from None


# -- a table on a page ------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """A cell, row or header of a table that the measurement contradicts. ``error``: the
    last line of an exception the row's measurement raised (a release may lack its API)."""

    line: int
    message: str
    error: str | None = None


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def plain(cell: str) -> str:
    """A cell as the sweep names it: without backticks, one space between words."""
    return re.sub(r"\s+", " ", cell.replace("`", "")).strip()


def check_table(name: str, lines: Iterable[tuple[int, str]]) -> list[Problem]:
    """Compare a Markdown table, given as ``(line number, text)`` pairs, with the sweep
    ``name`` measured on the installed torch."""
    import torch

    rows = [(n, text) for n, text in lines if text.strip()]
    try:
        sweep = get(name)
    except KeyError as error:
        return [Problem(rows[0][0] if rows else 0, error.args[0])]
    if len(rows) < 2 or not rows[0][1].lstrip().startswith("|"):
        return [Problem(rows[0][0] if rows else 0, "expected a Markdown table")]
    header_line, header = rows[0]
    headers = [plain(cell) for cell in _cells(header)]
    problems = [
        Problem(header_line, f"unknown column {h!r}; sweep {name} has: {', '.join(sweep.columns)}")
        for h in headers
        if h not in sweep.columns
    ]
    if problems:
        return problems
    if headers[0] != sweep.label_header:
        return [Problem(header_line, f"the first column must be {sweep.label_header!r}")]
    seen = set()
    for number, text in rows[2:]:
        cells = [plain(cell) for cell in _cells(text)]
        if len(cells) != len(headers):
            problems.append(Problem(number, f"{len(cells)} cells, but {len(headers)} columns"))
            continue
        label = cells[0]
        if label not in sweep.rows:
            problems.append(Problem(number, f"sweep {name} has no row {label!r}; its rows: {', '.join(sweep.rows)}"))
            continue
        seen.add(label)
        try:
            measured = sweep.measure(label)
        except Exception as error:  # noqa: BLE001 (reported at the row's line)
            last = f"{type(error).__name__}: {error}".splitlines()[0]
            problems.append(Problem(number, f"{label}: measuring it raised {last}", error=last))
            continue
        for column, cell in zip(headers[1:], cells[1:], strict=True):
            got = measured[sweep.columns[column]]
            if cell != got:
                problems.append(
                    Problem(number, f"{label} / {column}: the table says {cell!r}, torch {torch.__version__} gives {got!r}")
                )
    missing = [label for label in sweep.rows if label not in seen]
    if missing:
        problems.append(
            Problem(header_line, f"the table leaves out rows of sweep {name}: {', '.join(missing)} "
                    "(a rule's exceptions are rows of its table)")
        )  # fmt: skip
    return problems


_OPENING = re.compile(r"(?P<fence>`{3,}|~{3,})\{gradcut-sweep\}\s*(?P<name>\S*)\s*$")


def tables_in(markdown: str) -> list[tuple[str, list[tuple[int, str]]]]:
    r"""``(sweep name, [(line, text)])`` for each ``gradcut-sweep`` table of a page.

    >>> tables_in("text\n```{gradcut-sweep} conversions\n| Conversion |\n|---|\n```\n")
    [('conversions', [(3, '| Conversion |'), (4, '|---|')])]
    """
    tables, current, fence, name = [], None, "", ""
    for number, line in enumerate(markdown.splitlines(), start=1):
        stripped = line.strip()
        if current is None:
            match = _OPENING.fullmatch(stripped)
            if match:
                current, fence, name = [], match["fence"], match["name"]
        elif stripped == fence:
            tables.append((name, current))
            current = None
        else:
            current.append((number, line))
    return tables


def tables_under(srcdir, exclude=("examples",)):
    """``(page, sweep name, [(line, text)])`` for each ``gradcut-sweep`` table of the
    pages under ``srcdir`` (a :class:`pathlib.Path`), in path order; the folders named in
    ``exclude`` left out (the gallery's generated pages)."""
    for page in sorted(srcdir.rglob("*.md")):
        if page.relative_to(srcdir).parts[0] in exclude:
            continue
        for name, table in tables_in(page.read_text(encoding="utf-8")):
            yield page, name, table


def claim_lines(table: list[tuple[int, str]]) -> list[tuple[int, str]]:
    r"""The lines of a table (from :func:`tables_in`) that are claims, stripped: the
    header (the columns it names must exist) and each row; not the delimiter row.

    >>> claim_lines([(3, "| A |"), (4, "|---|"), (5, " | x | "), (6, "")])
    [(3, '| A |'), (5, '| x |')]
    """
    lines = [(number, text.strip()) for number, text in table if text.strip()]
    return lines[:1] + lines[2:]


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for name in args or names():
        print(f"{name}:\n{get(name).markdown()}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
