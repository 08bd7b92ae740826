"""How the maintained lines are shown to people: ``release status``'s table of every line
(``lines_table``) and what ``release line new`` did (``new_line_view``). On a terminal rich draws
the table; in a log or a pipe it is plain text (``release.core.plain``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from release.core.plain import PlainConsole


def lines_table(console: Console | PlainConsole, lines: list[dict] | None) -> None:
    """One row a maintained line (docs/lines.md): its branch, next version and nightly, the last
    nightly of its line, its plugin pin; a line whose files could not be read says why."""
    if not lines:
        return
    from release.core.plain import new_table
    table = new_table(console, "maintained lines (.github/lines.json)")
    for col in ("branch", "version", "next nightly", "last nightly", "plugin"):
        table.add_column(col, no_wrap=True)
    for row in lines:
        if "version" not in row:
            table.add_row(row["branch"], row["problem"], "", "", "")
            continue
        table.add_row(row["branch"], row["version"], row["next_nightly"] or "-", row["last_nightly"] or "-",
                      f"{row['plugin']['branch']} {row['plugin']['commit'][:7]}")
    console.print(table)


def new_line_view(console: Console, data: dict) -> None:
    """``release line new`` for people: what it did to the line, its pins, its PR."""
    said = {"planned": "would start", "exists": "already maintained:", "committed": "committed (not pushed)",
            "pushed": "pushed", "opened": "opened the PR for", "updated": "updated the PR for",
            "kept": "kept the PR (a person pushed to it) for"}[data["action"]]
    console.print(f"line {data['line']}: {said} {data['branch']} ({data['version']}, jax {data['jax_line']}, "
                  f"the plugin on {data['plugin_branch']})", markup=False)
    for name, pin in data["pins"].items():
        console.print(f"  {name}: {pin['branch']} {pin['commit'][:12]} {pin['url']}", markup=False)
    if data.get("reason"):
        console.print(data["reason"], markup=False)
    if data.get("pull_request"):
        console.print(f"pull request #{data['pull_request']['number']}: {data['pull_request'].get('url') or ''}",
                      markup=False)
