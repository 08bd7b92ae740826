"""``release status``: the pins and the versions each kind of build would get."""

from __future__ import annotations

from rich.table import Table

from release import versions
from release.commands._common import add_date_options, project, today_utc

HELP = "show the pinned revisions and the next release, rc and nightly versions"


def add_arguments(parser) -> None:
    add_date_options(parser)


def run(args, out) -> int:
    proj = project(args)
    info = proj.version_info
    date = args.date or today_utc()
    build = args.build_number
    if info.nightly_scheme == "date-build" and build is None:
        build = 0
    nxt = {
        "release": versions.release(info.version),
        "rc": versions.rc(info.version, 1),
        "nightly": versions.nightly(info.version, date, build),
    }
    data = {
        "root": str(proj.root),
        "version": info.version,
        "rocm_version": info.rocm_version,
        "nightly_scheme": info.nightly_scheme,
        "pins": {d.name: {"url": d.url, "branch": d.branch, "commit": d.commit, "roll": str(d.roll)}
                 for d in proj.deps},
        "next": nxt,
    }

    def human(console):
        table = Table(title=f"pins ({proj.deps.path.name})")
        for col in ("dep", "branch", "commit", "roll", "url"):
            table.add_column(col)
        for d in proj.deps:
            table.add_row(d.name, d.branch, d.short, str(d.roll), d.url)
        console.print(table)
        vt = Table(title=f"versions (ROCm {info.rocm_version})")
        vt.add_column("kind")
        vt.add_column("version")
        for kind, version in nxt.items():
            vt.add_row(kind, version)
        console.print(vt)

    out.result(data, human)
    return 0
