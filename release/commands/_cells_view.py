"""The (ROCm major, Python) cells table ``release status`` prints for people: one row per cell of
each shown release, with what each gate said. Rich is imported only when the table is drawn."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


def print_cells(console: Console, rows: list[dict]) -> None:
    """Each shown release's (ROCm major, Python) cells: built, verify, validate, smoke, published."""
    from rich.table import Table
    if not any(row["cells"] for row in rows):
        return
    table = Table(title="cells (ROCm major, Python)", title_justify="left")
    for col in ("tag", "ROCm", "Python", "built", "verify", "validate", "smoke", "published"):
        table.add_column(col, no_wrap=True)
    for row in rows:
        tag = row["tag"] + (" (draft)" if row["draft"] else "")
        for cell in row["cells"]:
            table.add_row(tag, str(cell["rocm_major"]), cell["python"], "yes" if cell["built"] else "no",
                          cell["verify"], cell["validate"], cell["smoke"], "yes" if cell["published"] else "no")
    console.print(table)
