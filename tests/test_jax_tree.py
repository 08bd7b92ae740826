"""The jax-tree layout (jax 0.10 on): the plugin is jax's own tree, xla is pinned by jax twice.

Rules: ``jax: roll: {same: plugin}`` makes jax's commit, url and branch the plugin's (a deps.yaml
saying otherwise is refused in one line naming both values); a bump moves both together and
reads jax's line there; ``xla: roll: {via: jax, file: third_party/xla/revision.bzl, var:
XLA_COMMIT}`` takes XLA_COMMIT and records XLA_SHA256 as archive_sha256; when MODULE.bazel's
``archive_override`` of xla names another commit or digest (SRI base64 against hex), the roll is
refused in one line naming both files and both values, and nothing is written. Generated
repositories, over file:// and a real smart-HTTP server.
"""

from __future__ import annotations

import datetime as dt
import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core import config
from release.core.errors import ConfigError, UserError
from release.sources import module_pin
from release.sources.pins import Pin, read_pin
from release.sources.roll import roll
from tests.support.bumping import bump
from tests.support.gitrepos import GitHttpServer
from tests.support.jax_tree import (
    MODULE,
    PLUGIN_BRANCH,
    REVISION,
    JaxTree,
    build_jax_tree,
    digest,
    module_bazel,
    revision_bzl,
    sri,
)
from tests.support.project import write_version_info

HEX = "0123456789abcdef"
shas = st.text(HEX, min_size=40, max_size=40)
digests = st.text(HEX, min_size=64, max_size=64)


@pytest.fixture(scope="module")
def jt(tmp_path_factory) -> JaxTree:
    """The upstreams, built once; the tests read them, and one that moves their refs takes
    ``jt.copy(its own directory)``."""
    return build_jax_tree(tmp_path_factory.mktemp("jax-tree"))


@pytest.fixture(scope="module")
def jt_http(jt):
    server = GitHttpServer(jt.root).start()
    yield server
    server.stop()


def _project(tmp_path, jt, **kwargs):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "deps.yaml").write_text(jt.deps_yaml(**kwargs))
    write_version_info(root, "0.11.0")
    return root


# ---------------------------------------------------------------- deps.yaml


def test_the_jax_tree_layout_parses_with_its_key_names(jt, tmp_path):
    deps = config.parse_deps(tmp_path / "deps.yaml", jt.deps_yaml())
    assert deps["jax"].roll == config.RollSame("plugin") and str(deps["jax"].roll) == "same as plugin"
    assert deps["xla"].roll == config.RollVia("jax", REVISION, "XLA_COMMIT", "rocm-jaxlib-v*")
    assert [d.name for d in deps.resolution_order()] == ["plugin", "jax", "xla"]
    # Written in another order, a same dep still comes after its source, a via dep after both.
    text = jt.deps_yaml()
    head, rest = text.split("deps:\n")
    plugin, rest = rest.split("  jax:\n")
    jax, xla = rest.split("  xla:\n")
    reordered = f"{head}deps:\n  xla:\n{xla}  jax:\n{jax}{plugin}"
    moved = config.parse_deps(tmp_path / "deps.yaml", reordered)
    assert [d.name for d in moved][0] == "xla"
    assert [d.name for d in moved.resolution_order()] == ["plugin", "jax", "xla"]


@pytest.mark.parametrize("field, value", [
    ("url", "https://github.com/ROCm/other-jax"),
    ("branch", "rocm-jaxlib-v0.10.x"),
    ("commit", "f" * 40),
])
def test_a_same_dep_saying_another_url_branch_or_commit_is_refused_in_one_line(jt, tmp_path, field, value):
    text = jt.deps_yaml()
    deps = config.parse_deps(tmp_path / "deps.yaml", text)
    old = getattr(deps["jax"], field)
    head, _, tail = text.partition("  jax:\n")
    tail = tail.replace(f"{field}: {old}", f"{field}: {value}", 1)
    with pytest.raises(ConfigError) as err:
        config.parse_deps(tmp_path / "deps.yaml", head + "  jax:\n" + tail)
    message = str(err.value)
    assert "\n" not in message
    assert f"deps.jax.{field}: got {value}; expected deps.plugin.{field} ({old})" in message


@pytest.mark.parametrize("roll, key, expected", [
    ("{same: nosuch}", "deps.jax.roll.same", "one of the other deps"),
    ("{same: plugin, file: x}", "deps.jax.roll.file", "only same"),
    ("{same: 7}", "deps.jax.roll.same", "the name of another dep"),
    ("{same: jax}", "deps.jax.roll.same", "no cycle"),
])
def test_a_bad_same_is_refused_naming_the_key(jt, tmp_path, roll, key, expected):
    text = jt.deps_yaml().replace("roll: {same: plugin}", f"roll: {roll}")
    with pytest.raises(ConfigError, match=f"{key}: .*{expected}"):
        config.parse_deps(tmp_path / "deps.yaml", text)


def test_a_same_dep_of_a_same_dep_is_refused(jt, tmp_path):
    text = jt.deps_yaml().replace("roll: {via: jax, file", "roll: {same: jax}\n    x: {via: jax, file")
    text = text.replace("    x: {via", "    # {via")
    deps_text = text.replace(f"url: {jt.xla.url}", f"url: {jt.jax.url}")
    with pytest.raises(ConfigError, match=r"deps\.xla\.roll\.same: got jax; expected a dep that is not "
                                          r"itself 'same'"):
        config.parse_deps(tmp_path / "deps.yaml", deps_text)


# ---------------------------------------------------------------- pins in jax's tree


def test_revision_bzl_gives_the_commit_and_the_archive_sha256_beside_it(jt):
    pin = read_pin(revision_bzl(jt.c["X2"], digest(jt.c["X2"])), name="xla", where="x", var="XLA_COMMIT")
    assert (pin.commit, pin.var, pin.sha256) == (jt.c["X2"], "XLA_COMMIT", digest(jt.c["X2"]))
    found = read_pin(revision_bzl(jt.c["X2"], digest(jt.c["X2"])), name="xla", where="x")  # no var
    assert (found.commit, found.sha256) == (jt.c["X2"], digest(jt.c["X2"]))


@given(commit=shas, sha256=digests, other_commit=shas, other_sha=digests, quote=st.sampled_from(['"', "'"]),
       pad=st.sampled_from(["", "  ", "\n# a comment\n"]), before=st.booleans())
def test_generated_revision_and_module_files_agree_exactly_when_their_values_do(
        commit, sha256, other_commit, other_sha, quote, pad, before):
    revision = revision_bzl(commit, sha256).replace('"', quote) + pad
    pin = read_pin(revision, name="xla", where=REVISION, var="XLA_COMMIT")
    assert (pin.commit, pin.sha256) == (commit, sha256)
    text = module_bazel(other_commit, other_sha)
    if before:  # other modules and overrides around it change nothing
        text = 'bazel_dep(name = "grpc")\nsingle_version_override(module_name = "grpc", version = "1")\n' + text
    found = module_pin.archive_override(text + pad, "xla")
    assert found is not None and (found.commit, found.sha256) == (other_commit, other_sha)
    assert module_pin.sri_to_hex(sri(other_sha)) == other_sha and module_pin.hex_to_sri(other_sha) == sri(other_sha)
    agrees = (other_commit, other_sha) == (commit, sha256)
    try:
        module_pin.check_agrees(pin, text, name="xla", file=REVISION, at="jax abc1234")
    except UserError as exc:
        message = str(exc)
        assert not agrees and "\n" not in message
        assert REVISION in message and MODULE in message and "refusing to roll" in message
        if other_commit != commit:
            assert commit in message and other_commit in message
        else:
            assert sha256 in message and sri(other_sha) in message
    else:
        assert agrees


@pytest.mark.parametrize("names", ["urls", "url", "strip_prefix", "both", "neither"])
@pytest.mark.parametrize("with_integrity", [True, False])
@given(commit=shas, sha256=digests, other_commit=shas, other_sha=digests, mirrors=st.integers(0, 2))
def test_the_override_commit_is_the_one_its_urls_or_strip_prefix_names_and_a_field_it_lacks_pins_nothing(
        names, with_integrity, commit, sha256, other_commit, other_sha, mirrors):
    # urls (a list, of one or more, or one string) and strip_prefix each may name the commit;
    # whichever does gives it, and an override naming none (a tag's tarball) or without
    # integrity pins nothing there: only what it does pin is compared with revision.bzl.
    urls = [f"https://github.com/openxla/xla/archive/{commit}.tar.gz"]
    urls += [f"https://mirror.example/{i}/xla-{commit}.tar.gz" for i in range(mirrors)]
    fields = ['module_name = "xla"']
    if with_integrity:
        fields.append(f'integrity = "{sri(sha256)}"')
    if names in ("urls", "both"):
        fields.append("urls = [" + ", ".join(f'"{u}"' for u in urls) + "]")
    elif names == "url":
        fields.append(f'urls = "{urls[0]}"')
    else:
        fields.append('urls = ["https://github.com/openxla/xla/archive/refs/tags/v0.9.tar.gz"]')
    fields.append(f'strip_prefix = "xla-{commit}"' if names in ("strip_prefix", "both") else 'strip_prefix = "xla"')
    text = f'module(name = "jax")\narchive_override(\n    {", ".join(fields)},\n)\n'
    found = module_pin.archive_override(text, "xla")
    expected_commit = None if names == "neither" else commit
    expected_sha = sha256 if with_integrity else None
    assert found is not None and (found.commit, found.sha256) == (expected_commit, expected_sha)
    module_pin.check_agrees(read_pin(revision_bzl(commit, sha256), name="xla", where=REVISION, var="XLA_COMMIT"),
                            text, name="xla", file=REVISION, at="jax abc1234")  # the same values agree
    for pin_commit, pin_sha in [(other_commit, sha256), (commit, other_sha)]:
        pin = read_pin(revision_bzl(pin_commit, pin_sha), name="xla", where=REVISION, var="XLA_COMMIT")
        differs = (pin_commit != commit and expected_commit is not None) or (pin_sha != sha256 and with_integrity)
        try:
            module_pin.check_agrees(pin, text, name="xla", file=REVISION, at="jax abc1234")
        except UserError as exc:
            message = str(exc)
            assert differs and message.startswith(f"xla: {REVISION} and {MODULE} at jax abc1234 disagree")
            if pin_commit != commit:  # the variable that holds the commit is named, as written
                assert f"XLA_COMMIT {pin_commit} in {REVISION}" in message
        else:
            assert not differs
    # A pin read structurally (no variable holds it) is named as the commit; without its digest
    # only the commit is compared.
    bare = Pin(other_commit, None, None, None, ())
    if expected_commit is None or other_commit == commit:
        module_pin.check_agrees(bare, text, name="xla", file=REVISION, at="jax abc1234")
    else:
        with pytest.raises(UserError, match=f"^xla: .*: commit {other_commit} in {REVISION}, "):
            module_pin.check_agrees(bare, text, name="xla", file=REVISION, at="jax abc1234")


@pytest.mark.parametrize("integrity", ["sha256-short=", "sha512-" + "A" * 86 + "==", "sha256-" + "!" * 43 + "="])
def test_an_integrity_that_is_no_sha256_is_refused(jt, integrity):
    pin = read_pin(revision_bzl(jt.c["X2"], digest(jt.c["X2"])), name="xla", where="x", var="XLA_COMMIT")
    text = module_bazel(jt.c["X2"], digest(jt.c["X2"])).replace(sri(digest(jt.c["X2"])), integrity)
    with pytest.raises(UserError, match="no sha256-<base64> of 32 bytes"):
        module_pin.check_agrees(pin, text, name="xla", file=REVISION, at="jax abc1234")


def test_a_module_file_without_an_override_of_the_dep_checks_nothing(jt):
    pin = read_pin(revision_bzl(jt.c["X2"], digest(jt.c["X2"])), name="xla", where="x", var="XLA_COMMIT")
    module_pin.check_agrees(pin, 'module(name = "jax")\nbazel_dep(name = "xla", version = "1")\n',
                            name="xla", file=REVISION, at="jax abc1234")
    module_pin.check_agrees(pin, "this is not { starlark", name="xla", file=REVISION, at="jax abc1234")


# ---------------------------------------------------------------- rolling


@pytest.mark.parametrize("transport", ["file", "http"])
def test_a_roll_moves_jax_with_the_plugin_and_xla_as_jax_pins_it(jt, jt_http, tmp_path, transport):
    urls = {n: jt_http.url(f"{n}.git") for n in ("jax", "xla")} if transport == "http" else None
    deps = config.parse_deps(tmp_path / "deps.yaml", jt.deps_yaml(urls=urls))
    result = roll(deps, tmp_path / "cache")
    moves = {m.name: m for m in result.moves}
    assert result.new["plugin"].commit == result.new["jax"].commit == jt.c["J2"]
    assert result.new["jax"].branch == result.new["plugin"].branch == PLUGIN_BRANCH
    assert result.new["jax"].line == "0.11.0"
    assert (result.new["xla"].commit, result.new["xla"].archive_sha256) == (jt.c["X2"], digest(jt.c["X2"]))
    assert result.new["xla"].branch == "rocm-jaxlib-v0.11.0"  # the line's release branch
    assert moves["jax"].same_as == "plugin" and moves["jax"].commits == ()
    assert moves["plugin"].count == 2
    # What bump writes parses again: the same dep still says what its source says.
    config.parse_deps(tmp_path / "deps.yaml", config.render_deps(result.new, jt.deps_yaml(urls=urls)))


@pytest.mark.parametrize("bad, values", [("JBAD", lambda c: (digest(c["X1"]), sri(digest(c["X0"])))),
                                         ("JCOMMIT", lambda c: (c["X1"], c["X0"]))])
def test_a_digest_or_commit_mismatch_between_the_two_files_is_refused_and_nothing_written(
        tmp_path, monkeypatch, bad, values, jt):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    jt = jt.copy(tmp_path / "upstream")
    jt.jax.set_ref(PLUGIN_BRANCH, jt.c[bad])  # the bad commit lands on the plugin's branch
    root = _project(tmp_path, jt)
    before = (root / "deps.yaml").read_bytes(), (root / "version_info.json").read_bytes()
    with pytest.raises(UserError) as refused:
        bump(root)
    line = str(refused.value).strip()
    assert "\n" not in line and REVISION in line and MODULE in line
    assert all(v in line for v in values(jt.c))
    assert ((root / "deps.yaml").read_bytes(), (root / "version_info.json").read_bytes()) == before


def test_bump_of_the_jax_layout_end_to_end(jt, tmp_path, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    root = _project(tmp_path, jt)
    before = (root / "deps.yaml").read_text()
    data = bump(root).to_json()
    c = jt.c
    assert data["deps"]["jax"]["same_as"] == "plugin" and data["deps"]["jax"]["commits"] == []
    assert data["title"] == (f"Bump plugin {c['J0'][:7]}..{c['J2'][:7]} (2 commits), "
                             f"jax {c['J0'][:7]}..{c['J2'][:7]} (the plugin's tree), "
                             f"xla {c['X0'][:7]}..{c['X2'][:7]} (2 commits)")
    after = (root / "deps.yaml").read_text()
    assert after == (before.replace(c["J0"], c["J2"]).replace(c["X0"], c["X2"])
                     .replace(digest(c["X0"]), digest(c["X2"])).replace("v0.11.0\n    commit", "v0.11.0\n    commit"))
    assert not bump(root).changed  # pins are current


def test_naming_only_the_same_dep_is_refused_and_naming_its_source_moves_both(jt, tmp_path):
    deps = config.parse_deps(tmp_path / "deps.yaml", jt.deps_yaml())
    with pytest.raises(UserError, match=r"--dep jax: jax is the plugin's tree .* give --dep plugin"):
        roll(deps, tmp_path / "cache", only=("jax",))
    result = roll(deps, tmp_path / "cache", only=("plugin",), to=jt.c["J1"])
    assert result.new["jax"].commit == result.new["plugin"].commit == jt.c["J1"]
    assert result.new["xla"].commit == jt.c["X0"]  # not named: stays


@pytest.fixture
def published(make_dist, local_index):
    def make(*vs):
        return local_index([w for v in vs for w in sorted(make_dist(v).glob("*.whl"))])
    return make


def test_jax_moved_back_to_a_released_line_gets_its_next_post_and_the_title_says_back(
        tmp_path, monkeypatch, published, jt):
    """The plugin reverts jax to 0.10.0, which the public index has released (and re-spun once):
    the version becomes 0.10.0.post2, never the published 0.10.0."""
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    index = published("0.10.0", "0.10.0.post1", "0.11.0rc1").url
    jt = jt.copy(tmp_path / "upstream")
    jt.jax.set_ref(PLUGIN_BRANCH, jt.c["JOLD"])
    root = _project(tmp_path, jt)
    data = bump(root, env={**os.environ, "RELEASE_PUBLIC_INDEX": index}).to_json()  # the step's index
    assert data["version"] == {"old": "0.11.0", "new": "0.10.0.post2", "line": "0.10.0", "commit": jt.c["JOLD"],
                               "back": True}
    assert data["title"].endswith("; version back 0.10.0.post2")
    assert json.loads((root / "version_info.json").read_text())["version"] == "0.10.0.post2"
    deps = config.load_deps(root / "deps.yaml")
    assert deps["jax"].line == "0.10.0" and deps["jax"].commit == deps["plugin"].commit == jt.c["JOLD"]
    assert (deps["xla"].commit, deps["xla"].branch) == (jt.c["X10"], "rocm-jaxlib-v0.10.0")
    assert config.load_project(root).line_problem() is None


def test_a_new_line_nothing_published_of_starts_unreleased(tmp_path, monkeypatch, published, jt):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("RELEASE_PUBLIC_INDEX", published("0.9.1", "0.11.0rc1").url)
    jt = jt.copy(tmp_path / "upstream")
    jt.jax.set_ref(PLUGIN_BRANCH, jt.c["JOLD"])
    root = _project(tmp_path, jt)
    info = root / "version_info.json"
    info.write_text(info.read_text().replace('"0.11.0"', '"0.9.1.post7"'))
    (root / "deps.yaml").write_text((root / "deps.yaml").read_text().replace('line: "0.11.0"', 'line: "0.9.1"'))
    rolled = bump(root)
    assert rolled.version["new"] == "0.10.0" and rolled.version["back"] is False
    assert rolled.title.endswith("; version 0.10.0")


# ---------------------------------------------------------------- what bump records, on this layout


def test_a_committed_bump_writes_both_pins_of_the_one_tree_in_one_commit(jt, tmp_path, monkeypatch):
    from tests.support.gitrepos import git
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    root = _project(tmp_path, jt)
    git("init", "--quiet", "-b", "main", cwd=root)
    git("add", "deps.yaml", "version_info.json", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "pins", cwd=root)
    before = (root / "deps.yaml").read_text()
    commit = bump(root, commit=True, date=dt.date(2026, 11, 25)).delivered["commit"]
    text = git("show", f"{commit}:deps.yaml", cwd=root)
    deps = config.parse_deps(root / "deps.yaml", text)  # what was committed holds the same rule
    assert deps["jax"].commit == deps["plugin"].commit == jt.c["J2"]
    assert (deps["xla"].commit, deps["xla"].archive_sha256) == (jt.c["X2"], digest(jt.c["X2"]))
    assert (root / "deps.yaml").read_text() == before  # the work tree as a person left it


def test_a_hold_on_the_plugin_moves_jax_and_xla_back_with_it(jt, tmp_path):
    """The plugin pinned at J2 past a hold on J1: it moves back to J0, jax with it (one tree) and
    xla to what J0's revision.bzl pins; throttled (holds only) the same."""
    text = jt.deps_yaml("J2", xla="X2").replace(
        "    roll: head\n", f'    roll: head\n    hold: {{commit: {jt.c["J1"]}, reason: "breaks the plugin"}}\n', 1)
    deps = config.parse_deps(tmp_path / "deps.yaml", text)
    for holds_only in (False, True):
        result = roll(deps, tmp_path / "cache", holds_only=holds_only)
        assert result.new["plugin"].commit == result.new["jax"].commit == jt.c["J0"]
        assert (result.new["xla"].commit, result.new["xla"].archive_sha256) == (jt.c["X0"], digest(jt.c["X0"]))
        assert {m.name: m.direction for m in result.moves} == {"plugin": "backward", "jax": "backward",
                                                               "xla": "backward"}


def test_bisect_lists_the_plugins_commits_with_jax_as_the_same_commit(jt, tmp_path):
    from release.jobs.bisect import followers, list_candidates
    deps = config.parse_deps(tmp_path / "deps.yaml", jt.deps_yaml())
    assert followers(deps) == ("jax", "xla")
    good = {"plugin": jt.c["J0"], "jax": jt.c["J0"], "xla": jt.c["X0"]}
    bad = {"plugin": jt.c["J2"], "jax": jt.c["J2"], "xla": jt.c["X2"]}
    found, notes = list_candidates(deps, good, bad, tmp_path / "cache")
    assert notes == []
    assert [c.commits for c in found] == [
        {"plugin": jt.c["J1"], "jax": jt.c["J1"], "xla": jt.c["X0"]},
        {"plugin": jt.c["J2"], "jax": jt.c["J2"], "xla": jt.c["X2"]}]
    assert not any(c.inert for c in found)  # every commit of jax's tree is built: each is probed


def test_a_jax_tree_line_is_planned_with_jax_own_targets_never_the_rocm_jax_layouts(jt, tmp_path, run_cli):
    """Its wheels come from jax's own Bazel targets: a plan made of rocm-jax's commands would
    build other wheels. Without its Pythons the line is refused in one line naming the key."""
    root = _project(tmp_path, jt)
    code, out, err = run_cli("nightly", "--dry-run", "--root", root, "--date", "2026-11-22")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "version_info.json: pythons: got nothing (missing)" in err
    code, out, err = run_cli("version", "--kind", "nightly", "--root", root, "--date", "2026-11-22")
    assert (code, out.strip()) == (0, "0.11.0.dev20261122")  # versioning works
    info = root / "version_info.json"
    info.write_text(json.dumps(json.loads(info.read_text()) | {"pythons": ["3.12", "3.13"]}))
    code, out, err = run_cli("nightly", "--dry-run", "--json", "--root", root, "--date", "2026-11-22")
    assert code == 0, err
    plan = json.loads(out)
    assert plan["layout"] == "jax-tree" and len(plan["bazel_commands"]) == 3
    assert all("//jaxlib/tools:jax_rocm_" in " ".join(c) and "rocm_build" not in " ".join(c)
               for c in plan["bazel_commands"])


def test_a_day_the_two_files_disagree_is_refused_and_the_next_day_rolls(tmp_path, monkeypatch, jt):
    """jax-ml/jax 2dfe94d (2026-07-15) moved only revision.bzl; the next day's update moved
    MODULE.bazel too. The bump of that day is refused, the next one rolls past it."""
    from tests.support.jax_tree import tree
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    jt = jt.copy(tmp_path / "upstream")
    jt.jax.set_ref(PLUGIN_BRANCH, jt.c["JCOMMIT"])  # revision.bzl on X1, MODULE.bazel still on X0
    root = _project(tmp_path, jt)
    with pytest.raises(UserError) as refused:
        bump(root)
    assert jt.c["X1"] in str(refused.value) and jt.c["X0"] in str(refused.value)
    fixed = jt.jax.commit(PLUGIN_BRANCH, "Update XLA dependency", tree("0.11.0", jt.c["X1"]))
    assert bump(root).changed
    deps = config.load_deps(root / "deps.yaml")
    assert deps["plugin"].commit == deps["jax"].commit == fixed
    assert (deps["xla"].commit, deps["xla"].archive_sha256) == (jt.c["X1"], digest(jt.c["X1"]))
