"""Upstream text is data: whatever a commit subject, author, branch, patch name or GitHub
message holds, it reaches a terminal without a control character and a PR body or release
note as the same words, with no HTML, link, image or ping (release.core.sanitize)."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from release.core import sanitize
from release.core.revisions import Revision, RevisionMap
from release.sources import changelog
from release.sources.git import LogEntry
from release.sources.roll import FORWARD, Move

# What a terminal acts on: C0/C1 controls (ESC among them), DEL, and the characters that
# reorder or hide text.
ACTS = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
ESCAPE_SEQUENCES = st.sampled_from([
    "\x1b[31m", "\x1b[0m", "\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
    "\x9b31m", "\x1bc", "\x1b(0", "\x1bP1$r\x1b\\", "\x1b", "\r", "\x08", "\u202e", "\u2066", "\x00", "\x85",
])
HOSTILE_MARKDOWN = st.sampled_from([
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[click](javascript:alert(1))",
    "![x](https://evil.example/p.png)", "<javascript:alert(1)>", "[a]: javascript:alert(1)\n[a]",
    "@octocat", "#123", "ROCm/xla#99", "`code` ``", "\\[x](y)", "&lt;b&gt;", "&#60;script&#62;",
    "| a | b |", "# heading", "> quote", "1. item", "<!-- c -->", "<details open>", "[x]\n(javascript:1)",
])
UPSTREAM = st.lists(ESCAPE_SEQUENCES | HOSTILE_MARKDOWN | st.text(max_size=12), max_size=8).map("".join)
RENDER = MarkdownIt("commonmark", {"html": True, "linkify": False})


def _rendered(md: str) -> str:
    return RENDER.render(md)


@given(text=UPSTREAM)
@example(text="\x1b]8;;javascript:alert(1)\x1b\\x\x1b]8;;\x1b\\")
def test_a_line_holds_nothing_a_terminal_acts_on(text):
    shown = sanitize.line(text)
    assert not ACTS.search(shown) and "\n" not in shown
    assert sanitize.line(shown) == shown  # once is enough: nothing left to change


@given(text=UPSTREAM)
@example(text="[click](javascript:alert(1)) <b>x</b> @octocat")
def test_markdown_renders_as_text_with_no_html_link_image_or_ping(text):
    html = _rendered("- " + sanitize.markdown(text) + "\n")
    assert html.startswith("<ul>\n<li>") and html.count("<li>") == 1
    tags = set(re.findall(r"</?([a-zA-Z][\w-]*)", html))
    assert tags <= {"ul", "li", "em", "strong"}, tags
    assert not re.search(r"@\w", html)  # a zero-width space keeps @name from pinging


@given(text=UPSTREAM)
def test_code_stays_inside_its_code_span(text):
    html = _rendered("a `" + sanitize.code(text) + "` b")
    assert html.count("<code>") == 1 and not ACTS.search(html.replace("\n", ""))


def _move(subject: str, author: str, branch: str, patch: str) -> Move:
    entry = LogEntry("a" * 40, "2026-11-20T00:00:00+00:00", author, subject)
    return Move("xla", "https://github.com/ROCm/xla", branch, "b" * 40, "a" * 40, FORWARD, (entry,),
                old_branch="rocm-jaxlib-v0.9.1", patches=(patch,), source="the plugin pins")


@given(subject=UPSTREAM, author=UPSTREAM, branch=UPSTREAM, patch=UPSTREAM)
def test_a_bump_changelog_carries_upstream_text_as_data(subject, author, branch, patch):
    """The PR body, the --changelog file and the commit message are the same Markdown: no
    control character, and the only links are our own compare link."""
    moves = (_move(subject, author, branch, patch),)
    text = changelog.markdown(moves) + changelog.title(moves)
    assert not ACTS.search(text.replace("\n", ""))
    html = _rendered(changelog.markdown(moves))
    links = re.findall(r"<a href=\"([^\"]*)\"", html)
    assert links == ["https://github.com/ROCm/xla/compare/" + "b" * 40 + "..." + "a" * 40]
    assert not re.search(r"<(script|img|details|iframe)\b", html)


@given(branch=UPSTREAM, patch=UPSTREAM)
def test_release_notes_revision_table_keeps_its_shape(branch, patch):
    revisions = RevisionMap("0.9.1", (("xla", Revision("https://github.com/ROCm/xla", branch, "c" * 40,
                                                         patches=(patch,))),))
    md = revisions.markdown()
    assert not ACTS.search(md.replace("\n", ""))
    row = md.splitlines()[2]
    assert len(re.findall(r"(?<!\\)\|", row)) == 5  # four cells: no | from upstream splits one
    assert not re.search(r"<(script|img)\b", _rendered(md))


def test_an_error_line_from_github_reaches_the_terminal_without_escapes(run_cli, monkeypatch, project_dir):
    """GitHub's message in an error is upstream text too."""
    from release.sources import github
    monkeypatch.setattr(github.GitHubClient, "send", lambda *a, **k: (_ for _ in ()).throw(
        github.GitHubRefused("GET", "/x", 403, "\x1b]0;owned\x07\x1b[31mBad\x1b[0m credentials\u202e")))
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_" + "x" * 36)
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    code, out, err = run_cli("status", "--root", project_dir)
    assert code == 2 and "Bad credentials" in err and not ACTS.search(err.replace("\n", ""))


HOSTILE_SUBJECT = ("\x1b]0;owned\x07\x1b[2J\x1b[31mFix <script>alert(1)</script> [docs](javascript:alert(1)) "
                   "for @everyone\u202e")


def test_a_hostile_upstream_subject_reaches_no_terminal_file_commit_or_pr_raw(tmp_path, run_cli, monkeypatch,
                                                                              remotes_template):
    """End to end: an upstream commit whose subject carries escapes, HTML and a script link, rolled
    by ``bump --commit --changelog``: the terminal, the file and the commit message carry its words
    only."""
    from tests.support.gitrepos import deps_yaml, git
    from tests.support.project import write_version_info
    remotes = remotes_template.copy(tmp_path / "remotes")
    remotes.plugin.commit("master", HOSTILE_SUBJECT, {"NOTES.md": "x\n"},
                          author="\x1b[1mMallory\x1b[0m <m@example.com>")
    root = tmp_path / "proj"
    root.mkdir()
    write_version_info(root)
    (root / "deps.yaml").write_text(deps_yaml(remotes, rolls={"jax": "manual", "xla": "manual"}))
    git("init", "--quiet", "-b", "main", cwd=root)
    git("add", "deps.yaml", "version_info.json", cwd=root)
    git("commit", "--quiet", "-m", "pins", cwd=root)
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    changelog_file = tmp_path / "CHANGELOG.md"
    code, out, err = run_cli("bump", "--dep", "plugin", "--commit", "--changelog", changelog_file, "--root", root,
                             "--date", "2026-11-22")
    assert code == 0, err
    message = git("log", "-1", "--format=%B", "bump/2026-11-22-plugin", cwd=root)
    written = changelog_file.read_text()
    for text in (out, err, message, written):
        assert not ACTS.search(text.replace("\n", "")), repr(text)
        assert "Fix" in text or text is err
    html = _rendered(written)
    assert "<script" not in html
    assert not re.search(r"<a href=\"javascript", html) and "@everyone" not in html


WORDS = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7e, exclude_characters="*_~"),
                min_size=1, max_size=30)


@given(text=WORDS)
@example(text="+ a | [b](c) `d` <e> &amp; \\ #1 @x")
@example(text="- item")
@example(text="= setext")
@example(text="  # heading after spaces")
@example(text=" > quote after a space")
def test_markdown_shows_exactly_the_words_it_was_given(text):
    """Neutralised, not mangled: the rendered text is the upstream text (emphasis marks aside)."""
    import html as html_module
    rendered = _rendered("- " + sanitize.markdown(text) + "\n")
    shown = html_module.unescape(re.sub(r"<[^>]+>", "", rendered)).replace("\u200b", "").strip()
    assert shown == text.strip()


@given(text=WORDS)
def test_plain_text_passes_line_and_code_unchanged(text):
    assert sanitize.line(text) == text
    if "`" not in text and text.strip() == text:
        assert sanitize.code(text) == text
        assert sanitize.code(text, in_table=True) == text.replace("|", "\\|")


def test_controls_are_shown_escaped_not_dropped():
    assert sanitize.line("a\x07b\u202ec\x7f") == "a\\x07b\\u202ec\\x7f"
    assert sanitize.line("a\tb\r\nc") == "a b c"
    assert sanitize.code("``") == "''" and sanitize.code("") == "-"
