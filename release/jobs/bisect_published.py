"""The published nightlies answer a bisect's probes before anything is built (issue 34 item 3).

A nightly of the good end's line published after it passed build, verify, validate and the
smoke gate from the pins its ``revisions.json`` records. A candidate pin set equal to those pins
is good without a build; one outside the build (``Candidate.inert``) builds as the set before
it, so that set is good. The search then starts above the newest such set: a red nightly
between two published green ones of its line is bisected only between the pins they were built
from, and a red nightly whose pins were published green needs no probe at all (its failure did
not follow from the pins). Only a build probe is answered so: a ``--probe-command`` may test
what no nightly did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Protocol, Sequence

from release.core import sanitize

if TYPE_CHECKING:
    from release.core.output import Say
    from release.publish.stores import Store

# The newest published nightlies read (one revisions.json each): more than gc keeps of a line.
READ_AT_MOST = 60
GOOD = "good"  # the verdict release.jobs.bisect records for a good probe (it imports this one)


class Candidate(Protocol):
    """What is read of release.jobs.bisect's Candidate (a Protocol: bisect imports this module)."""

    @property
    def index(self) -> int: ...
    @property
    def commits(self) -> Mapping[str, str]: ...
    @property
    def inert(self) -> bool: ...
    @property
    def sha(self) -> str: ...


def published_after(store: Store, good_tag: str) -> tuple[tuple[str, dict[str, str]], ...]:
    """``(tag, commits)`` of each published nightly of ``good_tag``'s line (its ``X.Y.Z``) newer than it,
    newest first (at most ``READ_AT_MOST``); none when ``good_tag`` is not a published nightly."""
    from release.core.versions import kind_of_version
    from release.publish.drafts import built_from

    entries = store.published().entries
    good = next((v for v, rel in entries if rel.tag == good_tag), None)
    if good is None:
        return ()
    newer = [rel for v, rel in entries if v > good and v.release[:3] == good.release[:3]
             and kind_of_version(v) == "nightly"][:READ_AT_MOST]
    return tuple((rel.tag, dict(built_from(store, rel, rel.tag).commits)) for rel in newer)


def answer_from_published(candidates: Sequence[Candidate], published: Sequence[tuple[str, Mapping[str, str]]],
                          probes: dict, say: Say = lambda _: None) -> list[str]:
    """Record GOOD in ``probes`` (the state's, by sha) for each searched candidate a published
    nightly answers (see the module doc), never over a finished probe. Returns a note per answer."""

    notes: list[str] = []
    builds_as: Candidate | None = None  # the set the build sees: the last one that changed it
    for candidate in candidates:
        if not candidate.inert:
            builds_as = candidate
        tag = next((tag for tag, commits in published
                    if all(commits.get(name) == sha for name, sha in candidate.commits.items())), None)
        if tag is None or builds_as is None or builds_as.sha in probes:
            continue
        shown = sanitize.line(tag)
        probes[builds_as.sha] = {"verdict": GOOD, "step": None, "log": None, "index": builds_as.index,
                                 "message": f"published as {shown}: built, verified, validated and "
                                            "smoke-tested from these pins", "published": shown}
        notes.append(f"candidate {builds_as.index} ({builds_as.sha[:7]}) is good without a build: "
                     f"{shown} was published from its pins")
        say(notes[-1])
    return notes
