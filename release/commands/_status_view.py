"""How ``release status`` prints its result for people: tables of the pins (with the roller
report's commit ages), the store and the next versions, then the roller report as the
dashboard issue says it (``release.core.roller_report.text``, one renderer); and its step
summary. The maintained lines' table is ``_line_view``'s. On a terminal rich draws the tables; in
a log or a pipe they are plain text (``release.core.plain``) and rich is not imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._cells_view import print_cells
from release.core.redact import display_url

if TYPE_CHECKING:
    from rich.console import Console

    from release.core.config import Project
    from release.core.plain import PlainConsole
    from release.jobs.status import StatusResult


def human(console: Console | PlainConsole, proj: Project, result: StatusResult) -> None:
    from release.commands._render import print_public_index
    from release.core import versions
    from release.core.plain import new_table
    from release.core.roller_report import pin_ages, text
    from release.jobs.status import moved_pins
    table = new_table(console, f"pins ({proj.deps.path.name})")
    for col in ("dep", "branch", "commit", "roll", "committed", "age", "url"):
        table.add_column(col, no_wrap=True)
    ages = pin_ages(result.roller)  # the pins once: the roller's columns join this table
    for d in proj.deps:
        committed, age = ages.get(d.name, ("unknown", "unknown"))
        table.add_row(d.name, d.branch, d.short, str(d.roll), committed, age, display_url(d.url))
    console.print(table)
    store = result.store
    if store is not None:
        st = new_table(console, f"{store['kind']} store {store['where']}")
        for col in ("latest", "tag", "published", "pins"):
            st.add_column(col, no_wrap=True)
        for kind in versions.KINDS:
            rel = store["latest"].get(kind)
            if rel is None:
                st.add_row(kind, "none", "", "")
                continue
            pins = rel.get("pins") or {}
            moved = moved_pins(pins, result.pins)
            shown = (" ".join(f"{n}={c[:7]}" for n, c in pins.items())
                     + (f" (moved since: {', '.join(moved)})" if moved else " (= deps.yaml)" if pins else ""))
            st.add_row(kind, rel["tag"], (rel["published"] or "")[:10], shown)
        for draft in store["drafts"]:
            st.add_row("draft", draft["tag"], (draft["created"] or "")[:10],
                       "" if draft["ours"] else "not made by this tool")
        console.print(st)
        print_cells(console, store.get("cells") or [])
    line = result.line
    if line["problem"]:
        console.print(f"warning: {line['problem']}", markup=False, style="bold yellow")
    else:
        said = (f"the jax pin {proj.deps['jax'].short} is jax {line['jax_line']}" if line["jax_line"]
                else "deps.yaml records no jax line yet: `release bump` reads jax/version.py")
        console.print(f"line {line['line']} ({said})", markup=False)
    vt = new_table(console, f"next versions (ROCm {result.rocm_version})")
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
