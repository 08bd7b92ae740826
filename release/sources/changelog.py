"""The changelog of a bump: one title line, Markdown for people and PRs, JSON for machines.

Rendered from the same ``Move``s so the commit title, the PR body, the printed text and
``--json`` cannot disagree. Long logs are cut at ``max_lines`` with "... and N more".
"""

from __future__ import annotations

from release.core import bodies, sanitize
from release.core.redact import display_url
from release.core.revisions import github_base
from release.sources.roll import BACKWARD, FORWARD, SAME, SIDEWAYS, Move

DEFAULT_MAX_LINES = 50
SUBJECT_CHARS = 200  # a commit's subject or author shown at most this long (git asks for under 72)
# The changelog's share of a body GitHub keeps (PR bodies, release notes, the hold PR): what
# surrounds it (titles, the roller's lines, checksums, provenance, marks) gets the rest.
CHANGELOG_ROOM = bodies.BODY_LIMIT - 16384


def _commits(n: int) -> str:
    return f"{n:,} commit" + ("" if n == 1 else "s")


def summary(move: Move) -> str:
    """The short form for titles: ``xla b32df5f..d4e5f6a (12 commits)``; other moves say how."""
    if move.same_as:
        return f"{move.name} {move.old[:7]}..{move.new[:7]} (the {move.same_as}'s tree)"
    if move.direction == SAME:
        if move.rebranched:
            return f"{move.name} {move.new[:7]} (on {sanitize.line(move.branch)})"
        return f"{move.name} {move.new[:7]} (patches or archive changed)"
    if move.switched:
        what = f"switched to {sanitize.line(move.branch)}"
    elif move.direction == BACKWARD:
        what = f"back {_commits(move.dropped)}"
    elif move.direction == SIDEWAYS:
        what = f"{_commits(move.count)}, sideways"
    else:
        what = _commits(move.count)
    return f"{move.name} {move.old[:7]}..{move.new[:7]} ({what})"


def sentence(move: Move) -> str:
    """What happened, in a reviewer's words:
    ``xla: switched rocm-jaxlib-v0.8.0 -> rocm-jaxlib-v0.9.1 (b32df5f; 1,741 commits since the
    merge-base 913ae2e, 8 behind that branch's tip)``, ``xla: moved back 31 commits to 24c5f10
    (as the plugin pins)``."""
    new = move.new[:7]
    behind = f", {move.behind:,} behind that branch's tip" if move.behind else ""
    base = f" since the merge-base {move.merge_base[:7]}" if move.merge_base else ""
    source = f" ({move.source})" if move.source else ""
    if move.same_as:  # the source's move carries the log and the branch
        return f"{move.name}: at {new}, the {move.same_as}'s commit (one tree), on {move.branch}"
    if move.switched:
        if move.direction == FORWARD:
            how = f"{_commits(move.count)} since {move.old[:7]}"
        elif move.direction == BACKWARD:
            how = f"back {_commits(move.dropped)} from {move.old[:7]}"
        elif move.direction == SAME:
            how = "the pin stays" + ("" if move.rebranched else ", patches now " + (
                ", ".join(p.rsplit(":", 1)[-1] for p in move.patches) or "none"))
        else:
            dropped = f", drops {_commits(move.dropped)} of the old pin's" if move.dropped else ""
            how = f"{_commits(move.count)}{base}{dropped}"
        text = f"switched {move.old_branch} -> {move.branch} ({new}; {how}{behind})"
    elif move.direction == SAME:
        patches = ", ".join(p.rsplit(":", 1)[-1] for p in move.patches) or "none"
        text = f"stays at {new}, patches now {patches}{source}"
    elif move.direction == BACKWARD:
        text = f"moved back {_commits(move.dropped)} to {new}{source}"
    elif move.direction == SIDEWAYS and not move.merge_base and not move.commits:
        text = f"replaced {move.old[:7]}, which no longer exists upstream, with {new} on {move.branch}{source}"
    elif move.direction == SIDEWAYS:
        dropped = f", {_commits(move.dropped)} of the old pin's not in it" if move.dropped else ""
        text = f"moved sideways to {new} on {move.branch} ({_commits(move.count)}{base}{dropped}){source}"
    else:
        text = f"moved forward {_commits(move.count)} to {new} on {move.branch}{source}"
    if move.named_url:
        text += (f"; {display_url(move.named_url)} is named as its source, the commit is on "
                 f"{display_url(move.url)}")
    if move.off_line:
        text += f"; {move.off_line}"
    return f"{move.name}: {text}"


def title(moves: tuple[Move, ...]) -> str:
    """The commit and PR title: ``Bump xla b32df5f..d4e5f6a (12 commits), jax ...``."""
    return "Bump " + ", ".join(summary(m) for m in moves)


def compare_url(move: Move) -> str | None:
    base = github_base(move.url)
    return f"{base}/compare/{move.old}...{move.new}" if base and move.old != move.new else None


def _quiet(text: str) -> str:
    """Upstream text (subjects, authors, branch names) as Markdown that shows exactly those
    words: no escape sequences, HTML, links, pings or cross-repository #refs."""
    return sanitize.markdown(text)


def shortened(text: object) -> str:
    """One upstream word or line cut to ``SUBJECT_CHARS`` (a 100 kB subject shows its start)."""
    text = str(text)
    return text if len(text) <= SUBJECT_CHARS else text[:SUBJECT_CHARS - 1] + "…"


def notes_markdown(notes: tuple[str, ...]) -> str:
    """Holds and green-CI choices (``RollResult.notes``), one bullet each, before the moves."""
    return "".join(f"- {_quiet(note)}\n" for note in notes) + ("\n" if notes else "")


def markdown(moves: tuple[Move, ...], max_lines: int = DEFAULT_MAX_LINES, notes: tuple[str, ...] = ()) -> str:
    if not moves:
        return notes_markdown(notes) + "Pins are current.\n"
    parts = [notes_markdown(notes).rstrip("\n") + "\n"] if notes else []
    for move in moves:
        lines = [f"### {_quiet(summary(move))}", "", _quiet(sentence(move)), ""]
        lines.append(f"`{move.old}` -> `{move.new}` on `{sanitize.code(move.branch)}` of "
                     f"{_quiet(display_url(move.url))}")
        url = compare_url(move)
        if url:
            lines.append(f"([compare]({url}))")
        if move.archive_sha256:
            lines.append(f"archive sha256 `{move.archive_sha256}`")
        if move.patches:
            lines.append("patches: " + ", ".join(f"`{sanitize.code(p)}`" for p in move.patches))
        if move.line:
            lines.append(f"jax line `{sanitize.code(move.line)}` (jax/version.py at `{move.new[:7]}`)")
        lines.append("")
        shown = move.commits[:max(max_lines, 0)]
        for c in shown:
            lines.append(f"- `{c.short}` {sanitize.code(c.date[:10])} {_quiet(shortened(c.author))}: "
                         f"{_quiet(shortened(c.subject))}")
        if move.count > len(shown):
            lines.append(f"- ... and {move.count - len(shown)} more")
        parts.append("\n".join(lines).rstrip() + "\n")
    return bodies.fit("\n".join(parts), CHANGELOG_ROOM, "\n\n_(the changelog is cut here: the rest is "
                      "longer than GitHub keeps in one text; `--json` has it whole)_\n")


def to_json(moves: tuple[Move, ...], notes: tuple[str, ...] = ()) -> dict:
    return {
        "changed": bool(moves),
        **({"notes": list(notes)} if notes else {}),  # holds and green-CI choices
        "deps": {m.name: {
            "old": m.old, "new": m.new, "count": m.count, "direction": m.direction,
            "url": display_url(m.url), "branch": m.branch, "old_branch": m.old_branch,
            "switched": m.switched, "merge_base": m.merge_base, "dropped": m.dropped,
            "behind_tip": m.behind, "source": m.source, "named_url": m.named_url and display_url(m.named_url),
            "archive_sha256": m.archive_sha256, "patches": list(m.patches), "line": m.line,
            "off_line": m.off_line or None, "same_as": m.same_as or None,
            "summary": sentence(m),
            "compare_url": compare_url(m),
            "commits": [{"sha": c.sha, "date": c.date, "author": c.author, "subject": c.subject}
                        for c in m.commits],
        } for m in moves},
    }
