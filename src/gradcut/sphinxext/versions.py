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

import contextlib
import functools
import importlib.metadata
import json
import re
from html import escape
from collections import Counter, defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple

from docutils import nodes
from packaging.version import InvalidVersion, Version
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole
from sphinx.util.nodes import clean_astext

from gradcut.claims import sweeps
from gradcut.runs import NO_ERROR, RELEASES, exception_only, parse_reason

logger = logging.getLogger(__name__)

STATUSES = ("holds", "changed", "n.a.")
NOT_RUN = "not run"
WORDS = {
    "zh_CN": {
        "holds": "成立",
        "changed": "结果不同",
        "{row}: measuring it raised {error}": "{row}，测量时报错 {error}",
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
        "{status} at line {line}": "{status}（第 {line} 行）",
        "runs to the end": "运行到结尾",
        "claim": "结论",
        "gone": "已不在页面上",
        "page": "页面",
        "all hold": "全部成立",
        "tables": "表格",
        "example": "示例",
        "holds on torch {}": "在 torch {} 上成立",
        "changed on torch {}": "在 torch {} 上结果不同",
        "n.a. on torch {}": "在 torch {} 上不适用",
        "not run on torch {}": "尚未在 torch {} 上运行",
        "What other releases did": "其他版本的结果",
        "torch {} printed:": "torch {} 的输出：",
        "torch {}: n.a. ({})": "torch {}：不适用（{}）",
        "(no output)": "（无输出）",
        NO_ERROR: "（没有报错）",
        "Sweep {}: every row measured when the site was built.": "扫描表 {}：每一行都在构建本站时实测。",
        # a sentence, then the releases it held on: no space after a full-width 。
        "{sentence} {statuses}": "{sentence}{statuses}",
        # between releases and ranges of releases: 1.13.1、2.0.1 – 2.13.0
        ", ": "、",
        "What other releases measured": "其他版本的实测结果",
        "torch {}:": "torch {}：",
        "{row}, {column}: {theirs} (this page: {ours})": "{row}，{column}：{theirs}（本页：{ours}）",
        "n.a. ({})": "不适用（{}）",
        "{} more line": "其余 {} 行",
        "{} more lines": "其余 {} 行",
        # the "Claims by torch release" page: a table's header row, a helper module
        "the table's header": "表头",
        "helper module {}": "辅助模块 {}",
        # why a statement could not run there (gradcut.runs.parse_reason)
        "not in torch {version}: {error}": "torch {version} 中没有：{error}",
        "needs {needs}, which cannot run on torch {version}": "要用到 {needs} 的结果，而它在 torch {version} 上无法运行",
        "needs line {line}, which cannot run on torch {version}": "要用到第 {line} 行的结果，而该行在 torch {version} 上无法运行",
        "not run yet": "尚未运行",
        "torch {} or earlier": "torch {} 或更早",
        "torch {} (the release before it is not run yet)": "torch {}（之前的版本尚未运行）",
    },
}


def _(config, word: str) -> str:
    return WORDS.get(config.language or "en", {}).get(word, word)


# What a sweep's cell may read (the vocabularies of gradcut.claims.sweeps), in the words
# the site's tables use for them: the cell another release measured is shown in the
# page's language, from the table's own cells first; these are for a value the table
# at this build does not hold (no row of it reads "refused" on a torch that runs them
# all). tests/test_translation.py checks that the tables translate them so.
SWEEP_VALUES = {
    "zh_CN": {
        "refused": "拒绝",
        "raises": "报错",
        "form raises": "写法本身报错",
        "allowed": "允许",
        "yes": "是",
        "no": "否",
        "none": "无",
        "n/a": "不适用",
        "right": "正确",
        "wrong": "错误",
        "neither": "两者皆非",
        "original values": "原来的值",
        "changed values": "改动后的值",
        "silent, right": "静默，正确",
        "silent, wrong": "静默，错误",
        "silent, wrong (post-step value)": "静默，错误（更新后的值）",
        "silent, wrong (neither value)": "静默，错误（两者皆非）",
        "no graph": "无计算图",
        "kept": "保留",
        "zeros": "全零",
        "same tensor": "同一张量",
        "backward raises": "反向传播报错",
        "version check": "版本检查",
        "multi-output view": "多输出视图",
        "no clause": "无此子句",
        "leaf": "叶子张量",
        "doubled": "翻倍",
        "doubled too": "也翻倍",
        "as without the hook": "与无钩子时相同",
        "averaged": "取平均",
        "copied": "复制",
        "no buffers": "无缓冲区",
        "sizes only": "仅形状",
        "nothing": "无",
        "zero gradient": "梯度为零",
        "gradient": "有梯度",
        "raises: does not require grad": "报错：不需要梯度",
        "raises: not implemented": "报错：未实现",
        # "not applicable" (the code raised): the English tables write "-" or "—" as the
        # sweep measures it; the Chinese tables show one dash for both.
        "-": "—",
    },
}


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


# Parsed runs by path, with the (mtime, size) they were read at: every page reads them
# (the history beside each transcript), and the build reads them once before it forks
# the languages' builds (gradcut.tools.build.languages.warm_up).
_RUNS: dict[str, tuple[tuple[int, int], dict]] = {}


def _read_run(path: Path) -> dict:
    stat = Path(path).stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    kept = _RUNS.get(str(path))
    if kept is None or kept[0] != stamp:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        assert isinstance(data["claims"], list) and data["torch"]
        kept = _RUNS[str(path)] = (stamp, data)
    return dict(kept[1])


def load_run(path: Path) -> dict | None:
    """The run in ``path`` (a shallow copy: the caller may add keys), or None with a
    warning when it cannot be read."""
    try:
        return _read_run(path)
    except (OSError, ValueError, KeyError, AssertionError) as err:
        logger.warning("torch-runs: cannot read %s: %s", path, err, type="gradcut", subtype="torch_runs")
        return None


def preload(folder: Path) -> None:
    """Read the runs in ``folder`` ahead (before the languages' builds fork); one that
    cannot be read is reported by the build that reads it."""
    for path in sorted(Path(folder).glob("torch-*.json")):
        with contextlib.suppress(Exception):
            _read_run(path)


def claim_keys(claims: list[dict]) -> list[tuple[str, str, int]]:
    """(page, code, n): the n-th claim of that code on that page; stable as lines move."""
    seen: Counter = Counter()
    keys = []
    for claim in claims:
        base = (claim["page"], claim["source"])
        keys.append((*base, seen[base]))
        seen[base] += 1
    return keys


def doctests(claims: list[dict]) -> list[dict]:
    """The doctest claims of a run (runs of ``make torch-runs`` also hold the gallery's
    examples and the reference tables' rows)."""
    return [c for c in claims if c.get("kind", "doctest") == "doctest"]


def outcome_map(claims: list[dict]) -> dict:
    return dict(zip(claim_keys(claims), claims, strict=True))


def _status_class(status: str) -> str:
    return f"gradcut-{status.replace('.', '').replace(' ', '-')}"


class TorchRuns(SphinxDirective):
    """The tables of the "torch versions" page."""

    has_content = False

    def run(self):
        env = self.env
        env.gradcut_torch_runs_docs.add(env.docname)
        env.gradcut_torch_runs_signature = signature(self.config)
        # The page lists the code of every claim of the site: a search for a question
        # would find it before the page that answers it. Left out of the search index,
        # as a page whose metadata says "nosearch" is.
        env.metadata[env.docname]["nosearch"] = True
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
        current["claims"] = [*current["claims"], *self._verified_by_this_build()]
        others = sorted(runs[1:], key=lambda r: _version_key(r["torch"]))
        runs = [current, *others]
        return [self.summary(runs), *self.claims_table(runs)]

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
        current_keys = set(claim_keys(doctests(runs[0]["claims"])))
        rows = []
        for run in runs:
            counts = Counter(c["status"] for c in run["claims"])
            gone = sum(k not in current_keys for k in claim_keys(doctests(run["claims"])))
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

    def _verified_by_this_build(self) -> list[dict]:
        """The claims this build checks outside the doctests, as ``make torch-runs``
        records them: each row of a sweep table (the ``gradcut-sweep`` directive fails the
        build when torch disagrees with a cell) and each gallery example (the build fails
        when one raises). The build being published, they held."""
        root = Path(self.env.gradcut_project_root)
        claims = []
        for page, _name, table in sweeps.tables_under(root / "docs"):
            self.env.note_dependency(str(page))
            where = page.relative_to(root).as_posix()
            for number, line in sweeps.claim_lines(table):
                claims.append({"page": where, "line": number, "source": line,
                               "status": "holds", "kind": "reference"})  # fmt: skip
        for example in sorted((root / "gallery").glob("plot_*.py")):
            claims.append({"page": example.relative_to(root).as_posix(), "line": 1, "source": "",
                           "status": "holds", "kind": "gallery"})  # fmt: skip
        return claims

    def _docname(self, page: str) -> str | None:
        """The page of the site that a run's ``page`` (a path from the project's root)
        became: ``docs/howto/devices.md`` -> ``howto/devices``, a gallery example
        ``gallery/plot_00_x.py`` -> ``examples/plot_00_x``; None for a helper module."""
        stem = page.rsplit(".", 1)[0]
        candidates = [stem.removeprefix("docs/")] if page.startswith("docs/") else []
        if "sphinx_gallery_conf" in self.config:
            from gradcut.sphinxext.gallery import _gallery_dirs  # noqa: PLC0415

            path = Path(self.env.gradcut_project_root, stem)
            site = SimpleNamespace(config=self.config, srcdir=self.env.srcdir)
            for src, _dst, name in _gallery_dirs(site):
                if path.is_relative_to(src):
                    candidates.append(f"{name}/{path.relative_to(src).as_posix()}")
        return next((d for d in candidates if d in self.env.found_docs), None)

    def _page_link(self, page: str):
        """A link to the page of the claims, named by its title in the page's language
        (Sphinx fills it in when it resolves the link), when it is a page of this site;
        a helper module by its path."""
        para = nodes.paragraph()
        docname = self._docname(page)
        if docname is not None:
            ref = addnodes.pending_xref(
                "",
                refdomain="std",
                reftype="doc",
                reftarget="/" + docname,
                refdoc=self.env.docname,
                refexplicit=False,
            )
            ref += nodes.inline(text=page)
            para += ref
        else:
            para.extend(self._helper_module(page))
        return para

    def _helper_module(self, page: str) -> list:
        """A helper module whose doctests are claims, by its module's name:
        ``src/gradcut/claims/draw.py`` -> "helper module ``gradcut.claims.draw``"."""
        module = page.removeprefix("src/").removesuffix(".py").replace("/", ".")
        before, _sep, after = _(self.config, "helper module {}").partition("{}")
        return [n for n in (nodes.Text(before), nodes.literal(text=module), nodes.Text(after)) if n.astext()]

    def _row_label(self, page: str, source: str):
        """A row of a sweep table as its page names it: its first cell, in the page's
        language (the page's catalog translates the cell as it does on the page), its
        code as code; the header row as such."""
        para = nodes.paragraph()
        text = source.strip()
        if text in self._table_headers(page):
            para += nodes.Text(_(self.config, "the table's header"))
            return para
        cell = text.strip("|").split("|")[0].strip()
        para.extend(markdown_inline(self._translated(page).get(cell, cell)))
        return para

    @functools.cache  # noqa: B019 -- one directive, one page's run; a few pages
    def _table_headers(self, page: str) -> set[str]:
        path = Path(self.env.gradcut_project_root, page)
        if not path.is_file():
            return set()
        tables = sweeps.tables_in(path.read_text(encoding="utf-8"))
        return {next((t.strip() for _n, t in lines if t.strip()), "") for _name, lines in tables}

    @functools.cache  # noqa: B019
    def _translated(self, page: str) -> dict[str, str]:
        """The translations of the catalog of ``page``'s page (none in English)."""
        docname = self._docname(page)
        if (self.config.language or "en") == "en" or docname is None:
            return {}
        from gradcut.sphinxext.i18n import page_catalog  # noqa: PLC0415
        from gradcut.sphinxext.pofile import read_catalog  # noqa: PLC0415

        path = page_catalog(self.env.app, docname)
        if not path.is_file():
            return {}
        self.env.note_dependency(str(path))
        return {m.id: m.string for m in read_catalog(path) if m.id and m.string and not m.fuzzy}

    def claims_table(self, runs):
        """Pages × releases: how many claims of each page held on each release."""
        outcomes = [outcome_map(run["claims"]) for run in runs]
        # An example that failed on a release is recorded at its failing line; this build
        # ran each of its examples to the end, every line of them included.
        ran_here = {c["page"] for c in runs[0]["claims"] if c.get("kind") == "gallery"}

        def status(outcome, key, claim):
            if key in outcome:
                return outcome[key]["status"]
            if outcome is outcomes[0] and claim.get("kind") == "gallery" and claim["page"] in ran_here:
                return "holds"
            return NOT_RUN

        rows_by_page = defaultdict(list)  # page -> [(key, label)]
        for key, claim in zip(claim_keys(doctests(runs[0]["claims"])), doctests(runs[0]["claims"]), strict=True):
            rows_by_page[(claim["page"], "doctest")].append((key, claim))
        for run in runs:
            for key, claim in zip(claim_keys(run["claims"]), run["claims"], strict=True):
                kind = claim.get("kind", "doctest")
                if kind in ("gallery", "reference") and key not in dict(rows_by_page[(claim["page"], kind)]):
                    rows_by_page[(claim["page"], kind)].append((key, claim))
        def example(outcome, claims):
            """An example is one claim on each release: it ran to the end (line 1), or
            stopped at the line its run was recorded at; (status, that line or None)."""
            for key, claim in claims:
                if key in outcome:
                    line = str(outcome[key].get("line", ""))
                    return outcome[key]["status"], (line if line not in ("", "1") else None)
            return status(outcome, *claims[0]), None

        rows, details = [], []
        for page, kind in sorted(rows_by_page):
            claims = rows_by_page[(page, kind)]
            # (claim, its status on each run, the line an example stopped at on each run)
            if kind == "gallery":
                ran = [example(o, claims) for o in outcomes]
                entries = [(claims[0][1], [st for st, _line in ran], [line for _st, line in ran])]
            else:
                entries = [
                    (claim, [status(o, key, claim) for o in outcomes], [None] * len(outcomes))
                    for key, claim in claims
                ]
            differing = [e for e in entries if any(st not in ("holds", NOT_RUN) for st in e[1])]
            cells = [self._page_cell(page, kind)]
            for i in range(len(outcomes)):
                cells.append(self._count_cell(Counter(e[1][i] for e in entries), len(entries)))
            rows.append(self._row(cells))
            if differing:
                details.append(self._details(page, kind, differing, runs))
        header = [_(self.config, "page"), *(self._label(r) for r in runs)]
        table = self._table([8, *([2] * len(runs))], header, rows, ["gradcut-torch-runs-claims"])
        out = [table]
        if details:
            # English: the page's catalog translates it, as it does the page's prose.
            title = nodes.rubric(text="Claims that did not hold on every release")
            out += [title, *[n for d in details for n in d]]
        return out

    def _count_cell(self, counts, total):
        holds = counts.get("holds", 0)
        if holds == total:
            text, status = str(total), "holds"
        elif counts.get(NOT_RUN, 0) == total:
            text, status = "–", NOT_RUN
        else:
            parts = [str(holds)]
            for word in ("changed", "n.a.", NOT_RUN):
                if counts.get(word):
                    parts.append(f"{counts[word]} {_(self.config, word)}")
            text = " · ".join(parts)
            status = "changed" if counts.get("changed") else "n.a."
        entry = nodes.entry(classes=[_status_class(status)])
        entry += nodes.paragraph(text=text)
        return entry

    def _page_cell(self, page: str, kind: str = "doctest"):
        para = self._page_link(page)
        if kind == "reference":
            para += nodes.Text(self._tables())
        return para

    def _tables(self) -> str:
        return _(self.config, " ({})").format(_(self.config, "tables"))

    def _details(self, page, kind, differing, runs):
        """One collapsed table per page: its claims that did not hold everywhere."""
        suffix = self._tables() if kind == "reference" else ""
        rows = []
        for claim, statuses, lines in differing:
            code = (claim.get("source") or "").splitlines() or [""]
            text = code[0] + (" …" if len(code) > 1 else "")
            shown = (
                self._row_label(page, claim.get("source") or "")
                if kind == "reference"
                else nodes.paragraph("", "", nodes.literal(text=text))
            )
            if kind == "gallery":  # one claim an example: it runs to the end
                cells = ["", nodes.paragraph(text=_(self.config, "runs to the end"))]
            else:
                cells = [str(claim.get("line", "")), shown]
            for status, line in zip(statuses, lines, strict=True):
                entry = nodes.entry(classes=[_status_class(status)])
                word = _(self.config, status)
                if line:  # an example that stopped at a line on that release
                    word = _(self.config, "{status} at line {line}").format(status=word, line=line)
                entry += nodes.paragraph(text=word)
                cells.append(entry)
            rows.append(self._row(cells))
        header = [_(self.config, "line"), _(self.config, "claim"), *(self._label(r) for r in runs)]
        table = self._table([1, 8, *([2] * len(runs))], header, rows, ["gradcut-torch-runs-detail"])
        docname = self._docname(page)
        # a page's title is known once every page is read: _fill_titles writes it in
        summary = "".join(inline_html(n) for n in self._helper_module(page)) if docname is None else ""
        open_ = nodes.raw("", _details_open(summary, suffix), format="html")
        if docname is not None:
            open_["gradcut_title_of"], open_["gradcut_suffix"] = docname, suffix
        close = nodes.raw("", "</details>", format="html")
        return [open_, table, close]


def markdown_inline(text: str) -> list:
    """``Function with `ctx.t = t` `` -> a text node and a literal node."""
    parts = re.split(r"(`[^`]+`)", text)
    return [
        nodes.literal(text=part[1:-1]) if part.startswith("`") and part.endswith("`") and len(part) > 1 else nodes.Text(part)
        for part in parts
        if part
    ]


def _details_open(summary_html: str, suffix: str) -> str:
    return f'<details class="gradcut-torch-runs-detail"><summary>{summary_html}{escape(suffix)}</summary>'


def _fill_titles(app, doctree, docname):
    """The summaries of the "Claims by torch release" page's folds: each page's title,
    in the page's language."""
    if docname not in getattr(app.env, "gradcut_torch_runs_docs", ()):
        return
    for node in list(doctree.findall(nodes.raw)):
        target = node.get("gradcut_title_of")
        if target and target in app.env.titles:
            title = clean_astext(app.env.titles[target])
            node.replace_self(nodes.raw("", _details_open(escape(title), node["gradcut_suffix"]), format="html"))


# -- beside each block: the releases it holds on ------------------------------------


def release_runs(config) -> list[dict]:
    """The runs of ``make torch-runs`` (every claim kind, one release each), oldest first."""
    runs = []
    folder = Path(config.gradcut_torch_runs)
    for path in sorted(folder.glob("torch-*.json")) if folder.is_dir() else []:
        run = load_run(path)
        if run is not None and run.get("pages"):
            runs.append(run)
    # The torch that builds the site is a release run too: its doctests ran just now,
    # and they stand for that release in place of what an older run of it recorded (the
    # gallery's examples and the sweep tables, which the build checks too, keep their
    # records from that run; the build fails when one of them does not hold).
    current = Path(config.gradcut_results_dir, f"torch-{installed_torch()}.json")
    version = installed_torch().split("+")[0]
    built = load_run(current) if current.is_file() else None
    if built is not None:
        recorded = next((r for r in runs if r["torch"] == version), None)
        runs = [r for r in runs if r is not recorded]
        others = [c for c in recorded["claims"] if c.get("kind", "doctest") != "doctest"] if recorded else []
        runs.append({**(recorded or built), "torch": version, "claims": doctests(built["claims"]) + others})
    return sorted(runs, key=lambda r: _version_key(r["torch"]))


def _find(claims_of_page: list[dict], source: str, expected: str, line: int) -> dict | None:
    found = [c for c in claims_of_page if c["source"] == source and c["expected"] == expected]
    return min(found, key=lambda c: abs(c["line"] - line)) if found else None


def _ranges(versions: list[str], among: list[str], config=None) -> str:
    """``["2.0.1", "2.1.2", "2.3.1"]`` among all run releases -> ``2.0.1 – 2.1.2, 2.3.1``
    (in Chinese ``2.0.1 – 2.1.2、2.3.1``: the page's language separates them)."""
    spans, start, prev = [], None, None
    for v in among:
        if v in versions:
            start = start or v
            prev = v
        elif start:
            spans.append((start, prev))
            start = None
    if start:
        spans.append((start, prev))
    separator = _(config, ", ") if config is not None else ", "
    return separator.join(a if a == b else f"{a} – {b}" for a, b in spans)


class Note(NamedTuple):
    """What one statement of a transcript did on a release where the block did not hold:
    ``text`` is its output, or with ``na`` the reason it could not run there (as the run
    wrote it, :mod:`gradcut.runs`); ``needs``, the statement it needed, when that one
    could not run there."""

    source: str
    text: str
    na: bool = False
    needs: str | None = None


def block_history(block_text: str, page: str, line: int, runs: list[dict]) -> list[tuple[str, str, list[Note]]]:
    """``[(release, status, [Note])]`` of one transcript block."""
    import doctest  # noqa: PLC0415

    examples = doctest.DocTestParser().get_examples(block_text)
    out = []
    for run in runs:
        claims = [c for c in run["claims"] if c["page"] == page and c.get("kind", "doctest") == "doctest"]
        statuses, notes = [], []
        for ex in examples:
            expected = exception_only(ex.want).rstrip("\n")
            claim = _find(claims, ex.source.rstrip("\n"), expected, line + ex.lineno)
            status = claim["status"] if claim else NOT_RUN
            statuses.append(status)
            if status == "changed":
                notes.append(Note(ex.source.rstrip("\n"), claim.get("got", "")))
            elif status == "n.a." and claim.get("reason"):
                notes.append(Note(ex.source.rstrip("\n"), claim["reason"], True, _needed(claims, claim["reason"])))
        if not examples:
            continue
        if "changed" in statuses:
            status = "changed"
        elif NOT_RUN in statuses:
            status = NOT_RUN
        elif "n.a." in statuses and (notes or "holds" not in statuses):
            status = "n.a."  # an API absent there, or a block for other releases
        else:
            status = "holds"
        out.append((run["torch"], status, notes))
    return out


def _needed(claims: list[dict], reason: str) -> str | None:
    """The first line of the statement that a "needs line N" reason names (a reader sees
    no line numbers of the sources), from the claims of the same run and page."""
    parsed = parse_reason(reason)
    if parsed is None or parsed[0] != "needs":
        return None
    found = [c for c in claims if c.get("line") == int(parsed[1]["line"]) and c.get("source")]
    return found[0]["source"].splitlines()[0] if found else None


# An output of another release shows its first line at once (the first sentence of a
# line longer than this); the rest is one more click away, and whole in the results
# files (docs/_torch_runs/). A dispatcher's error ran to 40 lines there.
LONG_LINE = 400


def split_output(text: str) -> tuple[str, str]:
    """``(shown, rest)`` of an output: its first line, or that line's first sentence when
    the line runs over ``LONG_LINE`` characters; the rest as it was printed."""
    first, newline, rest = text.partition("\n")
    if len(first) > LONG_LINE:
        end = first.find(". ", 40)
        if 0 < end < LONG_LINE:
            first, rest = first[: end + 1], first[end + 2 :] + newline + rest
    return first, rest.strip("\n")


def _more_lines(config, rest: str) -> str:
    n = len(rest.splitlines())
    return _(config, "{} more line" if n == 1 else "{} more lines").format(n)


def _reason_html(config, note: Note, location=None) -> str:
    """Why a statement could not run on a release, in the page's language; the error
    torch raised stays as torch printed it, as code."""
    parsed = parse_reason(note.text)
    if parsed is None:
        if (config.language or "en") != "en":
            logger.warning(
                "torch-runs: no %s words for the reason %r (gradcut.sphinxext.versions.WORDS)",
                config.language,
                note.text,
                location=location,
                type="gradcut",
                subtype="torch_runs",
            )
        return escape(note.text)
    kind, parts = parsed
    parts = {k: escape(v) for k, v in parts.items()}
    if kind == "absent":
        parts["error"] = f"<code>{parts['error']}</code>"
        return escape(_(config, "not in torch {version}: {error}")).format(**parts)
    if note.needs:
        parts["needs"] = f"<code>{escape(note.needs)}</code>"
        return escape(_(config, "needs {needs}, which cannot run on torch {version}")).format(**parts)
    return escape(_(config, "needs line {line}, which cannot run on torch {version}")).format(**parts)


def _session_html(config, notes: list[Note], location=None) -> str:
    """What another release printed, as the page's own transcripts show it (prompts
    marked, outputs apart): each output's first line, the rest folded under it."""
    html, lines = "", []

    def flush():
        nonlocal html, lines
        if lines:
            html += '<div class="highlight-pycon notranslate"><div class="highlight"><pre>'
            html += "\n".join(lines) + "\n</pre></div></div>"
            lines = []

    for note in notes:
        for i, line in enumerate(note.source.splitlines()):
            lines.append(f'<span class="gp">{">>> " if i == 0 else "... "}</span>{escape(line)}')
        if note.na:
            na = escape(_(config, "n.a. ({})")).format(_reason_html(config, note, location))
            lines.append(f'<span class="gradcut-na-note">{na}</span>')
            continue
        text = note.text
        if text.startswith(NO_ERROR):  # the run's own words, not torch's
            text = _(config, NO_ERROR) + text.removeprefix(NO_ERROR)
        shown, rest = split_output(text)
        lines.append(f'<span class="go">{escape(shown or _(config, "(no output)"))}</span>')
        if rest:
            flush()
            html += (
                f'<details class="gradcut-more-output"><summary>{escape(_more_lines(config, rest))}</summary>'
                '<div class="highlight-text notranslate"><div class="highlight"><pre>'
                f'<span class="go">{escape(rest)}</span>\n</pre></div></div></details>'
            )
    flush()
    return html


def _status_line(config, history) -> str:
    """``holds on torch 2.0.1 – 2.15.0 · n.a. on torch 1.13.1``, each status in its colour."""
    releases = [v for v, _s, _n in history]
    by_status = defaultdict(list)
    for version, status, _notes in history:
        by_status[status].append(version)
    parts = []
    for status in ("holds", "changed", "n.a.", NOT_RUN):
        if by_status[status]:
            text = _(config, f"{status} on torch {{}}").format(_ranges(by_status[status], releases, config))
            parts.append(f'<span class="{_status_class(status)}">{escape(text)}</span>')
    return " · ".join(parts)


def _history_html(config, history, location=None) -> str:
    releases = [v for v, _s, _n in history]
    html = '<div class="gradcut-block-history">' + _status_line(config, history)
    groups: dict = defaultdict(list)  # what they printed -> releases
    for version, status, notes in history:
        if status in ("changed", "n.a.") and notes:
            groups[(status, tuple(notes))].append(version)
    if groups:
        html += f"<details><summary>{escape(_(config, 'What other releases did'))}</summary>"
        for (status, notes), versions in groups.items():
            span = _ranges(versions, releases, config)
            if status == "changed":
                html += f"<p>{escape(_(config, 'torch {} printed:').format(span))}</p>"
                html += _session_html(config, list(notes), location)
            else:
                reason = _reason_html(config, notes[0], location)
                html += f"<p>{escape(_(config, 'torch {}: n.a. ({})')).format(escape(span), reason)}</p>"
        html += "</details>"
    return html + "</div>"


def annotate_blocks(app, doctree, docname):
    """After each transcript block of a page: the releases it held on, from the runs."""
    if app.builder.format != "html":
        return
    runs = release_runs(app.config)
    if not runs:
        return
    source = Path(app.env.doc2path(docname))
    try:
        page = source.resolve().relative_to(Path(app.confdir).resolve()).as_posix()
    except ValueError:
        return
    # each run's claims of this page, picked once for all its blocks
    runs = [{**run, "claims": [c for c in run["claims"] if c["page"] == page]} for run in runs]
    for block in list(doctree.findall(nodes.literal_block)):
        if block.get("language") not in ("pycon",) or ">>>" not in block.astext():
            continue
        line = block.line or 0
        history = block_history(block.astext(), page, line, runs)
        if not any(status != NOT_RUN for _v, status, _n in history):
            continue
        note = nodes.raw("", _history_html(app.config, history, (docname, line)), format="html")
        block.parent.insert(block.parent.index(block) + 1, note)
    for table in list(doctree.findall(nodes.container)):
        if "gradcut-sweep" not in table["classes"]:
            continue
        history = sweep_history(table["row_texts"], runs, installed_torch().split("+")[0])
        html = _sweep_history_html(app.config, table, history, (docname, table.line))
        table.parent.insert(table.parent.index(table) + 1, nodes.raw("", html, format="html"))


def sweep_history(row_texts: list[str], runs: list[dict], building: str) -> list[tuple[str, str, list[Note]]]:
    """``[(release, status, [Note])]`` of one sweep table: each of its rows (and its
    header) is a claim of ``make torch-runs``. The torch that builds the site has just
    checked every cell, or the build would have failed."""
    out = []
    for run in runs:
        if run["torch"] == building:
            out.append((run["torch"], "holds", []))
            continue
        # a row is the same claim whatever its code marks: a row whose label was re-marked
        # (`f(x), frozen` -> `f(x)`, frozen) keeps its history
        claims = {sweeps.plain(c["source"]): c for c in run["claims"] if c.get("kind") == "reference"}
        found = [claims.get(sweeps.plain(text)) for text in row_texts]
        statuses = [c["status"] if c else NOT_RUN for c in found]
        notes = [
            Note(c["source"], c.get("reason", "") if c["status"] == "n.a." else c.get("got", ""), c["status"] == "n.a.")
            for c in found
            if c and c["status"] in ("changed", "n.a.")
        ]
        for status in ("changed", NOT_RUN, "n.a."):
            if status in statuses:
                break
        else:
            status = "holds"
        out.append((run["torch"], status, notes))
    if building not in {version for version, _s, _n in out}:
        out.append((building, "holds", []))
        out.sort(key=lambda entry: _version_key(entry[0]))
    return out


# What a release run says of a sweep table's cell that torch measured otherwise
# (gradcut.claims.sweeps.check_table).
_CELL = re.compile(r"^(?P<row>.+?) / (?P<column>.+?): the table says '(?P<ours>.*)', torch \S+ gives '(?P<theirs>.*)'$")
# ... or of a row whose measurement raised: the error's first line is shown, not its dump.
_RAISED = re.compile(r"^(?P<row>.+?): measuring it raised (?P<error>.*)$")


def first_sentence(error: str, width: int = 160) -> str:
    """The first sentence of a torch error, at most ``width`` characters (cut at a word,
    ending in "…"): some errors run on for a thousand characters with a list of
    backends, which says nothing about the row (Chinese review 4)."""
    head, dot, rest = error.partition(". ")
    if dot and rest:
        head += "."
    if len(head) > width:
        head = head[:width].rsplit(" ", 1)[0].rstrip(",;:") + " …"
    elif head != error:
        head += " …"
    return head


def inline_html(node) -> str:
    """A table cell's text as HTML, its code as code: ``使用 <code>ctx.t = t</code> 的 Function``."""
    if isinstance(node, nodes.literal):
        return f"<code>{escape(node.astext())}</code>"
    if isinstance(node, nodes.Text):
        return escape(str(node))
    return "".join(inline_html(child) for child in node.children)


def _cell_words(table) -> tuple[list[str], dict]:
    """The table's headers as the page shows them, and what each of its English cells
    reads as on the page, per column, as ``(text, html)``: the row, the column and the
    words of a release's measurement are shown in the page's language where the table
    has them."""
    english = [[sweeps.plain(c) for c in text.strip().strip("|").split("|")] for text in table["row_texts"]]
    shown = []
    for row in table.findall(nodes.row):
        shown.append([(entry.astext().strip(), inline_html(entry).strip()) for entry in row.findall(nodes.entry)])
    words: dict = defaultdict(dict)
    for en_row, shown_row in zip(english, shown, strict=False):
        for column, (en, text) in enumerate(zip(en_row, shown_row, strict=False)):
            words[column].setdefault(en, text)
    return english[0] if english else [], words


_HAN = re.compile(r"[\u4e00-\u9fff]")


def _value_html(config, words: dict, column: int, value: str) -> str:
    """A cell's value as the page words it: as the same column of the table has it, or
    another column, or else the site's words for the sweeps' vocabulary. A value with
    code keeps its code as code and its words as words; Chinese words (and the dash of a
    Chinese table) read in quotes, anything else (a name, a number, an error as torch
    prints it, an English word) in code (Chinese reviews 5 and 6)."""
    text = html = None
    for found in (words[column], *(w for c, w in words.items() if c != column)):
        if value in found:
            text, html = found[value]
            break
    if text is None:
        text = SWEEP_VALUES.get(config.language or "en", {}).get(value, value)
        html = escape(text)
    if "<code>" in html:
        return html
    chinese_page = (config.language or "en").startswith("zh")
    if _HAN.search(text) or (chinese_page and text in ("—", "-")):
        return f"“{html}”"
    return f"<code>{html}</code>"  # a name, a number, an error as torch prints it


def _sweep_note_html(config, note: Note, headers: list[str], words: dict, location) -> str:
    if note.na:
        return _reason_html(config, note, location)
    out = []
    after_raised = False
    for message in note.text.splitlines():
        raised = _RAISED.match(message)
        if raised:
            row = words[0].get(raised["row"], (None, f"<code>{escape(raised['row'])}</code>"))[1]
            out.append(
                escape(_(config, "{row}: measuring it raised {error}")).format(
                    row=row, error=f"<code>{escape(first_sentence(raised['error']))}</code>"
                )
            )
            after_raised = True
            continue
        match = _CELL.match(message)
        if after_raised and not match:
            continue  # the rest of the error's message
        after_raised = False
        if not match or match["column"] not in headers:
            out.append(f"<code>{escape(message)}</code>")
            continue
        column = headers.index(match["column"])
        row = words[0].get(match["row"], (None, f"<code>{escape(match['row'])}</code>"))[1]
        out.append(
            escape(_(config, "{row}, {column}: {theirs} (this page: {ours})")).format(
                row=row,
                column=words[column].get(match["column"], (None, escape(match["column"])))[1],
                theirs=_value_html(config, words, column, match["theirs"]),
                ours=_value_html(config, words, column, match["ours"]),
            )
        )
    return "<br>".join(out)


def _sweep_history_html(config, table, history, location=None) -> str:
    """Under a sweep table: on which releases every row held, and what the others measured."""
    releases = [v for v, _s, _n in history]
    html = (
        '<div class="gradcut-block-history gradcut-sweep-history">'
        # the sweep's name is code: the same in every language
        + _(config, "{sentence} {statuses}").format(
            sentence=escape(_(config, "Sweep {}: every row measured when the site was built.")).format(
                f"<code>{escape(table['sweep'])}</code>"
            ),
            statuses=_status_line(config, history),
        )
    )
    groups: dict = defaultdict(list)  # what they measured -> releases
    for version, status, notes in history:
        if status in ("changed", "n.a.") and notes:
            groups[tuple(notes)].append(version)
    if groups:
        headers, words = _cell_words(table)
        html += f"<details><summary>{escape(_(config, 'What other releases measured'))}</summary>"
        for notes, versions in groups.items():
            html += f"<p>{escape(_(config, 'torch {}:').format(_ranges(versions, releases, config)))}</p><ul>"
            html += "".join(f"<li>{_sweep_note_html(config, n, headers, words, location)}</li>" for n in notes)
            html += "</ul>"
        html += "</details>"
    return html + "</div>"


def first_release(runs: list[dict], page: str, code: str) -> tuple[str | None, bool, bool]:
    """``(release, holds everywhere, release before it not run)`` for one claim:
    the first release of the newest unbroken run of releases on which it holds."""

    history = []
    for run in runs:
        found = [c for c in run["claims"] if c["page"] == page and c["source"] == code]
        if found:
            history.append((run["torch"], min(found, key=lambda c: c["line"])["status"]))
    first = None
    for version, status in reversed(history):
        if status != "holds":
            break
        first = version
    if first is None:
        return None, False, False
    everywhere = all(status == "holds" for _, status in history)
    ran = {v for v, _ in history}
    before = [v for v in RELEASES if _version_key(v) < _version_key(first)]
    gap = bool(before) and before[-1] not in ran and not everywhere
    return first, everywhere, gap


class TorchFirst(SphinxRole):
    """``{torch-first}`>>> code``: the first torch release on which that claim of the
    page holds as it does today, from the runs in ``docs/_torch_runs/``."""

    def run(self):
        env = self.env
        env.gradcut_torch_runs_docs.add(env.docname)
        code = self.text.removeprefix(">>> ")
        page = Path(env.doc2path(env.docname)).resolve()
        try:
            page = page.relative_to(env.gradcut_project_root).as_posix()
        except ValueError:
            page = page.as_posix()
        first, everywhere, gap = first_release(release_runs(self.config), page, code)
        if first is None:
            text = _(self.config, "not run yet")
        elif everywhere:
            text = _(self.config, "torch {} or earlier").format(first)
        elif gap:
            text = _(self.config, "torch {} (the release before it is not run yet)").format(first)
        else:
            text = f"torch {first}"
        return [nodes.strong(text=text, classes=["gradcut-torch-first"])], []


FULL_WIDTH_END = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]$")


def _join_full_width(app, doctree) -> None:
    """A release named in Chinese ends in Chinese ("torch 1.13.1 或更早"); the space the
    translation leaves after the role, before the Chinese that follows, goes:
    "自 **torch 1.13.1 或更早**起", as after any Chinese word."""
    for strong in list(doctree.findall(nodes.strong)):
        if "gradcut-torch-first" not in strong["classes"] or not FULL_WIDTH_END.search(strong.astext()):
            continue
        parent = strong.parent
        index = parent.index(strong)
        after = parent[index + 1] if index + 1 < len(parent) else None
        if isinstance(after, nodes.Text) and after.startswith(" ") and FULL_WIDTH_END.search(after.lstrip(" ")[:1] or "a"):
            parent.replace(after, nodes.Text(after.lstrip(" ")))


# -- environment -----------------------------------------------------------------


def _init_env(app):
    env = app.env
    # Claims name their page relative to the project (conf.py's folder), where the
    # doctests run; a role has the environment, not the application.
    env.gradcut_project_root = Path(app.confdir).resolve()
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
    """Re-read the page when a results file appeared, went away or changed; every page
    when a run of ``make torch-runs`` did (the notes under its transcripts)."""
    runs = Path(app.config.gradcut_torch_runs)
    releases = [(p.name, p.stat().st_mtime_ns) for p in sorted(runs.glob("torch-*.json"))] if runs.is_dir() else []
    if releases != getattr(env, "gradcut_release_signature", None):
        env.gradcut_release_signature = releases
        if releases and getattr(env, "gradcut_torch_runs_docs", None) is not None and env.all_docs:
            return sorted(set(env.found_docs) - set(removed))
    docs = getattr(env, "gradcut_torch_runs_docs", set())
    if docs and signature(app.config) != getattr(env, "gradcut_torch_runs_signature", None):
        return sorted(docs - set(removed))
    return []


def setup(app):
    app.add_config_value("gradcut_results_dir", "_build/results", "env", types=[str])
    app.add_config_value("gradcut_torch_runs", "_torch_runs", "env", types=[str])
    app.connect("config-inited", _resolve_paths)
    app.add_directive("torch-runs", TorchRuns)
    app.add_role("torch-first", TorchFirst())
    app.connect("doctree-read", _join_full_width)
    app.connect("builder-inited", _init_env)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-outdated", _outdated)
    app.connect("doctree-resolved", annotate_blocks)
    app.connect("doctree-resolved", _fill_titles)
    app.add_css_file("gradcut-versions.css")
