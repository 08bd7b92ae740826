"""How ``release status`` prints its result for people: tables of the pins (with the roller
report's commit ages), the store and the next versions, then the roller report as the
dashboard issue says it (``release.core.roller_report.text``, one renderer); and its step
summary; and ``release line new``'s (``new_line_view``). Rich is imported only when a table is
drawn (``--json`` draws none).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.core.redact import display_url

if TYPE_CHECKING:
    from rich.console import Console

    from release.core.config import Project
    from release.jobs.status import StatusResult


def human(console: Console, proj: Project, result: StatusResult) -> None:
    from rich.table import Table

    from release.core import versions
    from release.core.roller_report import pin_ages, text
    table = Table(title=f"pins ({proj.deps.path.name})", title_justify="left")
    for col in ("dep", "branch", "commit", "roll", "committed", "age", "url"):
        table.add_column(col, no_wrap=True)
    ages = pin_ages(result.roller)  # the pins once: the roller's columns join this table
    for d in proj.deps:
        committed, age = ages.get(d.name, ("unknown", "unknown"))
        table.add_row(d.name, d.branch, d.short, str(d.roll), committed, age, display_url(d.url))
    console.print(table)
    store = result.store
    if store is not None:
        st = Table(title=f"{store['kind']} store {store['where']}", title_justify="left")
        for col in ("latest", "tag", "published", "pins"):
            st.add_column(col, no_wrap=True)
        for kind in versions.KINDS:
            rel = store["latest"].get(kind)
            if rel is None:
                st.add_row(kind, "none", "", "")
                continue
            pins = rel.get("pins") or {}
            moved = [n for n, c in pins.items() if n in result.pins and result.pins[n]["commit"] != c]
            shown = (" ".join(f"{n}={c[:7]}" for n, c in pins.items())
                     + (f" (moved since: {', '.join(moved)})" if moved else " (= deps.yaml)" if pins else ""))
            st.add_row(kind, rel["tag"], (rel["published"] or "")[:10], shown)
        for draft in store["drafts"]:
            st.add_row("draft", draft["tag"], (draft["created"] or "")[:10],
                       "" if draft["ours"] else "not made by this tool")
        console.print(st)
    line = result.line
    if line["problem"]:
        console.print(f"warning: {line['problem']}", markup=False, style="bold yellow")
    else:
        said = (f"the jax pin {proj.deps['jax'].short} is jax {line['jax_line']}" if line["jax_line"]
                else "deps.yaml records no jax line yet: `release bump` reads jax/version.py")
        console.print(f"line {line['line']} ({said})", markup=False)
    vt = Table(title=f"next versions (ROCm {result.rocm_version})", title_justify="left")
    vt.add_column("kind", no_wrap=True)
    vt.add_column("version", no_wrap=True)
    vt.add_column("note", no_wrap=True)
    for kind, version in result.next.items():
        vt.add_row(kind, version or "-", result.next_notes.get(kind, ""))
    console.print(vt)
    print_public_index(console, result.public_index)
    pypi = result.pypi
    if pypi.get("note"):
        console.print(pypi["note"], markup=False)
    elif pypi["versions"]:
        console.print(f"on PyPI ({pypi['index']}): " + ", ".join(
            f"{v} {state}" for v, state in pypi["versions"].items()), markup=False)
    for said in text(result.roller, without=("Pins",)):  # what the dashboard issue says (one renderer)
        console.print(said, markup=False, highlight=False)


def summary(result: StatusResult) -> str:
    """The step summary: the next versions, the last nightly, the warnings."""
    lines = [f"### release status ({result.version}, ROCm {result.rocm_version})", "",
             "| kind | next version |", "|---|---|"]
    lines += [f"| {k} | {v or '-'} {result.next_notes.get(k, '')} |" for k, v in result.next.items()]
    last = result.last_nightly
    if last:
        lines += ["", f"last nightly: `{last['tag']}` ({(last['published'] or '')[:10]})"]
    lines += [f"\n> warning: {w}" for w in result.public_index["warnings"]]
    if result.line["problem"]:
        lines += [f"\n> warning: {result.line['problem']}"]
    return "\n".join(lines)


def print_public_index(console: Console, check: dict) -> None:
    """The version-line warnings, or what was compared, or why nothing could be."""
    for warning in check["warnings"]:
        console.print(f"warning: {warning}", markup=False, style="bold yellow")
    if check.get("note"):
        console.print(check["note"], markup=False)
    elif not check["warnings"]:
        newest = ", ".join(f"{p} {v}" for p, v in check["newest"].items()) or "nothing published"
        newer = sorted({n for line in check.get("lines", {}).values()
                        if (n := line.get("newer_line"))})
        said = (f"; a maintenance line (newer line {newer[-1]} there): its users pin it, and "
                "the next versions sort above everything of the line" if newer else
                "; the next versions sort above it")
        console.print(f"public index {check['index']}: {newest}{said}", markup=False)


def lines_table(console: Console, lines: list[dict] | None) -> None:
    """One row a maintained line (docs/lines.md): its branch, next version and nightly, the last
    nightly of its line, its plugin pin; a line whose files could not be read says why."""
    if not lines:
        return
    from rich.table import Table
    table = Table(title="maintained lines (.github/lines.json)", title_justify="left")
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
