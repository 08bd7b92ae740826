"""How the roller is doing, as data, and the one renderer both of its outputs come from.

The dashboard issue (Markdown) and ``release status`` (text, ``--json``) show the same report:
``sections`` turns a ``Report`` into titled rows of cells once, and ``markdown`` and ``text``
only format those cells. Everything in a cell that came from outside (a pull request's title, a
branch name, a run's conclusion) goes through ``release.core.sanitize`` on the way out, and a
link is kept only when it is a plain ``http(s)`` URL. The Markdown body is bounded by GitHub's
limit on an issue body (``BODY_LIMIT`` characters) and starts with the tool's hidden marker, so
even a cut body is still found again.

Nothing here reads a clock: ages are counted from ``Report.now`` (the run's ``$RELEASE_NOW``) in
whole days, so two runs on one day with nothing new render the same body, and the issue is not
edited for nothing.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from typing import Any, Sequence

from release.core import bodies, sanitize
from release.core.bodies import BODY_LIMIT

MARKER = "<!-- jax-rocm-release:dashboard -->"
TITLE_CHARS = 120  # a pull request's title is cut to this before it is shown
LIST_ROWS = 50  # rows of one list shown at most (the rest counted)
_URL = re.compile(r"https?://[A-Za-z0-9.-]+(?::\d+)?(?:/[A-Za-z0-9._~%!$&'*+,;=:@/?#-]*)?")
GREEN, RED, NEITHER, RUNNING = "green", "red", "neither", "running"
_SHOWN = {GREEN: "🟢 green", RED: "🔴 red", NEITHER: "⚪ neither", RUNNING: "🟡 running"}


@dataclasses.dataclass(frozen=True)
class Pin:
    """A pin as the report shows it, with its commit time when the git cache knows it."""

    name: str
    commit: str
    branch: str
    roll: str
    committed: _dt.datetime | None  # the commit's committer time; None: not known here


@dataclasses.dataclass(frozen=True)
class Run:
    """A workflow run as the report shows it: a nightly, or a running bisect."""

    number: int
    outcome: str  # GREEN, RED, NEITHER, RUNNING
    when: _dt.datetime
    url: str | None
    conclusion: str | None = None  # GitHub's word (failure, cancelled, ...), shown beside it
    version: str | None = None  # the nightly published from that run's day, when there is one


@dataclasses.dataclass(frozen=True)
class Pull:
    """An open bump or hold pull request as the report lists it."""

    number: int
    title: str
    url: str | None
    branch: str


@dataclasses.dataclass(frozen=True)
class Report:
    """Everything the dashboard issue and ``release status`` say about the roller, read once."""

    now: _dt.datetime
    mode: str
    cooldown_hours: float
    roller_file: str | None  # where mode and cooldown came from (None: the defaults)
    pins: tuple[Pin, ...]
    throttle: str | None = None  # what the throttle waits for, one line (None: no throttle)
    nightlies: tuple[Run, ...] | None = None  # newest first; None: not read (see ``unread``)
    bump: Pull | None = None
    holds: tuple[Pull, ...] = ()
    bisects: tuple[Run, ...] = ()  # bisect runs still going
    unread: tuple[str, ...] = ()  # what could not be read, one line each
    bisect: str | None = None  # this nightly's bisect: started or not, and why (None: not said)
    until: _dt.datetime | None = None  # when the pause ends (None: not paused, or until a commit)

    def to_json(self) -> dict[str, Any]:
        def stamp(moment: _dt.datetime | None) -> str | None:
            return None if moment is None else moment.strftime("%Y-%m-%dT%H:%M:%SZ")

        def run(r: Run) -> dict[str, Any]:
            return dataclasses.asdict(r) | {"when": stamp(r.when)}
        return {"now": stamp(self.now), "mode": self.mode, "cooldown_hours": self.cooldown_hours,
                "roller_file": self.roller_file, "throttle": self.throttle,
                "pins": [dataclasses.asdict(p) | {"committed": stamp(p.committed),
                                                  "age_days": age_days(self.now, p.committed)}
                         for p in self.pins],
                "nightlies": None if self.nightlies is None else [run(r) for r in self.nightlies],
                "bump": None if self.bump is None else dataclasses.asdict(self.bump),
                "holds": [dataclasses.asdict(p) for p in self.holds],
                "bisects": [run(r) for r in self.bisects], "bisect": self.bisect, "unread": list(self.unread),
                "until": stamp(self.until)}


def age_days(now: _dt.datetime, then: _dt.datetime | None) -> int | None:
    """Whole days from ``then`` to ``now`` (0 for a commit from the future: a skewed clock)."""
    if then is None:
        return None
    return max((now - then) // _dt.timedelta(days=1), 0)


# ------------------------------------------------------------------ the one renderer

@dataclasses.dataclass(frozen=True)
class Cell:
    """One cell of a report row: its text, and whether it is code or a link."""

    text: str
    code: bool = False  # a commit, branch, version: shown as code
    url: str | None = None  # a link, kept only when it is a plain http(s) URL


@dataclasses.dataclass(frozen=True)
class Section:
    """A titled table of the report, rendered alike as Markdown and as text."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    empty: str  # said instead of an empty table
    more: int = 0  # rows left out (LIST_ROWS)


def _age(days: int | None) -> str:
    if days is None:
        return "unknown"
    return "under a day" if days == 0 else "1 day" if days == 1 else f"{days} days"


def _day(moment: _dt.datetime | None) -> str:
    return "unknown" if moment is None else moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%d")


def _pull_row(p: Pull) -> tuple[Cell, ...]:
    return (Cell(f"#{p.number}", url=p.url), Cell(p.title[:TITLE_CHARS]), Cell(p.branch, code=True))


def _cut(rows: Sequence[tuple[Cell, ...]]) -> tuple[tuple[tuple[Cell, ...], ...], int]:
    return tuple(rows[:LIST_ROWS]), max(len(rows) - LIST_ROWS, 0)


def headline(report: Report) -> str:
    """The roller in one line: mode (and when a pause ends), cooldown, throttle."""
    where = report.roller_file or "no roller.yaml: the defaults"
    until = f" until {report.until:%Y-%m-%dT%H:%M:%SZ}" if report.until is not None else ""
    cooldown = (f"cooldown {report.cooldown_hours:g} h" if report.cooldown_hours
                else "no cooldown")
    throttle = f"; throttle: {report.throttle}" if report.throttle else ""
    return f"mode {report.mode}{until}, {cooldown} ({where}){throttle}"


def sections(report: Report) -> list[Section]:
    """The report as titled rows of cells: what both outputs show, in order."""
    pins = tuple((Cell(p.name), Cell(p.commit[:12], code=True), Cell(p.branch, code=True), Cell(p.roll),
                  Cell(_day(p.committed)), Cell(_age(age_days(report.now, p.committed))))
                 for p in report.pins)
    out = [Section("Pins", ("dep", "commit", "branch", "roll", "committed", "age"), pins, "no pins")]
    if report.nightlies is None:
        out.append(Section("Nightlies", (), (), "not read (see below)"))
    else:
        rows, more = _cut([(Cell(_day(r.when)), Cell(_SHOWN.get(r.outcome, r.outcome)
                                                     + (f" ({r.conclusion})" if r.conclusion and r.outcome
                                                        in (RED, NEITHER) else "")),
                            Cell(r.version or "none", code=bool(r.version)), Cell(f"run #{r.number}", url=r.url))
                           for r in report.nightlies])
        out.append(Section(f"Last {len(report.nightlies)} nightlies (newest first)",
                           ("night", "result", "version", "run"), rows, "no nightly has run yet", more))
    bump = (_pull_row(report.bump),) if report.bump else ()
    out.append(Section("Bump pull request", ("PR", "title", "branch"), bump, "none open"))
    rows, more = _cut([_pull_row(p) for p in report.holds])
    out.append(Section("Hold pull requests", ("PR", "title", "branch"), rows, "none open", more))
    rows, more = _cut([(Cell(_day(r.when)), Cell(f"run #{r.number}", url=r.url)) for r in report.bisects])
    out.append(Section("Bisects running", ("started", "run"), rows, "none", more))
    return out


# ------------------------------------------------------------------ its two formats

def _link_target(url: str | None) -> str | None:
    return url if url and _URL.fullmatch(url) else None


def _md_cell(cell: Cell) -> str:
    shown = (f"`{sanitize.code(cell.text, in_table=True)}`" if cell.code
             else sanitize.markdown(cell.text))
    target = _link_target(cell.url)
    return f"[{shown}]({target})" if target else shown


def markdown(report: Report, *, limit: int = BODY_LIMIT) -> str:
    """The dashboard issue's body: the marker first, at most ``limit`` characters (counted as
    UTF-16 units, which is never fewer than GitHub's count)."""
    lines = [MARKER, "## Roller", "", sanitize.markdown(headline(report)), ""]
    if report.bisect:
        lines += [f"bisect: {sanitize.markdown(report.bisect)}", ""]
    for section in sections(report):
        lines += [f"## {section.title}", ""]
        if not section.rows:
            lines += [f"_{sanitize.markdown(section.empty)}_", ""]
            continue
        lines += ["| " + " | ".join(section.columns) + " |", "|" + "---|" * len(section.columns)]
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in section.rows]
        if section.more:
            lines.append(f"\n_and {section.more} more (`release status --json` lists them)_")
        lines.append("")
    if report.unread:
        lines += ["## Not read", ""] + [f"- {sanitize.markdown(u)}" for u in report.unread] + [""]
    lines += [f"_Written by `release dashboard` on {_day(report.now)} (UTC). The roller's settings "
              "live in `roller.yaml`: change them there, by a reviewed commit; edits here are "
              "overwritten._"]
    return bound("\n".join(lines), limit)


def bisect_of(body: str) -> str | None:
    """The bisect line a dashboard body shows (``markdown``'s ``bisect:`` line), as the words it
    was given, or None: a writer that says nothing of the bisect (bump's) keeps the nightly's."""
    found = re.search(r"^bisect: (.+)$", body, re.MULTILINE)
    if found is None:
        return None
    said = found.group(1).replace("\u200b", "")
    said = re.sub(r"\\(.)", r"\1", said).replace("&lt;", "<").replace("&amp;", "&")
    return sanitize.line(said).strip() or None


def bound(body: str, limit: int = BODY_LIMIT) -> str:
    """``body`` when it fits in ``limit``, else cut at a line end with a note saying so (the
    marker, the first line, always kept)."""
    return bodies.fit(body, limit, "\n\n_(cut here: the rest is longer than an issue may be; "
                      "`release status --json` has it)_", fallback=MARKER)


def pin_ages(report: Report) -> dict[str, tuple[str, str]]:
    """Each pin's commit day and age as the Pins section shows them, by dep name (for a
    command that prints the pins in its own table)."""
    return {p.name: (_day(p.committed), _age(age_days(report.now, p.committed))) for p in report.pins}


def text(report: Report, *, without: Sequence[str] = ()) -> list[str]:
    """The same report as lines for a terminal (``release status``): one safe line each;
    ``without`` names sections the caller printed already (its own pins table)."""
    lines = [f"roller: {sanitize.line(headline(report))}"]
    if report.bisect:
        lines.append(f"bisect: {sanitize.line(report.bisect)}")
    for section in sections(report):
        if section.title in without:
            continue
        if not section.rows:
            lines.append(f"{section.title.lower()}: {section.empty}")
            continue
        lines.append(f"{section.title.lower()}:")
        for row in section.rows:
            cells = [sanitize.line(c.text) + (f" <{t}>" if (t := _link_target(c.url)) else "") for c in row]
            lines.append("  " + "  ".join(cells))
        if section.more:
            lines.append(f"  and {section.more} more")
    lines += [f"not read: {sanitize.line(u)}" for u in report.unread]
    return lines
