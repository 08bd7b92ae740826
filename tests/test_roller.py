"""roller.yaml: the roller's mode as a reviewed file. ``stopped`` rolls nothing and ``dry-run``
writes nothing, whatever flags the workflow passes; each says so in one line; a bad file is one
line naming the file, the key and what is allowed (generated files, fixed seed)."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core.errors import ConfigError
from release.core.roller import KEYS, MODES, load_roller, parse_roller
from tests.support.bumping import bump
from tests.support.gitrepos import git
from tests.test_automerge import world  # noqa: F401 (the fixture: checkout, origin, stand-in)


@pytest.fixture
def cache_env(shared_git_cache, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(shared_git_cache))


def commit_roller(root, text):
    """roller.yaml as a reviewed commit on the checkout's main (what bump reads)."""
    (root / "roller.yaml").write_text(text)
    git("add", "roller.yaml", cwd=root)
    git("commit", "--quiet", "-m", "roller", cwd=root)


def branches(origin):
    return git("for-each-ref", "--format=%(refname)", "refs/heads/", cwd=origin).split()


@pytest.mark.parametrize("mode", ["stopped", "dry-run"])
def test_stopped_and_dry_run_write_nothing_whatever_the_flags(world, git_remotes, cache_env,  # noqa: F811
                                                               tmp_path, mode):
    root, origin, fake = world
    commit_roller(root, f"mode: {mode}\n")
    before = (root / "deps.yaml").read_bytes()
    for asked in ({"auto_merge": True}, {"open_pr": True}, {"push": True}, {"commit": True}, {}):
        result = bump(root, changelog=tmp_path / "c.md", **asked)
        data = result.to_json()
        assert data["roller"] == mode
        assert f"mode: {mode}" in result.summary()
        assert (root / "deps.yaml").read_bytes() == before
        assert branches(origin) == ["refs/heads/main"] and fake.pulls() == []
        assert not (tmp_path / "c.md").exists()
        assert git("for-each-ref", "refs/heads/bump/", cwd=root) == ""
        if mode == "dry-run":  # it still shows what would move
            assert data["changed"] is True and data["deps"]
        else:
            assert data["changed"] is False and "deps" not in data


def test_running_or_absent_rolls_as_asked(world, git_remotes, cache_env):  # noqa: F811
    root, origin, fake = world
    assert load_roller(root).mode == "running"
    commit_roller(root, "mode: running\n")
    assert bump(root, open_pr=True).roller is None and len(fake.pulls()) == 1


values = st.one_of(st.text(max_size=12), st.integers(), st.booleans(), st.none(),
                   st.lists(st.integers(), max_size=2), st.floats(allow_nan=False))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(mode=values, extra=st.dictionaries(st.text(min_size=1, max_size=8).filter(lambda k: k not in KEYS),
                                          values, max_size=2))
def test_a_bad_roller_file_is_one_line_naming_what_was_expected(tmp_path_factory, mode, extra):
    path = tmp_path_factory.mktemp("r") / "roller.yaml"
    text = yaml.safe_dump({"mode": mode, **extra})
    if mode in MODES and not extra:
        assert parse_roller(path, text.encode()).mode == mode
        return
    with pytest.raises(ConfigError) as exc:
        parse_roller(path, text.encode())
    line = str(exc.value)
    assert "\n" not in line and "roller.yaml" in line
    assert ("only mode, cooldown_hours" in line) if extra else (" | ".join(MODES) in line)


@pytest.mark.parametrize("raw", [b"- mode\n", b"mode: [\n", b"\xff\xfe", b"a: &x 1\nb: *x\n",
                                 b"mode: running\nmode: stopped\n"])
def test_unreadable_roller_files_are_one_line(tmp_path, raw):
    with pytest.raises(ConfigError) as exc:
        parse_roller(tmp_path / "roller.yaml", raw)
    assert "\n" not in str(exc.value) and "roller.yaml" in str(exc.value)


def commit_time(remotes, sha):
    return int(git("log", "-1", "--format=%ct", sha, cwd=remotes.plugin.path))


@pytest.mark.parametrize("soaked, expect", [("P2", "P2"), ("P1", "P1"), ("P0", "P0")],
                         ids=["tip-soaked", "newest-soaked-below-tip", "none-soaked"])
def test_cooldown_rolls_to_the_newest_commit_that_has_soaked(bump_project, git_remotes, cache_env,
                                                             soaked, expect):
    """By the run's clock: now is a second after the tip; a cooldown as old as ``soaked`` lets
    exactly the commits up to it through, and the newest of those is taken."""
    c = git_remotes.c
    root = bump_project()
    now = commit_time(git_remotes, c["P2"]) + 1
    hours = (now - commit_time(git_remotes, c[soaked])) / 3600
    (root / "roller.yaml").write_text(f"cooldown_hours: {hours!r}\n")
    clock = dt.datetime.fromtimestamp(now, dt.timezone.utc)
    facts = bump(root, now=clock, dry_run=True, deps=("plugin",)).facts
    new = facts["deps"]["plugin"]["new"] if "plugin" in facts.get("deps", {}) else c["P0"]
    assert new == c[expect]
    if soaked != "P2":
        assert any("cooldown" in n and "not soaked" in n for n in facts["notes"]), facts["notes"]
    # Without the file, the tip.
    (root / "roller.yaml").unlink()
    assert bump(root, now=clock, dry_run=True, deps=("plugin",)).facts["deps"]["plugin"]["new"] == c["P2"]


@pytest.mark.parametrize("hours", [-1, "a day", True, 10 ** 6, [1]])
def test_a_bad_cooldown_is_one_line(tmp_path, hours):
    with pytest.raises(ConfigError) as exc:
        parse_roller(tmp_path / "roller.yaml", yaml.safe_dump({"cooldown_hours": hours}).encode())
    assert "\n" not in str(exc.value) and "cooldown_hours" in str(exc.value)


def test_a_pause_with_until_rolls_again_once_its_day_is_over(world, git_remotes, cache_env):  # noqa: F811
    """Issue 33: pausing "for a week" needed a second commit to undo; `until:` ends it by the run's clock."""
    root, origin, fake = world
    commit_roller(root, "mode: stopped\nuntil: 2026-11-30\n")
    last_second = dt.datetime(2026, 11, 30, 23, 59, 59, tzinfo=dt.timezone.utc)  # of the day named
    held = bump(root, now=last_second, open_pr=True)
    assert (held.roller, held.ended_by) == ("stopped", "mode") and fake.pulls() == []
    rolled = bump(root, now=last_second + dt.timedelta(seconds=1), open_pr=True)  # running, no revert needed
    assert rolled.roller is None and len(fake.pulls()) == 1
