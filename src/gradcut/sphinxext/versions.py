"""The "torch versions" page: what each claim of the site did on each torch it ran on.

``` {torch-runs} ``` becomes two tables, generated from results files that runs really
wrote (never typed by hand):

- the torch that builds the site, always: ``<gradcut_results_dir>/torch-<version>.json``,
  written by the doctest step of ``make html`` just before Sphinx runs;
- every other torch that has a file in ``docs/_torch_runs/`` (``make test TORCH=…``
  writes it there; authors commit it).

The first table sums up each run (date, holds / changed / n.a.); the second has a row
per claim, grouped by page, and a column per torch. A claim is matched across runs by
its page and code (not its line, which moves as pages are edited); a run that predates
a claim shows "not run" for it.

Sphinx re-reads the page when a results file changes (``note_dependency``) and when
one is added or removed (``env-get-outdated``).
"""

import importlib.metadata
import json
from collections import Counter, defaultdict
from pathlib import Path

from docutils import nodes
from packaging.version import InvalidVersion, Version
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

STATUSES = ("holds", "changed", "n.a.")
NOT_RUN = "not run"
WORDS = {
    "zh_CN": {
        "holds": "成立",
        "changed": "已改变",
        "n.a.": "不适用",
        NOT_RUN: "未运行",
        "torch": "torch",
        "date": "日期",
        "Python": "Python",
        "claims": "结论",
        "this build": "本次构建",
        # full-width brackets around a Chinese aside
        " ({})": "（{}）",
        "line": "行",
        "claim": "结论",
        "gone": "已不在页面上",
    },
}


def _(config, word: str) -> str:
    return WORDS.get(config.language or "en", {}).get(word, word)


def _version_key(version: str):
    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)


def _resolve_paths(app, config):
    # Relative to conf.py and to the sources: absolute from here on.
    config.gradcut_results_dir = str(Path(app.confdir, config.gradcut_results_dir).resolve())
    config.gradcut_torch_runs = str(Path(app.srcdir, config.gradcut_torch_runs).resolve())


def installed_torch() -> str:
    return importlib.metadata.version("torch")


def candidate_files(config) -> list[Path]:
    """Every results file the page may show, the current torch's first."""
    current = Path(config.gradcut_results_dir, f"torch-{installed_torch()}.json")
    runs = Path(config.gradcut_torch_runs)
    others = sorted(runs.glob("torch-*.json")) if runs.is_dir() else []
    return [current, *(p for p in others if p.name != current.name)]


def signature(config) -> list[tuple[str, int]]:
    return [(str(p), p.stat().st_mtime_ns) for p in candidate_files(config) if p.is_file()]


def load_run(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(data["claims"], list) and data["torch"]
        return data
    except (OSError, ValueError, KeyError, AssertionError) as err:
        logger.warning("torch-runs: cannot read %s: %s", path, err, type="gradcut", subtype="torch_runs")
        return None


def claim_keys(claims: list[dict]) -> list[tuple[str, str, int]]:
    """(page, code, n): the n-th claim of that code on that page; stable as lines move."""
    seen: Counter = Counter()
    keys = []
    for claim in claims:
        base = (claim["page"], claim["source"])
        keys.append((*base, seen[base]))
        seen[base] += 1
    return keys


class TorchRuns(SphinxDirective):
    """The tables of the "torch versions" page."""

    has_content = False

    def run(self):
        env = self.env
        env.gradcut_torch_runs_docs.add(env.docname)
        env.gradcut_torch_runs_signature = signature(self.config)
        files = candidate_files(self.config)
        current_file = files[0]
        if not current_file.is_file():
            logger.warning(
                "torch-runs: no results of the doctests for torch %s in %s; "
                "`make doctest` writes them (make html runs it first)",
                installed_torch(),
                current_file.parent,
                location=self.get_location(),
                type="gradcut",
                subtype="torch_runs",
            )
            return []
        runs = []
        for path in files:
            if not path.is_file():
                continue
            env.note_dependency(str(path))
            run = load_run(path)
            if run is not None:
                run["current"] = path == current_file
                runs.append(run)
        current = runs[0]
        others = sorted(runs[1:], key=lambda r: _version_key(r["torch"]))
        runs = [current, *others]
        return [self.summary(runs), self.claims_table(runs)]

    # -- tables ---------------------------------------------------------------------

    def _table(self, widths, header, rows, classes):
        table = nodes.table(classes=["gradcut-torch-runs", *classes])
        group = nodes.tgroup(cols=len(widths))
        table += group
        group.extend(nodes.colspec(colwidth=w) for w in widths)
        thead = nodes.thead()
        group += thead
        thead += self._row(header)
        tbody = nodes.tbody()
        group += tbody
        tbody.extend(rows)
        return table

    @staticmethod
    def _row(cells, classes=()):
        row = nodes.row(classes=list(classes))
        for cell in cells:
            if isinstance(cell, nodes.entry):
                row += cell
                continue
            entry = nodes.entry()
            entry += cell if isinstance(cell, nodes.Element) else nodes.paragraph(text=str(cell))
            row += entry
        return row

    def _label(self, run) -> str:
        return f"torch {run['torch']}" + (
            _(self.config, " ({})").format(_(self.config, "this build"))
            if run["current"]
            else ""
        )

    def summary(self, runs):
        current_keys = set(claim_keys(runs[0]["claims"]))
        rows = []
        for run in runs:
            counts = Counter(c["status"] for c in run["claims"])
            gone = sum(k not in current_keys for k in claim_keys(run["claims"]))
            rows.append(
                self._row(
                    [
                        self._label(run),
                        run.get("date", ""),
                        run.get("python", ""),
                        *(counts.get(s, 0) for s in STATUSES),
                        gone,
                    ]
                )
            )
        header = ["torch", "date", "Python", *STATUSES, "gone"]
        return self._table(
            [3, 2, 2, 1, 1, 1, 1], [_(self.config, h) for h in header], rows, ["gradcut-torch-runs-summary"]
        )

    def _page_cell(self, page: str):
        """A link to the page of the claims, when it is a page of this site."""
        para = nodes.paragraph()
        docname = page.removeprefix("docs/").rsplit(".", 1)[0]
        if page.startswith("docs/") and docname in self.env.found_docs:
            ref = addnodes.pending_xref(
                "",
                refdomain="std",
                reftype="doc",
                reftarget="/" + docname,
                refdoc=self.env.docname,
                refexplicit=True,
            )
            ref += nodes.literal(text=page)
            para += ref
        else:
            para += nodes.literal(text=page)
        return para

    def claims_table(self, runs):
        current = runs[0]
        outcomes = []
        for run in runs:
            outcomes.append(dict(zip(claim_keys(run["claims"]), run["claims"], strict=True)))
        by_page = defaultdict(list)
        for key, claim in zip(claim_keys(current["claims"]), current["claims"], strict=True):
            by_page[claim["page"]].append((key, claim))
        rows = []
        for page in sorted(by_page):
            head = nodes.entry(morecols=1 + len(runs))
            head += self._page_cell(page)
            rows.append(self._row([head], ["gradcut-torch-runs-page"]))
            for key, claim in sorted(by_page[page], key=lambda kc: kc[1]["line"]):
                code = claim["source"].splitlines()
                text = code[0] + (" …" if len(code) > 1 else "")
                cells = [str(claim["line"]), nodes.paragraph("", "", nodes.literal(text=text))]
                for outcome in outcomes:
                    status = outcome[key]["status"] if key in outcome else NOT_RUN
                    entry = nodes.entry(classes=[f"gradcut-{status.replace('.', '').replace(' ', '-')}"])
                    entry += nodes.paragraph(text=_(self.config, status))
                    cells.append(entry)
                rows.append(self._row(cells))
        header = [_(self.config, "line"), _(self.config, "claim"), *(self._label(r) for r in runs)]
        return self._table([1, 8, *([2] * len(runs))], header, rows, ["gradcut-torch-runs-claims"])


# -- environment -----------------------------------------------------------------


def _init_env(app):
    env = app.env
    if not hasattr(env, "gradcut_torch_runs_docs"):
        env.gradcut_torch_runs_docs = set()
        env.gradcut_torch_runs_signature = []


def _purge(app, env, docname):
    env.gradcut_torch_runs_docs.discard(docname)


def _merge(app, env, docnames, other):
    env.gradcut_torch_runs_docs |= other.gradcut_torch_runs_docs & set(docnames)
    if other.gradcut_torch_runs_docs & set(docnames):
        env.gradcut_torch_runs_signature = other.gradcut_torch_runs_signature


def _outdated(app, env, added, changed, removed):
    """Re-read the page when a results file appeared, went away or changed."""
    docs = getattr(env, "gradcut_torch_runs_docs", set())
    if docs and signature(app.config) != getattr(env, "gradcut_torch_runs_signature", None):
        return sorted(docs - set(removed))
    return []


def setup(app):
    app.add_config_value("gradcut_results_dir", "_build/results", "env", types=[str])
    app.add_config_value("gradcut_torch_runs", "_torch_runs", "env", types=[str])
    app.connect("config-inited", _resolve_paths)
    app.add_directive("torch-runs", TorchRuns)
    app.connect("builder-inited", _init_env)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-outdated", _outdated)
    app.add_css_file("gradcut-versions.css")
