"""Claims that hold on any CPU, not only on the one that built the site.

torch picks its CPU kernels by what the processor can do (``torch.backends.cpu.
get_cpu_capability()``: ``default``, ``avx2``, ``avx512`` on x86), and two kernels may
round a float32 sum differently in its last bit. A printed value that sits on a rounding
boundary, or a count that depends on where rounding meets a tolerance, is then right on
one machine and wrong on the next: a fresh clone of this site once failed its build on a
machine with AVX-512, where ``weight_grad`` printed ``-4.2345`` for the page's ``-4.2346``
and an ``LBFGS`` line search moved a version by 27 for the table's 24.

Here the claims run again with torch's default kernels, those without vector
instructions (``ATEN_CPU_CAPABILITY=default``), as a release's run checks them: the
doctests of the pages and of :mod:`gradcut.claims`, and every row of the sweep tables.
A claim that this changes is one that rounding decides: the page must show something
that does not. (For both claims above, ``avx2`` and ``avx512`` gave the same values as
each other and ``default`` other ones. The gallery's examples print what they compute
at build; their asserts ran with the three kernels once, by hand.)
"""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from gradcut.tools.releases import _run_env

ROOT = Path(__file__).resolve().parents[1]

NATIVE = torch.backends.cpu.get_cpu_capability().lower()

# One process, the claims as a release's run checks them (gradcut.tools.releases): the
# doctests of the pages and of gradcut.claims, then every row of the sweep tables.
_RUN = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import pytest
    import torch

    from gradcut.tools.drift import run_reference
    from gradcut.tools.releases import DOCTEST_ARGS, claim_paths

    print("capability:", torch.backends.cpu.get_cpu_capability(), flush=True)
    code = pytest.main([*DOCTEST_ARGS, *claim_paths(Path.cwd())])
    rows = run_reference.run(Path("docs"), Path.cwd())
    broken = [row for row in rows if row["status"] != "holds"]
    for row in broken:
        print(f"{row['page']}:{row['line']}: {row.get('got') or row.get('reason')}")
    print(f"sweep tables: {len(rows) - len(broken)} of {len(rows)} rows hold")
    sys.exit(1 if code or broken else 0)
    """
)


@pytest.mark.skipif(NATIVE == "default", reason="this machine's own kernels are the default ones")
def test_claims_hold_with_the_default_kernels():
    capability = "default"
    env = dict(_run_env(ROOT), ATEN_CPU_CAPABILITY=capability)
    run = subprocess.run(
        [sys.executable, "-c", _RUN], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    # the kernels asked for are the ones that ran (an unknown name falls back silently)
    assert f"capability: {capability.upper()}\n" in run.stdout, run.stdout[:500] + run.stderr[-2000:]
    assert run.returncode == 0, (
        f"with ATEN_CPU_CAPABILITY={capability} (this machine: {NATIVE}) a claim does not hold: "
        f"rounding decides it\n{run.stdout[-6000:]}\n{run.stderr[-2000:]}"
    )
