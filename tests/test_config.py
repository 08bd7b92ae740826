"""deps.yaml / version_info.json: every validation error, round trips, atomic saves."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from release.core import config
from release.core.config import ConfigError, RollManual, RollVia

REPO = Path(__file__).resolve().parents[1]
SHA_A = "a" * 40
SHA_B = "b" * 40
SHA_C = "c" * 40


def deps_text(plugin_roll="head", jax_roll=None, xla_roll=None, extra_dep="", extra_key="",
              jax_commit=SHA_B, jax_extra=""):
    jax_roll = jax_roll or "{via: plugin, file: third_party/jax/workspace.bzl, var: JAX_COMMIT}"
    xla_roll = xla_roll or "{via: plugin, file: third_party/xla/workspace.bzl, var: XLA_COMMIT}"
    return (
        "# comment kept\n"
        "deps:\n"
        f"  plugin: {{url: https://github.com/ROCm/rocm-jax, branch: master, commit: {SHA_A}, "
        f"roll: {plugin_roll}{extra_key}}}\n"
        f"  jax: {{url: https://github.com/ROCm/jax, branch: rocm-jaxlib-v0.9.1, commit: {jax_commit}, "
        f"roll: {jax_roll}{jax_extra}}}\n"
        f"  xla: {{url: https://github.com/ROCm/xla, branch: rocm-jaxlib-v0.9.1, commit: {SHA_C}, roll: {xla_roll}}}\n"
        + extra_dep
    )


def write(tmp_path, text, name="deps.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_real_files_load():
    proj = config.load_project(REPO)
    assert proj.deps.names == ("plugin", "jax", "xla")
    assert proj.deps["plugin"].commit == "4006f866f9f094bf1beff2e1bad4f845480a8ea6"
    assert proj.deps["xla"].roll == RollVia("plugin", "jax_rocm_plugin/third_party/xla/workspace.bzl")
    assert proj.version_info.rocm_major == 7


def test_flow_style_from_issue_loads(tmp_path):
    deps = config.load_deps(write(tmp_path, deps_text(plugin_roll="manual")))
    assert isinstance(deps["plugin"].roll, RollManual)
    assert [d.name for d in deps.resolution_order()][0] == "plugin"


def test_frozen(tmp_path):
    deps = config.load_deps(write(tmp_path, deps_text()))
    with pytest.raises(dataclasses.FrozenInstanceError):
        deps["plugin"].commit = SHA_B  # type: ignore[misc]


@pytest.mark.parametrize("text, key, fragment", [
    ("deps: [1, 2]\n", "deps", "a mapping"),
    ("- a\n- b\n", None, "a mapping with the key 'deps'"),
    ("", None, "a mapping"),
    ("deps:\n  plugin: {url: x\n", "line", "well-formed YAML"),
    (deps_text() + "other: 1\n", "other", "only deps"),
    (deps_text(extra_dep="  tsl: {url: https://github.com/x/y, branch: m, commit: " + SHA_A + ", roll: head}\n"),
     "deps.tsl", "only plugin, jax, xla"),
    (deps_text(extra_key=", extra: 1"), "deps.plugin.extra", "only url, branch, commit, roll"),
    (deps_text(jax_commit="abc123"), "deps.jax.commit", "40 lowercase hex"),
    (deps_text(jax_commit="G" * 40), "deps.jax.commit", "40 lowercase hex"),
    (deps_text(plugin_roll="sometimes"), "deps.plugin.roll", "'head', 'manual'"),
    (deps_text(jax_roll="{via: nope, file: f, var: V}"), "deps.jax.roll.via", "one of the other deps"),
    (deps_text(jax_roll="{via: plugin, var: V}"), "deps.jax.roll.file", "present"),
    (deps_text(jax_roll="{via: plugin, file: f, branches: 'a b'}"), "deps.jax.roll.branches", "pattern"),
    (deps_text(jax_roll="{via: plugin, file: f}", jax_extra=", archive_sha256: abc"), "deps.jax.archive_sha256",
     "64 lowercase hex"),
    (deps_text(jax_extra=", patches: [1]"), "deps.jax.patches", "a list of patch file labels"),
    (deps_text(jax_roll="{via: plugin, file: /etc/passwd, var: V}"), "deps.jax.roll.file", "relative"),
    (deps_text(jax_roll="{via: plugin, file: f, var: 'not an identifier'}"), "deps.jax.roll.var", "identifier"),
    (deps_text(plugin_roll="{via: jax, file: f, var: V}", jax_roll="{via: xla, file: f, var: V}",
               xla_roll="{via: plugin, file: f, var: V}"), "roll.via", "no cycle"),
    (deps_text().replace("branch: master", "branch: 'bad branch'"), "deps.plugin.branch", "a branch name"),
    (deps_text().replace("https://github.com/ROCm/jax", "not a url"), "deps.jax.url", "a git URL"),
    (deps_text().replace("  xla:", "  jax:"), "deps.jax", "each key once"),
])
def test_deps_errors_name_file_key_value_expected(tmp_path, text, key, fragment):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        config.load_deps(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    if key:
        assert key in message
    assert fragment in message
    assert "expected" in message


def test_missing_dep_is_named(tmp_path):
    text = "\n".join(line for line in deps_text().splitlines() if not line.startswith("  xla"))
    with pytest.raises(ConfigError, match=r"deps\.xla: got nothing \(missing\)"):
        config.load_deps(write(tmp_path, text))


def test_self_via_is_a_cycle(tmp_path):
    with pytest.raises(ConfigError, match="no cycle"):
        config.load_deps(write(tmp_path, deps_text(jax_roll="{via: jax, file: f, var: V}")))


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        config.load_deps(tmp_path / "deps.yaml")


def test_resolution_order_puts_via_after_source(tmp_path):
    text = deps_text(plugin_roll="head", jax_roll="{via: xla, file: f, var: V}",
                     xla_roll="{via: plugin, file: f, var: V}")
    order = [d.name for d in config.load_deps(write(tmp_path, text)).resolution_order()]
    assert order.index("plugin") < order.index("xla") < order.index("jax")


def test_unchanged_round_trip_is_byte_identical(tmp_path):
    path = tmp_path / "deps.yaml"
    original = (REPO / "deps.yaml").read_bytes()
    path.write_bytes(original)
    deps = config.load_deps(path)
    before = os.stat(path).st_mtime_ns
    assert config.save_deps(deps) is False
    assert path.read_bytes() == original
    assert os.stat(path).st_mtime_ns == before


def test_save_moves_only_the_commit_and_keeps_comments(tmp_path):
    path = tmp_path / "deps.yaml"
    original = (REPO / "deps.yaml").read_text()
    path.write_text(original)
    deps = config.load_deps(path)
    new = deps.with_commits({"xla": SHA_C, "plugin": SHA_A})
    assert config.save_deps(new) is True
    text = path.read_text()
    assert config.load_deps(path) == new
    expected = original.replace(deps["xla"].commit, SHA_C).replace(deps["plugin"].commit, SHA_A)
    assert text == expected
    assert text.count("#") == original.count("#")


def test_save_keeps_quotes_in_quoted_commit(tmp_path):
    path = write(tmp_path, deps_text().replace(f"commit: {SHA_A}", f"commit: '{SHA_A}'"))
    deps = config.load_deps(path)
    config.save_deps(deps.with_commits({"plugin": SHA_B}))
    assert f"commit: '{SHA_B}'" in path.read_text()


def test_save_is_atomic_and_leaves_no_temp_file(tmp_path, monkeypatch):
    path = write(tmp_path, deps_text())
    deps = config.load_deps(path)
    original = path.read_text()

    def boom(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        config.save_deps(deps.with_commits({"plugin": SHA_B}))
    assert path.read_text() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deps.yaml"]


def test_with_commits_refuses_unknown_dep(tmp_path):
    deps = config.load_deps(write(tmp_path, deps_text()))
    with pytest.raises(KeyError):
        deps.with_commits({"tsl": SHA_A})


# ------------------------------------------------------------ version_info.json

GOOD_VERSION = {"version": "0.9.1", "rocm_version": "7.2.0", "nightly_scheme": "date"}


@pytest.mark.parametrize("data, key, fragment", [
    ({**GOOD_VERSION, "version": "0.9"}, "version", "X.Y.Z"),
    ({**GOOD_VERSION, "version": "0.9.1rc1"}, "version", "X.Y.Z"),
    ({**GOOD_VERSION, "version": "01.9.1"}, "version", "X.Y.Z"),
    ({**GOOD_VERSION, "rocm_version": "7"}, "rocm_version", "A.B.C"),
    ({**GOOD_VERSION, "nightly_scheme": "weekly"}, "nightly_scheme", "'date'"),
    ({**GOOD_VERSION, "extra": 1}, "extra", "only version"),
    ({k: v for k, v in GOOD_VERSION.items() if k != "rocm_version"}, "rocm_version", "present"),
    ([1, 2], None, "a JSON object"),
])
def test_version_info_errors(tmp_path, data, key, fragment):
    path = write(tmp_path, json.dumps(data), "version_info.json")
    with pytest.raises(ConfigError) as info:
        config.load_version_info(path)
    message = str(info.value)
    assert message.startswith(str(path)) and fragment in message and "\n" not in message
    if key:
        assert key in message


def test_version_info_bad_json(tmp_path):
    path = write(tmp_path, '{"version": "0.9.1",', "version_info.json")
    with pytest.raises(ConfigError, match=r"line 1, column \d+: got invalid JSON"):
        config.load_version_info(path)


def test_version_info_duplicate_key(tmp_path):
    path = write(tmp_path, '{"version": "0.9.1", "version": "0.9.2", "rocm_version": "7.2.0", '
                           '"nightly_scheme": "date"}', "version_info.json")
    with pytest.raises(ConfigError, match="each key once"):
        config.load_version_info(path)


def test_version_info_save_in_place(tmp_path):
    path = tmp_path / "version_info.json"
    original = (REPO / "version_info.json").read_text()
    path.write_text(original)
    info = config.load_version_info(path)
    assert config.save_version_info(info) is False
    assert path.read_text() == original
    import dataclasses
    config.save_version_info(dataclasses.replace(info, version="0.10.0"))
    assert path.read_text() == original.replace(f'"{info.version}"', '"0.10.0"')


def test_find_root_walks_upward(project_dir, monkeypatch):
    deeper = project_dir / "a" / "b"
    deeper.mkdir(parents=True)
    monkeypatch.chdir(deeper)
    assert config.find_root() == project_dir.resolve()


def test_find_root_fails_clearly(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(config.UserError, match="--root"):
        config.find_root()


SHA256 = "8" * 64


@pytest.mark.parametrize("flow", [False, True])
def test_save_writes_branch_and_pin_keys_in_place(tmp_path, flow):
    """A via roll records the branch, the archive sha256 and the patches; dropping them later
    (the source moved to git_repository) removes the lines again, leaving the rest untouched."""
    original = deps_text() if flow else (REPO / "deps.yaml").read_text()
    path = write(tmp_path, original)
    deps = config.load_deps(path)
    pinned = deps.with_pins({"jax": {"commit": SHA_C, "branch": "rocm-jaxlib-v0.10.0",
                                     "archive_sha256": SHA256, "patches": ("//a:1.patch", "//a:2.patch")}})
    assert config.save_deps(pinned) is True
    text = path.read_text()
    assert config.load_deps(path) == pinned
    assert text.count("#") == original.count("#") and "rocm-jaxlib-v0.10.0" in text
    assert '["//a:1.patch", "//a:2.patch"]' in text
    # Change one patch, then put back what was there: the file comes back to the original.
    config.save_deps(pinned.with_pins({"jax": {"patches": ("//a:3.patch",)}}))
    assert config.load_deps(path)["jax"].patches == ("//a:3.patch",)
    back = pinned.with_pins({"jax": {"archive_sha256": deps["jax"].archive_sha256, "patches": deps["jax"].patches,
                                     "branch": deps["jax"].branch, "commit": deps["jax"].commit}})
    config.save_deps(back)
    assert path.read_text() == original


def test_a_read_then_saved_deps_yaml_is_composed_once_per_text(tmp_path, monkeypatch):
    """PyYAML's composer is most of what reading and saving deps.yaml costs: a bump reads the
    file, then renders its save against the same text and checks the new text; each text is
    composed once (two here), and what is read back from the new text is the new pins."""
    from release.core import bounded
    path = tmp_path / "deps.yaml"
    path.write_text((REPO / "deps.yaml").read_text())
    monkeypatch.setattr(config, "_COMPOSED", {})
    composed: list[str] = []
    real = bounded.yaml_compose
    monkeypatch.setattr(bounded, "yaml_compose", lambda text: composed.append(text) or real(text))
    deps = config.load_deps(path)
    new = deps.with_commits({"xla": SHA_C})
    assert config.save_deps(new) is True
    assert len(composed) == 2 and composed[0] != composed[1], len(composed)
    assert config.load_deps(path) == new and len(composed) == 2
    path.write_text(path.read_text().replace(SHA_C, SHA_B))  # another text: composed anew
    assert config.load_deps(path)["xla"].commit == SHA_B and len(composed) == 3
