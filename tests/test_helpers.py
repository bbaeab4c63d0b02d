"""The helpers the examples and pages use."""

import warnings

import pytest
import torch

from gradcut.claims import ExpectationError, describe, expect_error, expect_warning, same_storage


def test_describe_reports_autograd_state():
    x = torch.ones(2, requires_grad=True)
    assert describe(x * 2) == "requires_grad=True is_leaf=False grad_fn=MulBackward0 _version=0"


def test_describe_inference_tensor_has_no_version():
    with torch.inference_mode():
        t = torch.ones(2)
    assert describe(t).endswith("_version=n/a")


def test_same_storage():
    x = torch.zeros(4)
    assert same_storage(x, x[2:]) and not same_storage(x, x.clone())


def test_expect_error_prints_and_swallows(capsys):
    with expect_error(ValueError, "bad"):
        raise ValueError("bad")
    assert capsys.readouterr().out == "ValueError: bad\n"


@pytest.mark.parametrize(
    ("raise_", "problem"),
    [
        (None, "nothing was raised"),
        (ValueError("worse"), "message changed"),
        (KeyError("bad"), "KeyError was raised"),
    ],
)
def test_expect_error_fails_when_torch_changes(raise_, problem):
    with pytest.raises(ExpectationError, match=problem):
        with expect_error(ValueError, "bad"):
            if raise_ is not None:
                raise raise_


def test_expect_error_needs_a_message():
    with pytest.raises(TypeError):
        with expect_error(ValueError):
            pass


def test_expect_error_per_torch_version(capsys):
    messages = {"<2.0": "ancient", ">=2.0": "bad"}
    with expect_error(ValueError, messages):
        raise ValueError("bad")
    assert capsys.readouterr().out == "ValueError: bad\n"
    with pytest.raises(ExpectationError, match="2 of the expected messages"):
        with expect_error(ValueError, {">=1": "a", ">=2": "b"}):
            raise ValueError("bad")


def test_expect_warning(capsys):
    with expect_warning(UserWarning, "careful"):
        warnings.warn("careful", stacklevel=1)
    assert capsys.readouterr().out == "UserWarning: careful\n"
    with pytest.raises(ExpectationError, match="nothing was warned"):
        with expect_warning(UserWarning, "careful"):
            pass
