"""One way to do each thing: one reader of wheel file names (``naming.Identity``: the index,
the resolver, the provenance and validate never disagree about a wheel's name, version or
Pythons), one atomic writer (``core.atomic``), one HTTP client (requests)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from release.build.provenance import pythons_of
from release.check.resolver import _versions_from_files
from release.core.naming import Identity

PACKAGE = Path(__file__).resolve().parents[1] / "release"


def users_of(name: str) -> set[str]:
    """The modules of the package that name ``name`` (a function, or a module they import)."""
    return {module for module, names in _names_by_module() if name in names}


@functools.cache
def _names_by_module() -> tuple[tuple[str, frozenset[str]], ...]:
    """Each module of the package with every name it uses: its names and attributes, the modules
    it imports and imports from. Parsed once per process (the package is a second of CPU to parse)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module is not None:
                names.add(node.module)
        found.append((str(path.relative_to(PACKAGE)), frozenset(names)))
    return tuple(found)


def test_only_naming_parses_wheel_file_names():
    assert users_of("parse_wheel_filename") == {"core/naming.py"}


def test_only_the_atomic_helper_syncs_a_file():
    """Four writers had four durabilities (two never fsynced): a small file goes through
    core.atomic.atomic_write."""
    assert users_of("fsync") == {"core/atomic.py"}


def test_one_http_client():
    """requests and urllib.request were both used; the public index is asked with requests."""
    assert not users_of("urllib.request") and not users_of("http.client")
    assert not users_of("httpx") and not users_of("urllib3")


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
