"""A missing GITHUB_TOKEN is one line naming what THIS command does and the permission it takes.

Generated from the commands (``release.cli.COMMANDS`` and their parsers), not a hand list: each
command runs with what its parser requires, a tag wherever it takes one, and a GitHub store.
"""

from __future__ import annotations

import argparse
import importlib
import re

import pytest

from release.cli import COMMANDS, MODULES, build_parser

LINE = re.compile(r"^release (?P<command>[a-z-]+): error: GITHUB_TOKEN is not set; (?P<what>.+) needs a token "
                  r"with (?P<permission>[a-z-]+: (?:read|write)(?: and [a-z-]+: (?:read|write))*) \(")
SAMPLES = {"TAG": "rocm-jax-v0.9.1", "N": "3", "SITE": "site", "WHEEL": "x.whl", "TAG|DIR": "rocm-jax-v0.9.1"}


def _module(command: str):
    return importlib.import_module(f"release.commands.{MODULES.get(command, command).replace('-', '_')}")


def _argv(command: str) -> list[str]:
    """The command with what its parser requires, every TAG it takes, and a GitHub store."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    argv = [command]
    for action in sub.choices[command]._actions:
        value = (action.choices and next(iter(action.choices))) or SAMPLES.get(action.metavar or "", "x")
        if not action.option_strings and action.nargs not in ("?", "*"):
            argv.append(value)
        elif action.option_strings and (action.required or action.metavar == "TAG"):
            argv += [action.option_strings[-1], value]
        elif "--store" in action.option_strings:
            argv += ["--store", "github"]
    return argv


@pytest.fixture
def no_token(run_cli, project_dir, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_REPOSITORY", "owner/name")

    def run(*argv):
        return run_cli(*argv, "--root", project_dir, cwd=project_dir)
    return run


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "try"])  # try: a local sandbox
def test_a_missing_token_line_names_what_the_command_does_and_its_permission(no_token, command):
    """A command that changes releases declares what it does (its ``TOKEN``) and says exactly
    that; one that declares nothing never asks to write releases; "publishing releases" is said
    only by a command whose help says it publishes (yank and gc said it: they edit and delete)."""
    module = _module(command)
    code, _, err = no_token(*_argv(command))
    asked = LINE.match(err.strip())
    declared = getattr(module, "TOKEN", None)
    if declared is not None:
        assert code == 2 and asked, err  # a command that declares a need reaches the line
        assert (asked["what"], asked["permission"]) == declared, err
        assert declared[1].endswith(": write") and len(err.strip().splitlines()) == 1
        if "publishing" in declared[0]:
            assert re.search(r"\bpublish\b", module.HELP), (command, module.HELP)
    elif asked:
        assert code == 2 and "contents: write" not in asked["permission"], err


@pytest.mark.parametrize("argv, what", [
    (["yank", "rocm-jax-v0.9.1", "--store", "github"], "editing releases"),
    (["yank", "rocm-jax-v0.9.1", "--undo", "--store", "github"], "editing releases"),
    (["gc", "--keep", "3", "--store", "github"], "deleting releases and their assets"),
])
def test_yank_edits_and_gc_deletes_releases(no_token, argv, what):
    code, _, err = no_token(*argv)
    asked = LINE.match(err.strip())
    assert code == 2 and asked and asked["what"].startswith(what) and asked["permission"] == "contents: write", err


@pytest.mark.parametrize("argv", [["gc", "--keep", "3", "--dry-run"], ["smoke", "rocm-jax-v0.9.1", "--no-gpu"]])
def test_a_run_that_changes_no_release_asks_only_to_read_them(no_token, argv):
    """gc's dry run deletes nothing; smoke's no-GPU gate records nothing in the notes."""
    code, _, err = no_token(*argv, "--store", "github")
    asked = LINE.match(err.strip())
    assert code == 2 and asked and asked["permission"] == "contents: read", err


def test_the_commands_words_for_reading_and_publishing_are_the_clients():
    """``_common`` spells them without importing the HTTP client (``--help`` loads none)."""
    from release.commands import _common
    from release.sources import github
    assert _common.READS == github.READ_RELEASES and _common.PUBLISHES == github.PUBLISH


def test_the_reference_says_what_each_command_that_changes_releases_needs_its_token_for():
    """The generated reference (``release.docs_reference``) names each command's ``TOKEN``, the
    words its missing-token line says, and no other command's."""
    from release.docs_reference import commands_page
    page = commands_page()
    sections = dict(re.findall(r"^## release (\S+)\n(.*?)(?=^## |\Z)", page, re.S | re.M))
    assert set(sections) == set(COMMANDS)
    for command, text in sections.items():
        declared = getattr(_module(command), "TOKEN", None)
        said = re.findall(r"^With a GitHub store, `GITHUB_TOKEN` needs `([^`]+)`: (.+)\.$", text, re.M)
        assert said == ([(declared[1], declared[0])] if declared else []), (command, said)
