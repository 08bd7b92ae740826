"""Every path and number flag of every command, given each kind of bad value: one line on
stderr, the JSON error object on stdout with --json, exit 2, and nothing written anywhere."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from release.cli import COMMANDS, build_parser

TAG = "rocm-jax-v0.9.1"

# Each kind of bad path: a function of the test's scratch dir giving the bad value.
BAD_PATHS = {
    "file": lambda s: s / "a-file",                         # a file where a directory belongs
    "under-file": lambda s: s / "a-file" / "sub",           # a file in the way of mkdir -p
    "unwritable": lambda s: Path("/proc/release-test/out"),  # nothing can be created there
    "missing": lambda s: s / "nope",                        # for flags that read
    "dir": lambda s: s / "a-dir",                           # a directory where a file belongs
    "missing-parent": lambda s: s / "nope" / "x.md",
    "not-executable": lambda s: s / "a-file",
    "fifo": lambda s: s / "a-fifo",                         # blocks a reader until a writer comes
    "device": lambda s: Path("/dev/zero"),                  # never ends: memory runs out first
}
BAD_VALUES = {
    "positive": ["0", "-1", "abc", "1.5", "nan", "10000000000000000000000000000000"],
    "count": ["-1", "abc", "inf", "99999999999999999999999"],
    "build-number": ["-1", "1000", "x"],
    "days": ["-1", "nan", "inf", "-inf", "1e999", "1e308", "abc"],
    "seconds": ["-2", "-0.5", "nan", "inf", "x"],
    "repo": ["rocm", "a/b/c", "../x", "rocm/..", "-x/y"],
}

# command -> (argv that is otherwise valid, {flag: kinds of bad value}).
# A flag of None is the positional argument (its value replaces "{}" in the argv).
TABLE = {
    "status": (["status"], {"--build-number": "build-number", "--root": ["file", "missing"],
                            "--store-dir": ["file", "unwritable"], "--repo": "repo",
                            "--nightlies": "positive"}),
    "dashboard": (["dashboard", "--dry-run"], {"--nightlies": "positive", "--store-dir": ["file", "unwritable"],
                                               "--repo": "repo"}),
    "version": (["version", "--kind", "rc"], {"--number": "positive", "--build-number": "build-number"}),
    "nightly": (["nightly", "--dry-run"], {
        "--keep": "positive", "--older-than": "days", "--lock-timeout": "seconds",
        "--build-number": "build-number", "--protect-file": ["missing", "dir", "fifo", "device"],
        "--dist": ["file", "under-file", "unwritable"], "--workspace": ["file", "under-file", "unwritable"],
        "--artifacts": ["missing", "file"], "--store-dir": ["file", "under-file", "unwritable"],
        "--repo": "repo"}),
    "cut": (["cut"], {"--rc": "positive", "--post": "positive", "--lock-timeout": "seconds",
                      "--dist": ["file", "unwritable"], "--workspace": ["under-file"],
                      "--artifacts": ["missing"], "--store-dir": ["file"], "--repo": "repo"}),
    "bump": (["bump", "--dry-run"], {"--max-log-lines": "count",
                                     "--changelog": ["dir", "missing-parent", "under-file", "fifo", "device"]}),
    "line": (["line", "list"], {}),
    "bisect": (["bisect", "--good", TAG, "--probe-command", "exit 0"], {
        "--max-log-lines": "count", "--build-number": "build-number",
        "--dist": ["file", "under-file", "unwritable"], "--workspace": ["file", "under-file", "unwritable"],
        "--store-dir": ["file", "under-file"], "--repo": "repo"}),
    "fetch-sources": (["fetch-sources"], {"--workspace": ["file", "under-file", "unwritable"]}),
    "build": (["build", "--kind", "rc"], {"--number": "positive", "--build-number": "build-number",
                                          "--dist": ["file", "under-file", "unwritable"],
                                          "--workspace": ["file"], "--artifacts": ["missing", "file"]}),
    "verify": (["verify", "{}"], {None: ["missing", "dir", "fifo", "device"],
                                  "--deps": ["missing", "dir", "fifo", "device"],
                                  "--revisions": ["missing", "fifo", "device"],
                                  "--provenance": ["missing", "dir", "fifo", "device"]}),
    "promote": (["promote", "{}", "--to", "rc1"], {None: ["missing", "dir", "fifo", "device"],
                                                    "--out": ["file", "under-file", "unwritable"]}),
    "publish": (["publish", "{}"], {None: ["missing", "file"], "--store-dir": ["file", "unwritable"],
                                     "--repo": "repo"}),
    "validate": (["validate", TAG], {"--python": ["missing", "not-executable", "dir"],
                                     "--store-dir": ["file", "under-file"], "--repo": "repo"}),
    "gc": (["gc", "--keep", "3"], {"--keep": "positive", "--older-than": "days",
                                   "--protect-file": ["missing", "dir", "fifo", "device"],
                                   "--store-dir": ["file", "unwritable"], "--repo": "repo"}),
    "index": (["index", "--out", "{}"], {"--out": ["file", "under-file", "unwritable"],
                                         "--keep": "positive", "--protect-file": ["missing", "dir", "fifo", "device"],
                                         "--older-than": "days",
                                         "--store-dir": ["file"], "--repo": "repo"}),
    "doctor": (["doctor"], {"--repo": "repo"}),
    "smoke": (["smoke", TAG], {"--python": ["missing", "not-executable", "dir"],
                               "--store-dir": ["file", "under-file"], "--repo": "repo"}),
    "try": (["try"], {"--dir": ["file", "under-file", "unwritable"]}),
    "yank": (["yank", TAG], {"--store-dir": ["file", "under-file"], "--repo": "repo"}),
    "pypi-upload": (["pypi-upload", TAG], {"--store-dir": ["file", "under-file"], "--repo": "repo",
                                           "--dist": ["file", "under-file"],
                                           "--work": ["file", "under-file", "unwritable"],
                                           "--config-file": ["missing", "dir", "fifo", "device"]}),
}


def _cases():
    for command, (argv, flags) in TABLE.items():
        for flag, kinds in flags.items():
            values = BAD_VALUES[kinds] if isinstance(kinds, str) else kinds
            for value in values:
                yield pytest.param(command, argv, flag, value, isinstance(kinds, str),
                                   id=f"{command}-{flag or 'arg'}-{value}")


def _tree(root: Path) -> str:
    """A digest of every name, type and content under ``root``."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        h.update(str(path.relative_to(root)).encode())
        if path.is_file():
            h.update(path.read_bytes())
        elif path.is_dir():
            h.update(b"/")
    return h.hexdigest()


@pytest.fixture
def scratch(tmp_path, project_dir):
    s = tmp_path / "scratch"
    s.mkdir()
    (s / "a-file").write_text("not a directory\n")
    (s / "a-dir").mkdir()
    (s / "ok-dir").mkdir()
    os.mkfifo(s / "a-fifo")
    (s / "ok.whl").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    return s


def test_the_table_covers_every_command_and_every_path_and_number_flag():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(TABLE) == set(COMMANDS)
    for name, child in sub.choices.items():
        checked = set(TABLE[name][1])
        for action in child._actions:
            typed = getattr(action.type, "__module__", None) == "release.core.flags"
            if typed and action.dest not in ("root",):
                flag = action.option_strings[0] if action.option_strings else None
                assert flag in checked, f"{name} {flag or action.dest}: not in the table"
            assert action.type not in (int, float), f"{name} {action.option_strings}: raw {action.type}"
            if getattr(action.type, "__name__", None) in ("existing_file", "output_file"):
                flag = action.option_strings[0] if action.option_strings else None
                kinds = TABLE[name][1][flag]
                assert {"fifo", "device"} <= set(kinds), f"{name} {flag}: special files not tried"


@pytest.mark.parametrize("command, argv, flag, value, is_number", list(_cases()))
def test_bad_path_or_number_is_one_line_exit_2_and_writes_nothing(
        run_cli, project_dir, scratch, tmp_path, monkeypatch, command, argv, flag, value, is_number):
    monkeypatch.setenv("GITHUB_TOKEN", "")  # nothing may reach a remote either
    bad = value if is_number else str(BAD_PATHS[value](scratch))
    good = {"verify": scratch / "ok.whl", "promote": scratch / "ok.whl", "publish": scratch / "ok-dir",
            "index": scratch / "ok-dir"}.get(command, "")
    args = [a.replace("{}", bad if flag is None else str(good)) for a in argv]
    if flag is not None:
        args += [flag, bad]
    if "--root" not in args:
        args += ["--root", project_dir]
    before = _tree(tmp_path)
    code, out, err = run_cli(*args, "--json", cwd=project_dir)
    assert code == 2, (args, out, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    shown = flag or "argument"
    assert err.startswith(f"release {command}: error: ") and (shown in err or bad in err), err
    assert json.loads(out) == {"schema": "jax-rocm-release/error/1",
                               "error": err.strip().split(": error: ", 1)[1], "exit": 2}
    assert _tree(tmp_path) == before, f"{args} wrote something"
    assert not any(n.startswith(".release-probe-") for n in os.listdir(scratch))


def test_an_os_error_on_a_path_the_person_gave_is_one_line(run_cli, good_wheels, tmp_path):
    """The last resort: the flag check passed, the file system still said no (here a directory
    already sits where the promoted wheel goes)."""
    from release.build.promote import promoted_name
    out = tmp_path / "out"
    (out / promoted_name(good_wheels["pjrt"].name, "0.9.1rc1")).mkdir(parents=True)
    code, stdout, err = run_cli("promote", good_wheels["pjrt"], "--to", "rc1", "--out", out, "--json")
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"release promote: error: {out}: ") and "directory" in err.lower()
    assert json.loads(stdout)["exit"] == 2


def test_an_os_error_elsewhere_is_a_bug_and_tracebacks(run_cli, project_dir, monkeypatch):
    import release.commands.version as version_command

    def broken(args, out):
        raise PermissionError(13, "Permission denied", "/somewhere/the/tool/chose")
    monkeypatch.setattr(version_command, "run", broken)
    with pytest.raises(PermissionError):
        run_cli("version", "--kind", "rc", "--root", project_dir)


def test_github_files_that_cannot_be_written_are_refused_before_any_work(run_cli, project_dir,
                                                                         tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path))  # a directory
    code, out, err = run_cli("version", "--kind", "rc", "--root", project_dir)
    assert code == 2 and out == "" and err.startswith("release version: error: $GITHUB_OUTPUT: ")
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "missing" / "out"))
    code, out, err = run_cli("version", "--kind", "rc", "--root", project_dir)
    assert code == 2 and "does not exist" in err


@pytest.mark.parametrize("value", ["soon", "99999999999", "1e9"])
def test_a_bad_source_date_epoch_is_refused_before_a_wheel_is_written(run_cli, good_wheels, tmp_path,
                                                                     monkeypatch, value):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    code, out, err = run_cli("promote", good_wheels["pjrt"], "--to", "rc1", "--out", tmp_path / "o")
    assert code == 2 and err.startswith("release promote: error: SOURCE_DATE_EPOCH=")
    assert not (tmp_path / "o").exists()
