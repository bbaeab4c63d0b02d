"""Why a claim does not hold, told from what the last run knew of it.

A doctest that fails means one of two things, and the author acts differently on each:
they wrote or edited the claim (its expected output is not what torch prints: paste
what it prints), or the claim is as it was when it last held (torch, a helper in
``src/`` or a line above it changed what it prints). The last run's outcomes tell them
apart: the results file of the doctest step (every claim's outcome on this torch) and
the doctest cache (the claims of every file whose claims all held). A claim is matched
by its page, its code and its expected output -- not its line, which moves as the page
is edited.
"""

import json
import re
from pathlib import Path

EDITED = "edited"  # new, or its code or expected output changed since the last run
NO_LONGER = "no longer"  # held at the last run, text unchanged
STILL = "still"  # failed at the last run too, text unchanged
UNKNOWN = "unknown"  # no record of a last run, or it did not run then

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*$")


def _key(claim: dict) -> tuple:
    return claim["page"], claim["source"], claim["expected"]


def previous_outcomes(results: str | None, cache: str | None) -> dict[tuple, str] | None:
    """``{(page, code, expected): status}`` of the last run, or None when there is no
    record of one (a first run, a run without results)."""
    outcomes: dict[tuple, str] = {}
    found = False
    if cache:
        try:
            entries = json.loads(Path(cache).read_text(encoding="utf-8"))
            found = True
        except (OSError, ValueError):
            entries = {}
        for entry in entries.values() if isinstance(entries, dict) else ():
            for claim in entry.get("claims", []):
                outcomes[_key(claim)] = claim.get("status", "holds")
    if results:
        try:
            claims = json.loads(Path(results).read_text(encoding="utf-8"))["claims"]
            found = True
        except (OSError, ValueError, KeyError, TypeError):
            claims = []
        for claim in claims:
            # the results are the later record: a claim that failed since it was cached
            outcomes[_key(claim)] = claim.get("status", "holds")
    return outcomes if found else None


def kind(claim: dict, previous: dict[tuple, str] | None) -> str:
    if previous is None:
        return UNKNOWN
    status = previous.get(_key(claim))
    if status is None:
        return EDITED
    # n.a.: it did not run last time (a requirement left it out), so nothing is known
    return {"holds": NO_LONGER, "changed": STILL}.get(status, UNKNOWN)


# The title of each group, for one claim and for several, as the author reads them.
TITLES = {
    EDITED: ("{n} claim you wrote or edited does not hold", "{n} claims you wrote or edited do not hold"),
    NO_LONGER: (
        "{n} claim no longer holds (unchanged since the last run, where it held)",
        "{n} claims no longer hold (unchanged since the last run, where they held)",
    ),
    STILL: (
        "{n} claim still does not hold (unchanged since the last run, where it failed too)",
        "{n} claims still do not hold (unchanged since the last run, where they failed too)",
    ),
    UNKNOWN: ("{n} claim does not hold on torch {torch}", "{n} claims do not hold on torch {torch}"),
}


def headline(kind_: str, n: int, torch: str) -> tuple[str, str]:
    """The title of a group of broken claims, and what the author does about them."""
    title = TITLES[kind_][n != 1].format(n=n, torch=torch)
    plain = f"'expected' is what the page says; 'got' is what torch {torch} printed."
    if kind_ == EDITED:
        return title, (
            f"{plain} Outputs are pasted from a real run, never typed: if 'got' is right, "
            "paste it as the expected output; if not, fix the code of the claim."
        )
    if kind_ == NO_LONGER:
        return title, (
            f"The page's text of {'this claim' if n == 1 else 'these claims'} did not change: "
            f"torch ({torch}), a helper in src/ or a line above it in the page changed what "
            f"{'it prints' if n == 1 else 'they print'}. Read 'got': if it is torch's new "
            "behaviour, the page must say so."
        )
    return title, plain


def hint(claim: dict) -> str:
    """A rule of the pages that the claim's failure shows was broken, or ''."""
    lines = (claim.get("expected") or "").splitlines()
    if lines and _FENCE.match(lines[-1]):
        return (
            f"the last line of 'expected' is the block's closing {_FENCE.match(lines[-1])[1]}: "
            "doctest reads an expected output up to the next blank line, so a closing fence "
            "right under the output is read as output. Leave a blank line before the closing "
            "fence (README, Writing for the site)."
        )
    return ""
