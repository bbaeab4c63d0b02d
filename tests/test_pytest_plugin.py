"""The doctest step: claims per torch version, and failure reports a reader can act on."""

import importlib.metadata
import json
import subprocess
import sys
import textwrap

import pytest
from packaging.version import Version

from conftest import ROOT
from gradcut.tools.pytest_plugin import marker_problems

TORCH = Version(importlib.metadata.version("torch"))
NEXT = f"{TORCH.major}.{TORCH.minor + 1}"
THIS = f"{TORCH.major}.{TORCH.minor}"


def doctest_step(tmp_path, files: dict[str, str]):
    """Run the doctest step of the Makefile on ``files``; return (claims, output)."""
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    results = tmp_path / "results.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
         "-q", "-p", "no:cacheprovider", "--doctest-plus", "--doctest-only", "--doctest-glob=*.md",
         "--doctest-continue-on-failure", "--tb=no", f"--gradcut-results={results}", str(tmp_path)],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    claims = json.loads(results.read_text())["claims"] if results.exists() else []
    return {(c["page"], c["line"]): c for c in claims}, proc.stdout + proc.stderr


def test_doctest_requires_selects_claims_by_torch_version(tmp_path):
    claims, out = doctest_step(
        tmp_path,
        {
            "page.md": f"""\
            # Page

            On torch {NEXT} and later:

            % doctest-requires:: torch>={NEXT}
            ```pycon
            >>> "new behaviour"
            'new behaviour'

            ```

            Before {NEXT}:

            % doctest-requires:: torch>={THIS} torch<{NEXT}
            ```pycon
            >>> 1 + 1
            2

            ```
            """
        },
    )
    assert claims[("page.md", 7)]["status"] == "n.a.", out
    assert claims[("page.md", 16)]["status"] == "holds", out


@pytest.mark.parametrize(
    ("comment", "problem"),
    [
        (f"% doctest-requires:: torch>={NEXT}\n\n```pycon", "right above the opening"),
        (f"% doctest-requires:: torch >= {NEXT}\n```pycon", "`>=` is not a requirement"),
        (f"% doctest-requires:: torch>={THIS},<{NEXT}\n```pycon", f"`<{NEXT}` is not a requirement"),
        (f"% doctest-requires:: toch>={THIS}\n```pycon", "names nothing installed"),
        ("% doctest-skip\n\n```pycon", "right above the opening"),
    ],
)
def test_comments_doctestplus_would_misread_are_errors(comment, problem):
    found = marker_problems(f"# Page\n\n{comment}\n>>> 1\n1\n\n```\n")
    assert len(found) >= 1 and found[0][0] == 3
    assert any(problem in text for _, text in found), found


def test_well_placed_comments_pass():
    page = f"% doctest-requires:: torch>={THIS} numpy\n```pycon\n>>> 1\n1\n\n```\n% doctest-skip-all\n"
    assert marker_problems(page) == []


def test_misplaced_comment_fails_the_step_and_names_the_line(tmp_path):
    _, out = doctest_step(tmp_path, {"page.md": "# P\n\n% doctest-requires:: torch\n\n```pycon\n>>> 1\n1\n\n```\n"})
    assert "page.md:3: `doctest-requires` must stand right above" in out
    assert "1 failed" in out


def test_broken_claims_read_as_expected_vs_got(tmp_path):
    claims, out = doctest_step(
        tmp_path,
        {
            "page.md": """\
            # Page

            ```pycon
            >>> import torch
            >>> torch.ones(1, requires_grad=True).numpy()
            Traceback (most recent call last):
              ...
            RuntimeError: numpy() is not allowed here
            >>> for i in range(2):
            ...     print(i + 1)
            1
            3
            >>> torch.ones(1).numpy()
            Traceback (most recent call last):
              ...
            RuntimeError: no

            ```
            """,
            "helpers.py": '''\
            import contextlib


            @contextlib.contextmanager
            def quiet():
                """Nothing to see.

                >>> with quiet():
                ...     1 + 1
                3
                """
                yield
            ''',
        },
    )
    # Every broken claim of the run, in one report, without a traceback.
    assert "4 claims do not hold on torch" in out and "Traceback" not in out.split("do not hold on torch")[1]
    assert (
        "page.md:5: the page claims\n"
        ">>> torch.ones(1, requires_grad=True).numpy()\n"
        "  expected:\n"
        "    RuntimeError: numpy() is not allowed here\n"
        "  got:\n"
        "    RuntimeError: Can't call numpy() on Tensor that requires grad. "
        "Use tensor.detach().numpy() instead.\n"
    ) in out
    assert ">>> for i in range(2):\n...     print(i + 1)\n  expected:\n    1\n    3\n  got:\n    1\n    2" in out
    assert claims[("page.md", 13)]["expected"] == "RuntimeError: no"
    assert claims[("page.md", 13)]["got"] == "(no error was raised)\narray([1.], dtype=float32)"
    # A function under a decorator: the line of its example in the file.
    assert claims[("helpers.py", 8)]["status"] == "changed"


def test_cache_runs_only_changed_or_failing_files_and_keeps_every_claim(tmp_path):
    """``--gradcut-cache``: a file whose claims all held and whose text is the same is not
    run again; its claims still reach the results. A failing file runs every time."""

    def step(files, *extra):
        for name, text in files.items():
            (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
        results = tmp_path / "results.json"
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
             "-q", "-p", "no:cacheprovider", "--doctest-plus", "--doctest-only", "--doctest-glob=*.md",
             "--doctest-continue-on-failure", "--tb=no", f"--gradcut-results={results}",
             f"--gradcut-cache={tmp_path / 'cache.json'}", str(tmp_path), *extra],
            capture_output=True, text=True, check=False, cwd=tmp_path,
        )  # fmt: skip
        claims = json.loads(results.read_text())["claims"]
        return proc.returncode, sorted((c["page"], c["line"], c["status"]) for c in claims), proc.stdout

    page = "# {}\n\n```pycon\n>>> {}\n{}\n\n```\n"
    rc, claims, out = step({"a.md": page.format("A", "1 + 1", "2"), "b.md": page.format("B", "2 + 2", "4"),
                            "c.md": page.format("C", "3 + 3", "7")})  # fmt: skip
    assert rc == 1 and "1 failed, 2 passed" in out, out
    everything = [("a.md", 4, "holds"), ("b.md", 4, "holds"), ("c.md", 4, "changed")]
    assert claims == everything

    rc, claims, out = step({})  # nothing changed: only the failing file runs again
    assert rc == 1 and "1 failed, 2 deselected" in out, out
    assert claims == everything

    rc, claims, out = step({"b.md": page.format("B", "2 + 3", "5"), "c.md": page.format("C", "3 + 3", "6")})
    assert rc == 0 and "2 passed, 1 deselected" in out, out
    assert claims == [("a.md", 4, "holds"), ("b.md", 4, "holds"), ("c.md", 4, "holds")]

    rc, claims, out = step({})  # all held: nothing runs, every claim is still there
    assert rc == 0 and "3 deselected" in out, out
    assert len(claims) == 3

    (tmp_path / "a.md").unlink()  # a deleted page leaves the results
    rc, claims, out = step({})
    assert rc == 0 and [c[0] for c in claims] == ["b.md", "c.md"], out


def test_an_unexpected_error_is_a_changed_claim_and_the_page_goes_on(tmp_path):
    """A statement that raises where the page shows no error (an API a release lacks):
    that claim changed, with the error; the claims after it still run."""
    claims, out = doctest_step(
        tmp_path,
        {
            "page.md": """\
            # Page

            ```pycon
            >>> import torch
            >>> torch.no_such_function()
            >>> 1 + 1
            2

            ```
            """,
        },
    )
    assert claims[("page.md", 5)]["status"] == "changed", out
    assert claims[("page.md", 5)]["got"] == "AttributeError: module 'torch' has no attribute 'no_such_function'"
    assert claims[("page.md", 6)]["status"] == "holds"


def test_broken_claims_say_whether_the_author_edited_them(tmp_path):
    """A claim whose text changed since the last run is the author's to fix (paste what
    torch printed); one whose text is as it was when it held was broken by something else
    (torch, a helper, a line above it). The last run's results tell them apart."""
    page = """\
        # Page

        ```pycon
        >>> x = {x}
        >>> x + 1
        {x_plus_1}
        >>> "typed"
        {typed}
        >>> 1 / 0
        ```
        """
    claims, out = doctest_step(tmp_path, {"page.md": page.format(x=1, x_plus_1=2, typed="'typed'")})
    # the block has no blank line before its closing fence: the last claim reads it as output
    assert "1 claim does not hold on torch" in out, out  # a first run: nothing to compare with
    assert "got:\n    ZeroDivisionError: division by zero" in out, out
    assert "note: the last line of 'expected' is the block's closing ```" in out, out
    assert "Leave a blank line before the closing fence" in out

    claims, out = doctest_step(tmp_path, {"page.md": page.format(x=2, x_plus_1=2, typed="'tpyed'")})
    edited, no_longer, still = (out.index(s) for s in ("1 claim you wrote or edited does not hold",
                                                     "1 claim no longer holds", "1 claim still does not hold"))  # fmt: skip
    assert edited < out.index("page.md:7: the page claims") < no_longer, out
    assert no_longer < out.index("page.md:5: the page claims") < still, out
    assert still < out.index("page.md:9: the page claims"), out
    assert "if 'got' is right, paste it as the expected output" in out
    assert "a helper in src/ or a line above it in the page changed what it prints" in out
    assert "Traceback" not in out
