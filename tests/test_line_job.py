"""``release.jobs.lines`` at unit level: planning a new line, delivering it (branch, list, pull
request), every line's row for status, where a tag's next-version PR goes, and which lines gc
keeps. A repository in memory stands in for ``ReleaseRepo`` (tests/test_line_new.py and
tests/test_line_base.py hold the same rules over real git and the GitHub stand-in)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import re
import subprocess
import types
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core.config import Project, parse_deps, parse_version_info
from release.core.errors import UserError
from release.core.lines import LINES_FILE
from release.jobs import lines
from release.jobs.lines import LineNewOptions, NewLine

X0, X1, P0, P1 = (c * 40 for c in "abcd")
DEPS = f"""deps:
  plugin:
    url: https://user:secret@example.invalid/rocm/jax.git
    branch: main
    commit: {P0}
    roll: head
  jax:
    url: https://user:secret@example.invalid/rocm/jax.git
    branch: main
    commit: {P0}
    line: "0.11.0"
    roll: {{same: plugin}}
  xla:
    url: https://example.invalid/xla.git
    branch: rocm-main
    commit: {X0}
    roll: {{via: plugin, file: third_party/xla/workspace.bzl}}
"""
INFO = '{\n  "version": "0.11.0",\n  "rocm_version": "7.2.0",\n  "nightly_scheme": "date"\n}\n'


def project(root: Path, deps: str = DEPS, info: str = INFO) -> Project:
    return Project(root, parse_deps(root / "deps.yaml", deps), parse_version_info(root / "version_info.json", info))


# ------------------------------------------------------------------ planning a line


@pytest.fixture
def planning(monkeypatch):
    """The plugin's remote has ``branches``; a roll moves every pin to ``rolled`` (jax's line:
    ``jax_line``). Returns the record of what roll was handed."""
    seen = types.SimpleNamespace(branches=["rocm-jaxlib-v0.10.x"], jax_line="0.10.2", start=None, asked=[],
                                 archive=None)

    def ls_remote_branches(remote, *names):
        seen.asked.append((remote.label, remote.url, names))
        return {b for b in seen.branches if b in names}

    def roll(start, cache, *, allow_rewind, say):
        seen.start, seen.cache, seen.allow_rewind = start, cache, allow_rewind
        say("rolled")
        pins = {"plugin": {"commit": P1}, "jax": {"commit": P1, "line": seen.jax_line}, "xla": {"commit": X1}}
        if seen.archive:
            pins["xla"]["archive_sha256"] = seen.archive
        return types.SimpleNamespace(new=start.with_pins(pins))
    monkeypatch.setattr("release.sources.refs.ls_remote_branches", ls_remote_branches)
    monkeypatch.setattr("release.sources.roll.roll", roll)
    return seen


def plan(tmp_path, xy="0.10", branch="rocm-jaxlib-v0.10.x", published=("0.10.2",)):
    asked = []

    def got(line):
        asked.append(line)
        return published
    said: list[str] = []
    made = lines.plan_new_line(project(tmp_path), DEPS, INFO, xy, branch, tmp_path / "cache", got, said.append)
    assert said == ["rolled"]
    return made, asked


def test_a_new_line_moves_the_plugin_and_its_tree_to_the_working_branch_and_rolls_every_pin(tmp_path, planning):
    made, asked = plan(tmp_path)
    assert {d.name: d.branch for d in planning.start} == {"plugin": "rocm-jaxlib-v0.10.x",
                                                          "jax": "rocm-jaxlib-v0.10.x", "xla": "rocm-main"}
    assert planning.allow_rewind is True and planning.cache == tmp_path / "cache"
    assert planning.asked == [("plugin", "https://user:secret@example.invalid/rocm/jax.git", ("rocm-jaxlib-v0.10.x",))]
    assert (made.xy, made.branch, made.plugin_branch, made.jax_line) == ("0.10", "release/0.10",
                                                                        "rocm-jaxlib-v0.10.x", "0.10.2")
    assert asked == ["0.10.2"] and made.version == "0.10.2.post1"     # 0.10.2 is out: its next is a post
    deps = parse_deps(Path("deps.yaml"), made.deps_text)
    assert {d.name: (d.branch, d.commit) for d in deps} == {
        "plugin": ("rocm-jaxlib-v0.10.x", P1), "jax": ("rocm-jaxlib-v0.10.x", P1), "xla": ("rocm-main", X1)}
    info = json.loads(made.info_text)
    assert info == json.loads(INFO) | {"version": "0.10.2.post1"}
    assert made.pins == {"plugin": {"url": "https://example.invalid/rocm/jax.git", "branch": "rocm-jaxlib-v0.10.x",
                                    "commit": P1},
                         "jax": {"url": "https://example.invalid/rocm/jax.git", "branch": "rocm-jaxlib-v0.10.x",
                                 "commit": P1},
                         "xla": {"url": "https://example.invalid/xla.git", "branch": "rocm-main", "commit": X1}}
    assert made.to_json() == {"line": "0.10", "branch": "release/0.10", "plugin_branch": "rocm-jaxlib-v0.10.x",
                              "version": "0.10.2.post1", "jax_line": "0.10.2", "pins": made.pins}


def test_a_pin_with_an_archive_keeps_its_digest_in_the_lines_pins(tmp_path, planning):
    planning.archive = "ab" * 32
    made, _ = plan(tmp_path, published=())
    assert made.pins["xla"]["archive_sha256"] == "ab" * 32 and made.version == "0.10.2"
    assert "archive_sha256" not in made.pins["jax"]


@pytest.mark.parametrize(("branch", "why"), [
    ("bad branch", r"^--plugin-branch 'bad branch': expected a branch name"),
    ("rocm-jaxlib-v0.9.x", r"^line 0\.10: https://example\.invalid/rocm/jax\.git has no branch rocm-jaxlib-v0\.9\.x; "
                           r"expected the line's working branch there")])
def test_a_working_branch_that_is_no_name_or_not_there_is_one_line(tmp_path, planning, branch, why):
    with pytest.raises(UserError, match=why):
        plan(tmp_path, branch=branch)
    assert planning.start is None and "secret" not in why


@pytest.mark.parametrize(("jax_line", "shown"), [("0.11.0", "0.11.0"), ("0.100.1", "0.100.1"), ("0.10", "0.10"),
                                                 ("0.1012", "0.1012"), (None, "not read")])
def test_a_working_branch_of_another_jax_line_is_refused(tmp_path, planning, jax_line, shown):
    planning.jax_line = jax_line
    with pytest.raises(UserError) as refused:
        plan(tmp_path)
    assert str(refused.value) == (f"line 0.10: jax/version.py at rocm-jaxlib-v0.10.x ({P1[:7]}) is {shown}; "
                                  "expected a 0.10.N version (is rocm-jaxlib-v0.10.x that line's branch?)")


# ------------------------------------------------------------------ delivering it


class Repo:
    """What ``deliver_new_line`` asks of a checkout, in memory: origin's branches (tip and files),
    HEAD's files, and a record of every commit, branch creation and push."""

    def __init__(self, top: Path, origin: dict[str, dict[str, str]] | None = None,
                 head: dict[str, str] | None = None, people: dict[str, str] | None = None,
                 same_tips: tuple[str, ...] = ()):
        self.top, self.origin, self.head = top, origin or {}, head or {}
        self.people, self.same_tips = people or {}, same_tips
        self.commits: dict[str, tuple[dict[str, str], str]] = {}
        self.created: list[tuple[str, str]] = []
        self.pushed: list[tuple[str, str]] = []
        self.tags: dict[str, str] = {}
        self.holds: dict[str, set[str]] = {}

    def _rel(self, path: Path) -> str:
        return str(Path(path).relative_to(self.top))

    def text_at_remote_tip(self, branch, path):
        return self.origin.get(branch, {}).get(self._rel(path))

    def remote_tip(self, branch):
        files = self.origin.get(branch)
        return None if files is None else hashlib.sha1(repr(sorted(files.items())).encode()).hexdigest()

    def committed(self, path):
        return self.head.get(self._rel(path))

    def commit_files(self, branch, files, message):
        self.commits[branch] = ({self._rel(p): t for p, t in files.items()}, message)
        return hashlib.sha1(f"{branch}{sorted(files.items())}{message}".encode()).hexdigest()

    def create_branch(self, sha, branch):
        self.created.append((sha, branch))

    def push(self, sha, branch):
        self.pushed.append((sha, branch))

    def person_pushed(self, branch):
        return self.people.get(branch)

    def unchanged_tip(self, branch, sha):
        return sha if branch in self.same_tips else None

    def tag_commit(self, tag):
        return self.tags.get(tag)

    def branch_holds(self, branch, commit):
        return branch in self.origin and commit in self.holds.get(branch, set())


LINE = NewLine("0.10", "release/0.10", "rocm-jaxlib-v0.10.x", "deps: {}\n", "{}\n",
               {"plugin": {"url": "https://example.invalid/p|x.git", "branch": "rocm-jaxlib-v0.10.x", "commit": P1}},
               "0.10.2.post1", "0.10.2")
MAIN_LISTS = {".github/lines.json": '["main", "release/0.9"]'}


def test_without_push_the_lines_branch_and_list_are_committed_here_only(tmp_path):
    origin = {"main": MAIN_LISTS, "release/0.10": {}}     # origin is not asked: not even for the line's branch
    repo = Repo(tmp_path, origin=origin, head={".github/lines.json": '["main", "release/0.8"]'})
    done = lines.deliver_new_line(repo, LINE, base="main", push=False, pull=None)
    files, message = repo.commits["release-line-0.10-files"] if "release-line-0.10-files" in repo.commits else (
        repo.commits[f"{lines.PR_PREFIX}0.10-files"])
    assert files == {"deps.yaml": LINE.deps_text, "version_info.json": LINE.info_text}
    assert message == ("Start line 0.10: 0.10.2.post1, the plugin on rocm-jaxlib-v0.10.x\n\n"
                       "The files of the maintained line 0.10 (docs/lines.md).")
    listed, pr_message = repo.commits[f"{lines.PR_PREFIX}0.10"]
    assert json.loads(listed[".github/lines.json"]) == ["main", "release/0.10", "release/0.8"]  # HEAD's, not origin's
    assert pr_message.startswith("Maintain line 0.10 (release/0.10: 0.10.2.post1)\n\nStarts the maintained line")
    assert repo.pushed == [] and repo.created == []
    assert done == {"branch_action": "committed", "commit": done["commit"],
                    "lines": ["main", "release/0.10", "release/0.8"],
                    "pr_branch": f"{lines.PR_PREFIX}0.10", "pr_commit": done["pr_commit"],
                    "title": "Maintain line 0.10 (release/0.10: 0.10.2.post1)", "action": "committed"}
    assert len(done["commit"]) == 40 and done["pr_commit"] != done["commit"]


def test_without_a_list_here_the_line_joins_the_default_branch_alone(tmp_path):
    repo = Repo(tmp_path)
    done = lines.deliver_new_line(repo, LINE, base="trunk", push=False, pull=None)
    assert done["lines"] == ["trunk", "release/0.10"]


def test_a_push_creates_the_lines_branch_and_pushes_the_list_origin_has_now(tmp_path):
    repo = Repo(tmp_path, origin={"main": MAIN_LISTS}, head={".github/lines.json": '["main"]'})
    done = lines.deliver_new_line(repo, LINE, base="main", push=True, pull=None)
    assert repo.created == [(done["commit"], "release/0.10")]
    assert done["lines"] == ["main", "release/0.10", "release/0.9"]     # a line merged meanwhile counts
    assert repo.pushed == [(done["pr_commit"], f"{lines.PR_PREFIX}0.10")]
    assert (done["branch_action"], done["action"]) == ("created", "pushed")


@pytest.mark.parametrize(("push", "where"), [(True, "main:.github/lines.json"), (False, ".github/lines.json")])
def test_a_list_that_cannot_be_read_is_named_where_it_was_read(tmp_path, push, where):
    repo = Repo(tmp_path, origin={"main": {".github/lines.json": "{not a list"}},
                head={".github/lines.json": "{not a list"})
    with pytest.raises(UserError) as refused:
        lines.deliver_new_line(repo, LINE, base="main", push=push, pull=None)
    assert str(refused.value).startswith(f"{where}: ")


def test_a_push_without_any_list_on_origin_lists_the_default_branch_and_the_line(tmp_path):
    repo = Repo(tmp_path, origin={"main": {}}, head={".github/lines.json": '["main", "release/0.8"]'})
    assert lines.deliver_new_line(repo, LINE, base="main", push=True, pull=None)["lines"] == ["main", "release/0.10"]


def test_a_lines_branch_already_on_origin_is_kept_as_it_is(tmp_path):
    repo = Repo(tmp_path, origin={"main": MAIN_LISTS, "release/0.10": {"deps.yaml": "a person's edit"}})
    done = lines.deliver_new_line(repo, LINE, base="main", push=True, pull=None)
    assert done["branch_action"] == "kept" and done["commit"] == repo.remote_tip("release/0.10")
    assert repo.created == [] and f"{lines.PR_PREFIX}0.10-files" not in repo.commits
    assert f"({done['commit'][:12]})" in repo.commits[f"{lines.PR_PREFIX}0.10"][1]


def test_a_line_listed_and_on_origin_already_is_said_and_left(tmp_path):
    origin = {"main": {".github/lines.json": '["main", "release/0.10"]'}, "release/0.10": {}}
    repo = Repo(tmp_path, origin=origin)
    assert lines.deliver_new_line(repo, LINE, base="main", push=True, pull=None) == {
        "action": "exists", "reason": "release/0.10 is a maintained line already (main:.github/lines.json)"}
    assert repo.commits == {} and repo.pushed == []
    # listed, but its branch is gone: started again
    del origin["release/0.10"]
    assert lines.deliver_new_line(Repo(tmp_path, origin=origin), LINE, base="main", push=True,
                                  pull=None)["action"] == "pushed"


class Client:
    def __init__(self, open_=()):
        self.open, self.asked, self.updated = list(open_), [], []

    def list_pulls(self, owner, name, *, state, head):
        self.asked.append((owner, name, state, head))
        return self.open

    def update_pull(self, owner, name, number, *, title, body):
        self.updated.append((owner, name, number, title, body))
        return {"number": number, "html_url": f"https://example.invalid/pull/{number}"}


def test_with_a_pull_request_asked_the_list_change_is_pushed_and_proposed(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.setattr("release.sources.pull_requests.create_or_withdraw",
                        lambda client, repo, **kw: seen.update(kw, client=client, repo=repo)
                        or {"number": 12, "html_url": "u12"})
    repo, client = Repo(tmp_path, origin={"main": MAIN_LISTS}), Client()
    done = lines.deliver_new_line(repo, LINE, base="main", push=True, pull=(client, "rocm", "jax"))
    assert client.asked == [("rocm", "jax", "open", f"rocm:{lines.PR_PREFIX}0.10")]
    assert repo.pushed == [(done["pr_commit"], f"{lines.PR_PREFIX}0.10")]
    assert done["action"] == "opened" and done["pull_request"] == {"number": 12, "url": "u12"}
    body = seen.pop("body")
    assert (seen.pop("client"), seen.pop("repo")) == (client, repo)
    assert seen == {"owner": "rocm", "name": "jax", "title": "Maintain line 0.10 (release/0.10: 0.10.2.post1)",
                    "branch": f"{lines.PR_PREFIX}0.10", "base": "main"}
    assert repo.commits[f"{lines.PR_PREFIX}0.10"][1] == f"{seen['title']}\n\n{body}"


@pytest.mark.parametrize("same", [False, True])
def test_the_tools_open_pull_request_is_updated_and_pushed_only_when_it_changed(tmp_path, same):
    repo = Repo(tmp_path, origin={"main": MAIN_LISTS}, same_tips=(f"{lines.PR_PREFIX}0.10",) if same else ())
    client = Client([{"number": 7}])
    done = lines.deliver_new_line(repo, LINE, base="main", push=True, pull=(client, "rocm", "jax"))
    assert repo.pushed == ([] if same else [(done["pr_commit"], f"{lines.PR_PREFIX}0.10")])
    (owner, name, number, title, body), = client.updated
    assert (owner, name, number, title) == ("rocm", "jax", 7, done["title"]) and body.startswith("Starts the")
    assert done["action"] == "updated" and done["pull_request"] == {"number": 7, "url": "https://example.invalid/pull/7"}


def test_a_pull_request_a_person_pushed_to_is_kept_as_it_is(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr("release.sources.pull_requests.keep_for_person",
                        lambda client, owner, name, pr, who: seen.append((client, owner, name, pr, who)) or
                        types.SimpleNamespace(to_json=lambda: {"number": 7, "kept": who}))
    repo = Repo(tmp_path, origin={"main": MAIN_LISTS}, people={f"{lines.PR_PREFIX}0.10": "a person's commit"})
    client = Client([{"number": 7}])
    done = lines.deliver_new_line(repo, LINE, base="main", push=True, pull=(client, "rocm", "jax"))
    assert seen == [(client, "rocm", "jax", {"number": 7}, "a person's commit")] and client.updated == []
    assert done["action"] == "kept" and done["pull_request"] == {"number": 7, "kept": "a person's commit"}
    assert repo.pushed == []


def test_the_pull_requests_body_names_the_line_its_pins_and_how_to_change_or_drop_it():
    line = dataclasses.replace(LINE, plugin_branch="x`y", pins={
        "plugin": {"url": "https://example.invalid/a*b", "branch": "w`b", "commit": P1},
        "xla": {"url": "https://example.invalid/x", "branch": "main", "commit": X1}})
    body = lines._pr_body(line, "f" * 40)
    assert body.startswith("Starts the maintained line **0.10**: jax 0.10.2, next version `0.10.2.post1`")
    assert f"Its files are on `release/0.10` ({'f' * 12}):" in body
    assert (f"| dep | branch | commit | url |\n|---|---|---|---|\n| plugin | `w'b` | `{P1[:12]}` | "
            f"https://example.invalid/a*b |\n| xla | `main` | `{X1[:12]}` | https://example.invalid/x |\n\n") in body
    assert "the plugin on `x'y`." in body
    assert "x`y" not in body and "w`b" not in body       # a backtick would end the code span early
    assert body.endswith("\n\nMerging this adds `release/0.10` to `.github/lines.json`: the nightly and bump workflows "
                         "run it from their next schedule. To change the line's pins or version first, open a pull "
                         "request into `release/0.10`; to drop the line, close this and delete the branch.\n")


@given(branch=st.text(min_size=1, max_size=12))
def test_a_pins_branch_stays_in_its_own_cell_of_the_bodys_table(branch):
    """Whatever a branch is spelled with (``|`` included), each pin is one row of four cells and
    the branch one code span: a table splits its cells before it reads code spans."""
    line = dataclasses.replace(LINE, pins={
        "plugin": {"url": "https://example.invalid/p", "branch": branch, "commit": P1},
        "xla": {"url": "https://example.invalid/x", "branch": branch + "|x", "commit": X1}})
    body = lines._pr_body(line, "f" * 40)
    table = body.split("| dep | branch | commit | url |\n|---|---|---|---|\n", 1)[1].split("\n\n", 1)[0]
    rows = [re.split(r"(?<!\\)\|", row)[1:-1] for row in table.split("\n")]
    assert [[cell.strip() for cell in row][::2] for row in rows] == [["plugin", f"`{P1[:12]}`"],
                                                                    ["xla", f"`{X1[:12]}`"]], table
    for row in rows:
        assert row[1].strip().count("`") == 2 and row[1].strip()[1:-1].replace("\\|", "|").strip()


# ------------------------------------------------------------------ every line's row


def test_status_has_no_line_rows_without_the_list(tmp_path):
    assert lines.status_rows(project(tmp_path), [], _dt.date(2026, 11, 24), offline=False, current="main") is None


def test_status_offline_or_outside_a_checkout_reads_only_the_checked_out_line(tmp_path):
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "lines.json").write_text('["main", "release/0.10"]')
    day = _dt.date(2026, 11, 24)
    for offline, why in ((True, "release/0.10: not read (--offline)"),
                         (False, "release/0.10: not read (not a git checkout)")):
        got = lines.status_rows(project(tmp_path), [], day, offline=offline, current="main")
        assert [r["branch"] for r in got] == ["main", "release/0.10"]
        assert got[0]["version"] == "0.11.0" and got[1] == {"branch": "release/0.10", "problem": why}


def test_status_offline_in_a_checkout_never_opens_the_repository(tmp_path, monkeypatch):
    """--offline reads this checkout's files only: the repository (GitPython, the other lines'
    branches) is not opened even where there is one, which is also what keeps status's start cheap."""
    import release.sources.repo

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "lines.json").write_text('["main", "release/0.10"]')

    def opened(*args, **kwargs):
        raise AssertionError("status --offline opened the repository")

    monkeypatch.setattr(release.sources.repo, "ReleaseRepo", opened)
    got = lines.status_rows(project(tmp_path), [], _dt.date(2026, 11, 24), offline=True, current="main")
    assert got[1] == {"branch": "release/0.10", "problem": "release/0.10: not read (--offline)"}


def test_each_line_is_read_at_its_branchs_tip_and_the_current_one_from_this_checkout(tmp_path):
    old = DEPS.replace("0.11.0", "0.10.2").replace(P0, P1)
    origin = {"release/0.10": {"deps.yaml": old, "version_info.json": INFO.replace("0.11.0", "0.10.3")},
              "release/0.9": {"deps.yaml": old},
              "main": {"deps.yaml": "not read: main is the current line", "version_info.json": "{}"}}
    published = ["0.10.3.dev20261120", "0.10.3.dev20261122", "0.10.3.dev20261121", "0.11.0.dev20261123",
                 "0.10.2"]
    got = lines.rows(Repo(tmp_path, origin=origin), project(tmp_path), "main",
                     ("main", "release/0.10", "release/0.9", "release/0.8"), published, _dt.date(2026, 11, 24))
    main, ten, nine, eight = got
    assert main == {"branch": "main", "version": "0.11.0", "jax_line": "0.11.0",
                    "next_nightly": "0.11.0.dev20261124", "next_release": "0.11.0",
                    "last_nightly": "0.11.0.dev20261123", "plugin": {"branch": "main", "commit": P0}, "problem": None}
    assert ten == {"branch": "release/0.10", "version": "0.10.3", "jax_line": "0.10.2",
                   "next_nightly": "0.10.3.dev20261124", "next_release": "0.10.3",
                   "last_nightly": "0.10.3.dev20261122", "plugin": {"branch": "main", "commit": P1},
                   "problem": ten["problem"]}
    assert ten["problem"] and "0.10.2" in ten["problem"]      # 0.10.3 is not on the pinned jax 0.10.2
    assert nine == {"branch": "release/0.9", "problem": "release/0.9: no version_info.json at its tip "
                                                          "(or no such branch on origin)"}
    assert eight == {"branch": "release/0.8", "problem": "release/0.8: no deps.yaml at its tip "
                                                           "(or no such branch on origin)"}


def test_a_line_never_nightly_built_has_no_last_nightly(tmp_path):
    row, = lines.rows(None, project(tmp_path), "main", ("main",), ["0.10.3.dev20261120", "0.11.0"],
                      _dt.date(2026, 11, 24), offline=True)
    assert row["last_nightly"] is None


# ------------------------------------------------------------------ where a tag's next version goes


@pytest.mark.parametrize(("tag", "holds", "base"), [
    ("rocm-jax-v0.10.1", True, "release/0.10"), ("rocm-jax-v0.10.1.post2", True, "release/0.10"),
    ("rocm-jax-v0.10.1rc1", True, "release/0.10"), ("rocm-jax-v0.10.1", False, "main"),
    ("rocm-jax-v0.11.0", True, "main")])
def test_a_tags_next_version_goes_to_its_lines_branch_when_that_holds_the_tag(tmp_path, tag, holds, base):
    repo = Repo(tmp_path, origin={"release/0.10": {}, "main": {}})
    repo.tags[tag] = "c" * 40
    repo.holds = {"release/0.10": {"c" * 40} if holds else set(), "main": {"c" * 40}}
    assert lines.next_version_base(repo, tag, "main") == base


def test_the_lines_own_branch_as_default_is_the_default(tmp_path):
    repo = Repo(tmp_path, origin={"release/0.10": {}})
    repo.tags["rocm-jax-v0.10.1"] = "c" * 40
    repo.holds = {"release/0.10": {"c" * 40}}
    assert lines.next_version_base(repo, "rocm-jax-v0.10.1", "release/0.10") == "release/0.10"


@pytest.mark.parametrize("tag", ["rocm-jax-v0.10.1.dev20261124", "v0.10.1"])
def test_only_an_rc_release_or_post_tag_has_a_next_version(tmp_path, tag):
    repo = Repo(tmp_path)
    repo.tags[tag] = "c" * 40
    with pytest.raises(UserError) as refused:
        lines.next_version_base(repo, tag, "main")
    assert str(refused.value).startswith(f"TAG {tag}: expected a release tag ")
    assert "rc" in str(refused.value) and "post" in str(refused.value)


def test_a_tag_not_in_the_checkout_is_one_line_saying_to_fetch_it(tmp_path):
    with pytest.raises(UserError, match=r"^TAG rocm-jax-v0\.10\.1: no such tag in this checkout; fetch it"):
        lines.next_version_base(Repo(tmp_path), "rocm-jax-v0.10.1", "main")


@pytest.mark.parametrize(("default", "given"), [("", "main"), ("  ", "main"), (" trunk ", "trunk")])
def test_line_base_defaults_to_main_and_checks_the_name(tmp_path, monkeypatch, default, given):
    seen = []
    monkeypatch.setattr("release.sources.repo.ReleaseRepo", lambda root: ("repo at", root))
    monkeypatch.setattr(lines, "next_version_base", lambda repo, tag, branch: seen.append((repo, tag, branch)) or "b")
    assert lines.line_base(tmp_path, "rocm-jax-v0.10.1", default) == "b"
    assert seen == [(("repo at", tmp_path), "rocm-jax-v0.10.1", given)]
    with pytest.raises(UserError, match=r"^line base --default 'a b': expected a branch name, such as main$"):
        lines.line_base(tmp_path, "rocm-jax-v0.10.1", "a b")


def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.mark.parametrize(("ref", "head_ref", "want"), [
    ("release/0.10", "", "release/0.10"), (" release/0.10 ", "", "release/0.10"), ("", "", "work"),
    ("refs-of-a-pr", "a-pr-branch", "work")])
def test_the_current_line_is_the_runs_branch_else_the_checked_out_one(tmp_path, monkeypatch, ref, head_ref, want):
    monkeypatch.setenv("GITHUB_REF_NAME", ref)
    monkeypatch.setenv("GITHUB_HEAD_REF", head_ref)
    git(tmp_path, "init", "--quiet", "-b", "work")
    git(tmp_path, "commit", "--quiet", "--allow-empty", "-m", "one")
    assert lines.current_branch(tmp_path) == want


def test_a_detached_checkout_or_no_checkout_is_main(tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_REF_NAME", raising=False)
    assert lines.current_branch(tmp_path) == "main"
    git(tmp_path, "init", "--quiet", "-b", "work")
    git(tmp_path, "commit", "--quiet", "--allow-empty", "-m", "one")
    git(tmp_path, "checkout", "--quiet", "--detach")
    assert lines.current_branch(tmp_path) == "main"


# ------------------------------------------------------------------ release line new


@pytest.mark.parametrize("flags", [{"push": True}, {"open_pr": True}, {"push": True, "open_pr": True}])
def test_a_dry_run_writes_nothing_so_it_takes_no_push_or_pull_request(flags):
    with pytest.raises(UserError, match=r"^--dry-run writes nothing; it cannot be combined with --push or --open-pr$"):
        LineNewOptions("0.10", dry_run=True, **flags)
    assert LineNewOptions("0.10", **flags).dry_run is False


@pytest.fixture
def line_new(tmp_path, monkeypatch):
    """``run_line_new`` with the checkout, the index and the two stages stood in for."""
    seen = types.SimpleNamespace(plan=None, deliver=None, env=[], index=[])
    repo = Repo(tmp_path, head={"deps.yaml": DEPS, "version_info.json": INFO.replace("0.11.0", "0.11.1")})
    repo.current_branch = lambda: "trunk"
    monkeypatch.setattr("release.sources.repo.ReleaseRepo", lambda root: repo if root == tmp_path else None)
    monkeypatch.setattr("release.sources.repo.committed_deps", lambda r, deps: ("committed", r, deps))
    monkeypatch.setattr("release.sources.checkout.cache_dir", lambda root: root / "the-cache")
    monkeypatch.setattr("release.check.resolver.public_index_default", lambda: "the-index")
    monkeypatch.setattr("release.check.resolver.index_versions",
                        lambda majors, index: seen.index.append((majors, index)) or ["0.10.1", "0.11.0", "0.10.2rc1"])

    def plan_new_line(proj, deps_text, info_text, xy, branch, cache, published, say):
        seen.plan = (proj, deps_text, info_text, xy, branch, cache, tuple(published("0.10")))
        say("planned")
        return LINE

    def deliver_new_line(r, line, *, base, push, pull):
        seen.deliver = (r, line, base, push, pull)
        return {"action": "pushed"}
    monkeypatch.setattr(lines, "plan_new_line", plan_new_line)
    monkeypatch.setattr(lines, "deliver_new_line", deliver_new_line)
    seen.repo, seen.project = repo, project(tmp_path)
    return seen


def test_line_new_plans_from_the_committed_files_and_delivers_as_asked(line_new, tmp_path):
    said: list[str] = []
    plan_, data = lines.run_line_new(line_new.project, LineNewOptions("0.10", push=True), say=said.append)
    proj, deps_text, info_text, xy, branch, cache, published = line_new.plan
    assert proj.deps == ("committed", line_new.repo, line_new.project.deps) and proj.version_info.version == "0.11.1"
    assert said == ["planned"]
    assert (deps_text, info_text) == (DEPS, INFO.replace("0.11.0", "0.11.1"))
    assert (xy, branch, cache) == ("0.10", "rocm-jaxlib-v0.10.x", tmp_path / "the-cache")
    assert published == ("0.10.1", "0.10.2rc1") and line_new.index == [((7,), "the-index")]
    assert line_new.deliver == (line_new.repo, LINE, "trunk", True, None)
    assert plan_ is LINE and data == LINE.to_json() | {"dry_run": False, "action": "pushed"}


def test_line_new_without_a_committed_deps_yaml_starts_from_no_text(line_new):
    del line_new.repo.head["deps.yaml"]
    lines.run_line_new(line_new.project, LineNewOptions("0.10"))
    assert line_new.plan[1] == ""


def test_line_new_names_the_working_branch_when_asked(line_new):
    lines.run_line_new(line_new.project, LineNewOptions("0.10", plugin_branch="my-branch"))
    assert line_new.plan[4] == "my-branch" and line_new.deliver[3] is False


def test_a_dry_run_plans_and_delivers_nothing(line_new):
    plan_, data = lines.run_line_new(line_new.project, LineNewOptions("0.10", dry_run=True))
    assert line_new.deliver is None and data == LINE.to_json() | {"dry_run": True, "action": "planned"}


def test_a_pull_request_asked_needs_github_before_anything_and_implies_a_push(line_new, monkeypatch):
    made = []
    monkeypatch.setattr("release.sources.pull_requests.repository_from_env", lambda: ("rocm", "jax"))
    monkeypatch.setattr("release.sources.github.GitHubClient.from_env",
                        lambda console=None, needs=None: made.append((console, needs)) or "client")
    lines.run_line_new(line_new.project, LineNewOptions("0.10", open_pr=True), console="the console")
    from release.sources.github import PULL_REQUEST
    assert made == [("the console", PULL_REQUEST)]
    assert line_new.deliver[3:] == (True, ("client", "rocm", "jax"))


def test_line_new_starts_only_from_a_committed_version_info(line_new):
    del line_new.repo.head["version_info.json"]
    with pytest.raises(UserError, match=r"version_info\.json: not committed at HEAD; line new starts from the "
                                        r"committed files$"):
        lines.run_line_new(line_new.project, LineNewOptions("0.10"))
    assert line_new.plan is None


# ------------------------------------------------------------------ which lines gc keeps


@pytest.mark.parametrize(("listed", "version", "kept"), [
    (("main", "release/0.10", "release/0.9"), "0.11.0", {(0, 11), (0, 10), (0, 9)}),
    (("main",), "0.11.0.post2", {(0, 11)}),
    (("main", "release/x.y", "feature/0.8"), "0.11.0", {(0, 11)}),
    (("trunk", "release/1.2"), "not-a-version", {(1, 2)})])
def test_gc_keeps_every_listed_line_and_the_default_branchs_own(listed, version, kept):
    assert lines.kept_lines(listed, version) == frozenset(kept)


@pytest.fixture
def origin_lists(tmp_path, monkeypatch):
    """A checkout whose list names ``trunk`` first; origin's files are the returned dict's."""
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "lines.json").write_text('["release/0.9", "trunk", "release/0.10"]')
    origin = {"trunk": {".github/lines.json": '["trunk", "release/0.10"]', "version_info.json": INFO}}
    monkeypatch.setattr("release.sources.repo.ReleaseRepo", lambda root: Repo(root, origin=origin))
    return origin


def test_the_lines_kept_are_the_default_branchs_list_at_its_tip(tmp_path, origin_lists):
    assert lines.maintained(tmp_path) == frozenset({(0, 11), (0, 10)})      # not the checkout's 0.9


@pytest.mark.parametrize("missing", ["trunk", ".github/lines.json", "version_info.json"])
def test_when_the_default_branchs_files_cannot_be_read_every_line_keeps_its_newest(tmp_path, origin_lists, missing):
    if missing == "trunk":
        del origin_lists["trunk"]
    else:
        del origin_lists["trunk"][missing]
    assert lines.maintained(tmp_path) is None


def test_a_default_branchs_unreadable_list_keeps_every_lines_newest(tmp_path, origin_lists):
    origin_lists["trunk"][".github/lines.json"] = "{not json"
    assert lines.maintained(tmp_path) is None
    origin_lists["trunk"][".github/lines.json"] = '["trunk"]'
    origin_lists["trunk"]["version_info.json"] = "[]"
    assert lines.maintained(tmp_path) is None


def test_without_a_list_or_a_default_branch_in_it_every_line_keeps_its_newest(tmp_path, origin_lists):
    assert lines.maintained(None) is None
    (tmp_path / ".github" / "lines.json").write_text('["release/0.9", "release/0.10"]')
    assert lines.maintained(tmp_path) is None
    (tmp_path / ".github" / "lines.json").unlink()
    assert lines.maintained(tmp_path) is None


def test_a_remote_that_cannot_be_asked_keeps_every_lines_newest(tmp_path, origin_lists, monkeypatch):
    def unreachable(root):
        raise OSError("no git")
    monkeypatch.setattr("release.sources.repo.ReleaseRepo", unreachable)
    assert lines.maintained(tmp_path) is None
    assert LINES_FILE == Path(".github/lines.json")


def test_the_last_nightly_is_the_newest_by_version_not_by_text(tmp_path):
    row, = lines.rows(None, project(tmp_path), "main", ("main",), ["0.11.0.dev9", "0.11.0.dev10"],
                      _dt.date(2026, 11, 24), offline=True)
    assert row["last_nightly"] == "0.11.0.dev10"


def test_status_online_reads_every_listed_line_at_origin(tmp_path, monkeypatch):
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "lines.json").write_text('["main", "release/0.10"]')
    origin = {"release/0.10": {"deps.yaml": DEPS, "version_info.json": INFO.replace("0.11.0", "0.10.3")}}
    monkeypatch.setattr("release.sources.repo.ReleaseRepo", lambda root: Repo(root, origin=origin))
    got = lines.status_rows(project(tmp_path), [], _dt.date(2026, 11, 24), offline=False, current="main")
    assert [(r["branch"], r.get("version")) for r in got] == [("main", "0.11.0"), ("release/0.10", "0.10.3")]
    offline = lines.status_rows(project(tmp_path), [], _dt.date(2026, 11, 24), offline=True, current="main")
    assert offline[1] == {"branch": "release/0.10", "problem": "release/0.10: not read (--offline)"}
