"""Drift simulation: would the site notice if torch changed what it says?

Each patch in :mod:`gradcut.tools.drift.patches` changes one behaviour of torch that the site
documents, the way a future release might. ``make drift`` (``python -m gradcut.tools.drift``)
runs the fast gate (:mod:`gradcut.tools.drift.gate`: the doctests and the gallery, the same
claims the build verifies) once on the real torch, which must pass, then once per patch,
which must fail. A patch the gate survives is a hole: a behaviour the site describes
but no claim checks.

The patch is chosen by the environment variable ``GRADCUT_DRIFT`` and applied right
after ``import torch`` by ``_hook/sitecustomize.py``, which the gate puts on
``PYTHONPATH`` of the processes it starts; nothing else ever imports it.
"""
