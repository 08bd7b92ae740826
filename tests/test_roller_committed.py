"""roller.yaml is read as committed at HEAD (what was reviewed), an uncommitted edit ignored with one
warning; outside a work tree there is no commit, and the file is read as it is
(``release.sources.repo.committed_roller``). Every run of status and bump asks this, first thing:
one git process when the work tree holds HEAD's bytes, git status only beside an edit (issue 36)."""

from __future__ import annotations

import pytest

from release.sources import git as rgit
from release.sources.repo import committed_roller
from tests.support.gitrepos import git

RUNNING, PAUSED = "mode: running\n", "mode: stopped\n"  # (PAUSED: an edit that does less)


@pytest.fixture
def asked(monkeypatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real = rgit.run_git

    real_bytes = rgit.run_git_bytes

    def run_git(args, *rest, **kw):
        calls.append(list(args))
        return real(args, *rest, **kw)

    def run_git_bytes(args, *rest, **kw):
        calls.append(list(args))
        return real_bytes(args, *rest, **kw)
    monkeypatch.setattr(rgit, "run_git", run_git)
    monkeypatch.setattr(rgit, "run_git_bytes", run_git_bytes)
    return calls


def checkout(path, committed: str | None):
    git("init", "--quiet", "-b", "main", cwd=path)
    if committed is not None:
        (path / "roller.yaml").write_text(committed)
        git("add", "roller.yaml", cwd=path)
        git("-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "c", cwd=path)


@pytest.mark.parametrize("edit", [None, PAUSED, "delete"])
def test_a_checkout_follows_the_committed_file_and_warns_of_an_edit(tmp_path, asked, edit):
    checkout(tmp_path, RUNNING)
    if edit == "delete":
        (tmp_path / "roller.yaml").unlink()
    elif edit is not None:
        (tmp_path / "roller.yaml").write_text(edit)
    roller, warning = committed_roller(tmp_path)
    assert roller.mode == "running"
    assert (warning is None) is (edit is None) and (warning is None or "uncommitted edit is ignored" in warning)
    assert len(asked) == (1 if edit is None else 2)


@pytest.mark.parametrize("autocrlf", ["true", "false"])
def test_a_copy_git_counts_unchanged_is_no_edit(tmp_path, asked, autocrlf):
    """The work tree's bytes differ from HEAD's only by the line endings git wrote them with
    (core.autocrlf): git says nothing changed, and so does the roller; the same bytes written
    by hand without the conversion are an edit."""
    checkout(tmp_path, RUNNING)
    git("config", "core.autocrlf", autocrlf, cwd=tmp_path)
    (tmp_path / "roller.yaml").unlink()
    if autocrlf == "true":  # git writes the copy with CRLF endings
        git("checkout", "--", "roller.yaml", cwd=tmp_path)
    else:
        (tmp_path / "roller.yaml").write_bytes(RUNNING.replace("\n", "\r\n").encode())
    assert (tmp_path / "roller.yaml").read_bytes() == RUNNING.replace("\n", "\r\n").encode()
    roller, warning = committed_roller(tmp_path)
    assert roller.mode == "running"
    assert (warning is None) is (autocrlf == "true")


def test_a_committed_file_with_crlf_endings_is_read_whole(tmp_path, asked):
    """HEAD's bytes as committed, CR LF endings too: the work tree's identical copy is no edit,
    one git process."""
    crlf = "# paused\r\nmode: stopped\r\n"
    git("init", "--quiet", "-b", "main", cwd=tmp_path)
    (tmp_path / "roller.yaml").write_bytes(crlf.encode())
    git("add", "roller.yaml", cwd=tmp_path)
    git("-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "c", cwd=tmp_path)
    roller, warning = committed_roller(tmp_path)
    assert roller.mode == "stopped" and warning is None and len(asked) == 1


def test_an_ignored_new_file_beside_no_commit_is_no_edit(tmp_path, asked):
    """Before roller.yaml is committed, a copy git ignores is not an edit git status shows."""
    checkout(tmp_path, None)
    (tmp_path / ".gitignore").write_text("roller.yaml\n")
    (tmp_path / "roller.yaml").write_text(PAUSED)
    roller, warning = committed_roller(tmp_path)
    assert roller.mode == "running" and warning is None


def test_a_checkout_without_a_commit_has_the_defaults_and_warns_of_the_new_file(tmp_path, asked):
    checkout(tmp_path, None)
    (tmp_path / "roller.yaml").write_text(PAUSED)
    roller, warning = committed_roller(tmp_path)
    assert roller.mode == "running" and warning is not None


@pytest.mark.parametrize("where", ["no repository", "bare repository", "git directory"])
def test_outside_a_work_tree_the_file_is_read_as_it_is(tmp_path, monkeypatch, asked, where):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # not the repository around the test's tmp
    root = tmp_path / "root"
    root.mkdir()
    if where == "bare repository":
        git("init", "--quiet", "--bare", cwd=root)
    elif where == "git directory":
        checkout(root, RUNNING)
        root = root / ".git"
    (root / "roller.yaml").write_text(PAUSED)
    roller, warning = committed_roller(root)
    assert roller.mode == "stopped" and warning is None
    assert len(asked) <= 2  # one, and git status where the repository is empty (bare)
