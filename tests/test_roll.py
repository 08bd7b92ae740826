"""Roll policies over real remotes: new pins, changelogs and every safety refusal."""

from __future__ import annotations

import pytest

from release import changelog, config
from release.errors import UserError
from release.roll import (BACKWARD, FORWARD, SIDEWAYS, Exact, FollowHead, FollowVia, StayManual,
                          policy_for, read_var, roll)
from tests.support.gitrepos import JAX_BZL


@pytest.fixture
def load(bump_project):
    def make(**kwargs):
        return config.load_deps(bump_project(**kwargs) / "deps.yaml")
    return make


def test_roll_all_in_dependency_order(load, git_remotes, tmp_path):
    c = git_remotes.c
    result = roll(load(), tmp_path / "cache")
    assert result.changed
    assert {d.name: d.commit for d in result.new} == {"plugin": c["P2"], "jax": c["J4"], "xla": c["Y_TIP"]}
    plugin, jax, xla = result.moves
    assert (plugin.name, plugin.count, plugin.direction) == ("plugin", 2, FORWARD)
    assert [e.subject for e in plugin.commits] == ["Roll xla", "Roll jax"]
    # via reads at plugin's NEW commit: P0 pinned J1/X1, P2 pins J4/Y_TIP.
    assert (jax.old, jax.new, jax.count) == (c["J1"], c["J4"], 4)
    assert jax.commits[0].author == "Grace Hopper" and jax.commits[0].sha == c["J4"]
    assert {e.sha for e in jax.commits} == {c["J2"], c["F1"], c["J3"], c["J4"]}
    assert (xla.count, xla.direction) == (30, FORWARD)  # across the force push: X1 is still an ancestor
    assert result.old[("plugin")].commit == c["P0"]


def test_via_deps_resolve_after_their_source_whatever_the_file_order(load, git_remotes, tmp_path):
    c = git_remotes.c
    result = roll(load(order=("xla", "jax", "plugin")), tmp_path / "cache")
    assert [m.name for m in result.moves] == ["xla", "jax", "plugin"]  # reported in file order
    assert result.new["xla"].commit == c["Y_TIP"] and result.new["jax"].commit == c["J4"]


def test_only_some_deps_and_via_reads_the_current_pin(load, git_remotes, tmp_path):
    c = git_remotes.c
    # Only xla: plugin stays at P0, which pins X1 -> nothing moves.
    assert not roll(load(), tmp_path / "cache", only=["xla"]).changed
    # Plugin already at P2: xla alone follows it; plugin and jax are left as they are.
    result = roll(load(commits={"plugin": c["P2"]}), tmp_path / "cache", only=["xla"])
    assert [m.name for m in result.moves] == ["xla"]
    assert result.new["jax"].commit == c["J1"] and result.new["plugin"].commit == c["P2"]


def test_manual_never_moves_and_to_pins_exactly(load, git_remotes, tmp_path):
    c = git_remotes.c
    deps = load(rolls={"jax": "manual"})
    result = roll(deps, tmp_path / "cache")
    assert result.new["jax"].commit == c["J1"] and "jax" not in [m.name for m in result.moves]
    result = roll(deps, tmp_path / "cache", only=["jax"], to=c["J3"])
    assert [(m.name, m.new, m.count) for m in result.moves] == [("jax", c["J3"], 3)]


@pytest.mark.parametrize("kwargs, roll_args, message", [
    (dict(plugin_branch="forky", commits={"plugin": "P2"}), {},
     "jax: commit {JF7} is not reachable from branch rocm-jaxlib-v0.9.1 of {jax_url} (a fork-only or "
     "dangling commit); refusing to pin it"),
    ({}, dict(only=["xla"], to="X2"),
     "xla: commit {X27} is not reachable from branch rocm-jaxlib-v0.9.1 of {xla_url} (a fork-only or "
     "dangling commit); refusing to pin it"),
    (dict(commits={"xla": "Y_TIP"}), dict(only=["xla"], to="Y5"),
     "xla: {Y57} is an ancestor of the pinned {Y_TIP7} (a move backwards); pass --allow-rewind to pin it "
     "anyway"),
    (dict(commits={"jax": "JS"}), {},
     "jax: {J47} and the pinned {JS7} have no ancestry (a sideways move); pass --allow-rewind to pin it "
     "anyway"),
    (dict(commits={"xla": "X2"}), dict(only=["plugin", "xla"]),
     "xla: {Y_TIP7} and the pinned {X27} have no ancestry (a sideways move); pass --allow-rewind to pin "
     "it anyway"),
    (dict(plugin_branch="novar", commits={"plugin": "P2"}), {},
     "xla: jax_rocm_plugin/third_party/xla/workspace.bzl at plugin {P_NOVAR7}: no XLA_COMMIT = \"<sha>\" "
     "in the file"),
    (dict(rolls={"xla": "{via: plugin, file: third_party/nope.bzl, var: XLA_COMMIT}"}), {},
     "xla: third_party/nope.bzl at plugin {P27}: no such file (roll policy via plugin expects "
     "XLA_COMMIT = \"<sha>\" there)"),
    ({}, dict(only=["nope"]), "--dep nope: no such dep in {deps} (expected one of plugin, jax, xla)"),
    ({}, dict(only=["jax"], to="abc"), "--to abc: expected a full commit SHA (40 lowercase hex digits)"),
    ({}, dict(to="J3"), "--to SHA pins one dep: give exactly one --dep NAME with it"),
    ({}, dict(only=["jax"], to="0" * 40), "jax: commit 0000000 not found on {jax_url}; nothing changed"),
])
def test_refusals_are_one_line(load, git_remotes, tmp_path, kwargs, roll_args, message):
    c = git_remotes.c
    if "commits" in kwargs:
        kwargs["commits"] = {k: c[v] for k, v in kwargs["commits"].items()}
    if roll_args.get("to") in c:
        roll_args["to"] = c[roll_args["to"]]
    deps = load(**kwargs)
    names = {f"{k}7": v[:7] for k, v in c.items()} | {
        f"{n}_url": git_remotes.url(n) for n in ("plugin", "jax", "xla")} | {"deps": deps.path}
    with pytest.raises(UserError) as err:
        roll(deps, tmp_path / "cache", **roll_args)
    assert str(err.value) == message.format(**names)


def test_allow_rewind_records_the_direction(load, git_remotes, tmp_path):
    c = git_remotes.c
    back = roll(load(commits={"xla": c["Y_TIP"]}), tmp_path / "cache", only=["xla"], to=c["Y5"],
                allow_rewind=True).moves[0]
    assert (back.direction, back.count, back.commits) == (BACKWARD, 0, ())
    # jax alone: plugin stays at P0, which pins J1; JS (side branch) -> J1 is sideways.
    side = roll(load(commits={"jax": c["JS"]}), tmp_path / "cache", only=["jax"], allow_rewind=True).moves[0]
    assert side.direction == SIDEWAYS and side.new == c["J1"]
    assert [e.sha for e in side.commits] == [c["J1"]]
    assert changelog.summary(side) == f"jax {c['JS'][:7]}..{c['J1'][:7]} (1 commit, sideways rewind)"


def test_read_var_forms():
    sha = "0123456789abcdef0123456789abcdef01234567"
    assert read_var(f'X = 1\nXLA_COMMIT = "{sha}"\n', "XLA_COMMIT", "w") == sha
    assert read_var(f"  XLA_COMMIT='{sha}'  # pinned\n", "XLA_COMMIT", "w") == sha
    with pytest.raises(UserError, match="no XLA_COMMIT"):
        read_var(f'MY_XLA_COMMIT = "{sha}"\n', "XLA_COMMIT", "w")
    with pytest.raises(UserError, match="expected a full commit SHA"):
        read_var('XLA_COMMIT = "main"\n', "XLA_COMMIT", "w")


def test_policies_print_for_logs():
    assert str(policy_for(config.RollHead())) == "head" and isinstance(policy_for(config.RollHead()), FollowHead)
    assert isinstance(policy_for(config.RollManual()), StayManual) and str(StayManual()) == "manual"
    via = policy_for(config.RollVia("plugin", JAX_BZL, "JAX_COMMIT"))
    assert via == FollowVia("plugin", JAX_BZL, "JAX_COMMIT")
    assert str(via) == "via plugin (JAX_COMMIT)" and via.file == JAX_BZL
    assert str(Exact("a" * 40)) == "exact aaaaaaa"


def test_changelog_markdown_title_and_compare_link():
    from release.git import LogEntry
    from release.roll import Move
    old, new = "b32df5f07315567cc1940388ef766b87c6e8b9e3", "d4e5f6a" + "0" * 33
    commits = tuple(LogEntry(f"{i:02d}" * 20, "2026-11-20T10:00:00+00:00", "Jane Doe",
                             f"Fix #{i} for @someone") for i in range(12, 0, -1))
    xla = Move("xla", "https://github.com/ROCm/xla", "rocm-jaxlib-v0.9.1", old, new, FORWARD, commits)
    jax = Move("jax", "https://example.org/jax.git", "main", "7f75782" + "1" * 33, "a1b2c3d" + "2" * 33,
               FORWARD, commits[:1])
    assert changelog.title((xla, jax)) == "Bump xla b32df5f..d4e5f6a (12 commits), jax 7f75782..a1b2c3d (1 commit)"
    text = changelog.markdown((xla, jax), max_lines=3)
    assert f"([compare](https://github.com/ROCm/xla/compare/{old}...{new}))" in text
    assert text.count("[compare]") == 1  # no link for a non-GitHub remote
    assert "- `1212121` 2026-11-20 Jane Doe: Fix #\u200b12 for @\u200bsomeone" in text  # no pings
    assert "- ... and 9 more" in text and text.count("Jane Doe") == 4
    data = changelog.to_json((xla,))
    assert data["changed"] is True and data["deps"]["xla"]["count"] == 12
    assert len(data["deps"]["xla"]["commits"]) == 12
    assert changelog.markdown(()) == "Pins are current.\n" and changelog.to_json(()) == {"changed": False, "deps": {}}
