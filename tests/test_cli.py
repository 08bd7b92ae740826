"""The command line: status, version, nightly --dry-run, and how errors look."""

from __future__ import annotations

import json
import os
import re

import pytest


def test_status_json(run_cli, project_dir):
    code, out, err = run_cli("status", "--json", "--date", "2026-11-22", "--root", project_dir)
    assert code == 0, err
    data = json.loads(out)
    assert data["pins"]["plugin"]["commit"] == "4006f866f9f094bf1beff2e1bad4f845480a8ea6"
    assert data["pins"]["jax"]["roll"].startswith("via plugin")
    assert data["next"] == {"release": data["version"], "rc": data["version"] + "rc1",
                            "nightly": data["version"] + ".dev20261122", "post": None}
    # every kind has a row: one with no version says why (issue 23: the post row was dropped)
    assert data["next_notes"] == {"post": "nothing of line 0.9.1 is published: a post re-spins a "
                                          "published release"}


def test_status_human_finds_root_from_subdirectory(run_cli, project_dir):
    sub = project_dir / "deep" / "er"
    sub.mkdir(parents=True)
    code, out, _ = run_cli("status", cwd=sub)
    assert code == 0
    assert "4006f86" in out and "plugin" in out and "rc1" in out


@pytest.mark.parametrize("argv, expected", [
    (["--kind", "release"], "0.9.1"),
    (["--kind", "rc", "--number", "3"], "0.9.1rc3"),
    (["--kind", "post", "--number", "2"], "0.9.1.post2"),
    (["--kind", "nightly", "--date", "2026-01-05"], "0.9.1.dev20260105"),
])
def test_version_prints_exactly_one_line(run_cli, project_dir, argv, expected):
    code, out, _ = run_cli("version", *argv, "--root", project_dir)
    assert code == 0
    assert out == expected + "\n"


@pytest.mark.parametrize("now, expected", [
    ("2026-11-20T03:00:00Z", "0.9.1.dev20261120"),
    ("2026-11-20T23:30:00-05:00", "0.9.1.dev20261121"),  # already the 21st in UTC
    ("2026-11-21T02:00:00", "0.9.1.dev20261121"),        # no zone: UTC
])
def test_the_runs_clock_is_release_now(run_cli, project_dir, monkeypatch, now, expected):
    """``$RELEASE_NOW`` (README's environment table) is the run's clock: today's nightly is its
    UTC date."""
    monkeypatch.setenv("RELEASE_NOW", now)
    code, out, err = run_cli("version", "--kind", "nightly", "--root", project_dir)
    assert code == 0, err
    assert out == expected + "\n"


def test_a_bad_release_now_is_one_line_and_exit_2(release_subprocess, project_dir):
    proc = release_subprocess("version", "--kind", "nightly", "--root", project_dir,
                              env={**os.environ, "RELEASE_NOW": "yesterday"})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "$RELEASE_NOW='yesterday': expected an ISO 8601 time" in proc.stderr


def test_version_build_number_needs_date_build_scheme(run_cli, project_dir):
    code, out, err = run_cli("version", "--kind", "nightly", "--build-number", "3", "--root", project_dir)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "mix" in err
    info = project_dir / "version_info.json"
    info.write_text(info.read_text().replace('"date"', '"date-build"'))
    code, out, _ = run_cli("version", "--kind", "nightly", "--date", "2026-01-05", "--build-number", "3",
                           "--root", project_dir)
    assert out == "0.9.1.dev20260105003\n"


@pytest.mark.parametrize("argv, fragment", [
    (["version", "--kind", "weekly"], "invalid choice"),
    (["version", "--kind", "nightly", "--date", "2026-02-30"], "YYYY-MM-DD"),
    (["version", "--kind", "rc", "--number", "0"], "--number"),
    (["nightly", "--dry-run", "--python", "2.7"], "3.X"),
    (["bogus"], "invalid choice"),
    (["publish", "--undraft", "v0.9.1", "--store", "local"], "--undraft v0.9.1: expected a release tag"),
    (["cut", "--post", "1", "--tag", "rocm-jax-v0.9.1rc1", "--store", "local"],
     "--tag rocm-jax-v0.9.1rc1: expected a release tag rocm-jax-vX.Y.Z"),
])
def test_bad_flags_one_line_exit_2(release_subprocess, project_dir, argv, fragment):
    proc = release_subprocess(*argv, cwd=project_dir)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert fragment in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_config_one_line_exit_2_nothing_written(release_subprocess, project_dir):
    deps = project_dir / "deps.yaml"
    deps.write_text(deps.read_text().replace("4006f866f9f094bf1beff2e1bad4f845480a8ea6", "4006f86"))
    before = {p.name: p.read_bytes() for p in project_dir.iterdir()}
    proc = release_subprocess("status", cwd=project_dir)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "deps.yaml: deps.plugin.commit: got 4006f86; expected a full commit SHA" in proc.stderr
    assert {p.name: p.read_bytes() for p in project_dir.iterdir()} == before


def test_no_root_found(release_subprocess, tmp_path):
    proc = release_subprocess("status", cwd=tmp_path)
    assert proc.returncode == 2 and "--root" in proc.stderr and "Traceback" not in proc.stderr


def test_nightly_dry_run_plan(run_cli, project_dir):
    code, out, err = run_cli("nightly", "--dry-run", "--json", "--date", "2026-11-22",
                             "--python", "3.12", "--root", project_dir)
    assert code == 0, err
    plan = json.loads(out)
    assert plan["version"] == "0.9.1.dev20261122"
    assert plan["tag"] == "rocm-jax-v0.9.1.dev20261122"
    assert plan["prerelease"] is True
    assert plan["wheels"]["pjrt"] == "jax_rocm7_pjrt-0.9.1.dev20261122-py3-none-manylinux_2_28_x86_64.whl"
    assert plan["wheels"]["plugin"] == {
        "3.12": "jax_rocm7_plugin-0.9.1.dev20261122-cp312-cp312-manylinux_2_28_x86_64.whl"}
    assert plan["revisions"]["commits"] == {
        "ROCm/rocm-jax": "4006f866f9f094bf1beff2e1bad4f845480a8ea6",
        "jax": "7f75782ad5ea6cd97e6346dcae9317ac31babef8",
        "ROCm/xla": "b32df5f07315567cc1940388ef766b87c6e8b9e3"}
    assert set(plan["assets"]) >= {"revisions.json", "SHA256SUMS"}


def test_nightly_dry_run_human(run_cli, project_dir):
    code, out, _ = run_cli("nightly", "--dry-run", "--date", "2026-11-22", "--root", project_dir)
    assert code == 0
    assert "0.9.1.dev20261122" in out and "b32df5f07315567cc1940388ef766b87c6e8b9e3" in out


def test_help_everywhere(release_subprocess, run_cli, project_dir):
    from release.cli import COMMANDS
    top = release_subprocess("--help", cwd=project_dir)  # once as a real process
    assert top.returncode == 0
    for name in COMMANDS:
        assert name in top.stdout
        code, out, _ = run_cli(name, "--help", cwd=project_dir)
        assert code == 0 and "--json" in out and "usage: release " + name in out, name


def test_json_flag_everywhere():
    from release.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, child in sub.choices.items():
        assert any("--json" in a.option_strings for a in child._actions), name


def test_github_output_and_summary_helpers(tmp_path, monkeypatch):
    from release.core import output
    from release.core.redact import register_secret
    out_file, summary = tmp_path / "out", tmp_path / "summary"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out_file))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    register_secret("s3cr3t-token-value")
    output.github_output({"version": "0.9.1", "notes": "a\nb s3cr3t-token-value"})
    output.step_summary("# title")
    text = out_file.read_text()
    assert text.startswith("version=0.9.1\nnotes<<EOF_")
    assert "s3cr3t" not in text and "***" in text
    assert summary.read_text() == "# title\n\n"


# ---------------------------------------------------------------- status reads the store

def _seed(fake, project_dir, published, drafts=(), nightly_commits=None):
    import datetime as dt

    from release.core.config import load_deps
    from release.core.revisions import RevisionMap
    from release.publish.notes import MARKER
    deps = load_deps(project_dir / "deps.yaml")
    if nightly_commits:
        deps = deps.with_commits(nightly_commits)
    for i, version in enumerate(published):
        assets = {}
        if ".dev" in version:
            assets["revisions.json"] = RevisionMap.from_deps(deps, version).dumps().encode()
        fake.seed_release(f"rocm-jax-v{version}", prerelease=".dev" in version or "rc" in version,
                          assets=assets, body=MARKER,
                          published_at=dt.datetime(2026, 11, 1 + i, tzinfo=dt.timezone.utc))
    for version in drafts:
        fake.seed_release(f"rocm-jax-v{version}", draft=True, body=MARKER)


def test_status_reads_the_store_last_nightly_drafts_and_next_versions(run_cli, project_dir, github_env):
    xla = "0" * 39 + "1"
    _seed(github_env, project_dir, ["0.9.1.dev20261120", "0.9.1rc1", "0.9.1.dev20261121", "0.9.1rc2"],
          drafts=["0.9.1rc3"], nightly_commits={"xla": xla})
    code, out, err = run_cli("status", "--json", "--date", "2026-11-22", "--root", project_dir)
    assert code == 0, err
    data = json.loads(out)
    latest = data["store"]["latest"]
    assert latest["nightly"]["tag"] == "rocm-jax-v0.9.1.dev20261121"
    assert latest["nightly"]["published"].startswith("2026-11-03")
    assert latest["nightly"]["pins"]["xla"] == xla
    assert latest["nightly"]["pins"]["plugin"] == data["pins"]["plugin"]["commit"]
    assert latest["rc"]["tag"] == "rocm-jax-v0.9.1rc2" and "release" not in latest
    assert [d["tag"] for d in data["store"]["drafts"]] == ["rocm-jax-v0.9.1rc3"]
    assert data["next"] == {"release": "0.9.1", "rc": "0.9.1rc3", "nightly": "0.9.1.dev20261122",
                            "post": None}
    code, out, _ = run_cli("status", "--date", "2026-11-22", "--root", project_dir)
    assert "rocm-jax-v0.9.1.dev20261121" in out and "moved since: xla" in out and "0.9.1rc3" in out


def test_status_offers_no_published_version_as_next(run_cli, project_dir, github_env):
    _seed(github_env, project_dir, ["0.9.1rc1", "0.9.1", "0.9.1.post1", "0.9.1.dev20261122"])
    code, out, err = run_cli("status", "--json", "--date", "2026-11-22", "--root", project_dir)
    data = json.loads(out)
    # The line was released (version_info.json still says 0.9.1): the next versions are counted
    # from what is published, never one of those; tonight's nightly sorts above 0.9.1.post1.
    assert data["next"] == {"release": "0.9.1.post2", "rc": None, "post": "0.9.1.post2",
                            "nightly": "0.9.1.post2.dev20261122"}
    assert "rcs come before a line's first release" in data["next_notes"]["rc"]
    assert data["store"]["latest"]["post"]["tag"] == "rocm-jax-v0.9.1.post1"


def test_status_offline_reads_no_store_and_a_ci_log_cuts_no_column(release_subprocess, project_dir):
    long_url = "https://x-access-token:tok-0123456789abcdef@github.com/ROCm/" + "a" * 150
    deps = project_dir / "deps.yaml"
    deps.write_text(deps.read_text().replace("https://github.com/ROCm/xla", long_url, 1))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    proc = release_subprocess("status", "--offline", cwd=project_dir, env={**env, "COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    assert "https://github.com/ROCm/" + "a" * 150 in proc.stdout  # whole, without credentials
    assert "tok-0123456789abcdef" not in proc.stdout and "x-access-token" not in proc.stdout
    assert "…" not in proc.stdout and "store" not in proc.stdout
    assert not (project_dir / ".cache").exists()


def test_a_failure_with_json_prints_the_error_object_on_stdout(run_cli, project_dir):
    deps = project_dir / "deps.yaml"
    deps.write_text(deps.read_text().replace("4006f866f9f094bf1beff2e1bad4f845480a8ea6", "4006f86"))
    code, out, err = run_cli("status", "--json", "--root", project_dir)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert json.loads(out) == {"schema": "jax-rocm-release/error/1",
                               "error": err.strip().split(": error: ", 1)[1], "exit": 2}
    assert "deps.plugin.commit" in json.loads(out)["error"]


def test_remote_failure_is_exit_3_with_json_and_one_line(run_cli, project_dir, github_env):
    github_env.rate_limit("GET", r"/releases$", kind="primary", reset_in=7200)  # past the deadline
    code, out, err = run_cli("status", "--json", "--root", project_dir)
    assert code == 3 and len(err.strip().splitlines()) == 1 and "deadline" in err
    assert json.loads(out)["exit"] == 3
    github_env.faults.clear()
    github_env.fail("GET", r"/releases$", when="malformed", body=b"[{")
    code, out, err = run_cli("status", "--root", project_dir)
    assert code == 3 and "malformed answer" in err and out == ""


def test_every_way_a_command_prints_is_redacted(capsys):
    """A human table, a status line, a bare print or writelines to the stream and JSON: a registered secret
    never comes out, whichever a command uses."""
    import io

    from rich.table import Table

    from release.core.output import Output
    from release.core.redact import register_secret
    secret = "hum4n-0utput-s3cret-value"
    register_secret(secret)
    stream = io.StringIO()
    out = Output(stream=stream)

    def human(console):
        table = Table()
        table.add_column("url")
        table.add_row(f"https://host/{secret}")
        console.print(table)
        print(f"plain {secret}", file=out.stream)
        out.stream.writelines([f"lines {secret}\n"])
    out.line(f"progress {secret}")
    out.result({"x": secret}, human)
    Output(as_json=True, stream=stream).result({"nested": [{"token": secret}]})
    Output(as_json=True, stream=stream).line(f"to stderr {secret}")
    text = stream.getvalue() + capsys.readouterr().err
    assert secret not in text and text.count("***") == 6, text


@pytest.mark.parametrize("argv, needs, not_asked", [
    (["gc", "--keep", "3", "--store", "github"], "contents: write", "issues"),  # deletes nightlies
    (["yank", "rocm-jax-v0.9.1", "--store", "github", "--reason", "r"], "contents: write", "issues"),
    (["index", "--store", "github", "--out", "site"], "contents: read", "contents: write"),
    (["dashboard"], "issues: write", "contents: write"),
    (["doctor"], "administration: read", "contents: write"),
])
def test_a_missing_token_is_asked_for_the_permission_the_command_needs(run_cli, project_dir, monkeypatch,
                                                                       argv, needs, not_asked):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_REPOSITORY", "owner/name")
    code, out, err = run_cli(*argv, "--root", project_dir, cwd=project_dir)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "GITHUB_TOKEN is not set" in err and needs in err and not_asked not in err


def test_the_pull_requests_and_ci_reads_name_their_permissions():
    from release.core.errors import UserError
    from release.sources import github
    for needs, permission in ((github.PULL_REQUEST, "pull-requests: write"),
                              (github.WORKFLOW_RUNS, "actions: read"), (github.CHECK_RUNS, "checks: read")):
        with pytest.raises(UserError, match=permission):
            github.GitHubClient.from_env({}, needs=needs)


@pytest.mark.parametrize("terminal", [False, True])
def test_status_prints_each_pin_once_with_every_column_named(run_cli, project_dir, monkeypatch, terminal):
    """On a terminal (boxed tables) and in a log or a pipe (plain text) alike."""
    from release.core.config import load_deps
    monkeypatch.setenv("COLUMNS", "200")
    for name in ("TTY_COMPATIBLE", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    if terminal:
        monkeypatch.setenv("TTY_COMPATIBLE", "1")
        monkeypatch.setenv("NO_COLOR", "1")
    code, out, err = run_cli("status", "--offline", "--root", project_dir)
    assert code == 0, err
    assert ("┌" in out) is terminal, out  # boxes only on a terminal
    out = re.sub(r"\x1b\[[0-9;]*m", "", out)  # (bold and italic on a terminal)
    deps = list(load_deps(project_dir / "deps.yaml"))
    for dep in deps:  # a pin is its commit beside its branch
        assert sum(dep.commit[:7] in line and dep.branch in line for line in out.splitlines()) == 1, out
    rows = [set(line.replace("│", " ").split()) for line in out.splitlines()]
    header = next(words for words in rows if {"dep", "commit"} <= words)
    assert {"committed", "age"} <= header  # the commit times, unknown here, are named


@pytest.mark.parametrize("argv, said, where", [
    (["statsu"], "invalid choice: 'statsu'; did you mean status?", "release --help"),
    (["pypi-uplod"], "did you mean pypi-upload?", "release --help"),
    (["status", "--ofline"], "unrecognized arguments: --ofline (did you mean --offline?)", "release status --help"),
    (["yank", "--rason", "x", "v0.9.1"], "--rason (did you mean --reason?) v0.9.1", "release yank --help"),
    (["bump", "--opn-pr=1"], "--opn-pr=1 (did you mean --open-pr?)", "release bump --help"),
    (["gc", "--keep", "1", "--store", "gitub"], "invalid choice: 'gitub'; did you mean github?", "release gc --help"),
    (["status", "--xyzzy"], "unrecognized arguments: --xyzzy (see", "release status --help"),  # nothing near
])
def test_a_mistyped_command_or_option_names_the_nearest_and_the_commands_help(run_cli, project_dir, argv, said,
                                                                             where):
    code, out, err = run_cli(*argv, cwd=project_dir)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert said in err and err.rstrip().endswith(f"(see {where})"), err


@pytest.mark.parametrize("before, after", [
    (["--json"], ["--offline"]),                        # a flag; argparse offered --json as the nearest to itself
    (["--root", "ROOT"], ["--offline"]),                # argparse took the value for the command
    (["--offline", "--root", "ROOT"], ["--date", "2026-11-22"]),
])
def test_options_before_the_command_are_refused_with_the_command_as_written(run_cli, project_dir, before,
                                                                          after):
    """``release --json status``: one line (exit 2) naming the options and the whole command as it
    should be written, which then runs as printed."""
    import shlex
    before = [str(project_dir) if a == "ROOT" else a for a in before]
    code, out, err = run_cli(*before, "status", *after, cwd=project_dir)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "did you mean" not in err and f"{shlex.join(before)} before the command" in err, err
    written = err.split("as in ", 1)[1].split(" (see release status --help)")[0]
    assert shlex.split(written) == ["release", "status", *after, *before]
    code, out, err = run_cli(*shlex.split(written)[1:], cwd=project_dir)
    assert code == 0, err
    assert run_cli("--help", cwd=project_dir)[0] == 0  # the top level's own options stay before it


@pytest.mark.parametrize("columns", ["44", "80", "123"])
def test_help_never_breaks_a_word_at_its_hyphen(monkeypatch, columns):
    """A command, tag, flag or path in any --help (`release fetch-sources`, rocm-jax-v0.9.1...,
    .github/project-status.json) is printed whole on one line, to be copied as printed."""
    from release.cli import COMMANDS, build_parser
    from release.docs_reference import _subparsers, options
    monkeypatch.setenv("COLUMNS", columns)
    parser = build_parser()
    hyphenated = 0
    for name, child in _subparsers(parser).items():
        printed = child.format_help()
        said = " ".join(printed.split())
        for text in [child.description or "", *(a.help or "" for a in options(child))]:
            for word in re.findall(r"\S*\w-\w\S*", text):
                hyphenated += 1
                assert word in said, f"release {name} --help: {word!r} broken"
                assert any(word in line for line in printed.splitlines()), f"release {name}: {word!r} split"
    assert hyphenated > 50 and list(_subparsers(parser)) == list(COMMANDS)


@pytest.mark.parametrize("given", ["v0.9.1", "0.9.1", "rocm-jax-v0.9.1"])
def test_yank_takes_the_tag_the_version_or_v_and_the_version(run_cli, tmp_path, monkeypatch, given):
    from release.publish.stores import LocalStore
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    store = LocalStore(tmp_path / "store")
    store.publish(store.create_draft("rocm-jax-v0.9.1", name="0.9.1", body="notes", prerelease=False),
                  prerelease=False, make_latest=True)
    code, out, err = run_cli("yank", given, "--reason", "broken", "--store-dir", store.directory, "--json",
                             cwd=tmp_path)
    assert code == 0, err
    assert json.loads(out)["tag"] == "rocm-jax-v0.9.1"
