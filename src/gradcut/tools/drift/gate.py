"""The fast gate: every claim the build verifies, without building the site.

The build verifies three kinds of claims, and so does this gate, with the same tools:

- ``doctest``: the doctests of the pages and of ``src/``, run by the very pytest command
  of ``make doctest`` (the Makefile hands it over), recorded by
  :mod:`gradcut.tools.pytest_plugin`;
- ``gallery``: every gallery example, run by sphinx-gallery's own code
  (:mod:`gradcut.tools.drift.run_gallery`);
- ``reference``: every row of the pages' ``gradcut-sweep`` tables, checked by the
  function the build's directive calls (:mod:`gradcut.tools.drift.run_reference`).

Each step runs in a process of its own, with the drift patch (if any) applied at
``import torch`` by :mod:`gradcut.tools.drift._hook`.
"""

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

HOOK = Path(__file__).parent / "_hook"
STEPS = ("doctest", "gallery", "reference")


@dataclass
class StepResult:
    step: str
    returncode: int
    claims: list[dict] = field(default_factory=list)
    log: Path | None = None

    @property
    def broken(self) -> list[dict]:
        return [c for c in self.claims if c["status"] == "changed"]

    @property
    def failed(self) -> bool:
        """The step failed, whether or not a claim says why."""
        return self.returncode != 0 or bool(self.broken)


def environment(patch: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("GRADCUT_DRIFT", None)
    if patch:
        env["GRADCUT_DRIFT"] = patch
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(HOOK), env.get("PYTHONPATH", "")) if p
        )
    # Warnings of the patched torch must look like the real ones: no bytecode noise.
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def command(step: str, doctest: str, results: Path) -> list[str]:
    if step == "doctest":
        args = shlex.split(doctest)
        return [sys.executable, "-m", "pytest", *args, f"--gradcut-results={results}"]
    if step in ("gallery", "reference"):
        return [sys.executable, "-m", f"gradcut.tools.drift.run_{step}", "--results", str(results)]
    raise ValueError(step)


def run_step(step: str, patch: str | None, root: Path, out: Path, doctest: str) -> StepResult:
    """Run one step of the gate in ``root``; write its log and results under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    results = out / f"{step}.json"
    results.unlink(missing_ok=True)
    log = out / f"{step}.log"
    with log.open("w", encoding="utf-8") as fh:
        rc = subprocess.call(
            command(step, doctest, results.resolve()),
            cwd=root,
            env=environment(patch),
            stdout=fh,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    claims = []
    if results.exists():
        data = json.loads(results.read_text(encoding="utf-8"))
        claims = data["claims"] if isinstance(data, dict) else data
    for claim in claims:
        claim["step"] = step
    if rc != 0 and not any(c["status"] == "changed" for c in claims):
        # The step failed before it could name a claim (an import error, a crash):
        # that is a failure of the gate too, and its log says why.
        claims.append(
            {
                "step": step,
                "page": str(log),
                "line": 0,
                "source": " ".join(command(step, doctest, results)[1:4]),
                "status": "changed",
                "expected": "the step runs",
                "got": f"exit status {rc}; the end of its log:\n" + tail(log),
            }
        )
    return StepResult(step, rc, claims, log)


def tail(path: Path, lines: int = 15) -> str:
    text = path.read_text(encoding="utf-8", errors="replace").rstrip("\n").splitlines()
    return "\n".join(text[-lines:])


def location(claim: dict) -> str:
    return f"{claim['page']}:{claim['line']}"


def describe_claim(claim: dict) -> str:
    """One broken claim, readable without knowing the code that checks it."""
    page = claim["page"]
    if claim.get("generated"):
        page += f" (page {claim['generated']})"
    what = {"gallery": "example", "reference": "table"}.get(claim["step"], "page")
    lines = [f"{page}:{claim['line']}: the {what} claims"]
    if claim.get("source"):
        first, *rest = claim["source"].splitlines()
        prompt = ">>> " if claim["step"] == "doctest" else ""
        lines += [f"{prompt or '    '}{first}", *(f"{'... ' if prompt else '    '}{x}" for x in rest)]
    lines.append("  expected:")
    lines += [f"    {line}" for line in (claim.get("expected") or "(no output)").splitlines()]
    lines.append("  got:")
    lines += [f"    {line}" for line in (claim.get("got") or "(no output)").splitlines()]
    return "\n".join(lines)
