"""``release status``: the pins, what the store holds, the versions each kind of build would get,
and how the roller is doing (the dashboard issue's report, ``release.core.roller_report``).

Reads the store (``--offline`` skips it): the last published nightly (tag, date and the pins
it was built from), the drafts, the latest rc, release and post release, and so what the
next versions are given those: an rc number already published is not offered again, and a
version line whose release is out offers no rc or release until version_info.json moves on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from release.commands._common import add_date_options, add_store_options, open_store_from_args, project, today_utc
from release.core import output
from release.core.redact import display_url

if TYPE_CHECKING:
    import argparse
    import datetime as _dt

    from rich.console import Console

    from release.core.config import Project
    from release.core.output import Output
    from release.core.roller_report import Report
    from release.publish.stores import Store

HELP = "show the pins, the last nightly, drafts, latest rc and release, and the next versions"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from release.check import resolver
    add_date_options(parser)
    add_store_options(parser)
    parser.add_argument("--offline", action="store_true",
                        help="pins and versions from the two files only; do not read the store "
                             "or ask the public index")
    resolver.add_public_index_option(parser, "the next versions are compared with")
    from release.commands.dashboard import add_report_options
    add_report_options(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.check import resolver
    proj = project(args)
    info = proj.version_info
    date = args.date or today_utc()
    store = None if args.offline else open_store_from_args(args, out, writes=False)
    store_view = None if store is None else _store_view(store)
    # the next .postN counts what the public index holds too (a release published by hand)
    listed = () if args.offline else resolver.index_versions(info.rocm_major, resolver.public_index_from_args(args))
    nxt = _next_versions(proj, date, args.build_number, store_view, listed)
    data: dict[str, Any] = {
        "root": str(proj.root),
        "version": info.version,
        # the release line is jax's: deps.yaml records the jax pin's line, bump moves both
        "line": {"line": info.line, "jax_line": proj.jax_line, "ok": proj.line_problem() is None,
                 "problem": proj.line_problem()},
        "rocm_version": info.rocm_version,
        "nightly_scheme": info.nightly_scheme,
        "pins": {d.name: {"url": display_url(d.url), "branch": d.branch, "commit": d.commit,
                          "roll": str(d.roll)} for d in proj.deps},
        "next": {kind: v for kind, (v, _) in nxt.items()},
        "next_notes": {kind: note for kind, (_, note) in nxt.items() if note},
    }
    if store_view is not None:
        data["store"] = store_view
    # pip --pre takes the newest version on any index: a line at or below what is public
    # would never be installed (asked of the public index; unreachable = not checked)
    data["public_index"] = ({"index": None, "checked": False, "newest": {}, "warnings": [],
                             "note": "public index not checked (--offline)"} if args.offline else
                            resolver.check_planned_versions(
                                {kind: v for kind, v in data["next"].items() if v},
                                info.rocm_major, resolver.public_index_from_args(args)))
    data["pypi"] = _pypi_view(args, info.rocm_major, store_view)
    roller = roller_report(proj, args, out, store)
    data["roller"] = roller.to_json()
    last = (store_view or {}).get("latest", {}).get("nightly")
    output.github_output({"version": info.version, "next-release": nxt["release"][0] or "",
                          "next-rc": nxt["rc"][0] or "", "next-nightly": nxt["nightly"][0] or "",
                          "last-nightly": (last or {}).get("tag", "")})
    output.step_summary(_summary(data))
    out.result(data, lambda console: _human(console, proj, data, roller))
    return 0


def roller_report(proj: Project, args: argparse.Namespace, out: Output, store: Store | None) -> Report:
    """The dashboard's report (``release dashboard`` writes it into the issue): GitHub is asked
    when a token and repository are set and not ``--offline``; pin ages from the git cache only."""
    import os

    from release.commands.dashboard import gather
    client, owner, name = None, "", ""
    full = args.repo or os.environ.get("GITHUB_REPOSITORY", "")
    if not args.offline and os.environ.get("GITHUB_TOKEN") and full.count("/") == 1:
        from release.sources.github import GitHubClient
        owner, name = full.split("/")
        client = GitHubClient.from_env(console=out.progress_console())
    return gather(proj, client, owner, name, store, nightlies=args.nightlies, base=args.base)


def _pypi_view(args: argparse.Namespace, rocm_major: int, store_view: dict | None) -> dict:
    """Whether each published release and post release is on PyPI (the index uploads go to,
    ``$TWINE_REPOSITORY_URL``'s, else the public index); ``--offline`` asks nothing."""
    if store_view is None:  # --offline: the PyPI client is not even loaded
        return {"index": None, "checked": False, "versions": {}, "note": "PyPI not checked (--offline)"}
    import os

    from release.check import resolver
    from release.core import naming, versions
    from release.publish import pypi
    from release.publish.pypi_index import derive_index_url

    wanted = [v for v in store_view["published_versions"] if versions.kind_of(v) in pypi.KINDS_FOR_PYPI]
    upload_url = os.environ.get("TWINE_REPOSITORY_URL", "").strip()
    index = derive_index_url(upload_url) if upload_url else resolver.public_index_from_args(args)
    if index is resolver.PIP_DEFAULT:
        index = resolver.pip_configured_index()
    if index == resolver.NO_PUBLIC_INDEX:
        return {"index": None, "checked": False, "versions": {},
                "note": f"PyPI not checked (the public index is {resolver.NO_PUBLIC_INDEX!r})"}
    if not wanted:
        return {"index": index, "checked": False, "versions": {}, "note": "no release or post release to look for"}
    return pypi.presence(index, (naming.pjrt_dist(rocm_major), naming.plugin_dist(rocm_major)), wanted)


def _store_view(store: Store) -> dict:
    """What the store holds, as status shows it: latest of each kind, the drafts, the last
    nightly's pins (from its revisions.json)."""
    from release.core import versions
    from release.publish.drafts import previous_revisions
    from release.publish.stores import Published, release_version

    releases = store.list_releases()
    published = Published.of(releases)
    latest: dict[str, dict[str, Any]] = {}
    for kind in versions.KINDS:
        rel = published.latest((kind,))
        if rel is not None:
            latest[kind] = {"tag": rel.tag, "version": str(release_version(rel)),
                            "published": rel.published_at.isoformat() if rel.published_at else None,
                            "url": rel.html_url}
            if kind == "nightly":
                revisions = previous_revisions(store, rel)
                if revisions is not None:
                    latest[kind]["pins"] = {name: rev.commit for name, rev in revisions.revisions}
                    latest[kind]["release_commit"] = revisions.release_commit
    drafts = [{"tag": r.tag, "id": r.id, "ours": r.ours,
               "created": r.created_at.isoformat() if r.created_at else None}
              for r in releases if r.draft]
    return {"kind": store.kind, "where": store.where, "latest": latest, "drafts": drafts,
            "published_versions": sorted(published.versions())}


def _next_versions(proj: Project, date: _dt.date, build: int | None,
                   view: dict | None, listed: tuple[str, ...] = ()) -> dict[str, tuple[str | None, str]]:
    """``{kind: (version or None, note)}``: what a build of each kind would get now, from
    ``plan.next_versions`` (the rule: ``versions.blocking_version``) over what is published."""
    from release.build.plan import next_versions
    published = [*(view or {}).get("published_versions", ()), *listed]
    return {kind: (n["version"], n["why"])
            for kind, n in next_versions(proj, published, date, build).items()}


def _human(console: Console, proj: Project, data: dict, roller: Report) -> None:
    from rich.table import Table

    from release.core import versions
    from release.core.roller_report import pin_ages, text
    table = Table(title=f"pins ({proj.deps.path.name})", title_justify="left")
    for col in ("dep", "branch", "commit", "roll", "committed", "age", "url"):
        table.add_column(col, no_wrap=True)
    ages = pin_ages(roller)  # the pins once: the roller's columns join this table
    for d in proj.deps:
        committed, age = ages.get(d.name, ("unknown", "unknown"))
        table.add_row(d.name, d.branch, d.short, str(d.roll), committed, age, display_url(d.url))
    console.print(table)
    store = data.get("store")
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
            moved = [n for n, c in pins.items() if n in data["pins"] and data["pins"][n]["commit"] != c]
            shown = (" ".join(f"{n}={c[:7]}" for n, c in pins.items())
                     + (f" (moved since: {', '.join(moved)})" if moved else " (= deps.yaml)" if pins else ""))
            st.add_row(kind, rel["tag"], (rel["published"] or "")[:10], shown)
        for draft in store["drafts"]:
            st.add_row("draft", draft["tag"], (draft["created"] or "")[:10],
                       "" if draft["ours"] else "not made by this tool")
        console.print(st)
    line = data["line"]
    if line["problem"]:
        console.print(f"warning: {line['problem']}", markup=False, style="bold yellow")
    else:
        said = (f"the jax pin {proj.deps['jax'].short} is jax {line['jax_line']}" if line["jax_line"]
                else "deps.yaml records no jax line yet: `release bump` reads jax/version.py")
        console.print(f"line {line['line']} ({said})", markup=False)
    vt = Table(title=f"next versions (ROCm {data['rocm_version']})", title_justify="left")
    vt.add_column("kind", no_wrap=True)
    vt.add_column("version", no_wrap=True)
    vt.add_column("note", no_wrap=True)
    for kind, version in data["next"].items():
        vt.add_row(kind, version or "-", data["next_notes"].get(kind, ""))
    console.print(vt)
    print_public_index(console, data["public_index"])
    pypi = data["pypi"]
    if pypi.get("note"):
        console.print(pypi["note"], markup=False)
    elif pypi["versions"]:
        console.print(f"on PyPI ({pypi['index']}): " + ", ".join(
            f"{v} {state}" for v, state in pypi["versions"].items()), markup=False)
    for line in text(roller, without=("Pins",)):  # what the dashboard issue says (one renderer)
        console.print(line, markup=False, highlight=False)


def _summary(data: dict) -> str:
    lines = [f"### release status ({data['version']}, ROCm {data['rocm_version']})", "",
             "| kind | next version |", "|---|---|"]
    lines += [f"| {k} | {v or '-'} {data['next_notes'].get(k, '')} |" for k, v in data["next"].items()]
    last = data.get("store", {}).get("latest", {}).get("nightly")
    if last:
        lines += ["", f"last nightly: `{last['tag']}` ({(last['published'] or '')[:10]})"]
    lines += [f"\n> warning: {w}" for w in data["public_index"]["warnings"]]
    if data["line"]["problem"]:
        lines += [f"\n> warning: {data['line']['problem']}"]
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
