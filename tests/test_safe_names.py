"""A file name from outside (an asset record) is refused with a control character anywhere in
it (the C0 controls and DEL), and only then: other characters, non-ASCII ones included, pass."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from release.core.safe_names import file_name_problem


@pytest.mark.parametrize("code", [*range(32), 127])
@pytest.mark.parametrize("where", ["{}x.whl", "x{}y.whl", "x.whl{}"])
def test_a_control_character_anywhere_is_refused(code, where):
    assert file_name_problem(where.format(chr(code))) is not None


@pytest.mark.parametrize("name", ["a b.whl", "é.whl", "x\x80y.whl", "x\u2028y.whl", "x~y.whl"])
def test_other_characters_pass(name):
    assert file_name_problem(name) is None


NAME_CHARS = st.sampled_from(["a", "Z", "0", "_", "-", "+", "~", ".", "/", "\\", " ", "\t", "\x00", "\x7f", "é",
                              "\u2028", "\ud800", ":"])


@given(name=st.lists(NAME_CHARS, max_size=12).map("".join)
       | st.builds(lambda c, n, tail: c * n + tail, st.sampled_from(["a", "é", "."]), st.integers(250, 258),
                   st.sampled_from(["", ".whl", " "])))
@example(name="a" * 255)
@example(name="a" * 256)
@example(name=".hidden")
@example(name="-")
@example(name="x.whl\n")
def test_the_quick_answer_for_plain_names_is_the_full_checks_answer(name):
    """The one-match answer for names of plain ASCII characters agrees with every check, for any
    name: the length limit, a leading dot, whitespace, separators, controls and non-ASCII ones."""
    from release.core import safe_names
    assert file_name_problem(name) == safe_names._problem(name)


@given(names=st.lists(st.lists(NAME_CHARS, max_size=6).map("".join), max_size=8))
@example(names=["a.whl", " a.whl", "a.whl ", "a.whl\n", "\x00a.whl", "a/a.whl"])
@example(names=["a" * 255, "a" * 256, "a" * 255 + ".whl"])
@example(names=["x.whl", ".x.whl", "x.whl", ".x.whl"])
def test_a_name_asked_again_or_after_others_has_the_full_checks_answer(names):
    """Names found plain are kept for the process (the index asks each asset's several times):
    whatever was asked before, in whatever order, each answer is the full checks' for its text."""
    from release.core import safe_names
    safe_names._PASSED.clear()
    for name in names + names[::-1]:
        assert file_name_problem(name) == safe_names._problem(name), name


def test_names_found_plain_are_kept_up_to_a_bound_and_only_those(monkeypatch):
    """A plain name is kept once found (asked again: one lookup), a refused one never is, and at
    most 65,536 are kept a process: names past the bound are checked in full on every asking."""
    from release.core import safe_names
    monkeypatch.setattr(safe_names, "_PASSED", set())
    assert file_name_problem("a.whl") is None and file_name_problem(".a.whl") is not None
    assert file_name_problem("a b.whl") is None  # plain by the full checks, not the one match
    assert safe_names._PASSED == {"a.whl", "a b.whl"}

    monkeypatch.setattr(safe_names, "_PASSED", {f"filler{n}" for n in range((1 << 16) - 1)})
    assert file_name_problem("b.whl") is None and "b.whl" in safe_names._PASSED  # the 65,536th
    assert file_name_problem("c.whl") is None and "c.whl" not in safe_names._PASSED
    assert len(safe_names._PASSED) == 1 << 16
