"""deps.yaml's ``roll:`` values, read one at a time and checked as a graph (release.core.rolls).

The rules, from the module and docs/reference/files.md: ``head``, ``manual``, ``{head: true,
require: green|[names][, max_walk: N]}``, ``{via, file[, var, branches]}`` and ``{same: DEP}``;
every other value is one ConfigError naming the file, the key, the value and what was expected.
The graph of via and same edges names existing deps, has no cycle, and a same dep is pinned as its
source is. ``str(roll)`` is how a policy reads in ``release status``, the dashboard and errors.
Unit level: no git, no files, no servers.
"""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from release.core.config import Dep
from release.core.errors import ConfigError, UserError
from release.core.rolls import (
    DEFAULT_BRANCHES,
    DEFAULT_MAX_WALK,
    RollHead,
    RollManual,
    RollSame,
    RollVia,
    check_graph,
    exact_keys,
    parse_roll,
    source_of,
)

PATH = Path("deps.yaml")
WHERE = "deps.jax.roll"
SHA = "a" * 40

names = st.text(string.ascii_letters + string.digits + "-_ .", min_size=1, max_size=12).filter(str.strip)
idents = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,10}\Z")
rel_files = st.lists(st.from_regex(r"\A[a-z_][a-z0-9_.]{0,8}\Z").filter(lambda p: p != ".."),
                     min_size=1, max_size=3).map("/".join)
globs = st.from_regex(r"\A[A-Za-z0-9_/*?-][A-Za-z0-9_/*?-]{0,12}\Z")
not_strings = st.one_of(st.none(), st.integers(), st.booleans(), st.floats(allow_nan=False),
                        st.lists(st.integers(), max_size=2),
                        st.dictionaries(st.text(max_size=2), st.integers(), max_size=1))


def refused(raw: object, where: str = WHERE) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_roll(PATH, where, raw)
    err = info.value
    assert isinstance(err, UserError) and err.exit_code == 2
    assert err.path == str(PATH)
    assert str(err).startswith(f"{PATH}: {err.key}: got ")
    return err


# --- the plain words -----------------------------------------------------------------------

def test_head_and_manual_are_the_plain_words():
    assert parse_roll(PATH, WHERE, "head") == RollHead(None, DEFAULT_MAX_WALK) == RollHead()
    assert DEFAULT_MAX_WALK == 20
    assert parse_roll(PATH, WHERE, "manual") == RollManual()
    assert str(parse_roll(PATH, WHERE, "head")) == "head"
    assert str(parse_roll(PATH, WHERE, "manual")) == "manual"


@given(st.one_of(st.text(max_size=8).filter(lambda s: s not in ("head", "manual")),
                 st.integers(), st.none(), st.booleans(), st.lists(st.text(max_size=3), max_size=2)))
def test_any_other_value_that_is_no_mapping_is_refused_naming_every_form(raw):
    err = refused(raw)
    assert err.key == WHERE and err.value == raw
    assert err.expected == ("'head', 'manual', a mapping {head: true, require: green|[names][, max_walk: N]}, "
                            "a mapping {via, file[, var, branches]} or a mapping {same: DEP}")


# --- {head: true, ...} ---------------------------------------------------------------------

def test_a_head_mapping_alone_is_head():
    roll = parse_roll(PATH, WHERE, {"head": True})
    assert roll == RollHead(None, 20) and str(roll) == "head"


@given(st.one_of(st.just(False), st.just(1), st.just("true"), st.just("yes"), st.none(), st.just([True])))
def test_head_must_be_true_itself(value):
    err = refused({"head": value})
    assert (err.key, err.value, err.expected) == (f"{WHERE}.head", value, "true")


@given(st.integers(min_value=1, max_value=10_000))
def test_require_green_with_any_walk_of_one_or_more(walk):
    roll = parse_roll(PATH, WHERE, {"head": True, "require": "green", "max_walk": walk})
    assert roll == RollHead("green", walk)
    assert str(roll) == "head (green)"
    assert parse_roll(PATH, WHERE, {"head": True, "require": "green"}) == RollHead("green", 20)


@given(st.lists(names, min_size=1, max_size=4))
def test_require_names_are_kept_in_order_without_their_spaces(checks):
    padded = [f"  {c}\t" for c in checks]
    roll = parse_roll(PATH, WHERE, {"head": True, "require": padded})
    assert isinstance(roll, RollHead) and roll.max_walk == 20
    assert roll.require == tuple(c.strip() for c in checks)
    assert str(roll) == f"head (green: {', '.join(c.strip() for c in checks)})"


def test_require_names_read_as_users_see_them():
    assert str(RollHead(("build", "gpu"))) == "head (green: build, gpu)"
    assert str(RollHead(("build",), 3)) == "head (green: build)"
    assert str(RollHead("green", 3)) == "head (green)"
    assert str(RollHead(None, 3)) == "head"


@given(st.one_of(st.just([]), st.just(["build", " "]), st.just([""]), st.lists(st.integers(), min_size=1, max_size=2),
                 st.just("red"), st.just("Green"), st.just(True), st.just(3), st.just({"green": 1}),
                 st.text(max_size=6).filter(lambda s: s != "green")))
def test_require_is_green_or_a_list_of_check_names(value):
    err = refused({"head": True, "require": value})
    assert (err.key, err.value) == (f"{WHERE}.require", value)
    assert err.expected == "'green' (every check) or a list of check names"


@given(st.one_of(st.integers(max_value=0), st.booleans(), st.just(2.0), st.just("3"), st.just([5])))
def test_max_walk_is_a_whole_number_of_one_or_more(walk):
    err = refused({"head": True, "require": "green", "max_walk": walk})
    assert (err.key, err.value) == (f"{WHERE}.max_walk", walk)
    assert err.expected == "a whole number of commits, 1 or more"


@given(st.integers(min_value=1, max_value=100))
def test_max_walk_needs_require(walk):
    err = refused({"head": True, "max_walk": walk})
    assert (err.key, err.value, err.expected) == (f"{WHERE}.max_walk", walk, "max_walk only together with require")


def test_max_walk_of_one_is_the_least():
    assert parse_roll(PATH, WHERE, {"head": True, "require": ["ci"], "max_walk": 1}) == RollHead(("ci",), 1)


@given(st.sampled_from(["via", "same", "file", "walk", "requires", "hold"]))
def test_a_head_mapping_takes_only_its_keys(extra):
    err = refused({"head": True, extra: "x"})
    assert (err.key, err.value) == (f"{WHERE}.{extra}", "an unknown key")
    assert err.expected == "only head, require, max_walk"


# --- {same: DEP} ---------------------------------------------------------------------------

@given(names)
def test_same_names_another_dep(name):
    roll = parse_roll(PATH, WHERE, {"same": name})
    assert roll == RollSame(name) and str(roll) == f"same as {name}"
    assert source_of(roll) == name


@given(st.one_of(not_strings, st.just("")))
def test_same_is_a_dep_name(value):
    err = refused({"same": value})
    assert (err.key, err.value, err.expected) == (f"{WHERE}.same", value, "the name of another dep")


@given(st.sampled_from(["file", "var", "branches", "via", "require"]))
def test_same_stands_alone(extra):
    err = refused({"same": "plugin", extra: "x"})
    assert (err.key, err.value, err.expected) == (f"{WHERE}.{extra}", "an unknown key", "only same")


# --- {via, file[, var, branches]} ----------------------------------------------------------

@given(names, rel_files, st.one_of(st.none(), idents), st.one_of(st.none(), globs))
def test_via_reads_its_four_keys(via, file, var, branches):
    raw = {"via": via, "file": file}
    if var is not None:
        raw["var"] = var
    if branches is not None:
        raw["branches"] = branches
    assume(branches is None or ".." not in branches)
    roll = parse_roll(PATH, WHERE, raw)
    assert roll == RollVia(via, file, var, branches if branches is not None else DEFAULT_BRANCHES)
    assert DEFAULT_BRANCHES == "rocm-jaxlib-v*"
    assert source_of(roll) == via
    assert str(roll) == (f"via {via} ({var})" if var else f"via {via}")


def test_via_reads_as_users_see_it():
    assert str(RollVia("plugin", "third_party/xla/workspace.bzl")) == "via plugin"
    assert str(RollVia("jax", "third_party/xla/revision.bzl", "XLA_COMMIT")) == "via jax (XLA_COMMIT)"


@pytest.mark.parametrize("raw, key", [({"file": "a.bzl"}, "via"), ({"via": "plugin"}, "file"), ({}, "via")])
def test_via_and_file_are_both_needed(raw, key):
    err = refused(raw)
    assert (err.key, err.value, err.expected) == (f"{WHERE}.{key}", "nothing (missing)", "this key to be present")


@given(st.sampled_from(["require", "max_walk", "commit", "vars", "branch"]))
def test_via_takes_only_its_keys(extra):
    err = refused({"via": "plugin", "file": "a.bzl", extra: "x"})
    assert (err.key, err.value) == (f"{WHERE}.{extra}", "an unknown key")
    assert err.expected == "only via, file, var, branches"


@given(st.sampled_from(["via", "file", "var", "branches"]), st.one_of(not_strings, st.just("")))
def test_every_via_value_is_a_non_empty_string(key, value):
    raw = {"via": "plugin", "file": "a.bzl", key: value}
    err = refused(raw)
    assert (err.key, err.value, err.expected) == (f"{WHERE}.{key}", value, "a non-empty string")


@given(st.sampled_from(["/etc/a.bzl", "/a", "..", "../a.bzl", "a/../../b.bzl", "a/.."]))
def test_file_stays_inside_the_via_repository(file):
    err = refused({"via": "plugin", "file": file})
    assert (err.key, err.value, err.expected) == (f"{WHERE}.file", file, "a path relative to the via repository")


def test_dots_inside_a_file_name_are_no_parent():
    assert parse_roll(PATH, WHERE, {"via": "plugin", "file": "a..b/c...bzl"}).file == "a..b/c...bzl"


@given(st.sampled_from(["1COMMIT", "XLA-COMMIT", "XLA COMMIT", "XLA_COMMIT\n", "x.y", "COMMİT", "٣X"]))
def test_var_is_an_ascii_identifier(var):
    err = refused({"via": "plugin", "file": "a.bzl", "var": var})
    assert (err.key, err.value, err.expected) == (f"{WHERE}.var", var, "an identifier such as XLA_COMMIT")


@given(st.sampled_from(["rocm..v*", "a b", "rocm-jaxlib-v*\n", "v~1", "v^", "v:x", "ŕocm*", "v٣*"]))
def test_branches_is_a_plain_branch_pattern(branches):
    err = refused({"via": "plugin", "file": "a.bzl", "branches": branches})
    assert (err.key, err.value) == (f"{WHERE}.branches", branches)
    assert err.expected == "a branch name pattern such as rocm-jaxlib-v*"


def test_branches_takes_every_glob_character():
    roll = parse_roll(PATH, WHERE, {"via": "x", "file": "f", "branches": "rocm/jaxlib-v[0-9].?_*"})
    assert isinstance(roll, RollVia) and roll.branches == "rocm/jaxlib-v[0-9].?_*"


# --- exact_keys (shared with the rest of deps.yaml's reader) -----------------------------------

def test_a_key_at_the_top_is_named_alone():
    with pytest.raises(ConfigError) as info:
        exact_keys(PATH, "", {"deps": {}, "extra": 1}, ("deps",), ("deps",))
    assert (info.value.key, info.value.value, info.value.expected) == ("extra", "an unknown key", "only deps")
    with pytest.raises(ConfigError) as info:
        exact_keys(PATH, "", {}, ("deps",), ("deps",))
    assert (info.value.key, info.value.value) == ("deps", "nothing (missing)")
    exact_keys(PATH, "", {"deps": 1}, ("deps",), ("deps", "more"))


# --- the graph -----------------------------------------------------------------------------

def dep(name: str, roll, url: str | None = None, branch: str = "main", commit: str = SHA) -> Dep:
    return Dep(name, url or f"https://example.invalid/{name}", branch, commit, roll)


def graph_refused(items) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        check_graph(PATH, items)
    assert info.value.path == str(PATH) and "\n" not in str(info.value)
    return info.value


def test_the_shipped_layouts_pass():
    check_graph(PATH, [dep("plugin", RollHead()), dep("jax", RollVia("plugin", "j.bzl")),
                       dep("xla", RollVia("plugin", "x.bzl"))])
    plugin = dep("plugin", RollHead("green"), url="https://example.invalid/jax")
    check_graph(PATH, [plugin, dep("jax", RollSame("plugin"), url=plugin.url),
                       dep("xla", RollVia("jax", "r.bzl", "XLA_COMMIT"))])
    check_graph(PATH, [dep("xla", RollVia("jax", "r.bzl")), dep("jax", RollVia("plugin", "j.bzl")),
                       dep("plugin", RollManual())])


@given(st.sampled_from(["via", "same"]), st.permutations(["plugin", "jax", "xla"]))
def test_a_source_that_is_no_dep_is_refused_naming_the_others(kind, order):
    roll = RollVia("ghost", "f.bzl") if kind == "via" else RollSame("ghost")
    items = [dep(n, roll if n == "jax" else RollHead()) for n in order]
    err = graph_refused(items)
    assert (err.key, err.value) == (f"deps.jax.roll.{kind}", "ghost")
    assert err.expected == "one of the other deps (plugin, xla)"


def test_a_dep_reading_itself_is_no_other_dep():
    err = graph_refused([dep("jax", RollVia("jax", "f")), dep("plugin", RollHead())])
    assert err.key == "deps.jax.roll.via" and err.value == "jax"
    assert "no cycle" in err.expected and "(found jax -> jax)" in err.expected


@given(st.integers(min_value=2, max_value=5), st.randoms(use_true_random=False))
def test_a_cycle_of_via_deps_is_refused_naming_it(length, rnd):
    ring = [f"d{i}" for i in range(length)]
    items = [dep(n, RollVia(ring[(i + 1) % length], "f.bzl")) for i, n in enumerate(ring)]
    items.append(dep("plugin", RollHead()))
    rnd.shuffle(items)
    err = graph_refused(items)
    start = err.key.split(".")[1]
    assert err.key == f"deps.{start}.roll.via"
    i = ring.index(start)
    assert err.value == ring[(i + 1) % length]
    walk = [ring[(i + k) % length] for k in range(length + 1)]
    assert err.expected == f"no cycle of via or same deps (found {' -> '.join(walk)})"


def test_a_cycle_through_a_same_dep_names_same():
    err = graph_refused([dep("a", RollSame("b")), dep("b", RollVia("a", "f"))])
    assert err.key == "deps.a.roll.same" and err.value == "b"
    assert err.expected == "no cycle of via or same deps (found a -> b -> a)"


def test_a_chain_into_a_cycle_names_the_cycle_only():
    err = graph_refused([dep("tail", RollVia("a", "f")), dep("a", RollVia("b", "f")), dep("b", RollVia("a", "f"))])
    assert err.key == "deps.tail.roll.via"
    assert err.expected.endswith("(found a -> b -> a)")


def test_a_same_dep_reads_no_same_dep():
    plugin = dep("plugin", RollHead())
    items = [plugin, dep("jax", RollSame("plugin"), url=plugin.url), dep("pjrt", RollSame("jax"), url=plugin.url)]
    err = graph_refused(items)
    assert (err.key, err.value) == ("deps.pjrt.roll.same", "jax")
    assert err.expected == "a dep that is not itself 'same' (jax is same as plugin)"


@given(st.sampled_from(["url", "branch", "commit"]), st.booleans())
def test_a_same_dep_is_pinned_as_its_source(field, jax_first):
    plugin = dep("plugin", RollHead(), url="https://example.invalid/jax")
    same = dict(url=plugin.url, branch=plugin.branch, commit=plugin.commit)
    other = {"url": "https://example.invalid/fork", "branch": "rocm-jaxlib-v0.10.0", "commit": "b" * 40}[field]
    same[field] = other
    jax = dep("jax", RollSame("plugin"), **same)
    err = graph_refused([jax, plugin] if jax_first else [plugin, jax])
    assert (err.key, err.value) == (f"deps.jax.{field}", other)
    assert err.expected == (f"deps.plugin.{field} ({getattr(plugin, field)}): roll {{same: plugin}} "
                            "is one tree, pinned once")


def test_source_of_a_policy_with_no_source_is_none():
    assert source_of(RollHead()) is None and source_of(RollManual()) is None
