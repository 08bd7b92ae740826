"""The (ROCm major, Python) cells table ``release status`` prints for people: one row per cell of
each shown release, with what each gate said: rich's table on a terminal, else plain text."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from release.core.plain import PlainConsole


# Why a validated release's cell says validate "unknown" (``release.publish.matrix``): its notes
# carry the validated mark, its assets no lock for any cell.
UNLOCKED = ("validate unknown: the release passed validate (verify passed) but keeps no lock for the cell: "
            "validate locks a cell it installed as users do, with jax and jaxlib from the public index; "
            "without one (RELEASE_PUBLIC_INDEX=none, as in `release try`) it installs the plugin and pjrt "
            "alone and locks nothing, and releases validated before locks were kept have none")


def print_cells(console: Console | PlainConsole, rows: list[dict]) -> None:
    """Each shown release's (ROCm major, Python) cells: built, verify, validate, smoke, with-rocm
    (each n/a's reason below the table, and why a validated cell's validate is unknown), published;
    then a warning for each release holding wheels of another version (none of them counted)."""
    if any(row["cells"] for row in rows):
        _table(console, rows)
    for row in rows:
        if row.get("strays"):
            console.print(f"warning: {row['tag']} holds wheels of another version, in none of its cells: "
                          + ", ".join(row["strays"]), markup=False, style="bold yellow")


def _table(console: Console | PlainConsole, rows: list[dict]) -> None:
    from release.core.plain import new_table
    table = new_table(console, "cells (ROCm major, Python)")
    for col in ("tag", "ROCm", "Python", "built", "verify", "validate", "smoke", "with-rocm", "published"):
        table.add_column(col, no_wrap=True)
    for row in rows:
        tag = row["tag"] + (" (draft)" if row["draft"] else "")
        for cell in row["cells"]:
            table.add_row(tag, str(cell["rocm_major"]), cell["python"], "yes" if cell["built"] else "no",
                          cell["verify"], cell["validate"], cell["smoke"], cell.get("with_rocm", "unknown"),
                          "yes" if cell["published"] else "no")
    console.print(table)
    if any(c["verify"] == "passed" and c["validate"] == "unknown" for row in rows for c in row["cells"]):
        console.print(UNLOCKED, markup=False, highlight=False)
    for row in rows:  # a reason is a sentence: below the table, not in a column
        for cell in row["cells"]:
            if cell.get("with_rocm_reason"):
                console.print(f"{row['tag']} ROCm {cell['rocm_major']}, Python {cell['python']}: with-rocm "
                              f"{cell.get('with_rocm')}: {cell['with_rocm_reason']}", markup=False, highlight=False)
