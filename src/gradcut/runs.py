"""What the extension and the tools both read of a run of the claims.

Below both: :mod:`gradcut.tools.pytest_plugin` and :mod:`gradcut.tools.releases` write
the runs, :mod:`gradcut.sphinxext.versions` shows them. It imports nothing of the project.
"""

import re

#: The newest patch of every minor release the site's claims are run on.
RELEASES = (
    "1.13.1", "2.0.1", "2.1.2", "2.2.2", "2.3.1", "2.4.1", "2.5.1", "2.6.0", "2.7.1",
    "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.1", "2.13.0", "2.14.1", "2.15.0",
)  # fmt: skip


def exception_only(text: str) -> str:
    """``RuntimeError: message`` for a traceback; any output printed before it is kept.

    A reader compares the error the page shows with the error torch raised; the frames
    in between (doctest's own with machine-specific paths, or the page's ``...``) say
    nothing about the claim.

    """
    header = "Traceback (most recent call last):"
    start = 0 if text.startswith(header) else text.find("\n" + header) + 1
    if start == 0 and not text.startswith(header):
        return text
    lines = text[start:].splitlines(keepends=True)[1:]
    while lines and (lines[0][:1].isspace() or lines[0].strip() == "..."):
        lines.pop(0)
    return text[:start] + "".join(lines)


# What a claim that expects an error got when the release raised none starts with (the
# site says it in each page's language).
NO_ERROR = "(no error was raised)"


# -- why a claim is n.a. on a release -----------------------------------------------
# The runs keep the reason as an English sentence (the results files are read by people
# too); the site says it in each page's language from its parts (parse_reason).

_ABSENT_REASON = "not in torch {version}: {error}"
_NEEDS_REASON = "needs line {line}, which cannot run on torch {version}"
_REASONS = {
    "absent": re.compile(r"^not in torch (?P<version>\S+): (?P<error>.+)$", re.S),
    "needs": re.compile(r"^needs line (?P<line>\d+), which cannot run on torch (?P<version>\S+)$"),
}


_SITE_PACKAGES = re.compile(r"(?:[A-Za-z]:)?[^\s()'\"]*[/\\]site-packages[/\\]")


def without_machine_paths(error: str) -> str:
    """``error`` with each path into a venv cut to the package's own part: an
    ImportError names ``torch/optim/swa_utils.py``, not the folder of the run's venv
    (Chinese review 4: the runner's paths reached the pages)."""
    return _SITE_PACKAGES.sub("", error)


def absent_reason(version: str, error: str) -> str:
    """The claim uses an API that ``version`` lacks; ``error`` is what torch raised."""
    return _ABSENT_REASON.format(version=version, error=without_machine_paths(error))


def needs_reason(version: str, line: int) -> str:
    """The claim needs what a claim on ``line`` made, and that one is n.a. on ``version``."""
    return _NEEDS_REASON.format(version=version, line=line)


def parse_reason(reason: str) -> tuple[str, dict[str, str]] | None:
    """``("absent", {"version", "error"})`` or ``("needs", {"version", "line"})`` for a
    reason written by :func:`absent_reason` or :func:`needs_reason`; None for another."""
    for kind, pattern in _REASONS.items():
        match = pattern.match(reason)
        if match:
            parts = match.groupdict()
            if "error" in parts:
                parts["error"] = without_machine_paths(parts["error"])
            return kind, parts
    return None
