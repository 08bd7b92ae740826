"""The changelog of a bump: one title line, Markdown for people and PRs, JSON for machines.

Rendered from the same ``Move``s so the commit title, the PR body, the printed text and
``--json`` cannot disagree. Long logs are cut at ``max_lines`` with "... and N more".
"""

from __future__ import annotations

import re

from release.revisions import github_base
from release.roll import FORWARD, Move

DEFAULT_MAX_LINES = 50


def _commits(n: int) -> str:
    return f"{n} commit" + ("" if n == 1 else "s")


def summary(move: Move) -> str:
    """``xla b32df5f..d4e5f6a (12 commits)``; rewinds say so."""
    what = _commits(move.count)
    if move.direction != FORWARD:
        what += f", {move.direction} rewind"
    return f"{move.name} {move.old[:7]}..{move.new[:7]} ({what})"


def title(moves: tuple[Move, ...]) -> str:
    """The commit and PR title: ``Bump xla b32df5f..d4e5f6a (12 commits), jax ...``."""
    return "Bump " + ", ".join(summary(m) for m in moves)


def compare_url(move: Move) -> str | None:
    base = github_base(move.url)
    return f"{base}/compare/{move.old}...{move.new}" if base else None


def _quiet(text: str) -> str:
    """Keep upstream subjects from pinging people or linking the wrong repo's issues."""
    return re.sub(r"([@#])(?=\w)", "\\1\u200b", text).replace("\n", " ")


def markdown(moves: tuple[Move, ...], max_lines: int = DEFAULT_MAX_LINES) -> str:
    if not moves:
        return "Pins are current.\n"
    parts = []
    for move in moves:
        lines = [f"### {summary(move)}", ""]
        lines.append(f"`{move.old}` -> `{move.new}` on `{move.branch}` of {move.url}")
        url = compare_url(move)
        if url:
            lines.append(f"([compare]({url}))")
        if move.direction != FORWARD:
            lines.append(f"\n**Rewind** ({move.direction}): allowed with --allow-rewind.")
        lines.append("")
        shown = move.commits[:max(max_lines, 0)]
        for c in shown:
            lines.append(f"- `{c.short}` {c.date[:10]} {_quiet(c.author)}: {_quiet(c.subject)}")
        if move.count > len(shown):
            lines.append(f"- ... and {move.count - len(shown)} more")
        parts.append("\n".join(lines).rstrip() + "\n")
    return "\n".join(parts)


def to_json(moves: tuple[Move, ...]) -> dict:
    return {
        "changed": bool(moves),
        "deps": {m.name: {
            "old": m.old, "new": m.new, "count": m.count, "direction": m.direction,
            "url": m.url, "branch": m.branch, "compare_url": compare_url(m),
            "commits": [{"sha": c.sha, "date": c.date, "author": c.author, "subject": c.subject}
                        for c in m.commits],
        } for m in moves},
    }
