"""``python -m gradcut.tools.drift``: run the gate under every patch and tell which ones it caught.

Prints one line per patch -- ``killed by <page:line>`` or ``SURVIVED`` -- then
``killed K/N``, and exits non-zero when the real torch fails the gate (2) or a patch
survived (1). Everything each run broke, expected vs. got, is in ``<out>/report.txt``.
"""

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gradcut.tools.drift.gate import STEPS, describe_claim, location, run_step
from gradcut.tools.drift.patches import PATCHES

BASELINE = "(real torch)"


def killed_by(broken: list[dict]) -> str:
    seen = []
    for claim in broken:
        if location(claim) not in seen:
            seen.append(location(claim))
    pages = {c["page"] for c in broken}
    more = f" (+{len(seen) - 2} more)" if len(seen) > 2 else ""
    return (
        f"killed by {', '.join(seen[:2])}{more}"
        f" [{len(broken)} claim{'s' * (len(broken) != 1)} on {len(pages)} page{'s' * (len(pages) != 1)}]"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gradcut.tools.drift", description=__doc__.split("\n")[0])
    parser.add_argument("--doctest", required=True, help="the pytest arguments of `make doctest`")
    parser.add_argument("--out", default="_build/drift", help="logs and report (default: _build/drift)")
    parser.add_argument("--root", default=".", help="the project folder (default: .)")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="processes at once (default: 2)")
    parser.add_argument("--patch", action="append", choices=sorted(PATCHES), help="only this patch (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the patches and exit")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every broken claim")
    args = parser.parse_args(argv)

    if args.list:
        width = max(map(len, PATCHES))
        for patch in PATCHES.values():
            print(f"{patch.name:<{width}}  {patch.summary}")
        return 0

    root, out = Path(args.root).resolve(), Path(args.out).resolve()
    chosen = args.patch or list(PATCHES)
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:

        def gate(patch):
            folder = out / (patch or "baseline")
            return [pool.submit(run_step, step, patch, root, folder / step, args.doctest) for step in STEPS]

        baseline = [f.result() for f in gate(None)]
        broken = [c for r in baseline for c in r.broken]
        if broken:
            print(f"The gate fails on the real torch already ({killed_by(broken)}):\n", file=sys.stderr)
            for claim in broken:
                print(describe_claim(claim) + "\n", file=sys.stderr)
            print("Fix that first: drift is measured against a passing gate.", file=sys.stderr)
            return 2
        claims = sum(len(r.claims) for r in baseline)
        print(f"real torch: the gate passes ({claims} claims); now {len(chosen)} simulated releases:")

        runs = {patch: gate(patch) for patch in chosen}
        width = max(map(len, chosen))
        outcome = {}
        for patch in chosen:
            results = [f.result() for f in runs[patch]]
            broken = [c for r in results for c in r.broken]
            outcome[patch] = broken
            verdict = killed_by(broken) if broken else "SURVIVED"
            print(f"  {patch:<{width}}  {verdict}", flush=True)
            if args.verbose:
                for claim in broken:
                    print("      " + describe_claim(claim).replace("\n", "\n      "))

    killed = sum(bool(b) for b in outcome.values())
    survived = [p for p in chosen if not outcome[p]]
    write_report(out, outcome)
    print(f"killed {killed}/{len(chosen)} in {time.monotonic() - started:.0f} s; every broken claim: {out / 'report.txt'}")
    for patch in survived:
        print(f"SURVIVED {patch}: {PATCHES[patch].summary}; {hole(patch)}")
    return 1 if survived else 0


def as_doctest(code: str) -> list[str]:
    lines = []
    for line in code.splitlines():
        continued = line[:1].isspace() or line.startswith(("except", "else", "elif", "finally"))
        lines.append(("... " if continued else ">>> ") + line)
    return lines


def hole(patch: str) -> str:
    return f"no claim checks it (the report shows a doctest that would: {PATCHES[patch].before!r})"


def write_report(out: Path, outcome: dict[str, list[dict]]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for patch, broken in outcome.items():
        lines.append(f"== {patch}: {PATCHES[patch].summary}")
        if broken:
            lines += [killed_by(broken), "", *(describe_claim(c) + "\n" for c in broken)]
        else:
            lines += [
                "SURVIVED: no claim of the site checks this behaviour. A claim such as",
                *("    " + line for line in as_doctest(PATCHES[patch].probe)),
                f"    {PATCHES[patch].before}",
                "would catch it.",
                "",
            ]
    (out / "report.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = {
        patch: {"summary": PATCHES[patch].summary, "killed": bool(broken), "broken": broken}
        for patch, broken in outcome.items()
    }
    (out / "report.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
