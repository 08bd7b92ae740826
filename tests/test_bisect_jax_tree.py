"""Bisect looks at the tree the line builds from.

Rules: in the rocm-jax layout a build reads the plugin's Bazel workspace ``jax_rocm_plugin/``
(the commits outside it are never probed: tests/test_bisect.py); in the jax-tree layout
(``jax: roll: {same: plugin}``) the plugin is jax's own tree, built from its root, so a commit
changing any file of it changes what is built ("plugin code"), even one outside
``jax_rocm_plugin/``; jax is never named as a move of its own there (it is the plugin's tree);
and a commit that changes only xla's pins (``revision.bzl``, and the ``archive_override`` of xla
in ``MODULE.bazel``) is xla's move, not code.
Generated repositories of the jax-tree layout (tests/support/jax_tree.py).
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core.config import parse_deps
from release.jobs import bisect
from release.sources import module_pin
from tests.support.jax_tree import (
    MODULE,
    PLUGIN_BRANCH,
    REVISION,
    build_jax_tree,
    digest,
    module_bazel,
    revision_bzl,
)

SHA = "0123456789abcdef0123456789abcdef01234567"
ROCM_JAX = f"""deps:
  plugin:
    url: https://github.com/ROCm/rocm-jax
    branch: master
    commit: {SHA}
    roll: head
  jax:
    url: https://github.com/ROCm/jax
    branch: rocm-jaxlib-v0.9.1
    commit: {SHA}
    roll: {{via: plugin, file: jax_rocm_plugin/third_party/jax/workspace.bzl}}
  xla:
    url: https://github.com/ROCm/xla
    branch: rocm-jaxlib-v0.9.1
    commit: {SHA}
    roll: {{via: plugin, file: jax_rocm_plugin/third_party/xla/workspace.bzl}}
"""


@pytest.fixture(scope="module")
def line(tmp_path_factory):
    """jax's ROCm branch J0 .. J2 (tests/support/jax_tree.py), then an xla roll in both its pins,
    one also adding a dep to MODULE.bazel, a CI-only commit, one taking xla's archive_override out
    of MODULE.bazel, and one rolling xla in revision.bzl alone."""
    root = tmp_path_factory.mktemp("jax-tree-bisect")
    jt = build_jax_tree(root / "upstream")
    x1, x2 = jt.c["X1"], jt.c["X2"]
    jt.c["XROLL"] = jt.jax.commit(PLUGIN_BRANCH, "Update XLA dependency", {
        REVISION: revision_bzl(x1, digest(x1)), MODULE: module_bazel(x1, digest(x1))})
    jt.c["BOTH"] = jt.jax.commit(PLUGIN_BRANCH, "Update XLA and a toolchain", {
        REVISION: revision_bzl(x2, digest(x2)), MODULE: module_bazel(x2, digest(x2)) + 'bazel_dep(name = "zlib")\n'})
    jt.c["CI"] = jt.jax.commit(PLUGIN_BRANCH, "CI only", {".github/workflows/ci.yml": "on: push\n"})
    jt.c["MOD"] = jt.jax.commit(PLUGIN_BRANCH, "Bzlmod: xla from revision.bzl", {MODULE: 'module(name = "jax")\n'})
    jt.c["ROLL"] = jt.jax.commit(PLUGIN_BRANCH, "Update XLA", {REVISION: revision_bzl(jt.c["X1"], digest(jt.c["X1"]))})
    deps = parse_deps(root / "deps.yaml", jt.deps_yaml())
    good = {"plugin": jt.c["J0"], "jax": jt.c["J0"], "xla": jt.c["X0"]}
    bad = {"plugin": jt.c["ROLL"], "jax": jt.c["ROLL"], "xla": jt.c["X1"]}
    return jt, deps, good, bad, root


def test_the_build_tree_is_the_layouts(line, tmp_path):
    _, deps, _, _, _ = line
    assert bisect.build_tree(deps) == ""  # jax's own tree, all of it
    assert bisect.build_tree(parse_deps(tmp_path / "deps.yaml", ROCM_JAX)) == "jax_rocm_plugin/"


def test_every_file_of_jax_s_tree_is_plugin_code_and_jax_never_moves_alone(line):
    jt, deps, good, bad, root = line
    c = jt.c
    candidates, _ = bisect.list_candidates(deps, good, bad, root / "cache")
    moved = {cand.sha: cand.moved for cand in candidates}
    assert list(moved) == [c["J1"], c["J2"], c["XROLL"], c["BOTH"], c["CI"], c["MOD"], c["ROLL"]]
    assert moved[c["J1"]] == ("plugin code",)  # jax_plugins/rocm/: outside jax_rocm_plugin/
    assert moved[c["J2"]] == ("plugin code", "xla")  # plugin_setup.py changed with the roll
    assert moved[c["XROLL"]] == ("xla",)  # revision.bzl and MODULE.bazel's xla override: xla's pins
    assert moved[c["BOTH"]] == ("plugin code", "xla")  # MODULE.bazel changed beyond the pin
    assert moved[c["CI"]] == ("plugin code",)
    assert moved[c["MOD"]] == ("plugin code",)
    assert moved[c["ROLL"]] == ("xla",)  # revision.bzl alone: xla's pin, not code
    assert not any(cand.inert for cand in candidates)
    assert all(cand.commits["jax"] == cand.sha for cand in candidates)  # one tree


def test_a_jax_tree_culprit_is_named_by_what_moved(line, tmp_path):
    jt, deps, good, bad, root = line
    c = jt.c
    probe = bisect.CommandProbe(f'[ "$BISECT_PLUGIN_COMMIT" = {c["ROLL"]} ] && exit 1; exit 0', tmp_path)
    ends = {"name": "good", "commits": good}, {"name": "bad", "commits": bad}
    outcome = bisect.run_bisect(deps, *ends, probe, tmp_path / "bisect", root / "cache", date=dt.date(2026, 11, 28))
    assert outcome.culprit is not None and outcome.culprit.sha == c["ROLL"]
    assert outcome.culprit.moved == ("xla",)
    probe = bisect.CommandProbe(f'[ "$BISECT_PLUGIN_COMMIT" = {c["J0"]} ]', tmp_path)  # J1 on is bad
    outcome = bisect.run_bisect(deps, *ends, probe, tmp_path / "bisect", root / "cache", reset=True,
                                date=dt.date(2026, 11, 28))
    assert outcome.culprit is not None and outcome.culprit.sha == c["J1"]
    assert outcome.culprit.moved == ("plugin code",)


@given(st.lists(st.sampled_from(["xla", "rules_ml_toolchain", "zlib"]), unique=True),
       st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00")
               | st.sampled_from(["\u2028", "\x0c", "\x85", "é", "\U0001f600"]), max_size=20),
       st.integers(0, 2**160 - 1))
def test_module_bazel_less_the_named_pins_is_the_same_whatever_they_pin(names, comment, commit):
    """MODULE.bazel with the archive_override of ``names`` cut out: equal for any commit and digest
    those pin (a comment in any script before them: columns count bytes), and never equal when
    something else changed."""
    other = f"{commit:040x}"
    text = f"# {comment}\n" + module_bazel(SHA, digest(SHA))
    moved = f"# {comment}\n" + module_bazel(other, digest(other))
    same = module_pin.without_overrides(text, names) == module_pin.without_overrides(moved, names)
    assert same is ("xla" in names or other == SHA)
    assert module_pin.without_overrides(text + 'bazel_dep(name = "zlib")\n', names) != \
        module_pin.without_overrides(text, names)
    assert module_pin.without_overrides(text, ()) == text
    assert module_pin.without_overrides("archive_override(", names) is None  # not parseable


@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00")
                        | st.sampled_from(["\u2028", "\x0c", "é", "\U0001f600"]), max_size=8), max_size=3),
       st.sampled_from(["", 'x = "é😀"; ', "x = 1; "]), st.booleans())
def test_the_override_is_cut_out_exactly_where_it_is_written(comments, before, multiline):
    """Only the call's own text goes: what precedes it on its line (bytes, not characters), the
    lines before it and the line end after it stay."""
    head = "".join(f"# {c}\n" for c in comments) + 'module(name = "jax")\n' + before
    call = (f'archive_override(\n    module_name = "xla",\n    urls = ["https://x/{SHA}.tar.gz"],\n)'
            if multiline else f'archive_override(module_name = "xla", urls = ["https://x/{SHA}.tar.gz"])')
    tail = '\nbazel_dep(name = "zlib")\n'
    assert module_pin.without_overrides(head + call + tail, ["xla"]) == head + tail
    assert module_pin.without_overrides(head + call + tail, ["zlib"]) == head + call + tail
