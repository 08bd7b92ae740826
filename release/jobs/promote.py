"""``release promote`` as a function: re-version built wheels to rcN, the release or postN,
and, with an output directory, make the promoted wheels of one dist a dist ``release publish``
takes (``release.build.promote`` does the wheels; this decides what the run writes)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from release.core.errors import UserError

if TYPE_CHECKING:
    from release.build.promote import Promotion
    from release.core.output import Say


class Bar(Protocol):
    """What a promotion reports to a progress bar: the file it is on, the bytes it moved."""

    def describe(self, text: str) -> None: ...

    def advance(self, n: int) -> None: ...


@dataclasses.dataclass(frozen=True)
class PromoteOptions:
    """What ``release promote`` is asked: the wheels, the version and where they go."""

    wheels: tuple[Path, ...]
    to: str                    # release, rcN or postN
    out: Path | None = None    # default: next to each source wheel


@dataclasses.dataclass(frozen=True)
class PromoteResult:
    """The promoted wheels, and what else makes the output a dist."""

    promotions: tuple[Promotion, ...]
    dist_files: tuple[str, ...]   # with --out: what makes it a dist, besides the wheels

    @property
    def versions(self) -> list[str]:
        return sorted({p.new_version for p in self.promotions})

    def to_json(self) -> dict:
        versions = self.versions
        return {"to": versions[0] if len(versions) == 1 else versions,
                "wheels": [p.to_json() for p in self.promotions], "dist_files": list(self.dist_files)}

    def outputs(self) -> dict[str, str]:
        """``$GITHUB_OUTPUT``: the promoted files, one a line, and their versions."""
        return {"promoted": "\n".join(str(p.output) for p in self.promotions),
                "promoted-version": ",".join(self.versions)}

    def summary(self) -> str:
        return (f"### promoted to {', '.join(self.versions)}\n\n"
                + "".join(f"- `{p.output.name}`\n" for p in self.promotions))


def run_promote(options: PromoteOptions, bar: Bar, say: Say) -> PromoteResult:
    """Promote every wheel (a bad ``to`` is refused before anything is written), then complete
    ``out`` as a dist when the wheels came from one."""
    from release.build.promote import promote_wheel, target_version
    from release.core.naming import Identity
    for wheel in options.wheels:
        version = Identity.of(wheel).version
        if version:
            target_version(version, options.to)
    promotions = []
    for wheel in options.wheels:
        bar.describe(f"promoting {wheel.name}")
        promotions.append(promote_wheel(wheel, options.to, options.out, progress=bar.advance))
    return PromoteResult(tuple(promotions), tuple(complete_promoted_dist(options.out, promotions, say)))


def complete_promoted_dist(out_dir: Path | None, results: list[Promotion], say: Say) -> list[str]:
    """With ``--out``, wheels of one dist (its ``revisions.json`` beside them) promoted to one
    version make ``--out`` a dist ``release publish`` takes; returns the files written."""
    from release.build.promote import complete_dist
    from release.core.naming import REVISIONS_ASSET, release_tag
    from release.core.revisions import RevisionMap

    if out_dir is None:
        return []
    sources = {r.source.parent.resolve() for r in results}
    olds = {r.old_version for r in results}
    news = {r.new_version for r in results}
    if len(sources) != 1 or len(olds) != 1 or len(news) != 1 or \
            sources == {Path(out_dir).resolve()}:
        say(f"note: {out_dir} holds the promoted wheels only (they do not come from one "
            "dist directory of one version)")
        return []
    rev_path = next(iter(sources)) / REVISIONS_ASSET
    if not rev_path.is_file():
        say(f"note: {out_dir} holds the promoted wheels only ({rev_path}: missing, so "
            "no revisions.json, provenance or SHA256SUMS for `release publish`)")
        return []
    try:
        before = RevisionMap.loads(rev_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise UserError(f"{rev_path}: not a revision map ({exc})") from None
    old = next(iter(olds))
    if before.version != old:
        raise UserError(f"{rev_path}: is for {before.version}, the wheels are {old}")
    return complete_dist(Path(out_dir), sorted(r.output.name for r in results), before,
                         next(iter(news)), release_tag(old))
