"""Roll policies over real remotes: new pins, changelogs and every safety refusal."""

from __future__ import annotations

import pytest

from release.core import config
from release.core.errors import UserError
from release.sources import changelog
from release.sources.pins import read_var
from release.sources.roll import BACKWARD, FORWARD, SIDEWAYS, Exact, FollowHead, FollowVia, StayManual, policy_for, roll
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
     "jax: commit {JF7} (pinned by plugin in jax_rocm_plugin/third_party/jax/workspace.bzl) is on no official "
     "branch of {jax_url} (not reachable from any branch matching rocm-jaxlib-v*: only on a fork or pull "
     "request?); refusing to pin it"),
    ({}, dict(only=["xla"], to="X2"),
     "xla: commit {X27} (pinned by plugin in jax_rocm_plugin/third_party/xla/workspace.bzl) is on no official "
     "branch of {xla_url} (not reachable from any branch matching rocm-jaxlib-v*: only on a fork or pull "
     "request?); refusing to pin it"),
    (dict(commits={"plugin": "P2"}), dict(only=["plugin"], to="P0"),
     "plugin: {P07} is an ancestor of the pinned {P27} (a move back 2 commits); pass --allow-rewind to pin "
     "it anyway"),
    (dict(plugin_branch="forky", commits={"plugin": "P_NOVAR"}), {},
     "plugin: {P_FORK7} and the pinned {P_NOVAR7} have diverged from the merge-base {P27} (a sideways move); "
     "pass --allow-rewind to pin it anyway"),
    ({}, dict(only=["plugin"], to="P_FORK"),
     "plugin: commit {P_FORK7} is not reachable from branch master of {plugin_url}; refusing to pin it "
     "(a head dep stays on its branch)"),
    (dict(plugin_branch="novar", commits={"plugin": "P2"}), {},
     "xla: jax_rocm_plugin/third_party/xla/workspace.bzl at plugin {P_NOVAR7}: no pinned commit found "
     "(expected a repository rule with commit = ... or an archive URL built from a commit, or one "
     "*_COMMIT = \"<sha>\")"),
    (dict(plugin_branch="novar", commits={"plugin": "P2"},
          rolls={"xla": "{via: plugin, file: jax_rocm_plugin/third_party/xla/workspace.bzl, var: XLA_COMMIT}"}),
     {}, "xla: jax_rocm_plugin/third_party/xla/workspace.bzl at plugin {P_NOVAR7}: no XLA_COMMIT = \"<sha>\" "
     "in the file (drop var: from deps.yaml to find the pin by structure)"),
    (dict(rolls={"xla": "{via: plugin, file: third_party/nope.bzl, var: XLA_COMMIT}"}), {},
     "xla: third_party/nope.bzl at plugin {P27}: no such file (roll policy via plugin expects the pin of "
     "xla there)"),
    ({}, dict(only=["nope"]), "--dep nope: no such dep in {deps} (expected one of plugin, jax, xla)"),
    ({}, dict(only=["jax"], to="abc"), "--to abc: expected a full commit SHA (40 lowercase hex digits)"),
    ({}, dict(to="J3"), "--to SHA pins one dep: give exactly one --dep NAME with it"),
    ({}, dict(only=["jax"], to="0" * 40),
     "jax: commit 0000000 (pinned by plugin in jax_rocm_plugin/third_party/jax/workspace.bzl) not found on "
     "{jax_url}; refusing to pin it"),
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
    back = roll(load(commits={"plugin": c["P2"]}), tmp_path / "cache", only=["plugin"], to=c["P0"],
                allow_rewind=True).moves[0]
    assert (back.direction, back.count, back.commits, back.dropped) == (BACKWARD, 0, (), 2)
    assert changelog.summary(back) == f"plugin {c['P2'][:7]}..{c['P0'][:7]} (back 2 commits)"


def test_via_moves_any_way_without_allow_rewind(load, git_remotes, tmp_path):
    c = git_remotes.c
    # xla pinned at Y_TIP; --to Y5 on a via dep: a move back, taken (the source is the authority).
    back = roll(load(commits={"xla": c["Y_TIP"]}), tmp_path / "cache", only=["xla"], to=c["Y5"]).moves[0]
    assert (back.direction, back.dropped, back.branch) == (BACKWARD, 26, "rocm-jaxlib-v0.9.1")
    assert changelog.sentence(back) == f"xla: moved back 26 commits to {c['Y5'][:7]} (as given with --to)"
    # jax alone: plugin stays at P0, which pins J1; JS (side branch) -> J1 is sideways.
    side = roll(load(commits={"jax": c["JS"]}), tmp_path / "cache", only=["jax"]).moves[0]
    assert side.direction == SIDEWAYS and side.new == c["J1"] and side.merge_base == c["J0"]
    assert [e.sha for e in side.commits] == [c["J1"]] and side.dropped == 1
    assert changelog.summary(side) == f"jax {c['JS'][:7]}..{c['J1'][:7]} (1 commit, sideways)"
    # a pin that no longer exists anywhere: replaced, without walking the new pin's whole history.
    gone = roll(load(commits={"jax": "ab" * 20}), tmp_path / "cache", only=["jax"]).moves[0]
    assert (gone.direction, gone.new, gone.commits) == (SIDEWAYS, c["J1"], ())
    assert changelog.sentence(gone) == (f"jax: replaced abababa, which no longer exists upstream, with "
                                        f"{c['J1'][:7]} on rocm-jaxlib-v0.9.1 (as the plugin pins)")
    # the old pin X2 was force-pushed away (dangling): still a plain roll to what the plugin pins.
    result = roll(load(commits={"xla": c["X2"]}), tmp_path / "cache", only=["plugin", "xla"])
    assert result.new["xla"].commit == c["Y_TIP"]


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
    assert str(policy_for(config.RollVia("plugin", JAX_BZL))) == "via plugin"
    assert str(Exact("a" * 40, via)) == "exact aaaaaaa"


def test_changelog_markdown_title_and_compare_link():
    from release.sources.git import LogEntry
    from release.sources.roll import Move
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


# ---------------------------------------------------------------- reading pins, ordering branches

SHA1, SHA2 = "1" * 40, "2" * 40
SUM = "a" * 64
HTTP_ARCHIVE = f'''load("//third_party:repo.bzl", "amd_http_archive")

COMMIT = "{SHA1}"
SHA = "{SUM}"

def repo():
    amd_http_archive(
        name = "jax",
        sha256 = SHA,
        strip_prefix = "jax-{{commit}}".format(commit = COMMIT),
        urls = ["https://github.com/jax-ml/jax/archive/{{commit}}.tar.gz".format(commit = COMMIT)],
        patch_file = [
            "//third_party/jax:0001-a.patch",
            "//third_party/jax:0002-b.patch",
        ],
    )
'''
GIT_REPOSITORY = f'''load("@bazel_tools//tools/build_defs/repo:git.bzl", "git_repository")

JAX_COMMIT = "{SHA2}"

def repo():
    git_repository(
        name = "jax",
        remote = "https://github.com/ROCm/jax.git",
        commit = JAX_COMMIT,
        patches = ["//third_party/jax:0008-c.patch"],  # a comment
    )
'''
XLA_ARCHIVE = f'''XLA_COMMIT = "{SHA1}"
XLA_SHA256 = "{SUM}"

def repo():
    tf_http_archive(
        name = "xla",
        sha256 = XLA_SHA256,
        urls = tf_mirror_urls("https://github.com/ROCm/xla/archive/{{commit}}.tar.gz".format(commit = XLA_COMMIT)),
    )
'''


def test_read_pin_every_upstream_form():
    from release.sources.pins import Pin, read_pin
    assert read_pin(HTTP_ARCHIVE, name="jax", where="w") == Pin(
        SHA1, "COMMIT", "https://github.com/jax-ml/jax", SUM, ("//third_party/jax:0001-a.patch",
                                                              "//third_party/jax:0002-b.patch"))
    assert read_pin(GIT_REPOSITORY, name="jax", where="w") == Pin(
        SHA2, "JAX_COMMIT", "https://github.com/ROCm/jax", None, ("//third_party/jax:0008-c.patch",))
    # A URL passed through an unknown macro: the commit still comes from the lone *_COMMIT.
    xla = read_pin(XLA_ARCHIVE, name="xla", where="w")
    assert (xla.commit, xla.var, xla.sha256) == (SHA1, "XLA_COMMIT", SUM)
    # var: from deps.yaml wins, and is refused when absent.
    assert read_pin(HTTP_ARCHIVE, name="jax", where="w", var="COMMIT").commit == SHA1
    with pytest.raises(UserError, match="no JAX_COMMIT"):
        read_pin(HTTP_ARCHIVE, name="jax", where="w", var="JAX_COMMIT")
    two = GIT_REPOSITORY + GIT_REPOSITORY.split("def repo():")[1].replace('"jax"', '"other"')
    assert read_pin(two, name="jax", where="w").commit == SHA2
    with pytest.raises(UserError, match="2 repository rules and none has name = \"xla\""):
        read_pin(two, name="xla", where="w")
    with pytest.raises(UserError, match="expected a full commit SHA"):
        read_pin(GIT_REPOSITORY.replace(SHA2, "main"), name="jax", where="w")
    with pytest.raises(UserError, match="cannot parse the file"):
        read_pin("def (:\n", name="jax", where="w")


def test_branch_order_is_by_version_not_text():
    from release.core.versions import branch_order
    names = ["rocm-jaxlib-v0.9.1", "rocm-jaxlib-v0.10.0", "rocm-jaxlib-v0.10.0-draft", "rocm-jaxlib-v0.4.35",
             "rocm-jaxlib-v0.9.10", "rocm-jaxlib-next"]
    assert sorted(names, key=branch_order, reverse=True) == [
        "rocm-jaxlib-v0.10.0", "rocm-jaxlib-v0.10.0-draft", "rocm-jaxlib-v0.9.10", "rocm-jaxlib-v0.9.1",
        "rocm-jaxlib-v0.4.35", "rocm-jaxlib-next"]


def test_changelog_sentences_read_as_the_issue_asks():
    from release.sources.git import LogEntry
    from release.sources.roll import Move
    xla_old, xla_new, base = "24c5f10" + "a" * 33, "b32df5f07315567cc1940388ef766b87c6e8b9e3", "913ae2e" + "b" * 33
    log = tuple(LogEntry(f"{i:040x}", "2026-04-20T10:00:00+00:00", "Dev", f"change {i}") for i in range(1741))
    switch = Move("xla", "https://github.com/ROCm/xla", "rocm-jaxlib-v0.9.1", xla_old, xla_new, SIDEWAYS, log,
                  old_branch="rocm-jaxlib-v0.8.0", merge_base=base, dropped=31, behind=8, source="as the plugin pins")
    assert changelog.sentence(switch) == ("xla: switched rocm-jaxlib-v0.8.0 -> rocm-jaxlib-v0.9.1 (b32df5f; 1,741 "
                                          "commits since the merge-base 913ae2e, drops 31 commits of the old pin's, "
                                          "8 behind that branch's tip)")
    assert changelog.summary(switch) == "xla 24c5f10..b32df5f (switched to rocm-jaxlib-v0.9.1)"
    back = Move("xla", "https://github.com/ROCm/xla", "rocm-jaxlib-v0.8.0", "a15e41b" + "c" * 33, xla_old, BACKWARD,
                (), old_branch="rocm-jaxlib-v0.8.0", dropped=31, source="as the plugin pins")
    assert changelog.sentence(back) == "xla: moved back 31 commits to 24c5f10 (as the plugin pins)"
    moved = Move("jax", "https://github.com/ROCm/jax", "rocm-jaxlib-v0.9.1", "a5a5bfd" + "d" * 33,
                 "7f75782" + "e" * 33, FORWARD, log[:3], old_branch="rocm-jaxlib-v0.9.1", source="as the plugin pins",
                 named_url="https://github.com/jax-ml/jax")
    assert changelog.sentence(moved) == (
        "jax: moved forward 3 commits to 7f75782 on rocm-jaxlib-v0.9.1 (as the plugin pins); "
        "https://github.com/jax-ml/jax is named as its source, the commit is on https://github.com/ROCm/jax")
    data = changelog.to_json((switch,))["deps"]["xla"]
    assert (data["switched"], data["merge_base"], data["behind_tip"], data["old_branch"]) == (
        True, base, 8, "rocm-jaxlib-v0.8.0")
    text = changelog.markdown((switch,), max_lines=2)
    assert changelog.sentence(switch) in text and "- ... and 1739 more" in text
