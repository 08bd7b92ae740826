"""Upstream Python and Starlark read without running it, within bounds: whatever jax's
version.py or a workspace.bzl holds (deep expressions, strings doubled until they fill memory,
format padding, huge or look-alike numbers, NUL bytes, broken syntax), reading it gives the pin or
the line, or one line naming the file; never a RecursionError, MemoryError or ValueError."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from release.core.errors import UserError
from release.sources.line import parse_version_py
from release.sources.pins import MAX_VALUE, read_pin

SHA = "0123456789abcdef0123456789abcdef01234567"


def _deep(kind: str, n: int) -> str:
    return {"neg": "-" * n + "1", "parens": "(" * n + '"a"' + ")" * n, "sum": " + ".join(['"a"'] * n),
            "list": "[" * n + "]" * n, "call": "f(" * n + ")" * n, "attr": "a" + ".b" * n}[kind]


_PIECES = st.one_of(
    st.builds(lambda k, n: f"X = {_deep(k, n)}\n", st.sampled_from(["neg", "parens", "sum", "list", "call", "attr"]),
              st.sampled_from([10, 60, 199, 2_500, 60_000])),
    st.builds(lambda n: 'A = "0123456789"\n' + "".join(f"A{i + 1} = A{i or ''} + A{i or ''}\n" for i in range(n))
              + f'git_repository(name = "jax", remote = "r", commit = A{n})\n', st.integers(1, 45)),
    st.builds(lambda w: f'C = "{{c:>{w}}}".format(c = "x")\ngit_repository(name = "jax", commit = C, remote = "r")\n',
              st.sampled_from([5, 10**9, 10**30])),
    st.sampled_from([f'JAX_COMMIT = "{SHA}"\n', f'git_repository(name = "jax", commit = "{SHA}", remote = "r")\n',
                     '_version = "0.9.1"\n', f'_version = "0.{"9" * 5000}.1"\n', "_version = '0.\u0669.1'\n",
                     "x = (\n", "\0", "def f(:\n", f"N = {'9' * 5000}\n", "_version: str = '1.2.3'\n"]),
    st.text(max_size=40),
)


@given(pieces=st.lists(_PIECES, max_size=4), var=st.none() | st.just("JAX_COMMIT"))
def test_any_workspace_bzl_is_a_pin_or_one_line(pieces, var):
    text = "".join(pieces)
    try:
        pin = read_pin(text, name="jax", where="third_party/jax/workspace.bzl", var=var)
    except UserError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("third_party/jax/workspace.bzl: ")
        assert len(str(exc)) < 2_000
        return
    assert pin.commit == SHA and all(len(p) <= MAX_VALUE for p in pin.patches)


@given(pieces=st.lists(_PIECES, max_size=4))
def test_any_version_py_is_a_line_or_one_line(pieces):
    try:
        line = parse_version_py("".join(pieces), "jax/version.py at 0123456")
    except UserError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("jax/version.py at 0123456: ")
        assert len(str(exc)) < 2_000
        return
    assert line.isascii() and all(len(part) <= 9 for part in line.split("."))
