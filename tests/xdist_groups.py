"""Keep each ``xdist_group`` on one process under ``--dist loadgroup`` (a pytest plugin).

pytest-xdist tells its scheduler a test's group by a suffix of the test's node id
(``test_x[1]@group``), which its worker writes to ``item._nodeid``. pytest 9.2 keeps the
id in ``item._id`` instead, so the suffix never reached the scheduler: a group's tests
were spread over the processes, and a module-scoped fixture they share was set up again
on each process, and again each time another module's test ran in between. This plugin
adds the suffix where it is missing; where pytest-xdist's own works it does nothing.
``test_xdist_groups.py`` checks that it works.
"""

import pytest


def group_of(item) -> str | None:
    """The group of a test's ``xdist_group`` marks, their names joined as pytest-xdist does."""
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names)) or None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    if not getattr(config.option, "loadgroup", False):  # set on the workers of --dist loadgroup
        return
    for item in items:
        group = group_of(item)
        if group and not item.nodeid.endswith(f"@{group}"):
            nodeid = f"{item.nodeid}@{group}"
            if hasattr(item, "_id"):  # pytest >= 9.2: a structured id
                item._id = type(item._id).parse(nodeid)
            else:
                item._nodeid = nodeid
