"""The page for people beside the pip index: what was published, from what, and how to install it.

One static HTML file with inline CSS and SVG (no server, no JavaScript): the install lines per
channel, a chart of wheel size and nightly outcome over time, and every release newest first
with its channel, date, version, wheel sizes, revision table (commit links), what changed since
the previous release of the same kind, and its provenance file when it has one. Everything on it
comes from the store (release metadata, assets, ``revisions.json``), so a re-run over the same
store writes the same bytes: no clock is read.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import html
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from packaging.version import InvalidVersion, Version

from release.core import naming, versions
from release.core.revisions import RevisionMap, github_base
from release.publish.stores import Asset, Published, Release, Store

if TYPE_CHECKING:
    from release.core.output import Say

CHART_DAYS = 60  # the outcome strip shows at most this many days, ending at the newest nightly

CountCommits = Callable[[str, str, str], "int | None"]
"""``(url, old, new) -> commits of old..new``, None when there is no plain count."""


class PublishedWheel(Protocol):
    """What the page reads of a published wheel (``release.publish.index.PublishedWheel`` is one; the
    index calls the page, so the page names only what it reads, and imports nothing of it)."""

    @property
    def release(self) -> Release: ...
    @property
    def asset(self) -> Asset: ...
    @property
    def listed(self) -> bool: ...
    @property
    def rel(self) -> str: ...
    @property
    def url(self) -> str: ...


@dataclasses.dataclass(frozen=True)
class WheelRow:
    name: str
    size: int
    href: str | None  # where the wheel is downloaded from (the release asset); None: not from this page


@dataclasses.dataclass(frozen=True)
class Change:
    dep: str
    old: str | None
    new: str
    compare_url: str | None
    commits: int | None  # None: not recorded


@dataclasses.dataclass(frozen=True)
class ReleaseRow:
    tag: str
    version: str
    kind: str
    channel: str
    published: _dt.datetime | None
    url: str | None
    listed: bool
    wheels: tuple[WheelRow, ...]
    revisions: RevisionMap | None
    provenance_url: str | None
    previous: str | None  # tag of the previous release of the same kind
    changes: tuple[Change, ...]
    yanked: str | None = None  # the PEP 592 reason ("" for none given), None when not yanked


@dataclasses.dataclass(frozen=True)
class SiteData:
    project: str  # the plugin's distribution name, what people install
    site_url: str | None
    keep: int
    releases: tuple[ReleaseRow, ...]  # newest first
    drafts: tuple[tuple[str, _dt.date | None], ...]  # nightly drafts never published: (tag, date)


# ------------------------------------------------------------------ gathering


def _revisions(store: Store, release: Release, assets: list[Asset], cache: dict,
               used: dict) -> RevisionMap | None:
    """The release's ``revisions.json``; ``cache`` maps an asset sha256 to its text, so a re-run
    downloads only what it has not read before (``used`` collects what this run needed)."""
    asset = next((a for a in assets if a.name == naming.REVISIONS_ASSET), None)
    if asset is None:
        return None
    text = cache.get(asset.digest) if asset.digest else None
    if not isinstance(text, str) or hashlib.sha256(text.encode("utf-8")).hexdigest() != asset.digest:
        with tempfile.TemporaryDirectory() as tmp:
            path = store.download_asset(release, asset, Path(tmp) / "revisions.json")
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                return None
    try:
        found = RevisionMap.loads(text)
    except (ValueError, TypeError):
        return None
    if asset.digest:
        used[asset.digest] = text  # the text itself: its order of deps is the table's order
    return found


_COUNT = re.compile(r"^\s*[-*]\s*(?P<dep>[\w.-]+):.*?\((?P<n>\d+) commits?\)", re.M)


def commit_counts(body: str) -> dict[str, int]:
    """Commit counts per dep when the release notes record them (``- xla: ... (12 commits)``)."""
    return {m.group("dep"): int(m.group("n")) for m in _COUNT.finditer(body or "")}


class CommitCounter:
    """Commits between two pins of a dep: remembered answers first, then ``ask`` (git), else None.

    ``known`` comes from the site's state, ``used`` goes back into it, so a count made once (by
    ``release index --count-commits``) stays on the page without asking git again.
    """

    def __init__(self, ask: CountCommits | None = None, known: dict | None = None):
        self.ask, self.known = ask, dict(known or {})
        self.used: dict[str, int] = {}

    def __call__(self, url: str, old: str, new: str) -> int | None:
        key = f"{url} {old}..{new}"
        found = self.known.get(key)
        if not isinstance(found, int) and self.ask is not None:
            found = self.ask(url, old, new)
        if isinstance(found, int):
            self.used[key] = found
            return found
        return None


def mirror_counter(cache: Path, say: Say = lambda _: None) -> CountCommits:
    """``ask`` for ``CommitCounter`` from the git mirrors under ``cache`` (fetching what is
    missing): the commits of ``old..new``, or None when ``new`` does not descend from ``old``
    (a rewind or a sideways move has no plain count) or the remote cannot answer."""
    from release.core.errors import UserError
    from release.sources.git import Mirror, Remote

    def ask(url: str, old: str, new: str) -> int | None:
        try:
            with Mirror(cache, Remote("count", url)) as mirror:
                if not (mirror.fetch_commit(new, trees=False) and mirror.fetch_commit(old, trees=False)):
                    say(f"warning: {display(url)} no longer has {old[:12]} or {new[:12]}; count unknown")
                    return None
                return mirror.count(new, old) if mirror.is_ancestor(old, new) else None
        except UserError as exc:
            say(f"warning: cannot count commits of {display(url)}: {exc}")
            return None
    return ask


def display(url: str) -> str:
    from release.core.redact import display_url
    return display_url(url)


def changes(before: RevisionMap | None, now: RevisionMap | None, body: str,
            count: CountCommits | None = None) -> tuple[Change, ...]:
    """Per dep of ``now``: unchanged, or moved with a compare link and a commit count (from the
    notes, else ``count(url, old, new)``, else None: not recorded)."""
    if before is None or now is None:
        return ()
    counts = commit_counts(body)
    old = before.commits
    out = []
    for name, rev in now.revisions:
        was = old.get(name)
        if was == rev.commit:
            out.append(Change(name, was, rev.commit, None, 0))
            continue
        base = github_base(rev.url)
        url = f"{base}/compare/{was}...{rev.commit}" if base and was else None
        n = counts.get(name)
        if n is None and was and count is not None:
            n = count(rev.url, was, rev.commit)
        out.append(Change(name, was, rev.commit, url, n))
    return tuple(out)


def _sort_key(version: str) -> Version:
    try:
        return Version(version)
    except InvalidVersion:
        return Version("0")


def gather(store: Store, releases: list[Release], wheels: Sequence[PublishedWheel], *,
           site_url: str | None, keep: int, yanked: dict[int, str] | None = None,
           link_asset: Callable[[Release, Asset], str] | None = None, cache: dict | None = None,
           used: dict | None = None, count: CommitCounter | None = None) -> SiteData:
    """The page's data from the store's releases and ``release.publish.index``'s wheel selection.

    ``yanked``: release id -> yank reason; ``link_asset``: where an asset is downloaded from
    (default its store URL); ``cache``/``used``:
    revision maps by asset sha256, read from and collected for the site's state; ``count``:
    commit counts per moved dep.
    """
    yanked = yanked or {}
    cache = {} if cache is None else cache
    used = {} if used is None else used
    by_release: dict[int, list[PublishedWheel]] = {}
    for w in wheels:
        by_release.setdefault(w.release.id, []).append(w)
    rows: dict[str, ReleaseRow] = {}
    maps: dict[str, RevisionMap | None] = {}
    published = [(r, v) for r in releases if not r.draft and (v := naming.version_from_tag(r.tag))]
    queries = Published.of(releases)  # the store's release queries (the one before a version)
    ordered = sorted(published, key=lambda rv: (rv[0].published_at or _dt.datetime.min.replace(
        tzinfo=_dt.timezone.utc), _sort_key(rv[1])), reverse=True)
    assets_of: dict[str, list[Asset]] = {}
    kinds: dict[str, str] = {}
    for rel, version in ordered:
        kind = _kind(version)
        if kind is None:
            continue
        kinds[rel.tag] = kind
        assets = store.list_assets(rel)
        assets_of[rel.tag] = assets
        maps[rel.tag] = _revisions(store, rel, assets, cache, used)
    for rel, version in ordered:
        if rel.tag not in kinds:
            continue
        kind = kinds[rel.tag]
        mine = by_release.get(rel.id, [])
        listed = any(w.listed for w in mine) if mine else False
        wheel_rows = tuple(sorted((WheelRow(w.asset.name, w.asset.size, w.url) for w in mine),
                                  key=lambda r: r.name))
        prov_asset = next((a for a in assets_of[rel.tag] if a.name == naming.PROVENANCE_ASSET), None)
        prov = safe_url(None if prov_asset is None else link_asset(rel, prov_asset) if link_asset else prov_asset.url)
        previous = queries.latest((kind,), below=version)
        rows[rel.tag] = ReleaseRow(
            tag=rel.tag, version=version, kind=kind, channel="nightly" if kind == "nightly" else "stable",
            published=rel.published_at, url=safe_url(rel.html_url), listed=listed, wheels=wheel_rows,
            revisions=maps[rel.tag], provenance_url=prov, previous=previous.tag if previous else None,
            changes=changes(maps.get(previous.tag) if previous else None, maps[rel.tag], rel.body, count),
            yanked=yanked.get(rel.id))
    shown = {x.version for x in rows.values()}
    drafts = tuple(sorted(((r.tag, r.created_at.date() if r.created_at else None) for r in releases
                           if r.draft and (v := naming.version_from_tag(r.tag))
                           and _kind(v) == "nightly" and v not in shown),
                          key=lambda t: t[0], reverse=True))
    projects = sorted({w.rel.split("/")[1] for w in wheels})
    project = next((p for p in projects if p.endswith("-plugin")), projects[0] if projects else "")
    site_url = site_url.rstrip("/") if site_url else None
    if site_url and not site_url.startswith("file://"):  # a served page cannot open this machine's files
        rows = {tag: _served(row) for tag, row in rows.items()}
    return SiteData(project=project, site_url=site_url, keep=keep, releases=tuple(rows.values()), drafts=drafts)


def _local(url: str | None) -> str | None:
    return None if url is None or url.lower().startswith("file:") else url


def _served(row: ReleaseRow) -> ReleaseRow:
    """A row without links to this machine's files (a local store's paths), for a page served by URL."""
    wheels = tuple(dataclasses.replace(w, href=_local(w.href)) for w in row.wheels)
    return dataclasses.replace(row, url=_local(row.url), provenance_url=_local(row.provenance_url), wheels=wheels)


def safe_url(url: str | None) -> str | None:
    """A link target from the store (data from outside): http(s) or file URLs only, never
    ``javascript:`` or ``data:``, so a hostile API answer cannot put script behind a link."""
    if isinstance(url, str) and url.lower().startswith(("https://", "http://", "file://")):
        return url
    return None


def _kind(version: str) -> str | None:
    try:
        return versions.kind_of(version)
    except InvalidVersion:
        return None


# ------------------------------------------------------------------ rendering


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return str(n)


def _day(when: _dt.datetime | None) -> str:
    return when.astimezone(_dt.timezone.utc).strftime("%Y-%m-%d") if when else "unknown"


def install_lines(data: SiteData) -> list[tuple[str, str, str]]:
    """(channel, what it gets, command) for each way to install."""
    url = data.site_url or "SITE_URL"
    p = data.project
    return [("nightly", "the newest nightly",
             f"pip install --pre {p} --index-url {url}/nightly/"),
            ("stable", "the newest release (or post release)",
             f"pip install {p} --index-url {url}/stable/"),
            ("stable, --pre", "the newest release candidate while it is newer than the release",
             f"pip install --pre {p} --index-url {url}/stable/")]


def nightly_day(version: str, published: _dt.datetime | None) -> _dt.date | None:
    """The build date a nightly's version carries (``.devYYYYMMDD[BBB]``), else its publishing day."""
    try:
        dev = Version(version).dev
    except InvalidVersion:
        dev = None
    if dev is not None and len(str(dev)) in (8, 11):
        try:
            return _dt.datetime.strptime(str(dev)[:8], "%Y%m%d").date()
        except ValueError:
            pass
    return published.date() if published else None


def _chart(data: SiteData) -> str:
    """Inline SVG: total wheel size per release (bars) and nightly outcome per day (squares)."""
    rows = [r for r in reversed(data.releases) if r.published]  # oldest first
    width, bar_h, strip_y = 720, 120, 160
    if not rows:
        return ""
    biggest = max((sum(w.size for w in r.wheels) for r in rows), default=1) or 1
    step = width / max(len(rows), 1)
    colors = {"nightly": "#6b8fd6", "rc": "#d6a04b", "release": "#3f9a5a", "post": "#3f9a5a"}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="200" '
             f'viewBox="0 0 {width} 200" aria-labelledby="chart-title">',
             '<title id="chart-title">Wheel size per release and nightly outcome per day</title>',
             f'<text x="0" y="12" font-size="11">total wheel size per release (largest '
             f'{_e(_size(biggest))}): <tspan fill="{colors["nightly"]}">nightly</tspan>, '
             f'<tspan fill="{colors["rc"]}">rc</tspan>, <tspan fill="{colors["release"]}">release or '
             f'post</tspan>, oldest left</text>']
    for i, r in enumerate(rows):
        total = sum(w.size for w in r.wheels)
        h = max(1.0, bar_h * total / biggest)
        x = i * step
        parts.append(f'<rect class="bar" x="{x + 1:.1f}" y="{20 + bar_h - h:.1f}" '
                     f'width="{max(step - 2, 1):.1f}" height="{h:.1f}" fill="{colors.get(r.kind, "#888")}">'
                     f'<title>{_e(r.version)}: {_e(_size(total))}</title></rect>')
    nightly_days: dict[_dt.date, str] = {
        day: "published" for r in rows if r.kind == "nightly" and (day := nightly_day(r.version, r.published))}
    for tag, created in data.drafts:
        draft_day = nightly_day(naming.version_from_tag(tag) or "", None) or created
        if draft_day and draft_day not in nightly_days:
            nightly_days[draft_day] = "draft"
    if nightly_days:
        last = max(nightly_days)
        first = max(min(nightly_days), last - _dt.timedelta(days=CHART_DAYS - 1))
        days = (last - first).days + 1
        cell = width / days
        parts.append(f'<text x="0" y="{strip_y - 6}" font-size="11">nightly outcome, '
                     f'{_e(first)} to {_e(last)}: published / draft never published / none</text>')
        fill: dict[str | None, str] = {"published": "#3f9a5a", "draft": "#c8553d", None: "#d0d0d0"}
        for i in range(days):
            day = first + _dt.timedelta(days=i)
            outcome = nightly_days.get(day)
            parts.append(f'<rect class="day" x="{i * cell + 0.5:.1f}" y="{strip_y}" '
                         f'width="{max(cell - 1, 1):.1f}" height="24" fill="{fill[outcome]}">'
                         f'<title>{_e(day)}: {_e(outcome or "no nightly")}</title></rect>')
    parts.append("</svg>")
    return "\n".join(parts)


def _revision_table(r: ReleaseRow) -> str:
    if r.revisions is None:
        return "<p>No readable revisions.json in this release.</p>"
    out = ['<table class="revisions"><tr><th>repository</th><th>branch</th><th>commit</th></tr>']
    for name, rev in r.revisions.revisions:
        url = rev.commit_url()
        sha = (f'<a href="{_e(url)}"><code>{_e(rev.commit[:12])}</code></a>' if url
               else f"<code>{_e(rev.commit[:12])}</code>")
        base = github_base(rev.url)
        repo = f'<a href="{_e(base)}">{_e(name)}</a>' if base else _e(name)
        out.append(f"<tr><td>{repo}</td><td><code>{_e(rev.branch)}</code></td><td>{sha}</td></tr>")
    if r.revisions.release_commit:
        out.append(f"<tr><td>this repository</td><td></td><td><code>"
                   f"{_e(r.revisions.release_commit[:12])}</code></td></tr>")
    out.append("</table>")
    return "\n".join(out)


def _changes(r: ReleaseRow) -> str:
    if r.previous is None:
        return f"<p>First {_e(r.kind)} in the store: nothing earlier to compare with.</p>"
    if not r.changes:
        return f"<p>Since {_e(r.previous)}: the revisions of one of the two could not be read.</p>"
    items = []
    for c in r.changes:
        if c.old == c.new:
            items.append(f"<li>{_e(c.dep)}: unchanged</li>")
            continue
        span = f"{(c.old or 'none')[:12]}...{c.new[:12]}"
        link = f'<a href="{_e(c.compare_url)}">{_e(span)}</a>' if c.compare_url else f"<code>{_e(span)}</code>"
        count = (f"{c.commits} commit{'s' if c.commits != 1 else ''}" if c.commits is not None
                 else "commit count not recorded")
        items.append(f"<li>{_e(c.dep)}: {link} ({_e(count)})</li>")
    return f"<p>Since {_e(r.previous)}:</p><ul>{''.join(items)}</ul>"


def _release(r: ReleaseRow, data: SiteData) -> str:
    url = data.site_url or "SITE_URL"
    wheels = "".join(
        f"<li>{f'<a href={chr(34)}{_e(w.href)}{chr(34)}>{_e(w.name)}</a>' if w.href else _e(w.name)}"
        f" ({_e(_size(w.size))})</li>" for w in r.wheels)
    flag = "--pre " if versions.is_prerelease(r.kind) else ""
    pin = f"pip install {flag}{data.project}=={r.version} --index-url {url}/{r.channel}/"
    status = "" if r.listed else (' <span class="hidden">not in the index any more (beyond the newest '
                                  f"{data.keep} nightlies); its wheels stay at their release URLs until "
                                  "`release gc` deletes the release</span>")
    if r.yanked is not None:
        status += f' <span class="hidden">yanked: {_e(r.yanked or "no reason given")}</span>'

    prov = (f'<p>Provenance: <a class="provenance" href="{_e(r.provenance_url)}">{naming.PROVENANCE_ASSET}</a></p>'
            if r.provenance_url else "<p>Provenance: none published with this release.</p>")
    title = f'<a href="{_e(r.url)}">{_e(r.version)}</a>' if r.url else _e(r.version)
    install = f"<pre class=\"install\">{_e(pin)}</pre>" if r.listed else ""
    return (f'<section class="release" id="{_e(r.tag)}" data-version="{_e(r.version)}" '
            f'data-channel="{_e(r.channel)}">\n'
            f"<h3>{title} <small>{_e(r.kind)}, {_e(r.channel)} channel, {_e(_day(r.published))}</small>"
            f"{status}</h3>\n"
            f"<ul class=\"wheels\">{wheels}</ul>\n{install}\n{_revision_table(r)}\n"
            f"{_changes(r)}\n{prov}\n</section>")


def render(data: SiteData) -> bytes:
    latest = data.releases[0].published if data.releases else None
    lines = "".join(f"<tr><td>{_e(c)}</td><td>{_e(what)}</td><td><pre class=\"install\">{_e(cmd)}</pre>"
                    f"</td></tr>" for c, what, cmd in install_lines(data))
    where = ("" if data.site_url else
             "<p>Replace SITE_URL with the address this directory is served from.</p>")
    drafts = ""
    if data.drafts:
        drafts = ("<h2>Nightly drafts never published</h2><ul>"
                  + "".join(f"<li>{_e(t)} ({_e(d or 'unknown')})</li>" for t, d in data.drafts) + "</ul>")
    body = "\n".join(_release(r, data) for r in data.releases)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(data.project)} releases</title>
<style>
body {{ font-family: sans-serif; max-width: 60rem; margin: 1rem auto; padding: 0 1rem; color: #222; }}
pre.install {{ background: #f3f3f3; padding: .4rem .6rem; overflow-x: auto; margin: .3rem 0; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: .2rem .5rem; text-align: left; }}
section.release {{ border-top: 1px solid #ddd; padding-top: .5rem; }}
.hidden {{ color: #a33; font-size: .8em; font-weight: normal; }}
small {{ color: #666; font-weight: normal; }}
</style>
</head>
<body>
<h1>{_e(data.project)}</h1>
<p>{len(data.releases)} published releases; newest published {_e(_day(latest))}.
Indexes: <a href="nightly/">nightly/</a> (nightlies only, the newest {data.keep} listed) and
<a href="stable/">stable/</a> (releases and post releases; release candidates with --pre).</p>
<h2>Install</h2>
<table class="channels"><tr><th>channel</th><th>gets</th><th>command</th></tr>{lines}</table>
{where}
<h2>Over time</h2>
{_chart(data)}
<h2>Releases, newest first</h2>
{body}
{drafts}
</body>
</html>
""".encode()
