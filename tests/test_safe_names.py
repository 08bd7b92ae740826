"""A file name from outside (an asset record) is refused with a control character anywhere in
it (the C0 controls and DEL), and only then: other characters, non-ASCII ones included, pass."""

from __future__ import annotations

import pytest

from release.core.safe_names import file_name_problem


@pytest.mark.parametrize("code", [*range(32), 127])
@pytest.mark.parametrize("where", ["{}x.whl", "x{}y.whl", "x.whl{}"])
def test_a_control_character_anywhere_is_refused(code, where):
    assert file_name_problem(where.format(chr(code))) is not None


@pytest.mark.parametrize("name", ["a b.whl", "é.whl", "x\x80y.whl", "x\u2028y.whl", "x~y.whl"])
def test_other_characters_pass(name):
    assert file_name_problem(name) is None
