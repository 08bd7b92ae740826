"""The page for people (``SITE/index.html``), read by a real headless Chromium: it renders (a
screenshot that is not blank and shows the chart's colours) and its DOM holds every release, the
revision links, the compare links, the install lines and the provenance link, with no JavaScript."""

from __future__ import annotations

import datetime as _dt
import os
import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from release.core import naming
from release.core.naming import PROVENANCE_ASSET
from release.core.redact import register_secret
from release.core.revisions import RevisionMap, github_base
from release.publish.drafts import publish_draft, read_dist, undraft
from release.publish.index import build_site
from release.publish.site import GithubBases, changes, commit_counts, safe_url
from release.publish.stores import LocalStore
from release.publish.yank import yank
from tests.support.publish_dist import mark_validated, release_dist

URL = "https://example.invalid/jax-rocm"
ASSETS = "https://example.invalid/store"  # where the local store's directory is served
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("Debian's chromium is not installed and could not be: ./scripts/test installs it with "
                "apt-get install -y chromium (needs root and the Debian archive)")


def run_chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    env = {**os.environ, "HOME": str(tmp_path)}
    return subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, env=env, timeout=180)


def _add(x: bytes, y: bytes) -> bytes:
    """Bytewise (x + y) mod 256, all lanes at once in one big integer (no carry crosses a byte)."""
    n = len(x)
    low = int.from_bytes(b"\x7f" * n, "big")
    a, b = int.from_bytes(x, "big"), int.from_bytes(y, "big")
    return (((a & low) + (b & low)) ^ ((a ^ b) & ~low & ((1 << (8 * n)) - 1))).to_bytes(n, "big")


def _sub(line: bytes, bpp: int) -> bytes:
    """PNG's Sub filter undone: each byte plus the decoded one ``bpp`` before it, as running sums
    by doubling (byte i gains i-k, then i-2k, ...: log2 of the row's pixels big-integer adds)."""
    k = bpp
    while k < len(line):
        line = _add(line, bytes(k) + line[:-k])
        k *= 2
    return line


def _average(line: bytes, prev: bytes, bpp: int) -> bytes:
    out = bytearray(line)
    for x in range(len(out)):
        out[x] = (out[x] + ((out[x - bpp] if x >= bpp else 0) + prev[x]) // 2) & 255
    return bytes(out)


def _paeth(line: bytes, prev: bytes, bpp: int) -> bytes:
    """PNG's Paeth filter undone: the byte plus whichever of left, up and up-left is nearest
    left + up - up-left (a byte at a time: each needs the decoded one before it)."""
    out = bytearray(_add(line[:bpp], prev[:bpp]))  # nothing on the left: up is the nearest
    out += line[bpp:]
    for x in range(bpp, len(out)):
        a, b, c = out[x - bpp], prev[x], prev[x - bpp]
        pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - c - c)
        out[x] = (out[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    return bytes(out)


def png_pixels(data: bytes) -> tuple[int, int, list[tuple[int, ...]]]:
    """Decode an 8-bit RGB or RGBA PNG (what Chromium writes): width, height, pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    pixels, prev, i = [], bytes(stride), 0
    for _ in range(height):  # each row unfiltered whole (Sub and Up in big integers), not byte by byte
        kind, line = raw[i], raw[i + 1:i + 1 + stride]
        i += 1 + stride
        if kind == 1:
            line = _sub(line, channels)
        elif kind == 2:
            line = _add(line, prev)
        elif kind in (3, 4):
            line = (_average if kind == 3 else _paeth)(line, prev, channels)
        pixels.extend(zip(line[0::channels], line[1::channels], line[2::channels]))
        prev = line
    return width, height, pixels


def _unfiltered_by_the_book(kind: int, line: bytes, prev: bytes, bpp: int) -> bytes:
    """PNG's five filters undone a byte at a time, as the specification states them."""
    out = bytearray(line)
    for x in range(len(out)):
        a = out[x - bpp] if x >= bpp else 0
        b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
        p = a + b - c
        paeth = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c
        out[x] = (out[x] + (0, a, b, (a + b) // 2, paeth)[kind]) & 255
    return bytes(out)


@given(st.sampled_from([3, 4]), st.integers(1, 64),
       st.lists(st.tuples(st.integers(0, 4), st.randoms(use_true_random=False)), min_size=1, max_size=8))
def test_the_screenshot_decoder_undoes_every_png_filter_as_the_specification_does(channels, width, rows):
    """png_pixels unfilters whole rows at once; each of its pixels is the one the specification's
    byte-by-byte decoding gives, for RGB and RGBA, any width and any sequence of filters."""
    stride = width * channels
    raw = [(kind, rng.randbytes(stride)) for kind, rng in rows]

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, len(raw), 8, 2 if channels == 3 else 6,
                                                              0, 0, 0))
           + chunk(b"IDAT", zlib.compress(b"".join(bytes([k]) + line for k, line in raw))) + chunk(b"IEND", b""))
    expected, prev = [], bytes(stride)
    for kind, line in raw:
        prev = _unfiltered_by_the_book(kind, line, prev, channels)
        expected += [tuple(prev[x:x + 3]) for x in range(0, stride, channels)]
    assert png_pixels(png) == (width, len(raw), expected)


class Dom(HTMLParser):
    """What a person sees and can click: links, text, sections."""

    def __init__(self):
        super().__init__()
        self.links, self.text, self.sections, self.rects = [], [], [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag == "section":
            self.sections.append(attrs)
        if tag == "rect":
            self.rects += 1

    def handle_data(self, data):
        self.text.append(data)


class Clock:
    def __init__(self):
        self.now = _dt.datetime(2026, 11, 18, 3, tzinfo=_dt.timezone.utc)

    def __call__(self):
        self.now += _dt.timedelta(hours=7)
        return self.now


@pytest.fixture
def site(make_dist, tmp_path):
    store = LocalStore(tmp_path / "store", clock=Clock())
    plan = [("0.9.1.dev20261118", {}), ("0.9.1.dev20261119", {"xla": "a" * 40}),
            ("0.9.1rc1", {"xla": "a" * 40}), ("0.9.1.dev20261121", {"xla": "b" * 40, "jax": "c" * 40}),
            ("0.9.1", {"xla": "b" * 40, "jax": "c" * 40})]
    for version, commits in plan:
        dist = read_dist(make_dist(version, commits=commits))
        publish_draft(store, dist)
        if version == "0.9.1.dev20261118":  # as published before builds wrote provenance
            draft = store.drafts_for(dist.tag)[0]
            store.delete_asset(draft, next(a for a in store.list_assets(draft)
                                           if a.name == PROVENANCE_ASSET))
        mark_validated(store, dist.tag)
        undraft(store, dist.tag)
    publish_draft(store, read_dist(make_dist("0.9.2.dev20261123")))  # a nightly that never went out
    yank(store, "0.9.1.dev20261119", "segfaults on gfx90a")
    out = tmp_path / "site"
    build_site(store, out, keep=2, site_url=URL, asset_base=ASSETS)
    return store, out


def test_chromium_renders_the_page_with_every_release_and_install_line(site, tmp_path):
    store, out = site
    page = out / "index.html"
    assert "<script" not in page.read_text()  # nothing to run: static HTML and SVG

    shot = tmp_path / "page.png"  # one Chromium draws the page and prints its DOM
    proc = run_chromium(tmp_path, f"--screenshot={shot}", "--dump-dom", "--window-size=1100,2600", page.as_uri())
    assert proc.returncode == 0 and shot.is_file(), proc.stderr[-2000:]
    width, height, pixels = png_pixels(shot.read_bytes())
    assert (width, height) == (1100, 2600)
    non_white = sum(1 for p in pixels if p != (255, 255, 255))
    assert non_white > len(pixels) // 100, "the screenshot is (nearly) blank"
    colours = set(pixels)
    assert len(colours) > 20
    # the chart was drawn: bars of a nightly (#6b8fd6), an rc (hatched #a86a12) and a release
    # (dotted #3f9a5a), a published day (#3f9a5a) and one whose nightly stayed a draft (#c8553d)
    for rgb in ((0x6b, 0x8f, 0xd6), (0x3f, 0x9a, 0x5a), (0xa8, 0x6a, 0x12), (0xc8, 0x55, 0x3d)):
        assert rgb in colours, f"colour {rgb} of the chart is not on the screenshot"

    dom = Dom()
    dom.feed(proc.stdout)
    text = " ".join(" ".join(dom.text).split())

    published = [r for r in store.list_releases() if not r.draft]
    versions = [s["data-version"] for s in dom.sections if "data-version" in s]
    # every release, newest first, each with its channel
    assert versions == [naming.version_from_tag(r.tag) for r in
                        sorted(published, key=lambda r: r.published_at, reverse=True)]
    assert [s["data-channel"] for s in dom.sections if "data-channel" in s] == [
        "stable" if "dev" not in v else "nightly" for v in versions]
    for rel in published:
        revisions = RevisionMap.loads(next(
            (Path(a.url[len("file://"):]).read_text() for a in store.list_assets(rel)
             if a.name == naming.REVISIONS_ASSET)))
        for name, rev in revisions.revisions:
            if rev.commit_url():
                assert rev.commit_url() in dom.links, (rel.tag, name)
    # install lines per channel, true for a user of this site: no release here recorded the public
    # index's files it was validated with, so no channel holds jax and jaxlib: the plugin alone
    for line in (f"pip install --pre jax-rocm7-plugin --index-url {URL}/nightly/",
                 f"pip install jax-rocm7-plugin --index-url {URL}/stable/",
                 f"pip install --pre jax-rocm7-plugin --index-url {URL}/stable/",
                 f"pip install --pre jax-rocm7-plugin --index-url {URL}/0.9/nightly/",
                 f"pip install jax-rocm7-plugin --index-url {URL}/0.9/stable/",
                 f"pip install jax-rocm7-plugin==0.9.1 --index-url {URL}/stable/",
                 f"pip install --pre jax-rocm7-plugin==0.9.1.dev20261121 --index-url {URL}/nightly/",
                 "its lines name the plugin alone: install jax and jaxlib of its line from the public index"):
        assert line in text, line
    assert not re.search(r"install (--pre |--prerelease allow )?jax (jaxlib|==)|install (--pre )?jax==", text)
    # what changed since the previous release of the same kind: compare links per dep
    xla = RevisionMap.loads((Path(next(a.url for a in store.list_assets(published[0])
                                       if a.name == naming.REVISIONS_ASSET)[len("file://"):])).read_text())
    base = xla["xla"].url.removesuffix(".git")
    assert f"{base}/compare/{'a' * 40}...{'b' * 40}" in dom.links  # nightly 21 vs nightly 19
    assert "commit count not recorded" in text
    # provenance: linked where the release has it, said so where not
    prov = [link for link in dom.links if link.endswith(PROVENANCE_ASSET)]
    assert len(prov) == 4 and text.count("none published with this release") == 1
    assert all((store.directory / link[len(ASSETS) + 1:]).is_file() for link in prov)
    # wheel sizes and links to the release assets; the nightly beyond retention says it is not listed
    assert re.search(r"jax_rocm7_pjrt-0\.9\.1-py3-none-manylinux_2_28_x86_64\.whl \(\d+\.\d KB\)", text)
    wheels = [link for link in dom.links if link.endswith(".whl")]
    assert wheels and all((store.directory / link[len(ASSETS) + 1:]).is_file() for link in wheels)
    assert not [link for link in dom.links if link.startswith("file:")]  # a served page links no local path
    assert text.count("not in the index any more") == 1  # 0.9.1.dev20261118 with --keep 2
    assert "rocm-jax-v0.9.2.dev20261123" in text  # the draft that never went out
    # one bar per release, one square per day from the 18th to the 23rd, six legend keys, two pattern tiles
    assert dom.rects == 5 + 6 + 6 + 3
    # the overview comes first: one row per release with its pins moved and the gates it passed
    assert text.index("Overview") < text.index("Install") < text.index("Details, newest first")
    assert "5 published releases" in text
    assert re.search(r"0\.9\.1\.dev20261121 nightly \S+ jax, xla verify, validate \d", text)
    assert re.search(r"0\.9\.1\.dev20261118 nightly \S+ first nightly verify, validate; not listed", text)
    # install lines for uv beside pip
    assert f"uv pip install --prerelease allow jax-rocm7-plugin --index-url {URL}/nightly/" in text
    assert f"uv pip install --prerelease allow jax-rocm7-plugin --index-url {URL}/0.9/nightly/" in text
    # the yanked nightly stands out where it is listed and where it is described (issue 33)
    html = page.read_text()
    row = re.search(r'<tr><th scope="row"><a href="#rocm-jax-v0\.9\.1\.dev20261119">.*?</tr>', html).group(0)
    section = re.search(r'<section class="release" id="rocm-jax-v0\.9\.1\.dev20261119".*?</h3>', html, re.S).group(0)
    for where in (row, section):
        assert '<strong class="yanked">yanked</strong>' in where, where
    assert html.count('class="yanked"') == 2  # in the overview and in the details
    assert "segfaults on gfx90a" in section
    # every flag of every install line is one unbreakable word
    for pre in re.findall(r'<pre class="install">(.*?)</pre>', html):
        assert not re.search(r"(?<![\w>-])--?[a-z]", re.sub(r'<span class="w">[^<]*</span>', "", pre)), pre


def test_changes_count_commits_only_when_the_notes_record_them():
    assert commit_counts("- xla: [`a...b`](u) (12 commits)\n- jax: unchanged\n") == {"xla": 12}
    assert commit_counts("* jax: [`c...d`](u) (1 commit)\n- xla: [`a...b`](u) (12 commits)") == {"jax": 1, "xla": 12}
    assert commit_counts("* jax: [`c...d`](u) (1 commit)") == {"jax": 1}
    assert commit_counts("| commit | [`c`](https://x/commit/c) |\n- xla: moved") == {}
    before = RevisionMap.loads(RevisionMap.from_json({
        "schema": 1, "version": "1", "deps": {"xla": {"url": "https://github.com/ROCm/xla.git",
                                                       "branch": "main", "commit": "a" * 40}},
        "commits": {"ROCm/xla": "a" * 40}, "release_commit": None}).dumps())
    after = RevisionMap("2", (("xla", before["xla"].__class__(before["xla"].url, "main", "b" * 40)),))
    [known] = changes(before, after, "- xla: moved (3 commits)")
    assert known.commits == 3 and known.compare_url == f"https://github.com/ROCm/xla/compare/{'a' * 40}...{'b' * 40}"
    [unknown] = changes(before, after, "")
    assert unknown.commits is None


_WORDS = st.sampled_from(["ROCm", "xla", "jax-rocm", "tok3n", "s3cr3t"])
_URLS = st.builds(lambda login, owner, repo, query: f"{login}{owner}/{repo}{query}",
                  st.sampled_from(["https://github.com/", "https://x:s3cr3t@github.com/", "https://tok3n@github.com/",
                                   "git@github.com:", "https://gitlab.example/"]),
                  _WORDS, _WORDS, st.sampled_from(["", ".git", "?token=abcdefgh1"]))


@given(st.lists(st.tuples(st.sampled_from(["ask", "secret"]), _URLS, _WORDS), max_size=12))
@example([("ask", "https://github.com/ROCm/xla", "xla"), ("secret", "", "ROCm"),
          ("ask", "https://github.com/ROCm/xla", "xla")])
def test_a_pages_kept_github_bases_answer_as_github_base_does_whatever_secrets_come_between(steps):
    """A page keeps each URL's base (2,280 asks a season, of three URLs), and still answers as
    ``github_base`` would at that moment: a secret registered since (by another URL's login too)
    masks what it masks."""
    bases = GithubBases()
    for what, url, word in steps:
        if what == "secret":
            register_secret(word)
        else:
            assert bases(url) == github_base(url)


def test_links_from_the_store_are_http_or_file_only():
    assert safe_url("https://github.com/o/r/releases/tag/x") == "https://github.com/o/r/releases/tag/x"
    assert safe_url("file:///srv/store/1") == "file:///srv/store/1"
    for hostile in ("javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<script>", "", None):
        assert safe_url(hostile) is None


def test_commit_counts_come_from_the_git_mirrors_and_stay_in_the_site(tmp_path):
    from release.publish.site import CommitCounter, mirror_counter
    from tests.support.gitrepos import RepoBuilder

    repo = RepoBuilder(tmp_path / "xla.git")
    first = repo.commit("main", "one", {"a": "1"})
    middle = [repo.commit("main", f"c{i}", {"a": str(i)}) for i in range(2, 6)]
    side = repo.commit("refs/heads/side", "side", {"b": "1"}, parents=(first,))
    url = (tmp_path / "xla.git").as_uri()
    said = []
    ask = mirror_counter(tmp_path / "cache", say=said.append)
    assert ask(url, first, middle[-1]) == 4
    assert ask(url, middle[-1], side) is None  # sideways: no plain count
    assert ask(url, first, "f" * 40) is None and "count unknown" in said[-1]

    counter = CommitCounter(ask)
    assert counter(url, first, middle[1]) == 2
    remembered = CommitCounter(None, counter.used)  # the next run, without --count-commits
    assert remembered(url, first, middle[1]) == 2 and remembered(url, first, middle[2]) is None


def test_counts_made_once_stay_on_the_page(tmp_path, make_dist):
    store = LocalStore(tmp_path / "store", clock=Clock())
    release_dist(store, make_dist("0.9.1.dev20261120", commits={"xla": "a" * 40}))
    release_dist(store, make_dist("0.9.1.dev20261121", commits={"xla": "b" * 40}))
    asked = []

    def count(url, old, new):
        asked.append((old, new))
        return 7
    site = tmp_path / "site"
    build_site(store, site, count_commits=count)
    assert asked == [("a" * 40, "b" * 40)] and "(7 commits)" in (site / "index.html").read_text()
    again = build_site(store, site)  # no --count-commits: the count is remembered
    assert not again["changed"] and "(7 commits)" in (site / "index.html").read_text()


# ------------------------------------------------------------------ for every reader (issue 23)

AXE = Path(__file__).resolve().parents[1] / ".cache" / "node" / "node_modules" / "axe-core" / "axe.min.js"
PROBE = r"""
<script>
(function () {
  function cut() {
    var out = [], width = document.documentElement.clientWidth;
    document.querySelectorAll('pre.install, svg').forEach(function (el) {
      var box = el.getBoundingClientRect();
      if (el.scrollWidth > el.clientWidth + 1 || box.right > width + 1 || box.left < -1) {
        out.push(el.tagName + ': ' + (el.textContent || '').slice(0, 60));
      }
    });
    if (document.documentElement.scrollWidth > width + 1) {
      out.push('page: ' + document.documentElement.scrollWidth);
    }
    return out;
  }
  function smallest() {  // the smallest chart text as drawn, in CSS px
    var least = 1e9;
    document.querySelectorAll('svg text').forEach(function (t) {
      var px = parseFloat(getComputedStyle(t).fontSize) * t.ownerSVGElement.getScreenCTM().a;
      least = Math.min(least, px);
    });
    return least;
  }
  function broken() {  // words of install commands drawn on two lines
    var out = [];
    document.querySelectorAll('pre.install .w, .md-typeset .w').forEach(function (w) {  // the docs' too
      if (w.getClientRects().length > 1) { out.push(w.textContent); }
    });
    // and every word of the docs' inline code, however it is marked up, that fits a phone's line
    // (32 characters: docs/hooks/phone.py); a heading's larger type may break a longer one
    document.querySelectorAll('.md-typeset code').forEach(function (c) {
      if (c.closest('pre, h1, h2, h3, h4, h5, h6')) { return; }
      var walk = document.createTreeWalker(c, NodeFilter.SHOW_TEXT), node;
      while ((node = walk.nextNode())) {
        var words = /\S+/g, m;
        while ((m = words.exec(node.textContent))) {
          if (m[0].length > 32) { continue; }
          var range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          var tops = Array.prototype.map.call(range.getClientRects(), function (r) { return r.top; });
          if (tops.length && Math.max.apply(null, tops) - Math.min.apply(null, tops) > 4) { out.push(m[0]); }
        }
      }
    });
    return out;
  }
  function wrapped() {  // lines of the docs' code blocks drawn on more than one line
    var out = [];
    document.querySelectorAll('.md-typeset pre > code').forEach(function (c) {
      // each run of non-space characters, with the line of the text it is on: a line is drawn
      // on one line when all its runs' boxes share one top (a run split over two lines has two)
      var tops = {}, line = 0, walk = document.createTreeWalker(c, NodeFilter.SHOW_TEXT), node;
      while ((node = walk.nextNode())) {
        var parts = node.textContent.split('\n'), at = 0;
        for (var p = 0; p < parts.length; p++) {
          if (p > 0) { line += 1; }
          var runs = /\S+/g, m;
          while ((m = runs.exec(parts[p]))) {
            var range = document.createRange();
            range.setStart(node, at + m.index);
            range.setEnd(node, at + m.index + m[0].length);
            Array.prototype.forEach.call(range.getClientRects(), function (r) {
              (tops[line] = tops[line] || []).push(r.top);
            });
          }
          at += parts[p].length + 1;
        }
      }
      var lines = c.textContent.split('\n');
      Object.keys(tops).forEach(function (i) {
        if (Math.max.apply(null, tops[i]) - Math.min.apply(null, tops[i]) > 4) { out.push(lines[i].slice(0, 60)); }
      });
    });
    return out;
  }
  function scrolls() {  // code blocks wider than their box, which scroll sideways inside it
    return Array.prototype.filter.call(document.querySelectorAll('.md-typeset pre'), function (p) {
      return p.scrollWidth > p.clientWidth + 1;
    }).length;
  }
  function layout() {
    return {width: document.documentElement.clientWidth, cut: cut(), smallest: smallest(), broken: broken(),
            wrapped: wrapped(), scrolls: scrolls()};
  }
  window.addEventListener('load', function () {
    if (location.hash === '#layout') {  // the layout alone: no axe run (seconds on a long page)
      window.parent.postMessage(JSON.stringify(Object.assign(layout(), {violations: []})), '*');
      return;
    }
    var tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
    axe.run(document, {runOnly: {type: 'tag', values: tags}}).then(function (r) {
      var found = Object.assign(layout(), {violations: r.violations.map(function (v) {
        return {id: v.id, impact: v.impact,
                nodes: v.nodes.slice(0, 3).map(function (n) { return n.target.join(' '); })};
      })});
      window.parent.postMessage(JSON.stringify(found), '*');
    });
  });
})();
</script>
"""


def probe(tmp_path: Path, page: Path, width: int) -> dict:
    """axe-core's findings and the elements cut off, for ``page`` in Chromium ``width`` px wide."""
    return probe_widths(tmp_path, page, [width])[width]


def probe_widths(tmp_path: Path, page: Path, widths: list[int]) -> dict[int, dict]:
    """``probe`` at each of ``widths``, in one Chromium (a start costs more than a probe): each
    width is a frame of its own, so each is its own document laid out at exactly that width."""
    return dict(zip(widths, probe_pages(tmp_path, [(page, w) for w in widths])))


def probe_pages(tmp_path: Path, targets: list[tuple[Path, int]], *, axe: bool = True) -> list[dict]:
    """``probe`` of each (page, width), in one Chromium: each a frame of its own, laid out at
    exactly that width, under one parent next to the first page; ``axe=False``: the layout alone
    (cut, split words, wrapped code lines, the smallest chart text; no violations looked for)."""
    import html
    import json
    if axe and not AXE.is_file():
        pytest.skip("axe-core is not installed: ./scripts/test installs it from npm into .cache/node")
    for page in {page for page, _ in targets}:
        text = page.read_text()
        page.with_name("probed.html").write_text(
            (text.replace("</head>", f"<script>{AXE.read_text()}</script>\n</head>", 1) if axe else text)
            .replace("</body>", PROBE + "</body>", 1))
    # Chromium's window is at least 500 px wide: the page is framed at exactly each width instead,
    # one frame under the other, and the probe inside each posts its findings to the frames' parent,
    # which keys them by the frame that sent them
    frames = "".join(f'<iframe title="page at {w} px" src="{page.with_name("probed.html").as_uri()}'
                     f'{"" if axe else "#layout"}" '
                     f'style="display:block;width:{w}px;height:1800px;border:0"></iframe>' for page, w in targets)
    frame = targets[0][0].with_name(f"frame-{len(list(tmp_path.glob('profile-*')))}.html")
    frame.write_text(f'<!DOCTYPE html><html lang="en"><head><title>probe</title></head><body style="margin:0">'
                     f"{frames}<script>var found = {{}};"
                     "window.addEventListener('message', function (e) {"
                     "var all = document.querySelectorAll('iframe');"
                     "for (var i = 0; i < all.length; i++) { if (all[i].contentWindow === e.source) {"
                     "found[i] = JSON.parse(e.data); } }"
                     f"if (Object.keys(found).length === {len(targets)}) {{"
                     "var pre = document.createElement('pre'); pre.id = 'probe-result';"
                     "pre.textContent = JSON.stringify(found); document.body.appendChild(pre);}});</script>"
                     "</body></html>")
    widest = max(w for _, w in targets)
    proc = run_chromium(tmp_path, f"--window-size={max(widest, 500) + 100},{1800 * len(targets) + 200}",
                        f"--virtual-time-budget={20000 * len(targets)}",
                        "--dump-dom", frame.as_uri())
    found = re.search(r'<pre id="probe-result">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    data = json.loads(html.unescape(found.group(1)))
    return [data[str(i)] for i in range(len(targets))]


def test_the_page_passes_axe_and_cuts_nothing_at_phone_and_desktop_width(site, tmp_path):
    """axe-core (WCAG 2.1 A/AA and best practices: landmarks, contrast of at least 4.5:1, labelled
    tables and chart) finds nothing, and no install command or chart is cut off or needs the page
    to scroll sideways, at 390 px (a phone) and at 1280 px (both in one Chromium)."""
    _, out = site
    probed = probe_widths(tmp_path, out / "index.html", [390, 1280])
    assert sorted(probed) == [390, 1280]
    for width, found in probed.items():
        assert found["width"] <= width, width
        assert found["violations"] == [], (width, found["violations"])
        assert found["cut"] == [], (width, found["cut"])
        assert found["broken"] == [], (width, found["broken"])  # issue 33: `--index-url` split over two lines
        assert found["smallest"] >= 11, (width, found["smallest"])  # issue 33: chart text of about 5 px on a phone


def test_colour_is_never_the_only_cue_in_the_chart(site):
    """Each kind of bar has its own fill pattern and each day outcome its own shape, and every
    legend key says in words what it stands for."""
    from release.publish.page import DAY_FILL, KIND_FILL
    _, out = site
    page = (out / "index.html").read_text()
    assert len({KIND_FILL[k] for k in ("nightly", "rc", "release")}) == 3
    assert 'fill="url(#rc)"' in page and 'fill="url(#rel)"' in page  # patterns, not only hues
    assert page.count("<path d=") >= 2  # the draft day and its legend key carry an X
    assert DAY_FILL[None] == "#ffffff" and 'stroke="#767676"' in page  # no nightly: an empty outlined box
    for words in ("nightly", "release candidate", "release or post", "published", "draft, never published",
                  "no nightly", "release date"):
        assert f">{words}</text>" in page, words


def test_counts_on_the_page_agree_in_number(tmp_path, make_dist):
    store = LocalStore(tmp_path / "store", clock=Clock())
    release_dist(store, make_dist("0.9.1.dev20261120", commits={"xla": "a" * 40}))
    site = tmp_path / "site"
    build_site(store, site)
    assert "1 published release;" in (site / "index.html").read_text()
    release_dist(store, make_dist("0.9.1.dev20261121", commits={"xla": "b" * 40}))
    build_site(store, site, count_commits=lambda url, old, new: 1)
    page = (site / "index.html").read_text()
    assert "2 published releases;" in page and "(1 commit)" in page and "1 commits" not in page
    assert page.count("<td>verify, validate</td>") == 2
    # a release whose notes lack validate's mark (published by hand) does not claim the gates
    from release.publish import notes
    rel = store.published_for("rocm-jax-v0.9.1.dev20261120")
    store.update_release(rel, body=notes.changed(rel, validated=None, smoke=None))
    build_site(store, site)
    page = (site / "index.html").read_text()
    assert page.count("<td>verify, validate</td>") == 1 and "<td>not recorded</td>" in page
    # the ROCm smoke gate's verdict in the notes (release smoke) is one of the gates shown
    rel = store.published_for("rocm-jax-v0.9.1.dev20261121")
    verdict = "**ROCm smoke test** (0.9.1.dev20261121, Python 3.12): passed"
    store.update_release(rel, body=notes.changed(rel, smoke=verdict))
    build_site(store, site)
    assert "<td>verify, validate, ROCm smoke</td>" in (site / "index.html").read_text()


@given(st.one_of(st.text(alphabet="ab &<>\"'é\n", max_size=12), st.integers(), st.none()))
@example("it's")
@example('say "a"')
@example("a > b")
def test_the_page_escapes_every_word_as_html_escape_does(word):
    """Every text the page shows is escaped (quotes too: it goes inside attributes), whether or
    not it holds anything to escape."""
    import html

    from release.publish.page import _e
    assert _e(word) == html.escape(str(word), quote=True)
