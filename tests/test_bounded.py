"""Config text from outside is read within bounds: any text is a valid config or one
ConfigError line, never a traceback, a hang or a blow-up (release.core.bounded, config)."""

from __future__ import annotations

import json
import time
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core import bounded
from release.core.config import parse_deps, parse_version_info
from release.core.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]
DEPS = (REPO / "deps.yaml").read_text(encoding="utf-8")
VERSION_INFO = (REPO / "version_info.json").read_text(encoding="utf-8")
PLUGIN_SHA = "4006f866f9f094bf1beff2e1bad4f845480a8ea6"

# Every non-ASCII character Unicode calls a decimal digit (Arabic-Indic, Devanagari, fullwidth, ...).
LOOKALIKE_DIGITS = [c for c in map(chr, range(0x80, 0x20000)) if unicodedata.category(c) == "Nd"]

HOSTILE_SNIPPETS = [
    "&a [1]", "*a", "!foo x", "!!python/object:os.system x", "!!binary aGk=", "? [a, b]\n: c",
    "{[x]: 1}", "[" * 200, "{" * 200, "9" * 5000, "0x" + "f" * 5000, "\x1b[31m", "\u0661",
    "\n", "\t", ": :", "- - -", "'", '"', "\\", "%YAML 1.1\n---", "---\n---", "\x00", "\ufeff",
    "<<: *a", "1e999", ".nan", "~", "null", "true",
]


def _mutate(text: str, at: float, snippet: str, replace: int) -> str:
    i = int(at * len(text))
    return text[:i] + snippet + text[i + replace:]


@given(at=st.floats(0, 1), snippet=st.sampled_from(HOSTILE_SNIPPETS) | st.text(max_size=30),
       replace=st.integers(0, 12))
def test_any_deps_text_is_a_config_or_one_config_error(at, snippet, replace):
    text = _mutate(DEPS, at, snippet, replace)
    started = time.process_time()  # CPU, not wall: a loaded machine must not fail it, a blow-up still does
    try:
        parse_deps(Path("deps.yaml"), text)
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("deps.yaml")
    assert time.process_time() - started < 2


@given(at=st.floats(0, 1), snippet=st.sampled_from(["[" * 100, "{" * 100, "9" * 5000, "\u0661", "\n",
                                                    '"x": 1, ', "\x1b"]) | st.text(max_size=20),
       replace=st.integers(0, 8))
def test_any_version_info_text_is_a_config_or_one_config_error(at, snippet, replace):
    text = _mutate(VERSION_INFO, at, snippet, replace)
    try:
        info = parse_version_info(Path("version_info.json"), text)
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("version_info.json")
    else:  # what is accepted is ASCII and whole
        assert info.version.isascii() and info.rocm_version.isascii()
        assert "\n" not in info.version + info.rocm_version


def test_alias_bomb_is_refused_at_once():
    """The 1.4 KB billion-laughs document: refused in well under a second, nothing expanded."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        prev, name = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    text = "\n".join(lines) + "\ndeps: *i\n"
    started = time.process_time()  # CPU: what an expansion would burn, whatever else the machine runs
    with pytest.raises(ConfigError, match="anchor or alias"):
        parse_deps(Path("deps.yaml"), text)
    assert time.process_time() - started < 0.5


@pytest.mark.parametrize("text, fragment", [
    ("deps: !foo {}", "tag"),
    ("deps: !!python/object/apply:os.system [echo]", "tag"),
    ("? [a, b]\n: c\n", "key"),
    ("deps: {{x: 1}: 2}", "key"),
    ("deps:\n  " + "[" * 100_000, "deeper"),
    ("deps: " + "9" * 5000, "cannot be read"),
    ("deps: {plugin: {a: 1, a: 2}}", "each key once"),
])
def test_hostile_yaml_is_one_config_error(text, fragment):
    with pytest.raises(ConfigError, match=fragment) as caught:
        parse_deps(Path("deps.yaml"), text)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"version": ' + "9" * 5000 + "}",
                                  '{"a":' * 70 + "1" + "}" * 70])
def test_hostile_json_is_one_config_error(text):
    with pytest.raises(ConfigError) as caught:
        parse_version_info(Path("version_info.json"), text)
    assert "\n" not in str(caught.value)


def test_json_depth_ignores_brackets_inside_strings():
    text = json.dumps({"a": "[" * 500 + "{" * 500, "b": ["\\\"[[[", {"c": "]]]"}]})
    assert bounded.json_loads(text)["a"].startswith("[[[")
    assert bounded.json_loads("[" * bounded.MAX_DEPTH + "]" * bounded.MAX_DEPTH) is not None
    with pytest.raises(bounded.Unparseable):
        bounded.json_loads("[" * (bounded.MAX_DEPTH + 1) + "]" * (bounded.MAX_DEPTH + 1))


@given(digit=st.sampled_from(LOOKALIKE_DIGITS), which=st.sampled_from(["version", "rocm_version"]),
       at=st.integers(0, 4))
def test_versions_are_ascii_digits_only(digit, which, at):
    """A look-alike digit anywhere in a version is refused (it would plan jax_rocm71_* wheels)."""
    value = json.loads(VERSION_INFO)[which]
    positions = [i for i, c in enumerate(value) if c.isdigit()]
    i = positions[at % len(positions)]
    text = VERSION_INFO.replace(f'"{value}"', json.dumps(value[:i] + digit + value[i + 1:], ensure_ascii=False))
    with pytest.raises(ConfigError, match=which):
        parse_version_info(Path("version_info.json"), text)


@given(key=st.sampled_from(["commit", "branch", "url"]), tail=st.sampled_from(["\\n", "\\r\\n", "\\x1b[0m",
                                                                           "\\u0661", "\\t", "\\0"]))
def test_pins_are_refused_with_a_trailing_or_hidden_character(key, tail):
    """``commit: "<sha>\\n"``, ``branch: "master\\n"``: $ would match before the newline; \\Z does not."""
    values = {"commit": PLUGIN_SHA, "branch": "master", "url": "https://github.com/ROCm/rocm-jax"}
    old = f"{key}: {values[key]}"
    assert old in DEPS
    text = DEPS.replace(old, f'{key}: "{values[key]}{tail}"', 1)
    with pytest.raises(ConfigError, match=f"deps.plugin.{key}"):
        parse_deps(Path("deps.yaml"), text)


def test_the_real_files_still_load():
    assert parse_deps(Path("deps.yaml"), DEPS)["plugin"].commit == PLUGIN_SHA
    assert parse_version_info(Path("version_info.json"), VERSION_INFO).rocm_major == 7


@pytest.mark.parametrize("text", [
    "deps: !foo x\n", "deps: *nothing\n", "deps:\n  " + "[" * 100_000 + "\n", "deps: " + "9" * 5000 + "\n",
    "deps:\n  plugin: {url: 'https://x-access-token:s3cr3tvalue@example.com/r', " + "? [a]: b}\n",
])
def test_cli_reads_a_hostile_deps_file_as_one_line_and_exit_2(project_dir, run_cli, text):
    (project_dir / "deps.yaml").write_text(text, encoding="utf-8")
    before = sorted((p.name, p.read_bytes()) for p in project_dir.iterdir())
    code, out, err = run_cli("status", "--offline", "--root", project_dir)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err and "s3cr3tvalue" not in err + out
    assert sorted((p.name, p.read_bytes()) for p in project_dir.iterdir()) == before


@pytest.mark.parametrize("text, reason, line, column", [
    ("a: 1\nb: !foo x\n", "the tag '!foo'", 2, 4),
    ("a: 1\nb:\n  c: &x 1\n", "anchor or alias", 3, 6),
    ("a:\n  b: 1\n  b: 2\n", "a.b given twice", 3, 3),
    ("a:\n  ? [1]\n  : 2\n", "a sequence used as a key in a", 2, 5),
    ("a: [1,\n", "invalid YAML", 2, 1),
])
def test_a_refusal_says_what_and_where(text, reason, line, column):
    with pytest.raises(bounded.Unparseable) as caught:
        bounded.yaml_data(bounded.yaml_compose(text))
    assert reason in caught.value.reason and "\n" not in caught.value.reason
    assert (caught.value.line, caught.value.column) == (line, column)
    assert caught.value.where == f"line {line}, column {column}"


def test_plain_yaml_and_json_read_as_before():
    text = "deps:\n  a: {x: [1, 2.5, true, null, 'q']}\n"
    assert bounded.yaml_data(bounded.yaml_compose(text)) == {"deps": {"a": {"x": [1, 2.5, True, None, "q"]}}}
    assert bounded.yaml_compose("") is None and bounded.yaml_data(None) is None
    assert bounded.json_loads(b'{"a": [1, {"b": "]"}]}') == {"a": [1, {"b": "]"}]}
    with pytest.raises(bounded.Unparseable, match="not UTF-8"):
        bounded.json_loads(b"\xff")
    with pytest.raises(bounded.Unparseable, match="invalid JSON") as caught:
        bounded.json_loads('{"a":\n 1,}')
    assert (caught.value.line, caught.value.column) == (2, 4)
    with pytest.raises(bounded.Unparseable, match="cannot be read"):
        bounded.json_loads("9" * 5000)


def test_depth_is_counted_exactly():
    """64 levels are read, 65 are not, and closing brackets count one each (siblings never hide depth)."""
    deep = bounded.MAX_DEPTH
    assert bounded.yaml_compose("[" * deep + "]" * deep) is not None
    with pytest.raises(bounded.Unparseable, match="deeper than 64"):
        bounded.yaml_compose("[" * (deep + 1) + "]" * (deep + 1))
    with pytest.raises(bounded.Unparseable, match="deeper than 64"):
        bounded.yaml_compose("- [" + "[], " * 50 + "[" * deep + "]" * deep + "]")
    with pytest.raises(bounded.Unparseable, match="deeper than 64"):
        bounded.json_loads("[" + "[]," * 100 + "[" * deep + "]" * deep + "]")
    with pytest.raises(bounded.Unparseable, match="deeper than 64"):
        bounded.json_loads('{"a":' * (deep + 1) + "1" + "}" * (deep + 1))
    half = deep // 2 + 1  # of each kind: neither kind alone passes the limit, both together do
    with pytest.raises(bounded.Unparseable, match="deeper than 64"):
        bounded.json_loads('[{"a":' * half + "1" + "}]" * half)
    assert bounded.json_loads('[{"a":' * (deep // 2) + "1" + "}]" * (deep // 2)) is not None


def test_depth_counts_nesting_not_siblings():
    """Many collections side by side at a shallow depth are read: each one's end gives its level back."""
    assert bounded.yaml_data(bounded.yaml_compose("[" + "[1], " * 200 + "{a: [b]}]")) is not None
    wide = "".join(f"d{i}:\n  k: [v]\n" for i in range(200))
    assert len(bounded.yaml_data(bounded.yaml_compose(wide))) == 200


def test_a_config_text_is_parsed_once(monkeypatch):
    """deps.yaml was parsed twice, an event pass for the checks and then the composer's own: the
    checks now look at the events the composer takes (anchors, tags and depth refused as before)."""
    import yaml.scanner

    from release.core import config
    monkeypatch.setattr(config, "_COMPOSED", {})  # a text composed before is not composed again
    scanners: set[int] = set()  # the scanners that read the text (each parse has its own)
    fetch = yaml.scanner.Scanner.fetch_more_tokens
    monkeypatch.setattr(yaml.scanner.Scanner, "fetch_more_tokens", lambda self: scanners.add(id(self)) or fetch(self))
    assert parse_deps(REPO / "deps.yaml", DEPS)["jax"].commit
    assert len(scanners) == 1
