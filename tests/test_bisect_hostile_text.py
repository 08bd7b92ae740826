"""Upstream text on the bisect path is data, as everywhere else: commit subjects, the store's
tag names, a probe's message and log, a state.json's notes and verdicts (a probe job ran
upstream code and wrote it), a person's committer name and a branch name reach the terminal
with nothing a terminal acts on, and the step summary, the hold PR and its comments as the
same words, with no HTML, link, image, ping or broken table row."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings

from release.core.output import Output
from release.jobs.bisect_run import markdown as bisect_markdown
from tests.test_autobisect import (  # noqa: F401 (fixtures)
    N2,
    bisect_job,
    comments,
    deliver,
    history,
    mirrors,
    pull_of,
    seed,
    tip,
    world,
)
from tests.test_bisect import probe_script
from tests.test_sanitize import ACTS, RENDER, UPSTREAM

ALLOWED_TAGS = {"h2", "h3", "p", "ul", "li", "em", "strong", "code", "table", "thead", "tbody", "tr", "th", "td",
                "pre"}
HOSTILE = ("\x1b]0;owned\x07\x1b[2J<img src=x onerror=alert(1)> @everyone [x](javascript:alert(1)) "
           "`tick` | cell | <!-- c -->")


def _assert_inert(markdown: str) -> None:
    """Rendered as GitHub would (HTML allowed): only the tags the report itself makes (no link,
    image or raw HTML), no ping outside a code span, and every table row keeps its five cells."""
    html = RENDER.render(markdown)
    tags = set(re.findall(r"</?([a-zA-Z][\w-]*)", html))
    assert tags <= ALLOWED_TAGS, tags
    assert not re.search(r"@\w", re.sub(r"<code>.*?</code>", "", html, flags=re.S))  # code never pings
    assert not ACTS.search(markdown.replace("\n", ""))
    for row in re.findall(r"<tr>(.*?)</tr>", html, re.S):
        assert row.count("<td>") + row.count("<th>") == 5, row


def _data(text: str, other: str) -> dict:
    candidate = {"index": 1, "plugin": "a" * 40, "subject": text, "moved": ["plugin"], "verdict": other,
                 "commits": {}, "inert": False}
    return {"good": {"name": text}, "bad": {"name": other},
            "first_bad": candidate | {"step": "build", "message": text, "log": other},
            "candidates": [candidate, candidate | {"index": 2, "subject": other, "verdict": text}],
            "undecided": [], "reproduced": True, "notes": [text, other], "hold": {"line": text},
            "probes_run": 1, "probes_total": 2, "state": other, "changelog": ""}


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(text=UPSTREAM, other=UPSTREAM)
def test_the_bisect_report_renders_upstream_words_as_words(text, other):
    _assert_inert(bisect_markdown(_data(text, other)))


def test_the_terminal_gets_no_escape_sequence_from_any_line(capsys):
    out = Output(as_json=False)
    out.line(f"probe 1/2: abcdef0 {HOSTILE}\nsecond line \x1b[31mred\x1b[0m")
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "owned" not in shown and "second line red" in shown


def test_a_tampered_state_reaches_the_hold_pr_and_the_summary_as_words(world, run_cli, monkeypatch):
    """The write-token job reports a state.json a probe job wrote: its notes, verdicts and the
    culprit's message are whatever that job put there."""
    h, fake = world.h, world.fake
    seed(world)
    summary = world.tmp / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    probed = bisect_job(world, good=N2, bad_commit=world.red, probe_command=probe_script(world, "jax", h.c["J3"]))
    assert probed.exit_status == 0
    state_path = world.root / "dist" / "bisect" / "state.json"
    state = json.loads(state_path.read_text())
    state["notes"] = [HOSTILE, "@everyone see <script>alert(1)</script>"]
    for probe in state["probes"].values():
        probe["message"] = HOSTILE
        probe["log"] = HOSTILE
    state_path.write_text(json.dumps(state))
    common = ("--good", N2, "--bad-commit", world.red, "--store", "local", "--store-dir", world.store, "--json")
    code, out, err = run_cli("bisect", *common, "--recorded-only", "--open-pr", cwd=world.root)  # its output
    assert code == 0, err
    (pr,) = fake.pulls()
    for markdown in (pr["body"], summary.read_text()):
        _assert_inert(markdown)
        assert "onerror" not in markdown or "&lt;img" in markdown  # shown as words, never a tag
    assert "\x1b" not in err


def test_a_hostile_committer_on_the_hold_branch_is_named_as_words(world, github_client, tmp_path):
    from tests.support.gitrepos import git

    h, fake = world.h, world.fake
    number = deliver(world, github_client, h.c["P6"])["pull_request"]["number"]
    clone = tmp_path / "person"
    git("clone", "--quiet", "-b", "hold/plugin", world.origin.as_uri(), clone)
    (clone / "WHY.md").write_text("held\n")
    git("add", "WHY.md", cwd=clone)
    name = "Eve` <img src=x onerror=alert(1)> @everyone [x](javascript:alert(1)) `"
    git("-c", f"user.name={name}", "-c", "user.email=eve@example.com", "commit", "--quiet", "-m", "note", cwd=clone)
    git("push", "--quiet", "origin", "hold/plugin", cwd=clone)
    theirs = tip(world.origin, "hold/plugin")
    kept = deliver(world, github_client, h.c["P7"])
    assert kept["pull_request"]["action"] == "kept" and tip(world.origin, "hold/plugin") == theirs
    (said,) = comments(fake, number)
    html = RENDER.render(said)
    assert "<img" not in html and "<a " not in html and not re.search(r"@\w", html)
    assert html.count("<code>") == 2  # the branch and the commit stay in their own spans
    assert "Eve" in said


def test_a_hostile_branch_name_stays_inside_its_code_span(world, github_client, tmp_path):
    """The hold PR's branch is read from GitHub's answer; a name with a backtick (git allows
    one) must not close the code span and let the rest render as Markdown."""
    from tests.support.gitrepos import git
    from tests.test_answer_shapes import changed_member

    h, fake = world.h, world.fake
    number = deliver(world, github_client, h.c["P6"])["pull_request"]["number"]
    branch = "hold/plugin-`<img-src=x>@everyone`"
    clone = tmp_path / "person"
    git("clone", "--quiet", "-b", "hold/plugin", world.origin.as_uri(), clone)
    (clone / "WHY.md").write_text("held\n")
    git("add", "WHY.md", cwd=clone)
    git("-c", "user.name=Eve", "-c", "user.email=eve@example.com", "commit", "--quiet", "-m", "note", cwd=clone)
    git("push", "--quiet", "origin", f"HEAD:refs/heads/{branch}", cwd=clone)
    fake.fail("GET", r"/pulls$", when="malformed", body=changed_member(("head", "ref"), branch), times=10)
    kept = deliver(world, github_client, h.c["P7"])
    assert kept["pull_request"]["action"] == "kept"
    (said,) = comments(fake, number)
    html = RENDER.render(said)
    assert "<img" not in html and not re.search(r"@\w", re.sub(r"<code>.*?</code>", "", html, flags=re.S))
    assert html.count("<code>") == 2
