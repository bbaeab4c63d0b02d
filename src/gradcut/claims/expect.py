"""Show an error or a warning that torch raises, and fail when torch stops raising it.

A page that says "this raises" is only true while it raises. These helpers raise
:class:`ExpectationError` -- failing the build -- when nothing was raised, when something
else was raised, or when the message changed.

In the gallery, an example shows the error with plain Python that a reader runs as is,
and the build checks it in ``# sphinx_gallery_start_ignore`` blocks, which stay out of
the rendered code and of the downloads::

    try:
        c.sum().backward()
        # sphinx_gallery_start_ignore
        not_raised(RuntimeError)
        # sphinx_gallery_end_ignore
    except RuntimeError as err:
        print(f"RuntimeError: {err}")
        # sphinx_gallery_start_ignore
        caught(err, RuntimeError, "element 0 of tensors does not require grad ...")
        # sphinx_gallery_end_ignore

:func:`expect_error` and :func:`expect_warning` do the same in one ``with`` block.
"""

import contextlib
import re
import warnings
from collections.abc import Mapping

__all__ = ["ExpectationError", "caught", "expect_error", "expect_warning", "not_raised"]


class ExpectationError(AssertionError):
    """torch did not raise or warn what the example says it does."""


def _expected_message(message):
    """Pick the message for the installed torch from ``{specifier: message}``.

    Messages that differ between torch releases are written once per release range,
    e.g. ``{"<2.14": "old wording", ">=2.14": "new wording"}``.
    """
    if not isinstance(message, Mapping):
        return message
    import importlib.metadata

    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    version = Version(importlib.metadata.version("torch")).release
    installed = Version(".".join(map(str, version)))
    matches = [text for spec, text in message.items() if installed in SpecifierSet(spec)]
    if len(matches) != 1:
        raise ExpectationError(
            f"torch {installed}: {len(matches)} of the expected messages "
            f"{sorted(message)} apply; exactly one must"
        )
    return matches[0]


def _check(kind: str, got: str, message, match) -> None:
    expected = _expected_message(message)
    if expected is not None and got != expected:
        raise ExpectationError(
            f"the {kind} message changed.\n  expected: {expected!r}\n       got: {got!r}"
        )
    if match is not None and not re.search(match, got):
        raise ExpectationError(
            f"the {kind} message no longer matches {match!r}.\n       got: {got!r}"
        )


def caught(err: BaseException, exc_type: type[BaseException], message=None, *, match=None):
    """The error an example caught is exactly ``exc_type``, with exactly ``message``.

    >>> try:
    ...     1 / 0
    ... except ArithmeticError as err:
    ...     caught(err, ZeroDivisionError, "division by zero")
    >>> try:
    ...     1 / 0
    ... except ArithmeticError as err:
    ...     caught(err, ZeroDivisionError, "division by nothing")
    Traceback (most recent call last):
      ...
    gradcut.claims.expect.ExpectationError: the ZeroDivisionError message changed.
      expected: 'division by nothing'
           got: 'division by zero'
    >>> try:
    ...     int("x")
    ... except Exception as err:
    ...     caught(err, ZeroDivisionError, "division by zero")
    Traceback (most recent call last):
      ...
    gradcut.claims.expect.ExpectationError: expected ZeroDivisionError, but ValueError was raised: invalid literal for int() with base 10: 'x'
    """
    if message is None and match is None:
        raise TypeError("caught needs the expected message (or a match pattern)")
    if type(err) is not exc_type:
        raise ExpectationError(
            f"expected {exc_type.__name__}, but {type(err).__name__} was raised: {err}"
        ) from err
    _check(exc_type.__name__, str(err), message, match)


def not_raised(exc_type: type[BaseException]):
    """Fail: the statement before this one should have raised ``exc_type``.

    >>> try:
    ...     1 / 1
    ...     not_raised(ZeroDivisionError)
    ... except ZeroDivisionError as err:
    ...     print(err)
    Traceback (most recent call last):
      ...
    gradcut.claims.expect.ExpectationError: expected ZeroDivisionError, but nothing was raised
    """
    raise ExpectationError(f"expected {exc_type.__name__}, but nothing was raised")


@contextlib.contextmanager
def expect_error(exc_type: type[BaseException], message=None, *, match=None):
    """Expect the block to raise ``exc_type`` with exactly ``message``; print it.

    >>> with expect_error(ZeroDivisionError, "division by zero"):
    ...     1 / 0
    ZeroDivisionError: division by zero

    Nothing raised, another type or another message: :class:`ExpectationError`.

    >>> with expect_error(ZeroDivisionError, "division by zero"):
    ...     1 / 1
    Traceback (most recent call last):
      ...
    gradcut.claims.expect.ExpectationError: expected ZeroDivisionError: 'division by zero', but nothing was raised
    >>> with expect_error(ZeroDivisionError, "division by nothing"):
    ...     1 / 0
    Traceback (most recent call last):
      ...
    gradcut.claims.expect.ExpectationError: the ZeroDivisionError message changed.
      expected: 'division by nothing'
           got: 'division by zero'
    """
    if message is None and match is None:
        raise TypeError("expect_error needs the expected message (or a match pattern)")
    try:
        yield
    except exc_type as err:
        got = str(err)
        _check(exc_type.__name__, got, message, match)
        print(f"{type(err).__name__}: {got}")
    except Exception as err:
        raise ExpectationError(
            f"expected {exc_type.__name__}, but {type(err).__name__} was raised: {err}"
        ) from err
    else:
        raise ExpectationError(
            f"expected {exc_type.__name__}: {_expected_message(message)!r}, "
            "but nothing was raised"
        )


@contextlib.contextmanager
def expect_warning(category: type[Warning], message=None, *, match=None):
    """Expect the block to warn ``category`` with exactly ``message``; print it.

    Printed without the file and line Python's own warning display adds, so that
    captured outputs are the same on every machine.

    >>> import warnings
    >>> with expect_warning(UserWarning, "careful"):
    ...     warnings.warn("careful")
    UserWarning: careful
    >>> with expect_warning(UserWarning, "careful"):
    ...     pass
    Traceback (most recent call last):
      ...
    gradcut.claims.expect.ExpectationError: expected UserWarning: 'careful', but nothing was warned
    """
    if message is None and match is None:
        raise TypeError("expect_warning needs the expected message (or a match pattern)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    hits = [w for w in caught if issubclass(w.category, category)]
    for w in caught:
        if w not in hits:  # not ours to judge: show it as Python would
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    if not hits:
        raise ExpectationError(
            f"expected {category.__name__}: {_expected_message(message)!r}, "
            "but nothing was warned"
        )
    for w in hits:
        got = str(w.message)
        _check(category.__name__, got, message, match)
        print(f"{w.category.__name__}: {got}")
