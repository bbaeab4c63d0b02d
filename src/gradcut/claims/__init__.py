"""What the claims run: code that pages' doctests, gallery examples and the sweep tables
import, on any torch release from the oldest the site runs on, with torch (NumPy,
matplotlib) alone.

- :func:`describe` prints one line of what autograd knows about a tensor.
- :func:`same_storage` tells whether two tensors look at the same memory.
- :func:`expect_error` and :func:`expect_warning` show an error or warning that torch
  raises and fail loudly when it is not raised, or is worded differently.
- :mod:`gradcut.claims.draw` draws autograd graphs and memory for the gallery's figures
  (imported on its own, so that importing this package stays cheap).
- :mod:`gradcut.claims.sweeps`: the sweeps, tables of cases measured on the installed torch.

Nothing here imports the rest of the project: a torch release's venv runs these modules
with ``src/`` on its path and neither Sphinx nor the build's tools installed.
"""

from gradcut.claims.expect import ExpectationError, expect_error, expect_warning
from gradcut.claims.tensors import describe, same_storage

__all__ = [
    "ExpectationError",
    "describe",
    "expect_error",
    "expect_warning",
    "same_storage",
]
