"""The page for people, rendered: one static HTML file for someone choosing a nightly.

An overview table first (version, kind, date, pins moved, gates passed, size), then how to
install with pip and uv, a chart over time, and every release in detail. Built for every
reader: landmarks (header, nav, main), text contrast of at least 4.5:1, colour never the only
cue (the chart's kinds differ by fill pattern too, its days by shape), and readable at 390 px
(commands wrap between words, the chart's text stays 11 px or more, wide tables scroll inside
their box); a yanked release is marked where it is listed and where it is described. No
JavaScript; the same data gives the same bytes.
"""

from __future__ import annotations

import datetime as _dt
import html

from release.core import naming, versions
from release.core.lines import line_key
from release.publish.matrix import Cell
from release.publish.site import CHART_DAYS, GithubBases, ReleaseRow, SiteData, nightly_day

# fills of the chart: a solid colour, a hatch and a dotted pattern, so kinds differ without colour
KIND_FILL = {"nightly": "#6b8fd6", "rc": "url(#rc)", "release": "url(#rel)", "post": "url(#rel)"}
KIND_NAME = {"nightly": "nightly", "rc": "release candidate", "release": "release or post", "post": "release or post"}
LONG_WORD = 40  # characters of a command's word that still fit a 390 px line in monospace
DAY_FILL = {"published": "#3f9a5a", "draft": "#c8553d", None: "#ffffff"}


def _e(text: object) -> str:
    """``html.escape(str(text))``; text with nothing to escape (most of a page's words, tens of
    thousands a season) is returned as it is, without five replaces."""
    s = str(text)
    if "&" in s or "<" in s or ">" in s or '"' in s or "'" in s:
        return html.escape(s, quote=True)
    return s


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return str(n)


def _day(when: _dt.datetime | None) -> str:
    return when.astimezone(_dt.timezone.utc).strftime("%Y-%m-%d") if when else "unknown"


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def command(text: str) -> str:
    """A command for a ``pre.install``: it wraps between its words, never inside a flag or a
    name (each word is one unbreakable span), so a phone shows ``--index-url`` whole; only a
    word too long for a phone's line (an address) may break inside."""
    return " ".join(f'<span class="w">{_e(word)}</span>' if len(word) <= LONG_WORD else _e(word)
                    for word in text.split(" "))


# (label, directory under the site or a line, with --pre, what it installs)
WAYS = (("nightly", "nightly/", True, "the newest nightly set"),
        ("stable", "stable/", False, "the newest release (or post release) set"),
        ("stable, pre-releases", "stable/", True,
         "the newest release candidate's set while it is newer than the release"))


def _commands(index: str, plugin: str, pre: bool, whole: bool = True) -> list[str]:
    """pip's and uv's line for the whole set from one index: the plugin does not depend on jax,
    so jax and jaxlib are named where the index serves the files the set was validated with
    (``whole``); else the plugin alone, which brings its pjrt (jax comes from the public index)."""
    wanted = f"jax jaxlib {plugin}" if whole else plugin
    return [f"pip install {'--pre ' if pre else ''}{wanted} --index-url {index}",
            f"uv pip install {'--prerelease allow ' if pre else ''}{wanted} --index-url {index}"]


def _plugins(data: SiteData) -> tuple[str, ...]:
    return data.plugins or (data.project,)


def site_address(data: SiteData) -> str:
    """Where the site is served, for the install lines; ``SITE_URL`` where that is not known."""
    return data.site_url or "SITE_URL"


def holds_jax(data: SiteData, channel: str, line: str | None = None) -> bool:
    """Whether ``channel`` (of ``line`` only, when given) links jax and jaxlib: one of its listed
    releases recorded the public index's files it was validated with (none did where validate had
    no public index, as in ``release try``: an install line naming them would fail there)."""
    return any(r.public_set and r.listed and r.channel == channel
               and (line is None or line_key(r.version) == line_key(line)) for r in data.releases)


def install_lines(data: SiteData) -> list[tuple[str, str, list[str]]]:
    """(channel, what it gets, [pip and uv command per ROCm major]) for each way to install from
    the site's channels, which hold every line."""
    url = site_address(data)
    return [(label, f"{what} (of the newest line)",
             [c for plugin in _plugins(data)
              for c in _commands(f"{url}/{where}", plugin, pre, holds_jax(data, where.rstrip("/")))])
            for label, where, pre, what in WAYS]


def line_install_lines(data: SiteData) -> list[tuple[str, str, list[str]]]:
    """The same per current jax line, from the line's own channels (``SITE/X.Y/<channel>/``)."""
    url = site_address(data)
    return [(f"{line.name} {label}", f"{what} (of {line.name} only)",
             [c for plugin in _plugins(data) for c in _commands(
                 f"{url}/{line.name}/{where}", plugin, pre, holds_jax(data, where.rstrip("/"), line.name))])
            for line in data.lines if line.current
            for label, where, pre, what in WAYS if where.rstrip("/") in line.channels]


def uv_recipe(data: SiteData) -> str:
    """A uv project taking the set from the nightly channel only (an ``explicit`` index the four
    projects are pinned to) and everything else from the default index (docs/install.md)."""
    url = site_address(data)
    plugin = _plugins(data)[0]
    projects = ["jax", "jaxlib", plugin, plugin.removesuffix("-plugin") + "-pjrt"]
    sourced = projects if holds_jax(data, "nightly") else projects[2:]  # else jax from the default index
    return ('[project]\nname = "my-project"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
            f"dependencies = [{', '.join(f'{chr(34)}{p}{chr(34)}' for p in projects)}]\n\n"
            f'[[tool.uv.index]]\nname = "jax-rocm-nightly"\nurl = "{url}/nightly/"\nexplicit = true\n\n'
            "[tool.uv.sources]\n" + "".join(f'{p} = {{ index = "jax-rocm-nightly" }}\n' for p in sourced))


# ------------------------------------------------------------------ the overview


def pins_moved(r: ReleaseRow) -> str:
    if r.previous is None:
        return f"first {r.kind}"
    if not r.changes:
        return "unknown"
    moved = [c.dep + (f" ({plural(c.commits, 'commit')})" if c.commits else "") for c in r.changes
             if c.old != c.new]
    return ", ".join(moved) if moved else "none"


def gates(r: ReleaseRow) -> str:
    passed = "verify, validate" if r.validated else "not recorded"
    if r.smoke is not None:
        passed += ", ROCm smoke" if r.smoke == "passed" else "; ROCm smoke FAILED"
    if r.yanked is not None:
        passed += f"; yanked: {r.yanked or 'no reason given'}"
    if r.retired is not None:
        passed += f"; line {r.retired}"
    if not r.listed:
        passed += "; not listed any more"
    return passed


def _overview(data: SiteData) -> str:
    rows = "".join(
        f'<tr><th scope="row"><a href="#{_e(r.tag)}">{_e(r.version)}</a>'
        + (' <strong class="yanked">yanked</strong>' if r.yanked is not None else "") + f'</th><td>{_e(r.kind)}</td>'
        f"<td>{_e(_day(r.published))}</td><td>{_e(pins_moved(r))}</td><td>{_e(gates(r))}</td>"
        f"<td>{_e(_size(sum(w.size for w in r.wheels)))}</td></tr>" for r in data.releases)
    return ('<div class="scroll"><table class="overview"><caption>Every published release, newest first'
            "</caption><thead><tr><th scope=\"col\">version</th><th scope=\"col\">kind</th>"
            "<th scope=\"col\">date</th><th scope=\"col\">pins moved</th><th scope=\"col\">gates passed</th>"
            f"<th scope=\"col\">wheel size</th></tr></thead><tbody>{rows}</tbody></table></div>")


def with_rocm(cell: Cell) -> str:
    """The cell's with-rocm gate as the page says it: ``n/a`` with validate's reason."""
    got = dict(cell.gates).get("with_rocm", "unknown")
    return f"{got} ({cell.with_rocm_reason})" if cell.with_rocm_reason else got


def compatibility(data: SiteData) -> str:
    """What goes together, per cell, in the newest listed release of each channel, with the gates
    each passed; every release's cells are in the channel's ``matrix.json`` (``release.publish.matrix``)."""
    parts = []
    for channel in ("stable", "nightly"):
        r = next((r for r in data.releases if r.channel == channel and r.listed and r.cells), None)
        if r is None:
            continue
        rows = "".join(
            f'<tr><th scope="row">{_e(c.python)}</th><td>{_e(c.rocm or f"{c.rocm_major}.x")}</td><td>{_e(c.jax)}</td>'
            f"<td>{_e(c.jaxlib)}</td><td>{_e(c.plugin)}</td><td>{_e(c.pjrt)}</td>"
            + "".join(f"<td>{_e(c.gate(g))}</td>" for g in ("verify", "validate", "smoke"))
            + f"<td>{_e(with_rocm(c))}</td>"
            + (f'<td><a href="{_e(c.lock)}">pylock</a></td>' if c.lock else "<td>none</td>") + "</tr>"
            for c in r.cells)
        parts.append(f'<div class="scroll"><table class="overview"><caption>{_e(channel)}: {_e(r.version)} '
                     f'(all: <a href="{channel}/matrix.json">{channel}/matrix.json</a>)</caption><thead><tr>'
                     + "".join(f'<th scope="col">{h}</th>' for h in ("Python", "ROCm", "jax", "jaxlib", "plugin",
                                                                     "pjrt", "verify", "validate", "smoke",
                                                                     "with-rocm", "lock"))
                     + f"</tr></thead><tbody>{rows}</tbody></table></div>"
                     + (f"<p>Warning: {_e(r.version)} also holds wheels of another version, in no cell above: "
                        f"{_e(', '.join(r.strays))}</p>" if r.strays else ""))
    return "\n".join(parts) or "<p>No release records its cells yet.</p>"


# ------------------------------------------------------------------ the chart


# The chart is drawn 480 units wide and shown at most 480 px wide, so its text is TEXT px on a
# desktop and about 11.4 px on a 390 px phone (drawn about 343 px wide); widths of text are
# estimated at EM_WIDTH of the font size, generously, so keys never overlap.
WIDTH, TEXT, TITLE, EM_WIDTH = 480, 16, 17, 0.6


def _text(x: float, y: float, text: str, *, size: int = TEXT, anchor: str = "") -> str:
    how = f' text-anchor="{anchor}"' if anchor else ""
    return f'<text x="{x:g}" y="{y:g}" font-size="{size}"{how} fill="#222">{_e(text)}</text>'


def _legend_key(x: float, y: float, fill: str, label: str, mark: str = "") -> str:
    return (f'<rect x="{x:g}" y="{y - 12:g}" width="14" height="14" fill="{fill}" stroke="#333"/>{mark}'
            + _text(x + 20, y, label))


def _legend(keys: list[tuple[str, str, bool]], y: float) -> tuple[str, float]:
    """Keys (fill, label, crossed) left to right, on a new row when the next would not fit;
    the SVG and the y of the last row."""
    parts, x = [], 0.0
    for fill, label, crossed in keys:
        wide = 20 + EM_WIDTH * TEXT * len(label) + 16
        if x and x + wide > WIDTH:
            x, y = 0.0, y + TEXT + 10
        parts.append(_legend_key(x, y, fill, label, _cross(x, y - 12, 14) if crossed else ""))
        x += wide
    return "".join(parts), y


def _cross(x: float, y: float, size: float) -> str:
    """The draft day's mark: an X, so a draft differs from a published day by shape too."""
    return (f'<path d="M{x + 2:.1f} {y + 2:.1f} L{x + size - 2:.1f} {y + size - 2:.1f} M{x + size - 2:.1f} '
            f'{y + 2:.1f} L{x + 2:.1f} {y + size - 2:.1f}" stroke="#fff" stroke-width="2"/>')


def chart(data: SiteData) -> str:
    """Inline SVG: total wheel size per release (bars, by kind) and nightly outcome per day (squares)."""
    rows = [r for r in reversed(data.releases) if r.published]  # oldest first
    if not rows:
        return "<p>Nothing published yet.</p>"
    width, left, top, bar_h = WIDTH, 72, 34, 110
    plot = width - left - 8
    biggest = max((sum(w.size for w in r.wheels) for r in rows), default=1) or 1
    step = plot / len(rows)
    axis_y = top + bar_h
    parts = ['<title id="chart-title">Wheel size per release and nightly outcome per day</title>',
             f'<desc id="chart-desc">{len(rows)} releases from {_e(_day(rows[0].published))} to '
             f'{_e(_day(rows[-1].published))}; the largest is {_e(_size(biggest))}.</desc>',
             '<defs><pattern id="rc" width="6" height="6" patternUnits="userSpaceOnUse" '
             'patternTransform="rotate(45)"><rect width="6" height="6" fill="#f1d7a6"/>'
             '<rect width="3" height="6" fill="#a86a12"/></pattern>'
             '<pattern id="rel" width="5" height="5" patternUnits="userSpaceOnUse"><rect width="5" height="5" '
             'fill="#3f9a5a"/><circle cx="2.5" cy="2.5" r="1.1" fill="#fff"/></pattern></defs>',
             _text(0, 16, "Total wheel size per release, oldest left", size=TITLE),
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{axis_y}" stroke="#333"/>',
             f'<line x1="{left}" y1="{axis_y}" x2="{width - 8}" y2="{axis_y}" stroke="#333"/>',
             _text(left - 4, top + 12, _size(biggest), anchor="end"),
             _text(left - 4, axis_y, "0 B", anchor="end"),
             _text(left, axis_y + TEXT + 4, _day(rows[0].published)),
             _text(width - 8, axis_y + TEXT + 4, _day(rows[-1].published), anchor="end"),
             _text(left + plot / 2, axis_y + 2 * TEXT + 8, "release date", anchor="middle")]
    for i, r in enumerate(rows):
        total = sum(w.size for w in r.wheels)
        h = max(1.0, bar_h * total / biggest)
        parts.append(f'<rect class="bar" x="{left + i * step + 1:.1f}" y="{axis_y - h:.1f}" '
                     f'width="{max(step - 2, 1):.1f}" height="{h:.1f}" fill="{KIND_FILL.get(r.kind, "#888")}">'
                     f'<title>{_e(r.version)} ({_e(KIND_NAME.get(r.kind, r.kind))}): {_e(_size(total))}</title></rect>')
    keys, y = _legend([(KIND_FILL[k], KIND_NAME[k], False) for k in ("nightly", "rc", "release")],
                      axis_y + 3 * TEXT + 16)
    strip, bottom = _strip(data, rows, width, y + TEXT + 20)
    parts += [keys, strip]
    return "\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {width} {bottom + 8:g}" '
                      'aria-labelledby="chart-title chart-desc">', *parts, "</svg>"])


def _strip(data: SiteData, rows: list[ReleaseRow], width: int, y: float) -> tuple[str, float]:
    """The nightly outcome per day (squares) and its key; the SVG and the y it ends at."""
    outcome: dict[_dt.date, str] = {
        day: "published" for r in rows if r.kind == "nightly" and (day := nightly_day(r.version, r.published))}
    for tag, created in data.drafts:
        draft_day = nightly_day(naming.version_from_tag(tag) or "", None) or created
        if draft_day and draft_day not in outcome:
            outcome[draft_day] = "draft"
    if not outcome:
        return "", y - TEXT - 20
    last = max(outcome)
    first = max(min(outcome), last - _dt.timedelta(days=CHART_DAYS - 1))
    days = (last - first).days + 1
    cell = min((width - 8) / days, 24)
    parts = [_text(0, y, "Nightly outcome per day", size=TITLE)]
    top = y + 8
    for i in range(days):
        day = first + _dt.timedelta(days=i)
        what = outcome.get(day)
        size = max(cell - 1, 1)
        parts.append(f'<rect class="day" x="{i * cell:.1f}" y="{top}" width="{size:.1f}" height="{size:.1f}" '
                     f'fill="{DAY_FILL[what]}" stroke="#767676"><title>{_e(day)}: '
                     f'{_e(what or "no nightly")}</title></rect>')
        if what == "draft":
            parts.append(_cross(i * cell, top, size))
    below = top + min(cell, 24) + TEXT + 4
    parts.append(_text(0, below, str(first)) + _text(width - 8, below, str(last), anchor="end"))
    keys, end = _legend([(DAY_FILL["published"], "published", False),
                         (DAY_FILL["draft"], "draft, never published", True),
                         (DAY_FILL[None], "no nightly", False)], below + TEXT + 12)
    parts.append(keys)
    return "\n".join(parts), end


# ------------------------------------------------------------------ details


def _revision_table(r: ReleaseRow, base_of: GithubBases) -> str:
    if r.revisions is None:
        return "<p>No readable revisions.json in this release.</p>"
    out = ['<div class="scroll"><table class="revisions"><tr><th scope="col">repository</th>'
           '<th scope="col">branch</th><th scope="col">commit</th></tr>']
    for name, rev in r.revisions.revisions:
        base = base_of(rev.url)  # once a row: rev.commit_url() is this base's /commit/<sha>
        sha = (f'<a href="{_e(f"{base}/commit/{rev.commit}")}"><code>{_e(rev.commit[:12])}</code></a>' if base
               else f"<code>{_e(rev.commit[:12])}</code>")
        repo = f'<a href="{_e(base)}">{_e(name)}</a>' if base else _e(name)
        out.append(f"<tr><td>{repo}</td><td><code>{_e(rev.branch)}</code></td><td>{sha}</td></tr>")
    if r.revisions.release_commit:
        out.append(f"<tr><td>this repository</td><td></td><td><code>"
                   f"{_e(r.revisions.release_commit[:12])}</code></td></tr>")
    out.append("</table></div>")
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
        count = plural(c.commits, "commit") if c.commits is not None else "commit count not recorded"
        items.append(f"<li>{_e(c.dep)}: {link} ({_e(count)})</li>")
    return f"<p>Since {_e(r.previous)}:</p><ul>{''.join(items)}</ul>"


def release_pins(r: ReleaseRow, data: SiteData) -> list[str]:
    """pip's line for exactly this release's set, one per ROCm major it carries: jax and jaxlib
    of its line pinned as validate installs them (the plugin does not depend on jax) and the
    plugin pinned, from its channel; the plugin alone when none of its wheels could be read, or
    when its notes record no public files (its channel then links no jax and jaxlib for it)."""
    url = site_address(data)
    flag = "--pre " if versions.is_prerelease(r.kind) else ""
    where = f"--index-url {url}/{r.channel}/"
    firsts = {c.rocm_major: c for c in reversed(r.cells)}  # each major's first cell
    if not firsts:
        return [f"pip install {flag}{data.project}=={r.version} {where}"]
    if not r.public_set:  # its channel links no jax and jaxlib of its own: the plugin (and its pjrt) only
        return [f"pip install {flag}{naming.plugin_dist(major)}=={c.plugin} {where}"
                for major, c in sorted(firsts.items())]
    return [f"pip install {flag}jax=={c.jax} jaxlib=={c.jaxlib} {naming.plugin_dist(major)}=={c.plugin} {where}"
            for major, c in sorted(firsts.items())]


def _release(r: ReleaseRow, data: SiteData, base_of: GithubBases) -> str:
    wheels = "".join(f"<li>{f'<a href={chr(34)}{_e(w.href)}{chr(34)}>{_e(w.name)}</a>' if w.href else _e(w.name)}"
                     f" ({_e(_size(w.size))})</li>" for w in r.wheels)
    status = "" if r.listed else (' <span class="note">not in the index any more (beyond the newest '
                                  f"{data.keep} nightlies); its wheels stay at their release URLs until "
                                  "`release gc` deletes the release</span>")
    if r.yanked is not None:  # emphasised: pip skips it, and whoever pinned it should know why
        status += (' <strong class="yanked">yanked</strong> '
                   f'<span class="note">{_e(r.yanked or "no reason given")}</span>')
    if r.retired is not None:
        status += f' <span class="note">line {_e(r.retired)}</span>'
    prov = (f'<p>Provenance: <a class="provenance" href="{_e(r.provenance_url)}">{naming.PROVENANCE_ASSET}</a></p>'
            if r.provenance_url else "<p>Provenance: none published with this release.</p>")
    title = f'<a href="{_e(r.url)}">{_e(r.version)}</a>' if r.url else _e(r.version)
    install = "".join(f'<pre class="install">{command(pin)}</pre>' for pin in release_pins(r, data)) if r.listed else ""
    return (f'<section class="release" id="{_e(r.tag)}" data-version="{_e(r.version)}" '
            f'data-channel="{_e(r.channel)}">\n'
            f"<h3>{title} <small>{_e(r.kind)}, {_e(r.channel)} channel, {_e(_day(r.published))}</small>"
            f"{status}</h3>\n"
            f"<ul class=\"wheels\">{wheels}</ul>\n{install}\n{_revision_table(r, base_of)}\n"
            f"{_changes(r)}\n{prov}\n</section>")


STYLE = """
body { font-family: sans-serif; max-width: 60rem; margin: 1rem auto; padding: 0 1rem; color: #222; }
pre.install { background: #f3f3f3; padding: .4rem .6rem; margin: .3rem 0; white-space: pre-wrap;
  overflow-wrap: anywhere; }
pre.install .w { white-space: nowrap; }
pre.recipe { background: #f3f3f3; padding: .4rem .6rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.yanked { background: #a33; color: #fff; padding: 0 .3em; border-radius: .2em; font-weight: bold; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; } td, th { border: 1px solid #767676; padding: .2rem .5rem; text-align: left; }
caption { text-align: left; font-weight: bold; padding: .3rem 0; }
svg { width: 100%; max-width: 480px; height: auto; display: block; }
section.release { border-top: 1px solid #767676; padding-top: .5rem; }
.note { color: #a33; font-size: .8em; font-weight: normal; }
small { color: #595959; font-weight: normal; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .3rem 1rem; }
dd { margin-left: 0; }
"""


def _holdings(data: SiteData) -> str:
    """What each channel with listed releases holds, as its install lines name it: the whole set
    where it links jax and jaxlib (``holds_jax``), else the plugin and its pjrt only."""
    listed = [c for c in ("nightly", "stable") if any(r.listed and r.channel == c for r in data.releases)]
    whole = [c for c in listed if holds_jax(data, c)]
    bare = [c for c in listed if c not in whole]

    def subject(channels: list[str], verb: str) -> str:
        return f"Each {verb}" if len(channels) > 1 else f'<a href="{channels[0]}/">{channels[0]}/</a> {verb}'
    out = []
    if whole:
        out.append(f"{subject(whole, 'is')} one index holding the whole set: the plugin, its pjrt, and the jax and "
                   "jaxlib it was validated with (the plugin does not depend on jax, so its lines name them too). ")
    if bare:
        out.append(f"{subject(bare, 'holds')} the plugin and its pjrt only (its releases were validated without "
                   "the public index, as in <code>release try</code>), so its lines name the plugin alone: install "
                   "jax and jaxlib of its line from the public index. ")
    return "".join(out)


def _ways(ways: list[tuple[str, str, list[str]]]) -> str:
    return "".join(f"<dt>{_e(c)}: {_e(what)}</dt><dd>"
                   + "".join(f'<pre class="install">{command(cmd)}</pre>' for cmd in cmds) + "</dd>"
                   for c, what, cmds in ways)


def _lines(data: SiteData) -> str:
    """Install lines per current jax line; a line that is not current is named apart, with why."""
    if not data.lines:
        return ""
    url = site_address(data)
    current = line_install_lines(data)
    out = ['<h3 id="lines">One jax line only</h3>']
    if current:
        out.append("<p>Each line's own channels list that line only:</p>"
                   f'<dl class="channels">{_ways(current)}</dl>')
    retired = [line for line in data.lines if not line.current]
    if retired:
        out.append("<p>Lines no longer current (their releases stay installable):</p><ul>"
                   + "".join(f"<li>{_e(line.name)}: {_e(line.why or 'retired')}; "
                             + ", ".join(f"<code>{_e(f'{url}/{line.name}/{c}/')}</code>" for c in line.channels)
                             + "</li>" for line in retired) + "</ul>")
    return "\n".join(out)


def render(data: SiteData) -> bytes:
    latest = data.releases[0].published if data.releases else None
    install = _ways(install_lines(data))
    where = ("" if data.site_url else
             "<p>Replace SITE_URL with the address this directory is served from.</p>")
    drafts = ""
    if data.drafts:
        drafts = ('<h2 id="drafts">Nightly drafts never published</h2><ul>'
                  + "".join(f"<li>{_e(t)} ({_e(d or 'unknown')})</li>" for t, d in data.drafts) + "</ul>")
    bases = GithubBases()
    body = "\n".join(_release(r, data, bases) for r in data.releases)
    retired = "".join(f'<p class="retired">{_e(p)} is {_e(s)} (PEP 792){": " + _e(why) if why else ""}</p>\n'
                      for p, s, why in data.statuses)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(data.project)} releases</title>
<style>{STYLE}</style>
</head>
<body>
<header>
<h1>{_e(data.project)}</h1>
<p>{plural(len(data.releases), "published release")}; newest published {_e(_day(latest))}.</p>
{retired}</header>
<nav aria-label="On this page"><ul><li><a href="#overview">Overview</a></li><li><a href="#install">Install</a></li>
<li><a href="#compatibility">What goes together</a></li>
<li><a href="#over-time">Over time</a></li><li><a href="#details">Details</a></li>
<li><a href="nightly/">nightly/ index</a></li><li><a href="stable/">stable/ index</a></li></ul></nav>
<main>
<h2 id="overview">Overview</h2>
{_overview(data)}
<h2 id="install">Install</h2>
<p>Indexes: <a href="nightly/">nightly/</a> (nightlies only, the newest {data.keep} listed) and
<a href="stable/">stable/</a> (releases and post releases; release candidates with --pre).
{_holdings(data)}With pip or uv:</p>
<dl class="channels">{install}</dl>
{_lines(data)}
<h3 id="uv-project">In a uv project</h3>
<p>The set from the channel only, everything else from your default index; then <code>uv sync</code>
(never <code>--index-strategy unsafe-best-match</code>):</p>
<pre class="recipe">{_e(uv_recipe(data))}</pre>
{where}
<h2 id="compatibility">What goes together</h2>
{compatibility(data)}
<h2 id="over-time">Over time</h2>
{chart(data)}
<h2 id="details">Details, newest first</h2>
{body}
{drafts}
</main>
</body>
</html>
""".encode()
