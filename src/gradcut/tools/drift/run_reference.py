"""Check the reference tables of the pages as the build does, without Sphinx.

``python -m gradcut.tools.drift.run_reference --results PATH`` finds every
``gradcut-reference`` table of the pages (:func:`gradcut.claims.reference.tables_in`) and checks
it with :func:`gradcut.claims.reference.check_table`, the function the build's directive calls.
Every row of a table is a claim: it holds when torch agrees with each of its cells.
"""

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path


def run(srcdir: Path, relative_to: Path, exclude=("examples",)) -> list[dict]:
    from gradcut.claims.reference import check_table, tables_in

    claims = []
    for page in sorted(srcdir.rglob("*.md")):
        if page.relative_to(srcdir).parts[0] in exclude:
            continue
        for table in tables_in(page.read_text(encoding="utf-8")):
            problems = defaultdict(list)
            for problem in check_table(table):
                problems[problem.line].append(problem.message)
            rows = [(n, text) for n, text in table if text.strip()]
            # The header row is a claim too (the columns it names must exist), the
            # delimiter row is not.
            for number, text in rows[:1] + rows[2:]:
                claim = {
                    "page": os.path.relpath(page, relative_to),
                    "line": number,
                    "source": text.strip(),
                    "expected": "torch agrees with every cell",
                    "status": "changed" if problems.get(number) else "holds",
                }
                if problems.get(number):
                    claim["got"] = "\n".join(problems.pop(number))
                claims.append(claim)
            for number, messages in problems.items():  # a problem off any row
                claims.append(
                    {
                        "page": os.path.relpath(page, relative_to),
                        "line": number,
                        "source": "",
                        "expected": "a table the build can check",
                        "status": "changed",
                        "got": "\n".join(messages),
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
    print(f"reference tables: {len(claims) - len(broken)} of {len(claims)} rows hold")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
