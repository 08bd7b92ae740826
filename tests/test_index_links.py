"""The index links the wheels where they are published and copies none: a season of nightlies
fits on GitHub Pages, pip and uv install through the links (the GitHub stand-in's download host,
a local store served over HTTP), a site rebuilt from empty keeps every promise of its page, and
a yanked release is skipped by both installers unless pinned (PEP 592)."""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import subprocess
import sys
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from release.publish import notes
from release.publish.gc import collect
from release.publish.index import build_site
from release.publish.retention import retention
from release.publish.stores import LocalStore
from release.publish.yank import yank
from tests.support.index_server import serve
from tests.support.installs import pip_install, uv_bin, uv_install
from tests.support.publish_dist import build_dist, gh_store, release_dist

PLUGIN, PJRT = "jax-rocm7-plugin", "jax-rocm7-pjrt"
PAGES_LIMIT = 1 << 30  # GitHub Pages: a published site of at most 1 GB


class Clock:
    def __init__(self, start=_dt.datetime(2026, 9, 1, 4, tzinfo=_dt.timezone.utc)):
        self.now = start

    def __call__(self):
        self.now += _dt.timedelta(hours=6)
        return self.now


def links(site: Path) -> list[tuple[Path, str]]:
    """(page, href) of every link of every HTML page of the site."""
    return [(page, href) for page in site.rglob("*.html")
            for href in re.findall(r'href="([^"#]+)', page.read_text())]


def resolve_all(site: Path) -> None:
    """Every link of the site resolves: a relative one to a file of the site, an absolute one
    (a release asset on the download host, a local store's file) to its bytes."""
    for page, href in links(site):
        if href.startswith(("http://", "https://", "file://")):
            if "example.invalid" in href or "github.com" in href:
                continue  # the page's links to commits and compares upstream: not served here
            with urllib.request.urlopen(href, timeout=30) as answer:
                assert answer.status == 200, f"{page}: {href}"
        else:
            assert (page.parent / href).exists(), f"{page.relative_to(site)} links {href}, which is not there"


def site_bytes(site: Path) -> int:
    return sum(p.stat().st_size for p in site.rglob("*") if p.is_file())


# ------------------------------------------------------------------ a season fits on Pages


def test_sixty_five_nightlies_of_five_wheels_fit_on_pages_with_room_to_spare(tmp_path):
    """The site's size does not follow the wheels' size: 65 nightlies (four Pythons each) and a
    release make a site of well under 1% of the Pages limit, none of it a wheel."""
    store = LocalStore(tmp_path / "store", clock=Clock())
    day = _dt.date(2026, 9, 1)
    pythons = ("3.11", "3.12", "3.13", "3.14")
    versions = [f"0.9.1.dev{(day + _dt.timedelta(days=i)):%Y%m%d}" for i in range(65)] + ["0.9.1"]
    for version in versions:
        release_dist(store, build_dist(tmp_path / "dists", version, pythons=pythons))
    site = tmp_path / "site"
    result = build_site(store, site, keep=60)
    assert len(result["channels"]["nightly"][PLUGIN]) == 60 * 4 and len(result["hidden"]) == 5 * 5
    assert not list(site.rglob("*.whl"))
    size = site_bytes(site)
    wheels = sum(p.stat().st_size for p in store.directory.glob("*/assets/*.whl"))
    print(f"site {size} bytes for {len(versions)} releases ({wheels} bytes of wheels linked)")
    assert size < PAGES_LIMIT // 100, f"{size} bytes: more than 1% of the Pages limit"
    # per release, a few KB: a year of nightlies plus releases stays far below the limit too
    assert size / len(versions) * 400 < PAGES_LIMIT // 10


# ------------------------------------------------------------------ installs through the links


@pytest.fixture
def gh_season(fake_github, make_dist):
    store = gh_store(fake_github)
    for version in ("0.9.1.dev20261120", "0.9.1.dev20261121", "0.9.1", "0.9.1.post1.dev20261122"):
        release_dist(store, make_dist(version))
    return store


def storage_reads(fake_github, since: int) -> Counter:
    """Requests per path to the stand-in's download host (release assets) since log entry ``since``."""
    return Counter(e[2] for e in fake_github.log[since:] if e[0] == "storage")


def pip_resolve(tmp_path: Path, url: str, *args: str) -> dict[str, str]:
    """``pip install --dry-run --report``: what pip would install, {name: version}."""
    report = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
                           "--no-cache-dir", "--disable-pip-version-check", "--report", str(report),
                           "--index-url", url, *args],
                          capture_output=True, text=True, env={**os.environ, "PIP_CONFIG_FILE": os.devnull},
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return {i["metadata"]["name"]: i["metadata"]["version"] for i in json.loads(report.read_text())["install"]}


def uv_compile(tmp_path: Path, url: str, *args: str) -> str:
    """``uv pip compile`` of the plugin with a cache of its own: the pinned requirements it prints."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_"))}
    env.update(UV_NO_CONFIG="1", UV_CACHE_DIR=str(tmp_path / "uv-compile-cache"), UV_PYTHON_DOWNLOADS="never")
    (tmp_path / "wanted.in").write_text(PLUGIN + "\n")
    proc = subprocess.run([uv_bin(), "pip", "compile", "--python", sys.executable, "--no-header",
                           "--index-url", url, *args, str(tmp_path / "wanted.in")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("negotiate", [False, True], ids=["html", "json"])
def test_pip_and_uv_resolve_from_the_metadata_files_and_download_no_wheel(fake_github, gh_season, tmp_path,
                                                                          negotiate):
    """PEP 658/714: with the pages naming each wheel's metadata file (HTML on a static host,
    PEP 691 JSON where negotiated), `pip install --dry-run --report` and `uv pip compile` read
    exactly the two .metadata assets at the wheels' URLs + .metadata, never a wheel; a real
    install with either still gets tonight's wheels from the release assets (every file the pages
    name is there, the site serves none) and the stable channel's newest release."""
    site = tmp_path / "site"
    build_site(gh_season, site, keep=14)
    page = json.loads((site / "nightly" / PLUGIN / "index.json").read_text())
    assets = f"{fake_github.base('storage')}/{fake_github.repo}/releases/download/"
    assert page["files"] and all(f["url"].startswith(assets) for f in page["files"])
    served = serve(site, negotiate=negotiate)
    version = "0.9.1.post1.dev20261122"
    wheels = {f["filename"]: f["url"] for p in (PLUGIN, PJRT)
              for f in json.loads((site / "nightly" / p / "index.json").read_text())["files"] if version in f["url"]}
    wanted = {urllib.parse.urlsplit(url).path + ".metadata" for name, url in wheels.items()
              if "pjrt" in name or f"cp{sys.version_info.major}{sys.version_info.minor}-" in name}
    try:
        before = len(fake_github.log)
        got = pip_resolve(tmp_path, served.url + "/nightly/", "--pre", PLUGIN)
        assert got == {PLUGIN: version, PJRT: version}
        reads = storage_reads(fake_github, before)
        assert set(reads) == wanted, reads  # the two metadata files, no wheel (not even a HEAD or range)
        before = len(fake_github.log)
        pins = uv_compile(tmp_path, served.url + "/nightly/", "--prerelease", "allow")
        assert f"{PLUGIN}=={version}" in pins and f"{PJRT}=={version}" in pins
        reads = storage_reads(fake_github, before)
        assert set(reads) == wanted, reads
        assert not any(p.endswith(".whl") for p, _ in served.seen)  # and Pages serves no wheel either
        # a real install reads the wheels too, and installs what the metadata promised
        before = len(fake_github.log)
        code, got, err = pip_install(tmp_path, served.url + "/nightly/", "--pre", PLUGIN, name="pip")
        assert code == 0, err
        assert got[PLUGIN] == got[PJRT] == version
        assert {p.removesuffix(".metadata") for p in wanted} <= set(storage_reads(fake_github, before))
        code, got, err = uv_install(tmp_path, served.url + "/nightly/", "--prerelease", "allow", PLUGIN)
        assert code == 0, err
        assert got[PLUGIN] == got[PJRT] == version
        assert not any(p.endswith(".whl") for p, _ in served.seen)  # the wheels came from the assets
        code, got, err = uv_install(tmp_path, served.url + "/stable/", PLUGIN, name="uvstable")
        assert code == 0, err
        assert got[PLUGIN] == got[PJRT] == "0.9.1"
    finally:
        served.close()


def test_a_local_store_served_over_http_installs_through_asset_url(make_dist, tmp_path):
    store = LocalStore(tmp_path / "store", clock=Clock())
    for version in ("0.9.1.dev20261120", "0.9.1.dev20261121"):
        release_dist(store, make_dist(version))
    assets = serve(store.directory, negotiate=False)  # the stand-in for the release-asset host
    site = tmp_path / "site"
    try:
        build_site(store, site, asset_base=assets.url + "/", site_url="http://127.0.0.1:1/x")
        assert "file://" not in "".join(p.read_text() for p in site.rglob("*.html"))
        served = serve(site)
        try:
            code, got, err = pip_install(tmp_path, served.url + "/nightly/", "--pre", PLUGIN)
            assert code == 0, err
            assert got[PLUGIN] == "0.9.1.dev20261121"
            code, got, err = uv_install(tmp_path, served.url + "/nightly/", "--prerelease", "allow", PLUGIN)
            assert code == 0, err
            assert got[PLUGIN] == got[PJRT] == "0.9.1.dev20261121"
            assert any(p.endswith(".whl") for p, _ in assets.seen)
        finally:
            served.close()
    finally:
        assets.close()


# ------------------------------------------------------------------ rebuilt from empty each night


def test_a_site_rebuilt_from_empty_keeps_every_promise_before_and_after_gc(gh_season, tmp_path):
    """What the CI job does each night: a new SITE. A nightly the run calls 'not listed' is still
    downloadable at the URL the page shows for it; after gc (same rule) nothing is hidden, the page
    no longer names what gc deleted, and every link of every page resolves."""
    first = build_site(gh_season, tmp_path / "night1", keep=1)
    hidden = first["hidden"]
    assert hidden and all("dev2026112" in n and "post1" not in n for n in hidden)
    page = (tmp_path / "night1" / "index.html").read_text()
    assert "stay at their release URLs" in page
    for name in hidden:
        [href] = re.findall(rf'href="([^"]+/{re.escape(name)})"', page)
        with urllib.request.urlopen(href, timeout=30) as answer:
            assert answer.status == 200
    resolve_all(tmp_path / "night1")

    collect(gh_season, retention(keep=1), dry_run=False, now=_dt.datetime(2026, 11, 23, tzinfo=_dt.timezone.utc))
    second = build_site(gh_season, tmp_path / "night2", keep=1)
    assert second["hidden"] == []
    page = (tmp_path / "night2" / "index.html").read_text()
    assert "0.9.1.dev20261120" not in page and "stay at their release URLs" not in page
    resolve_all(tmp_path / "night2")


# ------------------------------------------------------------------ yanks


def test_a_yanked_nightly_is_skipped_by_pip_and_uv_unless_pinned(make_dist, tmp_path, run_cli, monkeypatch):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    store = LocalStore(tmp_path / "store", clock=Clock())
    for version in ("0.9.1.dev20261120", "0.9.1.dev20261121"):
        release_dist(store, make_dist(version))
    code, out, err = run_cli("yank", "0.9.1.dev20261121", "--reason", "segfaults on gfx90a",
                             "--store-dir", store.directory, "--json")
    assert code == 0, err
    assert json.loads(out)["changed"] is True
    code, out, _ = run_cli("yank", "rocm-jax-v0.9.1.dev20261121", "--reason", "segfaults on gfx90a",
                           "--store-dir", store.directory, "--json")
    assert code == 0 and json.loads(out)["changed"] is False  # a re-run changes nothing
    # the record is in the store, so a site built from empty (the CI job) has it
    site = tmp_path / "site"
    result = build_site(store, site)
    assert result["yanked"] == ["rocm-jax-v0.9.1.dev20261121"]
    html = (site / "nightly" / PLUGIN / "index.html").read_text()
    assert html.count('data-yanked="segfaults on gfx90a"') == 1
    files = json.loads((site / "nightly" / PLUGIN / "index.json").read_text())["files"]
    assert {f["filename"].split("-")[1]: f["yanked"] for f in files} == {
        "0.9.1.dev20261120": False, "0.9.1.dev20261121": "segfaults on gfx90a"}
    assert "yanked: segfaults on gfx90a" in (site / "index.html").read_text()
    for negotiate in (False, True):  # HTML (a static host) and PEP 691 JSON
        served = serve(site, negotiate=negotiate)
        try:
            url = served.url + "/nightly/"
            code, got, err = pip_install(tmp_path, url, "--pre", PLUGIN, name=f"pip{negotiate}")
            assert code == 0, err
            assert got[PLUGIN] == "0.9.1.dev20261120"
            code, got, err = pip_install(tmp_path, url, f"{PLUGIN}==0.9.1.dev20261121", name=f"pin{negotiate}")
            assert code == 0, err
            assert got[PLUGIN] == "0.9.1.dev20261121" and "segfaults on gfx90a" in err
            code, got, err = uv_install(tmp_path, url, "--prerelease", "allow", PLUGIN, name=f"uv{negotiate}")
            assert code == 0, err
            assert got[PLUGIN] == "0.9.1.dev20261120"
        finally:
            served.close()
    code, out, err = run_cli("yank", "0.9.1.dev20261121", "--undo", "--store-dir", store.directory)
    assert code == 0, err
    assert notes.read(store.published_for("rocm-jax-v0.9.1.dev20261121").body).yanked is None
    assert build_site(store, site)["yanked"] == []


@pytest.mark.parametrize("argv, expected", [
    (["0.9.1.dev20261199"], "no published release"),
    (["0.9.1.dev20261120", "--reason", "two\nlines"], "one line"),
    (["0.9.1.dev20261120", "--reason", "ends --> here"], "'--'"),
    (["0.9.1.dev20261120", "--reason", "v1 -- v2"], "'--'"),  # no '--' at all inside an HTML comment
    (["0.9.1.dev20261120", "--reason", "x" * 201], "at most 200"),
    (["0.9.1.dev20261120", "--undo", "--reason", "x"], "--undo takes no --reason"),
])
def test_a_bad_yank_is_one_line_and_changes_nothing(make_dist, tmp_path, run_cli, monkeypatch, argv, expected):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    store = LocalStore(tmp_path / "store", clock=Clock())
    release_dist(store, make_dist("0.9.1.dev20261120"))
    before = store.published_for("rocm-jax-v0.9.1.dev20261120").body
    code, out, err = run_cli("yank", *argv, "--store-dir", store.directory)
    assert code == 2 and len(err.strip().splitlines()) == 1 and expected in err
    assert store.published_for("rocm-jax-v0.9.1.dev20261120").body == before


def test_yank_on_github_edits_only_the_notes(fake_github, gh_season):
    result = yank(gh_season, "0.9.1", "wrong jax line")
    assert result["changed"]
    rel = gh_season.published_for("rocm-jax-v0.9.1")
    assert notes.read(rel.body).yanked == "wrong jax line" and "**Yanked** (PEP 592): wrong jax line" in rel.body
    assert len(gh_season.list_assets(rel)) > 0 and not fake_github.violations


def test_an_asset_url_that_is_not_http_or_file_is_refused(make_dist, tmp_path):
    import dataclasses

    from release.core.errors import UserError
    store = LocalStore(tmp_path / "store", clock=Clock())
    release_dist(store, make_dist("0.9.1.dev20261120"))
    original = store.list_assets
    store.list_assets = lambda rel: [dataclasses.replace(a, url="javascript:alert(1)") for a in original(rel)]
    with pytest.raises(UserError, match="expected an http"):
        build_site(store, tmp_path / "site")
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("url, linked", [
    ("https://example.org/x.whl", True), ("HTTPS://example.org/x.whl", True), ("http://example.org/x.whl", True),
    ("HtTp://example.org/x.whl", True), ("file:///store/x.whl", True), ("FILE:///store/x.whl", True),
    ("https:/example.org/x.whl", False), ("httpsx://example.org/x.whl", False), ("ftp://example.org/x.whl", False),
    ("javascript:alert(1)//", False), (" https://example.org/x.whl", False), ("https", False), ("", False)])
def test_a_store_answer_is_linked_only_with_an_http_or_file_scheme_in_any_case(url, linked):
    """What the store says an asset's URL is (data from outside) is linked as it is when its
    scheme is http, https or file, in any letter case, and refused (one line) otherwise."""
    from types import SimpleNamespace

    from release.core.errors import UserError
    from release.publish.index import asset_link
    from release.publish.records import Asset
    asset = Asset(1, "x.whl", 1, None, "uploaded", url)
    store = SimpleNamespace(kind="github", where="o/r")
    release = SimpleNamespace(id=1, tag="rocm-jax-v0.9.1")
    if linked:
        assert asset_link(store, release, asset, None) == url  # type: ignore[arg-type]
    else:
        with pytest.raises(UserError, match="expected an http"):
            asset_link(store, release, asset, None)  # type: ignore[arg-type]
