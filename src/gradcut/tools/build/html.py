"""``make html``: the doctests, then each language's Sphinx build, then the new site.

One process, holding the build lock (:mod:`gradcut.tools.lock`) throughout, imports
torch and the extensions once and forks a child for each step:

1. with ``--doctest``, runs the doctests (:mod:`gradcut.tools.build.doctests`; only the
   files whose key changed) while it loads Sphinx, and stops when one fails;
2. builds each language with Sphinx into its own working folder under
   ``_build/.work/<lang>/`` (:mod:`gradcut.tools.build.languages`);
3. only when every language built without a warning, assembles a new folder under
   ``_build/sites/`` with the site's own pages (:mod:`gradcut.tools.build.site_pages`)
   and puts it in place of the last good site in one step
   (:mod:`gradcut.tools.build.publish`). A failed, killed or interrupted build leaves the
   last good site untouched. The process ends without tearing down what it imported.
"""

import json
import os
import shlex
import signal
import sys
from pathlib import Path

from gradcut.tools.build import LOCK, command_line, exit_now
from gradcut.tools.build.doctests import doctest_options, start_doctests
from gradcut.tools.build.languages import CHILDREN, OUT_FOR_MESSAGES, build_languages, stop_children, warm_up
from gradcut.tools.build.publish import publish
from gradcut.tools.lock import locked


def html_command(args) -> int:
    out = Path(args.out).resolve()
    options = shlex.split(args.sphinxopts)
    languages = args.languages
    with locked(LOCK):
        return build(out, languages, options, args)


def build(out: Path, languages: list[str], options: list[str], args) -> int:
    out.mkdir(parents=True, exist_ok=True)
    OUT_FOR_MESSAGES[:] = [out]
    signal.signal(signal.SIGTERM, stop_children)
    signal.signal(signal.SIGINT, stop_children)
    import torch  # noqa: F401  (once, for the doctests and every language)

    child = None
    if args.doctest is not None:
        child = start_doctests(out, doctest_options(out, shlex.split(args.doctest)))
    warm_up(languages, out / ".work")
    if child:
        _, status = os.waitpid(child, 0)
        CHILDREN.discard(child)
        if os.waitstatus_to_exitcode(status):
            print(
                f"\nbuild FAILED (doctests): see the messages above; "
                f"the last good site in {out / 'html'} is untouched.",
                file=sys.stderr,
            )
            return 1
    failed, timings = build_languages(out, languages, options, args.keep_going)
    if failed:
        print(
            f"\nbuild FAILED ({', '.join(failed)}): see the messages above; "
            f"the last good site in {out / 'html'} is untouched.",
            file=sys.stderr,
        )
        return 1
    # Seconds each language took, for `make bench`.
    (out / ".work" / "timings.json").write_text(json.dumps(timings) + "\n", encoding="utf-8")
    return publish(out, languages)


def main(argv=None) -> int:
    parser = command_line(__doc__)
    parser.add_argument("--sphinxopts", default="-W --keep-going -n -q")
    parser.add_argument("--keep-going", action="store_true", help="build the other languages after a failure")
    parser.add_argument("--doctest", metavar="ARGS", help="run the doctests first (pytest arguments)")
    return html_command(parser.parse_args(argv))


if __name__ == "__main__":
    exit_now(main())
