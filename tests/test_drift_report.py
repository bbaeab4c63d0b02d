"""The drift report: what a run of the doctests says of the site's claims, in Markdown.

`make doctest` writes it to ``<build>/drift-report.md``; the weekly newest-torch workflow
shows it as its job summary.
"""

import importlib.metadata
import subprocess
import sys

PAGE = '''\
# A page

A claim that holds:

>>> 1 + 1
2

A claim about a fence, which torch has since changed:

>>> print("```py")
```

A claim that no longer holds:

>>> for word in ["a", "b"]:
...     print(word)
a
c

'''


def run_doctests(tmp_path, page: str):
    (tmp_path / "page.md").write_text(page, encoding="utf-8")
    report = tmp_path / "out" / "drift-report.md"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "gradcut.tools.pytest_plugin",
         "--doctest-plus", "--doctest-glob=*.md", "--doctest-continue-on-failure",
         f"--gradcut-report={report}", "page.md"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return result, report


def test_report_names_each_broken_claim(tmp_path):
    result, report = run_doctests(tmp_path, PAGE)
    assert result.returncode == 1, result.stdout
    text = report.read_text(encoding="utf-8")
    torch = importlib.metadata.version("torch")
    assert text.startswith(f"## Drift report: torch {torch}\n")
    assert "**2 claims no longer hold**" in text and "(1 hold, 2 changed, 0 n.a.)" in text
    assert f"`make test TORCH={torch}`" in text
    assert [line for line in text.splitlines() if line.startswith("### ")] == [
        "### `page.md:10`",
        "### `page.md:15`",
    ]
    # an output with a fence in it gets a longer fence
    assert 'Expected:\n\n````text\n```\n````\n\nGot:\n\n````text\n```py\n````' in text
    assert "```pycon\n>>> for word in [\"a\", \"b\"]:\n...     print(word)\n```" in text
    assert "Expected:\n\n```text\na\nc\n```\n\nGot:\n\n```text\na\nb\n```" in text
    # the terminal says the same
    assert "page.md:15: the page claims" in result.stdout


def test_report_of_a_clean_run_replaces_an_older_one(tmp_path):
    older = tmp_path / "out" / "drift-report.md"
    older.parent.mkdir()
    older.write_text("## Drift report\n\n### `page.md:10`\n")
    result, report = run_doctests(tmp_path, PAGE.split("A claim about")[0])
    assert report == older
    assert result.returncode == 0, result.stdout
    text = report.read_text(encoding="utf-8")
    assert "Every claim holds on torch" in text and "(1 hold, 0 changed, 0 n.a.)" in text
    assert "###" not in text
