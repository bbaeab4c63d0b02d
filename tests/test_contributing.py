"""The contributing guide (.github/CONTRIBUTING.md) names only what exists.

A guide that names a command or a file that is gone sends a newcomer the wrong way on
their first day. Every `make <target>` it names is a target `make help` lists; every path
it names is in the tree (a ``<placeholder>`` matches any name; build outputs, which a
fresh clone lacks, are named by what .gitignore ignores); every message it quotes from
the project's code is still in that code; the README links to it.
"""

import re
import subprocess

import pytest

from conftest import ROOT

GUIDE = ROOT / ".github" / "CONTRIBUTING.md"
CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
PATH = re.compile(r"^\.?[\w.<>-]+(/[\w.<>*-]*)+$|^[\w<>-]+\.(md|py|po|json|txt|toml|yml)$")
# Messages of the gates the guide quotes, and where the project's code says them (those
# of Sphinx, sphinx-gallery and make are theirs).
OTHERS = {"reference target not found", "unexpectedly failed to execute correctly"}


def code_of_guide() -> list[str]:
    text = GUIDE.read_text(encoding="utf-8")
    blocks = FENCED.findall(text)
    spans = CODE_SPAN.findall(FENCED.sub("", text))
    return [*blocks, *spans]


def make_targets(build) -> set[str]:
    # BUILD elsewhere: reading the Makefile records its source list in the build folder
    out = subprocess.run(
        ["make", "-s", "help", f"BUILD={build}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return {line.split()[0] for line in out.splitlines() if line.startswith("  ")}


def test_every_make_target_it_names_exists(tmp_path):
    named = {m for code in code_of_guide() for m in re.findall(r"\bmake ([a-z][\w-]*)", code)}
    assert {"html", "livehtml", "po", "torch-run", "test"} <= named, named
    targets = make_targets(tmp_path)
    assert named <= targets, f"not in `make help`: {sorted(named - targets)}"


def _ignored(path: str) -> bool:
    return subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT).returncode == 0


@pytest.mark.parametrize("path", sorted({c.strip() for c in code_of_guide() if PATH.match(c.strip())}))
def test_every_path_it_names_exists(path):
    if _ignored(path.replace("<", "").replace(">", "")):
        return  # a build output: made by the command the guide names
    pattern = re.sub(r"<[^>]+>", "*", path).rstrip("/")
    if "/" not in pattern:  # a file named in the text about its folder
        pattern = f"**/{pattern}"
    assert list(ROOT.glob(pattern)), f"{path} names nothing in the tree"


def test_every_message_it_quotes_is_said_by_the_code():
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split("## What the gates check", 1)[1].split("\n## ", 1)[0]
    quoted = re.findall(r"^- `([^`]+)`", section, re.M)
    assert len(quoted) >= 10, quoted
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "src").rglob("*.py"))
    for message in quoted:
        if message in OTHERS:
            continue
        # the words before the first placeholder, as the code writes them
        fixed = re.split(r"…|\(…\)", message)[0].strip()
        assert fixed and fixed in sources, f"no code says {message!r} any more"


def test_the_readme_links_to_it():
    assert "(.github/CONTRIBUTING.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
