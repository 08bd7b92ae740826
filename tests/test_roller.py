"""roller.yaml: the roller's mode as a reviewed file. ``stopped`` rolls nothing and ``dry-run``
writes nothing, whatever flags the workflow passes; each says so in one line; a bad file is one
line naming the file, the key and what is allowed (generated files, fixed seed)."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core.errors import ConfigError
from release.core.roller import MODES, load_roller, parse_roller
from tests.support.gitrepos import git
from tests.test_automerge import world  # noqa: F401 (the fixture: checkout, origin, stand-in)


@pytest.fixture
def cache_env(tmp_path, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))


def branches(origin):
    return git("for-each-ref", "--format=%(refname)", "refs/heads/", cwd=origin).split()


@pytest.mark.parametrize("mode", ["stopped", "dry-run"])
def test_stopped_and_dry_run_write_nothing_whatever_the_flags(world, run_cli, git_remotes, cache_env,  # noqa: F811
                                                               tmp_path, monkeypatch, mode):
    root, origin, fake = world
    (root / "roller.yaml").write_text(f"mode: {mode}\n")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    before = (root / "deps.yaml").read_bytes()
    for flags in (("--auto-merge",), ("--open-pr",), ("--push",), ("--commit",), ()):
        code, out, err = run_cli("bump", "--json", "--root", root, "--changelog", tmp_path / "c.md", *flags)
        assert code == 0, err
        data = json.loads(out)
        assert data["roller"] == mode
        assert f"mode: {mode}" in summary.read_text()
        assert (root / "deps.yaml").read_bytes() == before
        assert branches(origin) == ["refs/heads/main"] and fake.pulls() == []
        assert not (tmp_path / "c.md").exists()
        assert git("for-each-ref", "refs/heads/bump/", cwd=root) == ""
        if mode == "dry-run":  # it still shows what would move
            assert data["changed"] is True and data["deps"]
        else:
            assert data["changed"] is False and "deps" not in data


def test_running_or_absent_rolls_as_asked(world, run_cli, git_remotes, cache_env):  # noqa: F811
    root, origin, fake = world
    assert load_roller(root).mode == "running"
    (root / "roller.yaml").write_text("mode: running\n")
    code, out, err = run_cli("bump", "--open-pr", "--json", "--root", root)
    assert code == 0, err
    assert "roller" not in json.loads(out) and len(fake.pulls()) == 1


values = st.one_of(st.text(max_size=12), st.integers(), st.booleans(), st.none(),
                   st.lists(st.integers(), max_size=2), st.floats(allow_nan=False))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(mode=values, extra=st.dictionaries(st.text(min_size=1, max_size=8).filter(lambda k: k != "mode"),
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
    assert ("only mode" in line) if extra else (" | ".join(MODES) in line)


@pytest.mark.parametrize("raw", [b"- mode\n", b"mode: [\n", b"\xff\xfe", b"a: &x 1\nb: *x\n",
                                 b"mode: running\nmode: stopped\n"])
def test_unreadable_roller_files_are_one_line(tmp_path, raw):
    with pytest.raises(ConfigError) as exc:
        parse_roller(tmp_path / "roller.yaml", raw)
    assert "\n" not in str(exc.value) and "roller.yaml" in str(exc.value)
