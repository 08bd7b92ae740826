"""Every text GitHub keeps within a limit (a pull request's or an issue's body, a comment,
release notes) is cut to that limit at a line end, whole lines kept, with a note; one upstream
commit subject of 100 kB never makes GitHub refuse a body (422) and so never stalls the roller."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core import bodies
from release.sources import changelog
from release.sources.git import LogEntry
from release.sources.github import GitHubClient
from release.sources.roll import FORWARD, Move
from tests.support.fake_github import fake_github  # noqa: F401 (fixture)

# Lines of every kind of width: ASCII, two-unit characters (UTF-16 surrogate pairs), empty ones.
_LINE = st.text(alphabet=st.sampled_from(list(string.ascii_letters + " .") + ["é", "😀", "漢"]), max_size=40)


@given(lines=st.lists(_LINE, max_size=30), limit=st.integers(min_value=80, max_value=600))
def test_a_cut_body_fits_keeps_whole_leading_lines_and_says_so(lines, limit):
    body = "\n".join(lines)
    cut = bodies.fit(body, limit)
    assert bodies.units(cut) <= limit
    if bodies.units(body) <= limit:
        assert cut == body
        return
    assert cut.endswith(bodies.CUT_NOTE)
    kept = cut[:-len(bodies.CUT_NOTE)]
    assert kept == "" or lines[:len(kept.split("\n"))] == kept.split("\n")  # whole lines, in order
    assert bodies.fit(cut, limit) == cut  # cutting again changes nothing


def test_units_are_what_github_counts_two_for_a_character_beyond_the_basic_plane():
    assert bodies.units("a😀") == 3 and bodies.units("é漢") == 2


def _move(subjects: list[str]) -> Move:
    commits = tuple(LogEntry(f"{i:040x}", "2026-11-20T00:00:00+00:00", "Upstream Author", s)
                    for i, s in enumerate(subjects, 1))
    return Move("plugin", "https://github.com/ROCm/rocm-jax", "master", "a" * 40, "b" * 40, FORWARD, commits)


@pytest.mark.parametrize("where", ["first", "last"])
def test_a_100_kb_subject_shows_its_start_and_every_other_commit_stays(where):
    huge = "fix " + "x" * 100_000
    subjects = [f"commit {i}" for i in range(5)]
    subjects.insert(0 if where == "first" else 5, huge)
    text = changelog.markdown((_move(subjects),), max_lines=50)
    assert bodies.units(text) <= changelog.CHANGELOG_ROOM
    assert all(f"commit {i}" in text for i in range(5))
    assert "fix xxx" in text and "x" * (changelog.SUBJECT_CHARS + 1) not in text


def test_a_changelog_of_many_long_subjects_is_cut_to_its_room_at_a_line_end():
    subjects = [f"{i:05d} " + "y" * 190 for i in range(600)]
    text = changelog.markdown((_move(subjects),), max_lines=600)
    assert bodies.units(text) <= changelog.CHANGELOG_ROOM and "changelog is cut here" in text
    shown = [line for line in text.splitlines() if line.startswith("- `")]
    assert shown and all(line.endswith("y" * 20) for line in shown)  # no line cut in the middle
    assert [line.split(": ", 1)[1][:5] for line in shown] == [f"{i:05d}" for i in range(len(shown))]


@pytest.fixture
def client(fake_github):
    fake_github.write_interval = 0
    return GitHubClient(fake_github.token, fake_github.api_url, sleep=lambda s: None, write_interval=0)


def _long_body(first: str) -> str:
    return first + "\n" + "\n".join(f"line {i} " + "z" * 90 for i in range(2000))


def test_a_pull_request_and_its_update_and_comment_over_the_limit_are_cut_not_refused(client, fake_github):
    """The stand-in refuses a body over 65536 characters (422), as GitHub does."""
    owner, name = fake_github.repo.split("/")
    fake_github.branches["bump/plugin"] = fake_github.branches.get("main") or "0" * 40
    made = client.create_pull(owner, name, title="Bump plugin", head="bump/plugin", base="main",
                              body=_long_body("<!-- mark -->"))
    stored = fake_github.pulls()[0]["body"]
    assert len(stored) <= bodies.BODY_LIMIT and stored.startswith("<!-- mark -->\n") and "cut here" in stored
    client.update_pull(owner, name, made["number"], body=_long_body("<!-- other -->"))
    assert fake_github.pulls()[0]["body"].startswith("<!-- other -->\n")
    client.comment(owner, name, made["number"], _long_body("said once"))
    said = client.issue_comments(owner, name, made["number"])[0]["body"]
    assert len(said) <= bodies.BODY_LIMIT and said.startswith("said once\n")


def test_release_notes_over_the_limit_are_cut_and_the_pypi_section_still_fits(client, fake_github):
    from release.publish import notes
    from release.publish.stores import GitHubStore

    owner, name = fake_github.repo.split("/")
    store = GitHubStore(client, owner, name)
    draft = store.create_draft("rocm-jax-v0.9.1", name="jax-rocm 0.9.1", body=_long_body("## notes") * 2,
                               prerelease=False)
    assert bodies.units(draft.body) <= bodies.BODY_LIMIT and draft.body.startswith("## notes\n")
    section = "### PyPI\n\nboth wheels"
    noted = notes.write(notes.Notes(text=draft.body + "\n" + "w" * 3000, pypi=section, validated="a" * 64))
    assert bodies.units(noted) <= bodies.BODY_LIMIT and noted.endswith(section + "\n<!-- /pypi -->\n")
    assert notes.read(noted).validated == "a" * 64  # the cut takes text, never a record
    assert notes.write(notes.read(noted)) == noted  # idempotent: the next run changes nothing
    updated = store.update_release(draft, body=noted)
    assert updated.body == noted


@given(lines=st.lists(_LINE, min_size=1, max_size=30), limit=st.integers(min_value=80, max_value=600))
def test_a_cut_body_keeps_every_leading_line_that_fits(lines, limit):
    """Not one whole line fewer than fits: the next line, with its newline and the note, would not."""
    body = "\n".join(lines)
    cut = bodies.fit(body, limit, fallback="-")
    if cut == body:
        return
    kept = cut[:-len(bodies.CUT_NOTE)]
    count = 0 if kept == "-" else len(kept.split("\n"))
    assert bodies.units("\n".join(lines[:count + 1]) + bodies.CUT_NOTE) > limit


@pytest.mark.parametrize("first", ["", "a", "é😀"])
def test_the_limit_itself_fits_and_a_cut_may_fill_it_exactly(first):
    """A body of exactly the limit is kept whole; a cut whose kept lines and note come to exactly
    the limit keeps them all (lines counted with the newline between them, the first with none)."""
    limit = 200
    room = limit - bodies.units(bodies.CUT_NOTE)
    second = "b" * (room - bodies.units(first) - 1)  # first + "\n" + second fills the room
    exact = "x" * (limit - 2) + "😀"
    assert bodies.units(exact) == limit and bodies.fit(exact, limit) == exact
    cut = bodies.fit(f"{first}\n{second}\nthird " + "c" * 100, limit)
    assert cut == f"{first}\n{second}" + bodies.CUT_NOTE and bodies.units(cut) == limit


def test_a_first_line_too_long_to_keep_leaves_the_fallback_and_the_note():
    long_line = "z" * 500
    assert bodies.fit(long_line + "\nshort", 200) == bodies.CUT_NOTE
    assert bodies.fit(long_line, 200, fallback="(see the run's log)") == "(see the run's log)" + bodies.CUT_NOTE
    assert bodies.fit(long_line, 200, note="\n…", fallback="x") == "x\n…"
