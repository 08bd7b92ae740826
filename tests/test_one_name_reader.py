"""One reader of wheel file names (``naming.Identity``): every other module asks it, so the
index, the resolver, the provenance and validate can never disagree about a wheel's name,
version or Pythons."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from release.build.provenance import pythons_of
from release.check.resolver import _versions_from_files
from release.core.naming import Identity

PACKAGE = Path(__file__).resolve().parents[1] / "release"


def test_only_naming_parses_wheel_file_names():
    callers = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == "parse_wheel_filename" or \
                    isinstance(node, ast.Attribute) and node.attr == "parse_wheel_filename":
                callers.append(str(path.relative_to(PACKAGE)))
    assert set(callers) == {"core/naming.py"}, callers


NAMES = st.one_of(
    st.builds(lambda dist, v, py: f"{dist}-{v}-{py}-{py}-manylinux_2_28_x86_64.whl",
              st.sampled_from(["jax_rocm7_plugin", "jax-rocm7-plugin", "jax_rocm7_pjrt", "other"]),
              st.sampled_from(["0.9.1", "0.9.1rc2", "0.10.0.dev20261122", "0.9.1.post1", "1!2.0",
                               "not.a.version", "0.9.1-1"]),
              st.sampled_from(["cp311", "cp312", "cp314", "py3"])),
    st.text(st.characters(min_codepoint=45, max_codepoint=122), max_size=60).map(lambda t: t + ".whl"),
)


@settings(max_examples=60, derandomize=True, deadline=None)
@given(names=st.lists(NAMES, max_size=6))
def test_the_resolver_and_the_provenance_read_names_as_identity_does(names):
    idents = [Identity.of(n) for n in names]
    assert pythons_of(names) == sorted({p for i in idents for p in i.pythons},
                                       key=lambda p: int(p.split(".")[1]))
    wanted = {str(v) for v in _versions_from_files("jax-rocm7-plugin", names)}
    assert wanted == {i.version for i in idents
                      if i.dist == "jax-rocm7-plugin" and i.version is not None}
