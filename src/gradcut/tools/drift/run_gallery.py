"""Run the gallery examples exactly as sphinx-gallery runs them in the build, without Sphinx.

``python -m gradcut.tools.drift.run_gallery --results PATH`` reads ``sphinx_gallery_conf`` from
``conf.py``, then hands every example to sphinx-gallery's own ``generate_file_rst`` --
the function the build calls for each example: same parser, same ``reset_modules``,
same execution and capture -- writing the generated files into a throw-away folder
instead of ``docs/examples/``. Every executed example is a claim: it holds when it ran
through (or failed, if it is listed in ``expected_failing_examples``), and is
``changed`` otherwise, with the line of the example where it stopped and the error.
"""

import argparse
import json
import os
import re
import runpy
import sys
import tempfile
from pathlib import Path

FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+)')


def failure(src_file: Path, formatted: str) -> dict:
    """Where in the example it stopped, and the error without the traceback."""
    lines = formatted.rstrip("\n").splitlines()
    line, last_frame = None, -1
    for i, text in enumerate(lines):
        match = FRAME.match(text)
        if match and Path(match["file"]).resolve() == src_file.resolve():
            line = int(match["line"])
        if match:
            last_frame = i
    # The error itself: what follows the last frame and its code line(s).
    rest = lines[last_frame + 1 :] if last_frame >= 0 else lines[1:]
    while rest and rest[0].startswith("    "):
        rest = rest[1:]
    source = ""
    if line is not None:
        source = src_file.read_text(encoding="utf-8").splitlines()[line - 1].strip()
    return {"line": line or 1, "source": source, "got": "\n".join(rest)}


def examples(gallery_conf: dict, srcdir: Path):
    """Yield ``(examples_dir, gallery_dir, file)`` in the order the build runs them."""
    from sphinx_gallery.gen_rst import executable_script

    pairs = zip(gallery_conf["examples_dirs"], gallery_conf["gallery_dirs"], strict=True)
    for examples_dir, gallery_dir in pairs:
        source = (srcdir / examples_dir).resolve()
        for path in sorted(source.rglob("*.py")):
            if re.search(gallery_conf["ignore_pattern"], str(path)):
                continue
            if not executable_script(str(path), gallery_conf):
                continue
            yield source, gallery_dir, path


def run(confdir: Path, srcdir: Path, relative_to: Path) -> list[dict]:
    from sphinx_gallery.gen_gallery import (
        _expected_failing_examples,
        _fill_gallery_conf_defaults,
        _update_gallery_conf_builder_inited,
    )
    from sphinx_gallery.gen_rst import generate_file_rst

    sys.path.insert(0, str(confdir))
    conf = runpy.run_path(str(confdir / "conf.py"))
    gallery_conf = _fill_gallery_conf_defaults(conf.get("sphinx_gallery_conf", {}))
    for key in ("examples_dirs", "gallery_dirs"):
        if isinstance(gallery_conf[key], str):
            gallery_conf[key] = [gallery_conf[key]]
    claims = []
    with tempfile.TemporaryDirectory(prefix="gradcut-gallery-") as tmp:
        # sphinx-gallery resolves expected failures relative to the source folder.
        gallery_conf["src_dir"] = str(srcdir)
        expected_failing = _expected_failing_examples(gallery_conf)
        _update_gallery_conf_builder_inited(gallery_conf, tmp)
        for source, gallery_dir, path in examples(gallery_conf, srcdir):
            rel = path.relative_to(source)
            target = Path(tmp, gallery_dir, rel).parent
            target.mkdir(parents=True, exist_ok=True)
            page = (Path(gallery_dir) / rel).with_suffix("").as_posix()
            *_, out_vars = generate_file_rst(rel.name, target, path.parent, gallery_conf)
            passed = bool(out_vars.get("passing"))
            expected_to_fail = str(path) in expected_failing
            claim = {
                "page": os.path.relpath(path, relative_to),
                "generated": page,
                "line": 1,
                "source": "",
                "expected": "fails (expected_failing_examples)"
                if expected_to_fail
                else "runs to the end",
            }
            if passed != expected_to_fail:
                claim["status"] = "holds"
            elif passed:
                claim.update(status="changed", got="ran to the end")
            else:
                claim.update(status="changed", **failure(path, out_vars["formatted_exception"]))
            claims.append(claim)
    return claims


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--confdir", default=".", help="folder of conf.py (default: .)")
    parser.add_argument("--srcdir", default="docs", help="Sphinx source folder (default: docs)")
    parser.add_argument("--results", required=True, help="write the claims here (JSON)")
    args = parser.parse_args(argv)
    root = Path.cwd()
    claims = run(Path(args.confdir).resolve(), Path(args.srcdir).resolve(), root)
    Path(args.results).write_text(json.dumps(claims, indent=1) + "\n", encoding="utf-8")
    broken = [c for c in claims if c["status"] == "changed"]
    print(f"gallery: {len(claims) - len(broken)} of {len(claims)} examples hold")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
