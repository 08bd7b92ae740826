"""Green rolls and holds: ``bump`` takes the newest green commit, or stops before a held one.

The deps name ``ROCm/rocm-jax``, ``ROCm/jax`` and ``ROCm/xla`` on a git host that counts as
GitHub (``GITHUB_SERVER_URL``, as on GitHub Enterprise): a real smart-HTTP git server on
127.0.0.1 serving the generated repositories, while CI is read for ``ROCm/rocm-jax`` from the
GitHub stand-in (every request checked against GitHub's OpenAPI description). The plugin's
history is tests/support/bisect_history.py: P0..P8, with jax and xla rolled by some of its
commits, so the via deps must follow whichever plugin commit is chosen.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from release.core import config
from release.core.config import ConfigError, Hold, parse_deps, render_hold
from release.core.errors import UserError
from release.sources import changelog
from release.sources.roll import roll
from tests.conftest import NOW
from tests.support.bisect_history import build_history, make_project
from tests.support.bumping import bump
from tests.support.gitrepos import GitHttpServer

NAMES = {"plugin": "ROCm/rocm-jax", "jax": "ROCm/jax", "xla": "ROCm/xla"}
PLUGIN_REPO = "ROCm/rocm-jax"
FAILING = "build-rocm-7.2 / py3.12"


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    return build_history(tmp_path_factory.mktemp("upstream"))


@pytest.fixture(scope="module")
def git_host(history, tmp_path_factory):
    """The generated repositories as ``<server>/ROCm/<name>.git`` over real smart HTTP."""
    root = tmp_path_factory.mktemp("githost")
    (root / "ROCm").mkdir()
    for name, full in NAMES.items():
        (root / f"{full}.git").symlink_to(getattr(history, name).path)
    server = GitHttpServer(root).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def warm_cache(history, git_host, tmp_path_factory):
    """The mirrors a roll of every plugin commit leaves, made once: each test's roll starts from a
    copy and fetches only what its question needs that is not there (the rules here are about which
    commit is chosen; a roll from an empty cache is tests/test_roll.py's and test_branch_choice's)."""
    cache = tmp_path_factory.mktemp("warm-cache")
    server = git_host.url("").rstrip("/")
    urls = {name: f"{server}/{full}.git" for name, full in NAMES.items()}
    root = make_project(tmp_path_factory.mktemp("warm-proj"), history, pins=history.pins_at(history.c["P0"]),
                        urls=urls)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GITHUB_SERVER_URL", server)
        mp.setenv("RELEASE_NOW", NOW)
        roll(config.load_deps(root / "deps.yaml"), cache)
    return cache


@pytest.fixture
def gh(history, git_host, github_env, monkeypatch, tmp_path, warm_cache):
    """GitHub-host URLs in deps.yaml, served by the local git server; CI on the stand-in."""
    server = git_host.url("").rstrip("/")
    monkeypatch.setenv("GITHUB_SERVER_URL", server)
    monkeypatch.delenv("JAX_ROCM_RELEASE_CACHE", raising=False)
    urls = {name: f"{server}/{full}.git" for name, full in NAMES.items()}
    fake = github_env
    shutil.copytree(warm_cache, tmp_path / "cache", symlinks=True)

    def deps(pin="P2", roll="{head: true, require: green}", extra=None):
        root = make_project(tmp_path / "proj", history, pins=history.pins_at(history.c[pin]), urls=urls,
                            plugin_roll=roll, extra=extra)
        return config.load_deps(root / "deps.yaml")

    def green(name, *, checks=("build", FAILING)):
        for check in checks:
            fake.add_check_run(history.c[name], check, repo=PLUGIN_REPO)

    return type("GH", (), {"fake": fake, "h": history, "deps": staticmethod(deps),
                           "green": staticmethod(green), "cache": tmp_path / "cache"})


def asked(fake) -> list[str]:
    """The commits whose CI was read, in order (once per commit: status then check runs)."""
    return [e[2].split("/")[5] for e in fake.log if e[2].endswith("/status")]


def test_rolls_to_exactly_the_newest_green_commit_and_via_deps_follow_it(gh):
    h, fake = gh.h, gh.fake
    fake.add_check_run(h.c["P8"], "build", repo=PLUGIN_REPO)
    fake.add_check_run(h.c["P8"], FAILING, conclusion="failure", repo=PLUGIN_REPO)
    fake.add_check_run(h.c["P7"], "build", status="in_progress", repo=PLUGIN_REPO)
    gh.green("P6", checks=("build", "docs"))
    fake.add_check_run(h.c["P6"], "gpu", conclusion="skipped", repo=PLUGIN_REPO)
    fake.set_status(h.c["P6"], "ci/jenkins", "success", repo=PLUGIN_REPO)
    gh.green("P5")
    result = roll(gh.deps(), gh.cache)
    new = {d.name: d.commit for d in result.new}
    assert new == h.pins_at(h.c["P6"])  # plugin P6 with the jax and xla P6 pins
    assert result.notes == (f"plugin: tip {h.c['P8'][:7]} is red (failing: {FAILING}), rolled to "
                            f"{h.c['P6'][:7]} (2 behind the tip, green)",)
    assert asked(fake) == [h.c["P8"], h.c["P7"], h.c["P6"]]  # stops at the first green
    text = changelog.markdown(result.moves, notes=result.notes)
    assert text.startswith(f"- plugin: tip {h.c['P8'][:7]} is red")
    assert changelog.to_json(result.moves, result.notes)["notes"] == list(result.notes)


def test_a_required_check_that_never_ran_is_not_green(gh):
    h = gh.h
    gh.green("P8", checks=("build",))          # gpu-tests never ran on the tip
    gh.green("P7", checks=("build", "gpu-tests"))
    gh.fake.add_check_run(h.c["P7"], "lint", conclusion="failure", repo=PLUGIN_REPO)  # not required
    result = roll(gh.deps(roll="{head: true, require: [build, gpu-tests]}"), gh.cache)
    assert result.new["plugin"].commit == h.c["P7"]
    assert result.new["jax"].commit == h.pins_at(h.c["P7"])["jax"]
    assert result.notes == (f"plugin: tip {h.c['P8'][:7]} is not green (never ran: gpu-tests), rolled "
                            f"to {h.c['P7'][:7]} (1 behind the tip, green)",)


def test_a_failure_on_the_third_page_of_check_runs_is_seen(gh):
    h, fake = gh.h, gh.fake
    for i in range(150):
        fake.add_check_run(h.c["P8"], f"shard-{i:03d}", repo=PLUGIN_REPO)
    fake.add_check_run(h.c["P8"], "zz-last", conclusion="timed_out", repo=PLUGIN_REPO)
    for i in range(150):  # re-runs push zz-last past the second page
        fake.add_check_run(h.c["P8"], f"shard-{i:03d}", repo=PLUGIN_REPO)
    gh.green("P7")
    result = roll(gh.deps(), gh.cache)
    assert result.new["plugin"].commit == h.c["P7"]
    assert "red (failing: zz-last)" in result.notes[0]


def test_keeps_the_pin_when_nothing_within_max_walk_is_green(gh):
    h, fake = gh.h, gh.fake
    for name in ("P8", "P7"):
        fake.add_check_run(h.c[name], FAILING, conclusion="failure", repo=PLUGIN_REPO)
    gh.green("P6")
    result = roll(gh.deps(roll="{head: true, require: green, max_walk: 2}"), gh.cache)
    assert not result.changed and result.new == result.old
    assert asked(fake) == [h.c["P8"], h.c["P7"]]
    assert result.notes[0].endswith(f"no green commit in the newest 2 first-parent commits, kept "
                                    f"{h.c['P2'][:7]}")


def test_keeps_the_pin_when_the_walk_reaches_it(gh):
    h, fake = gh.h, gh.fake
    fake.add_check_run(h.c["P8"], FAILING, conclusion="failure", repo=PLUGIN_REPO)
    fake.add_check_run(h.c["P7"], "build", status="queued", repo=PLUGIN_REPO)
    result = roll(gh.deps(pin="P6"), gh.cache)
    assert not result.changed
    assert asked(gh.fake) == [h.c["P8"], h.c["P7"]]  # never the pin, never older
    assert result.notes[0].endswith(f"no green commit newer than the pin {h.c['P6'][:7]}, kept it")


def test_green_on_a_remote_that_is_not_github_is_one_line_exit_2(gh, tmp_path):
    h = gh.h
    root = make_project(tmp_path / "plain", h, pins=h.pins_at(h.c["P2"]),
                        plugin_roll="{head: true, require: green}")
    before = (root / "deps.yaml").read_text()
    with pytest.raises(UserError) as refused:
        bump(root)
    assert "\n" not in str(refused.value)
    assert f"plugin: roll requires green CI, but {h.plugin.url} is not a GitHub repository" in str(refused.value)
    assert (root / "deps.yaml").read_text() == before
    assert gh.fake.log == []


def test_missing_token_is_refused_before_any_git(gh, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN")
    deps = gh.deps()
    with pytest.raises(UserError, match="GITHUB_TOKEN is not set; it needs a token with checks: read "
                                        "and statuses: read"):
        roll(deps, gh.cache.parent / "empty")
    assert not (gh.cache.parent / "empty").exists()


# ---------------------------------------------------------------- holds


HOLD_REASON = "ROCm build breaks (bisect)"


def held(h, name):
    return f"    hold: {{commit: {h.c[name]}, reason: \"{HOLD_REASON}\"}}"


def test_a_hold_stops_the_roll_before_the_held_commit(gh):
    h = gh.h
    result = roll(gh.deps(roll="head", extra={"plugin": held(h, "P6")}), gh.cache)
    assert {d.name: d.commit for d in result.new} == h.pins_at(h.c["P5"])
    assert result.notes == (f"plugin: held before {h.c['P6'][:7]} ({HOLD_REASON}); 3 newer commits not "
                            "taken until the hold is removed",)
    assert result.new["plugin"].hold == Hold(h.c["P6"], HOLD_REASON)  # the hold stays
    assert gh.fake.log == []  # no CI needed


def test_a_hold_on_a_commit_merged_from_a_side_branch_stops_the_roll_before_the_merge(gh):
    """The held commit is not on the first-parent line (S1 came in through the merge P5): every
    first-parent commit that contains it is held back too, so the roll stops at P4."""
    h = gh.h
    result = roll(gh.deps(roll="head", extra={"plugin": held(h, "S1")}), gh.cache)
    assert {d.name: d.commit for d in result.new} == h.pins_at(h.c["P4"])
    assert "4 newer commits not taken until the hold is removed" in result.notes[0]


def test_a_pin_past_a_hold_on_a_merged_side_commit_moves_back_before_the_merge(gh):
    h = gh.h
    result = roll(gh.deps(pin="P7", roll="head", extra={"plugin": held(h, "S1")}), gh.cache)
    assert {d.name: d.commit for d in result.new} == h.pins_at(h.c["P4"])
    assert f"moved back to {h.c['P4'][:7]}" in result.notes[0]


def test_a_pin_past_the_hold_moves_back_before_it_with_its_via_deps(gh):
    h = gh.h
    deps = gh.deps(pin="P8", roll="head", extra={"plugin": held(h, "P6")})
    result = roll(deps, gh.cache)
    assert {d.name: d.commit for d in result.new} == h.pins_at(h.c["P5"])
    plugin = next(m for m in result.moves if m.name == "plugin")
    assert plugin.direction == "backward"  # allowed without --allow-rewind: the hold asked for it
    assert "the pin" in result.notes[0] and f"moved back to {h.c['P5'][:7]}" in result.notes[0]
    body = changelog.markdown(result.moves, notes=result.notes)  # what the bump PR shows
    assert f"held before {h.c['P6'][:7]} ({HOLD_REASON})" in body.splitlines()[0]


@pytest.mark.parametrize("pin", [f"P{n}" for n in range(9)])
@pytest.mark.parametrize("held_at, before", [("P6", "P5"), ("S1", "P4")])
def test_a_throttled_roll_makes_only_the_move_back_a_hold_asks_for(gh, pin, held_at, before):
    """``holds_only`` (a throttled roller): a pin that contains the held commit moves back before
    it, its via deps following; a pin that does not stays where it is, never rolled forward."""
    h = gh.h
    deps = gh.deps(pin=pin, roll="head", extra={"plugin": held(h, held_at)})
    result = roll(deps, gh.cache, holds_only=True)
    contains = subprocess.run(["git", "merge-base", "--is-ancestor", h.c[held_at], h.c[pin]],
                              cwd=h.plugin.path).returncode == 0
    want = h.pins_at(h.c[before]) if contains else h.pins_at(h.c[pin])
    assert {d.name: d.commit for d in result.new} == want
    assert all(m.direction == "backward" or m.name != "plugin" for m in result.moves)
    assert bool(result.moves) == contains
    assert gh.fake.log == []


def test_a_held_pin_moves_back_to_the_newest_green_commit_before_the_hold(gh):
    """The move back a hold asks for obeys `require` as a roll does: P5 (before the held P6) is
    red, so the pin goes to P4, the newest green first-parent commit, with P4's via pins."""
    h, fake = gh.h, gh.fake
    fake.add_check_run(h.c["P5"], FAILING, conclusion="failure", repo=PLUGIN_REPO)
    gh.green("P4")
    gh.green("P8")  # the tip's CI is not asked: nothing at or after the hold is a candidate
    result = roll(gh.deps(pin="P8", roll="{head: true, require: green}", extra={"plugin": held(h, "P6")}),
                  gh.cache)
    assert {d.name: d.commit for d in result.new} == h.pins_at(h.c["P4"])
    assert asked(fake) == [h.c["P5"], h.c["P4"]]
    assert result.notes == (f"plugin: held before {h.c['P6'][:7]} ({HOLD_REASON}); the pin {h.c['P8'][:7]} "
                            f"contains it, so moved back to {h.c['P4'][:7]}, the newest green first-parent "
                            f"commit before it (1 before {h.c['P5'][:7]}, which is red (failing: {FAILING}))",)
    assert next(m for m in result.moves if m.name == "plugin").direction == "backward"


def test_a_held_pin_with_no_green_commit_before_the_hold_stays_and_says_so(gh):
    h, fake = gh.h, gh.fake
    fake.add_check_run(h.c["P5"], FAILING, conclusion="failure", repo=PLUGIN_REPO)
    fake.add_check_run(h.c["P4"], "build", status="in_progress", repo=PLUGIN_REPO)
    gh.green("P3")  # beyond max_walk: never asked
    deps = gh.deps(pin="P8", roll="{head: true, require: green, max_walk: 2}", extra={"plugin": held(h, "P6")})
    result = roll(deps, gh.cache)
    assert not result.changed and result.new == result.old
    assert asked(fake) == [h.c["P5"], h.c["P4"]]
    assert result.notes[0].endswith(f"the pin {h.c['P8'][:7]} contains it, but no commit among the 2 "
                                    f"first-parent commits before it is green (newest {h.c['P5'][:7]} is "
                                    f"red (failing: {FAILING})), so the pin stays, with the held commit in it")


def test_a_hold_and_green_together(gh):
    h, fake = gh.h, gh.fake
    fake.add_check_run(h.c["P6"], FAILING, conclusion="failure", repo=PLUGIN_REPO)
    gh.green("P5")
    result = roll(gh.deps(roll="{head: true, require: green}", extra={"plugin": held(h, "P7")}), gh.cache)
    assert result.new["plugin"].commit == h.c["P5"]
    assert h.c["P8"] not in asked(fake) and h.c["P7"] not in asked(fake)
    assert result.notes == (f"plugin: held before {h.c['P7'][:7]} ({HOLD_REASON}); 2 newer commits not "
                            f"taken until the hold is removed; plugin: tip {h.c['P6'][:7]} is red "
                            f"(failing: {FAILING}), rolled to {h.c['P5'][:7]} (1 behind the tip, green)",)


def test_to_past_a_hold_is_refused(gh):
    h = gh.h
    with pytest.raises(UserError, match=f"contains the held commit {h.c['P6'][:7]}"):
        roll(gh.deps(roll="head", extra={"plugin": held(h, "P6")}), gh.cache, only=("plugin",),
             to=h.c["P7"])


# ---------------------------------------------------------------- deps.yaml


BASE = """deps:
  plugin:  # keep me
    url: https://github.com/ROCm/rocm-jax.git
    branch: master
    commit: {c}
    roll: {roll}
  jax:
    url: https://github.com/ROCm/jax.git
    branch: b
    commit: {c}
    roll: {{via: plugin, file: a.bzl}}
  xla:
    url: https://github.com/ROCm/xla.git
    branch: b
    commit: {c}
    roll: manual
"""
C = "a" * 40


@pytest.mark.parametrize("roll_text,message", [
    ("{head: true, require: red}", "deps.plugin.roll.require: got red; expected 'green' (every check) "
                                   "or a list of check names"),
    ("{head: true, require: []}", "deps.plugin.roll.require"),
    ("{head: true, require: green, max_walk: 0}", "deps.plugin.roll.max_walk: got 0; expected a whole number"),
    ("{head: yes please}", "deps.plugin.roll.head"),
    ("{head: true, max_walk: 5}", "max_walk only together with require"),
    ("{head: true, require: green, colour: blue}", "deps.plugin.roll.colour"),
])
def test_bad_green_config_is_one_line(roll_text, message, tmp_path):
    with pytest.raises(ConfigError) as err:
        parse_deps(tmp_path / "deps.yaml", BASE.format(c=C, roll=roll_text))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_green_config_parses():
    deps = parse_deps("deps.yaml", BASE.format(c=C, roll="{head: true, require: [build, gpu]}"))
    assert deps["plugin"].roll == config.RollHead(("build", "gpu"), 20)
    assert str(deps["plugin"].roll) == "head (green: build, gpu)"
    block = BASE.format(c=C, roll="\n      head: true\n      require: green\n      max_walk: 5")
    assert parse_deps("deps.yaml", block)["plugin"].roll == config.RollHead("green", 5)


@pytest.mark.parametrize("hold,message", [
    ("{commit: abc, reason: x}", "deps.plugin.hold.commit: got abc"),
    (f"{{commit: {C}, reason: ''}}", "deps.plugin.hold.reason"),
    (f"{{commit: {C}}}", "deps.plugin.hold.reason: got nothing (missing)"),
    ("later", "deps.plugin.hold: got later"),
])
def test_bad_hold_is_one_line(hold, message):
    text = BASE.format(c=C, roll="head").replace("    roll: head\n", f"    roll: head\n    hold: {hold}\n")
    with pytest.raises(ConfigError) as err:
        parse_deps("deps.yaml", text)
    assert message in str(err.value)


def test_a_hold_on_a_via_dep_is_refused():
    text = BASE.format(c=C, roll="head").replace("file: a.bzl}\n", f"file: a.bzl}}\n    hold: {{commit: {C}, "
                                                                    "reason: r}\n")
    with pytest.raises(ConfigError, match="holds only on deps that roll by head"):
        parse_deps("deps.yaml", text)


def test_render_hold_adds_replaces_and_removes_one_line():
    text = BASE.format(c=C, roll="head")
    one = render_hold("deps.yaml", text, "plugin", Hold("b" * 40, 'breaks "ROCm"\n build'))
    assert one.replace(f'    hold: {{commit: {"b" * 40}, reason: "breaks \\"ROCm\\" build"}}\n', "") == text
    assert parse_deps("deps.yaml", one)["plugin"].hold == Hold("b" * 40, 'breaks "ROCm" build')
    two = render_hold("deps.yaml", one, "plugin", Hold("c" * 40, "other"))
    assert two.count("hold:") == 1 and parse_deps("deps.yaml", two)["plugin"].hold.commit == "c" * 40
    assert render_hold("deps.yaml", two, "plugin", None) == text
    block = BASE.format(c=C, roll="\n      head: true\n      require: green")
    held_block = render_hold("deps.yaml", block, "plugin", Hold("b" * 40, "r"))
    assert parse_deps("deps.yaml", held_block)["plugin"].roll.require == "green"
    assert "# keep me" in held_block


def test_bump_prints_and_returns_the_held_line(history, tmp_path, monkeypatch):
    """What the PR body gets: ``release bump`` leads its changelog with the held dep's line."""
    h = history
    monkeypatch.delenv("JAX_ROCM_RELEASE_CACHE", raising=False)
    root = make_project(tmp_path / "proj", h, pins=h.pins_at(h.c["P2"]), extra={"plugin": held(h, "P6")})
    rolled = bump(root)
    line = (f"plugin: held before {h.c['P6'][:7]} ({HOLD_REASON}); 3 newer commits not taken until the "
            "hold is removed")
    assert rolled.facts["notes"] == [line]
    assert rolled.facts["deps"]["plugin"]["new"] == h.c["P5"]
    assert f"- {line}" in rolled.summary() and rolled.body.markdown().startswith(f"- {line}\n")
    assert config.load_deps(root / "deps.yaml")["plugin"].hold == Hold(h.c["P6"], HOLD_REASON)
