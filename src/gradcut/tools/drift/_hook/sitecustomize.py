"""Apply the drift patch named by ``GRADCUT_DRIFT`` right after ``import torch``.

This folder is put first on ``PYTHONPATH`` by :mod:`gradcut.tools.drift` only, so that
Python runs this file at start-up in every process of a gate run (pytest, the
gallery runner). Nothing happens unless ``GRADCUT_DRIFT`` is set.
"""

import importlib.abc
import importlib.util
import os
import sys


def _chain_next_sitecustomize():
    """Run the sitecustomize this one hides, if the environment has one."""
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if os.path.abspath(entry or os.curdir) == here:
            continue
        candidate = os.path.join(entry or os.curdir, "sitecustomize.py")
        if os.path.isfile(candidate):
            spec = importlib.util.spec_from_file_location("_next_sitecustomize", candidate)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


class _AfterTorch(importlib.abc.MetaPathFinder):
    """Find ``torch`` as usual, then patch it once it has finished importing."""

    def __init__(self, patch: str):
        self.patch = patch

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None:
            return spec
        loader, patch = spec.loader, self.patch

        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                from gradcut.tools.drift.patches import apply

                apply(patch)

        spec.loader = Loader()
        return spec


_chain_next_sitecustomize()
if os.environ.get("GRADCUT_DRIFT"):
    sys.meta_path.insert(0, _AfterTorch(os.environ["GRADCUT_DRIFT"]))
