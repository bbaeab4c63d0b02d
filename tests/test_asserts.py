"""A failing assert in a gallery example shows the values it compared (gradcut.sphinxext.asserts)."""

import sys

from gradcut.sphinxext.asserts import explain, explanation


def test_a_comparison_shows_each_side():
    source = "a = 1\nb = [1, 2]\nassert a == len(b) == 2\n"
    namespace = {"a": 1, "b": [1, 2]}
    assert explanation(source, 3, namespace, namespace) == (
        "assert a == len(b) == 2\n"
        "    a = 1\n"
        "    b = [1, 2]"
    )


def test_and_shows_the_operand_that_failed():
    source = "assert x > 0 and y is None\n"
    namespace = {"x": 1, "y": "not none"}
    assert explanation(source, 1, namespace, namespace) == "assert x > 0 and y is None\n    y = 'not none'"


def test_a_multiline_assert_and_a_part_that_raises():
    source = "assert (\n    obj.missing\n    == 1\n)\n"
    text = explanation(source, 2, {"obj": object()}, {})
    assert text.startswith("assert obj.missing == 1\n")
    assert "obj.missing = (could not be read again: AttributeError:" in text


def test_an_assert_with_its_own_message_is_left_alone():
    assert explanation("assert x, 'x must be set'\n", 1, {"x": 0}, {}) is None


def test_the_example_frame_is_found_in_the_traceback(tmp_path):
    example = tmp_path / "plot_00_x.py"
    example.write_text("value = 3\nassert value % 2 == 0\n")
    try:
        exec(compile(example.read_text(), str(example), "exec"), {})
    except AssertionError:
        info = sys.exc_info()
    explain(info, str(example))
    assert str(info[1]) == "assert value % 2 == 0\n    value % 2 = 1"
