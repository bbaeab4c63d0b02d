"""Check the sweep tables of the pages as the build does, without Sphinx.

``python -m gradcut.tools.drift.run_reference --results PATH`` finds every
``gradcut-sweep`` table of the pages (:func:`gradcut.claims.sweeps.tables_in`) and checks
it with :func:`gradcut.claims.sweeps.check_table`, the function the build's directive
calls. Every row of a table is a claim: it holds when torch agrees with each of its
cells. A row whose measurement needs an API the installed torch lacks
(:data:`gradcut.tools.releases.ABSENT`) is n.a., with that reason.
"""

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

from gradcut.runs import absent_reason
from gradcut.tools.releases import ABSENT


def run(srcdir: Path, relative_to: Path, exclude=("examples",)) -> list[dict]:
    import torch

    from gradcut.claims.sweeps import check_table, claim_lines, tables_under

    version = torch.__version__.split("+")[0]
    claims = []
    for page, name, table in tables_under(srcdir, exclude):
        where = os.path.relpath(page, relative_to)
        problems = defaultdict(list)
        for problem in check_table(name, table):
            problems[problem.line].append(problem)
        # The header row is a claim too (the columns it names must exist, the table
        # must show every row of its sweep), the delimiter row is not.
        for number, text in claim_lines(table):
            claim = {
                "page": where,
                "line": number,
                "source": text,
                "expected": "torch agrees with every cell",
                "status": "holds",
            }
            found = problems.pop(number, [])
            absent = [p.error for p in found if p.error and ABSENT.search(p.error)]
            if found and len(absent) == len(found):
                claim["status"] = "n.a."
                claim["reason"] = absent_reason(version, absent[0])
            elif found:
                claim["status"] = "changed"
                claim["got"] = "\n".join(p.message for p in found)
            claims.append(claim)
        for number, found in problems.items():  # a problem off any row
            claims.append(
                {
                    "page": where,
                    "line": number,
                    "source": "",
                    "expected": "a table the build can check",
                    "status": "changed",
                    "got": "\n".join(p.message for p in found),
                }
            )
    return claims


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--srcdir", default="docs", help="Sphinx source folder (default: docs)")
    parser.add_argument("--results", required=True, help="write the claims here (JSON)")
    args = parser.parse_args(argv)
    srcdir = Path(args.srcdir).resolve()
    claims = run(srcdir, Path.cwd()) if srcdir.is_dir() else []
    Path(args.results).write_text(json.dumps(claims, indent=1) + "\n", encoding="utf-8")
    broken = [c for c in claims if c["status"] == "changed"]
    print(f"sweep tables: {len(claims) - len(broken)} of {len(claims)} rows hold")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
