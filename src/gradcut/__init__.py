"""Helpers that make the site's examples and doctests short and exact.

- :func:`describe` prints one line of what autograd knows about a tensor.
- :func:`same_storage` tells whether two tensors look at the same memory.
- :func:`expect_error` and :func:`expect_warning` show an error or warning that torch
  raises and fail loudly when it is not raised, or is worded differently.

Drawing helpers live in :mod:`gradcut.draw`, so that importing this module stays cheap.
"""

from gradcut.expect import ExpectationError, expect_error, expect_warning
from gradcut.tensors import describe, same_storage

__version__ = "0.1.0"
__all__ = [
    "ExpectationError",
    "describe",
    "expect_error",
    "expect_warning",
    "same_storage",
]
