"""The bump job's records: its options (``BumpOptions``), the pull request's body (``PullBody``)
and its result (``BumpResult``), apart from ``release.jobs.bump`` so the gates
(``release.jobs.bump_gates``) and the job that runs them both import them without a cycle.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from release.core.errors import UserError

MERGE_METHODS = ("merge", "squash", "rebase")


@dataclasses.dataclass(frozen=True)
class BumpOptions:
    """What a person (or the workflow) asked of one bump; ``now`` is the run's clock."""

    now: _dt.datetime                  # roller.yaml's until, the cooldown, the bump branch's date
    deps: tuple[str, ...] = ()         # --dep: roll only these (none: every dep)
    to: str | None = None              # --to: pin the one dep to this commit
    allow_rewind: bool = False
    changelog: Path | None = None      # --changelog: also write the Markdown here
    max_log_lines: int | None = None   # commits listed per dep (None: changelog.DEFAULT_MAX_LINES)
    commit: bool = False
    push: bool = False
    open_pr: bool = False
    auto_merge: bool = False
    merge_require: tuple[str, ...] = ()
    merge_method: str = "merge"
    dry_run: bool = False
    date: _dt.date | None = None       # the bump branch's date (None: now's UTC date)

    @property
    def opens_pr(self) -> bool:
        return self.open_pr or self.auto_merge

    @property
    def pushes(self) -> bool:
        return self.push or self.opens_pr

    @property
    def commits(self) -> bool:
        return self.commit or self.pushes

    @property
    def branch_date(self) -> _dt.date:
        return self.date or self.now.astimezone(_dt.timezone.utc).date()

    def as_dry_run(self) -> BumpOptions:
        """These options as ``--dry-run`` alone: what roller.yaml's ``mode: dry-run`` makes of them."""
        return dataclasses.replace(self, dry_run=True, commit=False, push=False, open_pr=False, auto_merge=False,
                                   merge_require=(), merge_method="merge")

    def check(self) -> None:
        """Refuse flags that contradict each other, in one line (exit 2)."""
        if (self.merge_require or self.merge_method != "merge") and not self.auto_merge:
            raise UserError("--merge-require and --merge-method need --auto-merge")
        if self.dry_run and self.commits:
            raise UserError("--dry-run writes nothing; it cannot be combined with --commit, --push, --open-pr "
                            "or --auto-merge")


@dataclasses.dataclass(frozen=True)
class Paragraph:
    """One decision in the changelog, a line of its own after the moves: ``by`` the gate that made it."""

    by: str
    line: str


@dataclasses.dataclass(frozen=True)
class PullBody:
    """The bump's notes as a record: the commit message's and the PR's title and body, the
    ``--changelog`` file and the step summary are all rendered from it.

    ``changes`` is the changelog's Markdown (holds and notes, then each move, or what moved instead);
    each ``Paragraph`` follows it as ``<line>.``: roller.yaml's mode, the throttle, why the open PR
    was not merged, why a person's PR was kept (in that order, each only when it spoke)."""

    title: str
    changes: str
    paragraphs: tuple[Paragraph, ...] = ()

    def markdown(self) -> str:
        return self.changes + "".join(f"\n{p.line}.\n" for p in self.paragraphs)

    def said_by(self, *gates: str) -> tuple[str, ...]:
        return tuple(p.line for p in self.paragraphs if p.by in gates)

    def adding(self, by: str, line: str) -> PullBody:
        return dataclasses.replace(self, paragraphs=(*self.paragraphs, Paragraph(by, line)))


@dataclasses.dataclass(frozen=True)
class BumpResult:
    """What one bump did. A run a gate ended (``ended_by``) rolled nothing and says why in
    ``said`` (its title first); a run that rolled has its changelog in ``body``."""

    changed: bool                      # a pin or the version moved
    title: str
    ended_by: str | None = None        # the gate that ended the run: mode, throttle, auto-merge, roll
    said: tuple[str, ...] = ()         # an ended run's lines
    merged: bool | None = None         # ended by auto-merge: whether it merged the PR
    body: PullBody | None = None
    dry_run: bool = False
    facts: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # the changelog's: notes, deps
    version: dict | None = None        # version_info.json's move, or None
    roller: str | None = None          # roller.yaml's mode when it decided this run
    roller_warning: str | None = None
    throttle: dict | None = None       # the throttle's decision when it spoke
    auto_merge: dict | None = None     # what auto-merge did to the open bump PR
    delivered: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # branch, commit, pushed, pull_request

    @property
    def pull_request(self) -> dict | None:
        return self.delivered.get("pull_request")

    @property
    def kept(self) -> str | None:
        """Why a person's bump PR was left as they left it (this run pushed nothing), or None."""
        return (self.pull_request or {}).get("reason")

    @property
    def decisions(self) -> tuple[str, ...]:
        """roller.yaml's and the throttle's lines of a run that rolled."""
        return self.body.said_by("mode", "throttle") if self.body is not None else ()

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object (release/schemas/bump.json), without its ``schema`` key."""
        data: dict[str, Any] = {"changed": self.changed}
        if self.ended_by is not None:
            data["title"] = self.title
        data |= self.facts
        optional = {"roller": self.roller, "throttle": self.throttle, "roller_warning": self.roller_warning,
                    "auto_merge": self.auto_merge}
        data |= {key: value for key, value in optional.items() if value}
        if self.ended_by is None:
            data |= {"title": self.title, "version": self.version}
        return data | dict(self.delivered)

    def outputs(self) -> dict[str, str]:
        """The ``$GITHUB_OUTPUT`` keys: changed, title; branch and pr-number when made; merged
        when auto-merge ended the run."""
        values = {"changed": "true" if self.changed else "false", "title": self.title}
        if self.merged is not None:
            values["merged"] = "true" if self.merged else "false"
        if "branch" in self.delivered:
            values["branch"] = self.delivered["branch"]
        if (self.pull_request or {}).get("number"):
            values["pr-number"] = str(self.delivered["pull_request"]["number"])
        return values

    def summary(self) -> str:
        """The step summary's Markdown."""
        if self.body is None:
            return "## bump\n\n" + "\n\n".join(self.said) + "\n"
        if self.changed:
            return f"## {self.title}\n\n{self.body.markdown()}"
        return ("## bump: pins are current" + (f"\n\n{self.kept}\n" if self.kept else "")
                + "".join(f"\n\n{line}" for line in self.decisions))
