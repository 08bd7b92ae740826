"""``release status``'s cells: for the store's newest release of each kind and its newest draft,
every (ROCm major, Python) cell of the line: built, verified, validated, smoke-tested, published.

A line of ROCm 7 and ROCm 10 ships a pair per major, each with a plugin per Python; a release
engineer asks of each cell whether it got through every gate (with the with-rocm line validate
resolved for users without a system ROCm, and why it was n/a where it was). The line's cells (what
version_info.json builds) are shown even where a release lacks them (``built: false``), and a
release's cells the line no longer builds are shown too. Each gate is read from the release
itself, as the page's matrix reads it (``release.publish.matrix``): its assets (wheels, locks)
and its notes (the validated mark, the smoke section), so status and the page never disagree.
Only wheels of the release's own version make a cell; others are listed as ``strays``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from release.core import cells

if TYPE_CHECKING:
    from release.core.cells import Cell
    from release.publish.stores import Release, Store


def shown_releases(releases: Sequence[Release]) -> list[Release]:
    """The newest published release of each kind and the newest draft of this tool, newest first."""
    from release.core import versions
    from release.publish.stores import Published
    published = Published.of(list(releases))
    found = [rel for kind in versions.KINDS if (rel := published.latest((kind,))) is not None]
    drafts = [r for r in releases if r.draft and r.ours]
    if drafts:
        found.append(max(drafts, key=lambda r: (r.created_at is not None, r.created_at, r.id)))
    return found


def release_cells(store: Store, release: Release, line_cells: Sequence[Cell]) -> dict[str, Any]:
    """One release's row: its tag, whether it is a draft, and each cell's gates."""
    from release.publish import matrix, notes
    names = [a.name for a in store.list_assets(release)]
    version = version_of(release.tag, names)
    record = notes.of(release)
    gated = {(c.rocm_major, c.python): c for c in matrix.cells(version, names, validated=record.validated is not None,
                                                               smoke=record.smoke, with_rocm=record.with_rocm)}
    rows = []
    for cell in sorted(set(line_cells) | set(gated), key=cells.sort_key):
        got = gated.get(cell)
        rows.append(cells.to_json(cell) | {
            "built": got is not None,
            **{gate: got.gate(gate) if got is not None else "not built" for gate in matrix.GATES},
            "with_rocm_reason": got.with_rocm_reason if got is not None else None,
            "published": got is not None and not release.draft})
    return {"tag": release.tag, "draft": release.draft, "cells": rows, "strays": matrix.strays(version, names)}


def version_of(tag: str, names: Sequence[str]) -> str:
    """The version a release's cells are of: its tag's; for a tag naming none (a draft of ours
    renamed by hand), the version most of its plugin wheels carry (the highest on a tie)."""
    from collections import Counter

    from packaging.version import InvalidVersion, Version

    from release.core.naming import Identity, version_from_tag
    given = version_from_tag(tag)
    try:
        if given is not None:
            return str(Version(given))
    except InvalidVersion:
        pass
    found = Counter(ident.version for n in names if n.endswith(".whl")
                    and (ident := Identity.of(n)).kind == "plugin" and ident.version is not None)
    return max(found, key=lambda v: (found[v], Version(v)), default="0")


def cells_view(store: Store, releases: Sequence[Release], line_cells: Sequence[Cell]) -> list[dict[str, Any]]:
    """Every shown release's row (``shown_releases``), newest of each kind then the draft."""
    return [release_cells(store, rel, line_cells) for rel in shown_releases(releases)]
