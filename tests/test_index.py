"""``release index``: per-channel PEP 503/691 indexes that real pip installs from, and a site that
is never lost: a mistyped or empty store is refused with SITE untouched, writes are swapped in whole,
and a re-run with no change rewrites nothing."""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import urllib.request
import venv
from pathlib import Path

import pytest

from release.check.resolver import pip_argv
from release.core import core_metadata
from release.publish.index import JSON_TYPE, build_site, write_index
from release.publish.stores import LocalStore
from tests.support.index_server import serve
from tests.support.publish_dist import gh_store, release_dist, without_index_facts

PLUGIN, PJRT = "jax-rocm7-plugin", "jax-rocm7-pjrt"


def tree(site: Path) -> dict[str, tuple[str, int]]:
    """Every file of a site: sha256 and mtime, so 'untouched' and 'rewrote nothing' are checkable."""
    return {str(p.relative_to(site)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(site.rglob("*")) if p.is_file()}


def pip_install(tmp_path, url, *args, name="env"):
    """Real pip into a fresh venv; returns (returncode, {dist: version}, stderr)."""
    env_dir = tmp_path / name
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    proc = subprocess.run([*pip_argv(py), "install", "--no-cache-dir",
                           "--disable-pip-version-check", "--index-url", url, *args],
                          capture_output=True, text=True, env=env)
    if proc.returncode:
        return proc.returncode, {}, proc.stderr
    got = subprocess.run([str(py), "-c", "import json, importlib.metadata as m; print(json.dumps("
                          "{d.metadata['Name']: d.version for d in m.distributions()}))"],
                         capture_output=True, text=True, check=True)
    return 0, json.loads(got.stdout), proc.stderr


def every_link_resolves(site: Path) -> None:
    for page in site.rglob("index.html"):
        for href in re.findall(r'href="([^"#]+)', page.read_text()):
            if href.startswith(("http://", "https://", "file:")):
                continue
            target = (page.parent / href)
            assert target.exists(), f"{page.relative_to(site)} links {href}, which is not there"


class Clock:
    """Publishing times for the local store: one hour apart, never the wall clock."""

    def __init__(self):
        self.now = _dt.datetime(2026, 11, 1, 4, tzinfo=_dt.timezone.utc)

    def __call__(self):
        self.now += _dt.timedelta(hours=1)
        return self.now


# ------------------------------------------------------------------ an index of given wheel files


def test_write_index_of_wheel_files_is_installed_by_pip_over_json_and_html(make_dist, tmp_path):
    dist = make_dist("0.9.1.dev20261122")
    wheels = sorted(dist.glob("*.whl"))
    out = tmp_path / "staged"
    result = write_index(out, wheels)
    assert result["changed"] and sorted(result["projects"]) == [PJRT, PLUGIN]
    page = (out / PLUGIN / "index.html").read_text()
    plugin = next(w for w in wheels if "plugin" in w.name)
    digest = hashlib.sha256(plugin.read_bytes()).hexdigest()
    meta = (out / PLUGIN / (plugin.name + ".metadata")).read_bytes()
    meta_digest = hashlib.sha256(meta).hexdigest()
    assert f'href="{plugin.name}#sha256={digest}"' in page
    assert 'data-requires-python="&gt;=3.11"' in page
    assert f'data-dist-info-metadata="sha256={meta_digest}"' in page
    assert f'data-core-metadata="sha256={meta_digest}"' in page

    for negotiate in (True, False):
        served = serve(out, negotiate=negotiate)
        try:
            code, installed, err = pip_install(tmp_path, served.url + "/", "--pre", PLUGIN,
                                               name=f"env-{negotiate}")
            assert code == 0, err
            assert installed[PLUGIN] == installed[PJRT] == "0.9.1.dev20261122"
            kinds = {kind for path, kind in served.seen if path == f"/{PLUGIN}/"}
            # pip asks for JSON first: a negotiating server gives it JSON, a plain host HTML
            assert kinds == ({JSON_TYPE} if negotiate else {"text/html"})
            assert any(p.endswith(".whl.metadata") for p, _ in served.seen)  # PEP 658 used
        finally:
            served.close()

    before = tree(out)
    again = write_index(out, wheels)
    assert not again["changed"] and tree(out) == before  # same bytes, same files, nothing rewritten


# ------------------------------------------------------------------ the site of a store


@pytest.fixture
def store_site(make_dist, tmp_path):
    """A local store with four nightlies, rc1, the release, and rc2 published after the release."""
    store = LocalStore(tmp_path / "store", clock=Clock())
    for version in ("0.9.1.dev20261119", "0.9.1.dev20261120", "0.9.1.dev20261121", "0.9.1rc1",
                    "0.9.1.dev20261122", "0.9.1", "0.9.1rc2"):
        release_dist(store, make_dist(version))
    return store


def get_json(url: str) -> tuple[str, dict]:
    request = urllib.request.Request(url, headers={"Accept": f"{JSON_TYPE}, text/html;q=0.1"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return answer.headers["Content-Type"], json.loads(answer.read())


def test_channels_resolve_as_promised_with_real_pip(store_site, tmp_path):
    site = tmp_path / "site"
    result = build_site(store_site, site, keep=4)
    assert [f.split("-")[1] for f in result["channels"]["nightly"][PLUGIN]] == [
        "0.9.1.dev20261119", "0.9.1.dev20261120", "0.9.1.dev20261121", "0.9.1.dev20261122"]
    assert [f.split("-")[1] for f in result["channels"]["stable"][PLUGIN]] == ["0.9.1rc1", "0.9.1rc2", "0.9.1"]
    every_link_resolves(site)

    served = serve(site)
    try:
        code, got, err = pip_install(tmp_path, served.url + "/nightly/", "--pre", PLUGIN, name="nightly")
        assert code == 0, err
        assert got[PLUGIN] == got[PJRT] == "0.9.1.dev20261122"
        # stable never resolves to an rc after the release, with or without --pre (rc2 came later)
        for flags in ([], ["--pre"]):
            code, got, err = pip_install(tmp_path, served.url + "/stable/", *flags, PLUGIN,
                                         name=f"stable{len(flags)}")
            assert code == 0, err
            assert got[PLUGIN] == got[PJRT] == "0.9.1"
        # a nightly is never in stable, a release never in nightly
        code, _, err = pip_install(tmp_path, served.url + "/stable/", f"{PLUGIN}==0.9.1.dev20261122",
                                   name="nonightly")
        assert code != 0 and "0.9.1.dev20261122" in err
        down = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir",
                               "--disable-pip-version-check", "--index-url", served.url + "/nightly/",
                               "-d", str(tmp_path / "dl"), f"{PJRT}==0.9.1.dev20261119"],
                              capture_output=True, text=True, env={**os.environ, "PIP_CONFIG_FILE": os.devnull})
        assert down.returncode == 0, down.stderr
        [wheel] = (tmp_path / "dl").glob("*.whl")
        assert wheel.read_bytes() == next(store_site.directory.glob(f"*/assets/{wheel.name}")).read_bytes()
        assert not list(site.rglob("*.whl")), "the site copies no wheel: it links the store's assets"

        # a PEP 691 JSON request, negotiated as a real index does it
        kind, page = get_json(served.url + f"/stable/{PLUGIN}/")
        assert kind == JSON_TYPE
        assert page["meta"]["api-version"] == "1.4" and page["name"] == PLUGIN
        assert page["versions"] == ["0.9.1rc1", "0.9.1rc2", "0.9.1"]
        release = store_site.published_for("rocm-jax-v0.9.1")
        for item in page["files"]:
            data = urllib.request.urlopen(item["url"], timeout=30).read()  # the store's asset itself
            assert item["url"].startswith("file://") and item["url"].endswith("/assets/" + item["filename"])
            assert item["hashes"] == {"sha256": hashlib.sha256(data).hexdigest()}
            assert item["size"] == len(data) and item["yanked"] is False
            # PEP 658/714: the release's metadata asset sits at the wheel's URL + .metadata and is
            # exactly the wheel's METADATA; the page names its sha256 under both keys
            meta = urllib.request.urlopen(item["url"] + ".metadata", timeout=30).read()
            assert meta == core_metadata.read(io.BytesIO(data))
            assert item["core-metadata"] == item["dist-info-metadata"] == {"sha256": hashlib.sha256(meta).hexdigest()}
            assert item["requires-python"] == ">=3.11"
        final = next(i for i in page["files"] if "-0.9.1-" in i["filename"])
        assert final["upload-time"] == release.published_at.strftime("%Y-%m-%dT%H:%M:%SZ")
        kind, root = get_json(served.url + "/nightly/")
        assert kind == JSON_TYPE and root["projects"] == [{"name": PJRT}, {"name": PLUGIN}]
    finally:
        served.close()


def test_retention_hides_old_nightlies_and_protect_keeps_them(store_site, tmp_path):
    site = tmp_path / "site"
    build_site(store_site, site, keep=4)
    result = build_site(store_site, site, keep=2, protect=["0.9.1.dev20261119", "0.9.1.dev20990101"])
    listed = [f.split("-")[1] for f in result["channels"]["nightly"][PLUGIN]]
    assert listed == ["0.9.1.dev20261119", "0.9.1.dev20261121", "0.9.1.dev20261122"]
    assert result["protect_missing"] == ["0.9.1.dev20990101"]
    assert result["hidden"] and all("dev20261120" in n for n in result["hidden"])
    page = (site / "nightly" / PLUGIN / "index.html").read_text()
    assert "dev20261120" not in page and "dev20261120" not in (site / "nightly" / PLUGIN / "index.json").read_text()
    # hidden, not a broken link: the page links the release asset, which a pinned URL still downloads
    people = (site / "index.html").read_text()
    hidden = next(store_site.directory.glob("*/assets/jax_rocm7_pjrt-0.9.1.dev20261120-*.whl"))
    assert f'href="{hidden.as_uri()}"' in people and "stay at their release URLs" in people
    every_link_resolves(site)
    # gc deleted it: the page no longer names it, and no link points at what is gone
    store_site.delete_release(store_site.published_for("rocm-jax-v0.9.1.dev20261120"))
    result = build_site(store_site, site, keep=2, protect=["0.9.1.dev20261119"])
    assert result["hidden"] == [] and "dev20261120" not in (site / "index.html").read_text()
    every_link_resolves(site)


def storage_reads(fake) -> list[tuple[str, str]]:
    """(path, Range header) of every request the GitHub stand-in's storage host answered."""
    return [(e[2], e[4].get("range", "")) for e in fake.log if e[0] == "storage"]


def test_rerun_with_no_change_rewrites_nothing_and_reads_nothing(fake_github, make_dist, tmp_path):
    store = gh_store(fake_github)
    for version in ("0.9.1.dev20261121", "0.9.1"):  # published before the notes recorded the wheels' facts
        without_index_facts(store, release_dist(store, make_dist(version)).tag)
    site = tmp_path / "site"
    start = len(fake_github.log)
    first = build_site(store, site, site_url="https://example.invalid/jax")
    # each wheel's Requires-Python came from one range read of its end, no wheel was downloaded
    wheel_reads = [r for r in storage_reads(fake_github) if r[1] and r[0].endswith(".whl")]
    assert first["fetched"] == [] and first["range_reads"] == 4 == len(wheel_reads)
    # the page's two revisions.json: one read each, whole
    maps = [r for r in storage_reads(fake_github) if r[0].endswith("/revisions.json")]
    assert len(maps) == 2 and all(r[1].startswith("bytes=0-") for r in maps)
    # from the public download URLs: no API request (and none of the rate limit) per wheel or map
    assert all("/releases/download/" in path for path, _ in wheel_reads + maps)
    assert not [e for e in fake_github.log[start:] if e[0] == "api" and "/releases/assets/" in e[2]]
    before, inode = tree(site), site.stat().st_ino
    reads = len(storage_reads(fake_github))
    again = build_site(store, site, site_url="https://example.invalid/jax")
    assert not again["changed"] and again["range_reads"] == 0 and again["fetched"] == []
    assert tree(site) == before and site.stat().st_ino == inode  # not even swapped
    assert len(storage_reads(fake_github)) == reads  # facts and revision maps come from the site's state
    without_index_facts(store, release_dist(store, make_dist("0.9.1.dev20261122")).tag)
    third = build_site(store, site, site_url="https://example.invalid/jax")
    assert third["changed"] and third["range_reads"] == 2
    release_dist(store, make_dist("0.9.1.dev20261123"))  # its notes record its wheels' facts: none is read
    reads = len(storage_reads(fake_github))
    fourth = build_site(store, site, site_url="https://example.invalid/jax")
    assert fourth["changed"] and fourth["range_reads"] == 0
    assert not [path for path, _ in storage_reads(fake_github)[reads:] if path.endswith(".whl")]
    assert '"0.9.1.dev20261123"' in (site / "nightly" / PJRT / "index.json").read_text()
    assert not list(tmp_path.glob(".site.new")) + list(tmp_path.glob(".site.old"))  # the staging directory went away


def test_a_private_repositorys_wheels_are_read_through_the_api(fake_github, make_dist, tmp_path):
    """A public download URL that needs credentials (a private repository answers 404) is read
    through the API's asset URL instead, with the token, still one range read per wheel (of a
    release whose notes do not record its wheels' facts)."""
    store = gh_store(fake_github)
    without_index_facts(store, release_dist(store, make_dist("0.9.1.dev20261121")).tag)
    fake_github.fail("GET", r"/releases/download/", status=404, times=100)
    start = len(fake_github.log)
    result = build_site(store, tmp_path / "site")
    assert result["range_reads"] == 2 and result["fetched"] == []
    log = fake_github.log[start:]
    # + revisions.json and the provenance (the ROCm version of the compatibility matrix)
    assert len([e for e in log if e[0] == "api" and "/releases/assets/" in e[2]]) == 2 + 2
    # the two wheels' ends, revisions.json and the provenance whole, each one range read at its signed URL
    assert len([e for e in log if e[0] == "storage" and e[4].get("range") and e[2].startswith("/signed/")]) == 2 + 2


def test_an_older_site_with_copied_wheels_is_replaced_by_links(store_site, tmp_path):
    site = tmp_path / "legacy"
    # the layouts of earlier versions: SITE/<project>/<wheel> and SITE/<channel>/<project>/<wheel>
    for wheel in store_site.directory.glob("*/assets/*.whl"):
        for folder in (site / wheel.name.split("-")[0].replace("_", "-"),
                       site / "nightly" / wheel.name.split("-")[0].replace("_", "-")):
            folder.mkdir(parents=True, exist_ok=True)
            os.link(wheel, folder / wheel.name)
    (site / "index.html").write_text("<html></html>")
    result = build_site(store_site, site, keep=4)
    assert result["changed"] and not list(site.rglob("*.whl"))
    assert (site / "stable" / PLUGIN / "index.json").is_file()
    every_link_resolves(site)


# ------------------------------------------------------------------ never lose the site


def cli_index(run_cli, site, *args):
    return run_cli("index", "--out", site, *args)


def test_mistyped_missing_or_empty_store_leaves_site_untouched(run_cli, store_site, tmp_path, monkeypatch,
                                                               make_dist):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    site = tmp_path / "site"
    code, out, err = cli_index(run_cli, site, "--store-dir", store_site.directory, "--keep", "4")
    assert code == 0, err
    lines = out.splitlines()  # for people, one line each (in a pipe: plain text, no rich)
    assert lines[-1] == f"index written to {site}" and "\x1b" not in out
    assert any(re.fullmatch(r"nightly/jax-rocm7-plugin: \d+ wheels listed", line) for line in lines), lines
    before = tree(site)
    assert {"nightly/jax-rocm7-plugin/index.html", "stable/jax-rocm7-pjrt/index.json"} <= set(before)

    # a typo of the store's name: one line, a did-you-mean, nothing created
    typo = tmp_path / "stor"
    code, out, err = cli_index(run_cli, site, "--store-dir", typo)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "no such directory" in err and f"did you mean {store_site.directory}" in err
    assert not typo.exists() and tree(site) == before

    # a fresh clone: no local store at the default place
    clone = tmp_path / "clone"
    clone.mkdir()
    code, out, err = cli_index(run_cli, site, "--root", clone)
    assert code == 2 and "no local store" in err and not (clone / ".cache").exists()
    assert tree(site) == before

    # a directory that is not a store
    code, out, err = cli_index(run_cli, site, "--store-dir", tmp_path)
    assert code == 2 and "not a local store" in err and tree(site) == before

    # a store with nothing published (only a draft)
    empty = LocalStore(tmp_path / "empty")
    from release.publish.drafts import publish_draft, read_dist
    publish_draft(empty, read_dist(make_dist("0.9.1.dev20261123")))
    code, out, err = cli_index(run_cli, site, "--store-dir", empty.directory, "--json")
    assert code == 2 and "no published wheels" in err and tree(site) == before
    assert "error" in json.loads(out)  # --json failures are JSON too
    assert not list(tmp_path.glob(".site.new")) + list(tmp_path.glob(".site.old"))


def test_a_store_of_other_projects_is_refused(store_site, tmp_path, make_dist):
    site = tmp_path / "site"
    build_site(store_site, site, keep=4)
    before = tree(site)
    other = LocalStore(tmp_path / "other")
    dist = make_dist("0.9.1.dev20261123")
    for wheel in dist.glob("*.whl"):  # same bytes under another project's name
        wheel.rename(wheel.with_name(wheel.name.replace("jax_rocm7", "jax_rocm6")))
    release = other.create_draft("rocm-jax-v0.9.1.dev20261123", name="x", body="", prerelease=True)
    for wheel in dist.glob("*.whl"):
        other.upload_asset(release, wheel, wheel.name)
    other.publish(release, prerelease=True, make_latest=False)
    from release.publish.index import IndexRefused
    with pytest.raises(IndexRefused, match="drop every project"):
        build_site(other, site)
    assert tree(site) == before


def test_a_directory_this_tool_did_not_write_is_refused(run_cli, store_site, tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / "todo.txt").write_text("mine\n")
    before = tree(home)
    code, out, err = cli_index(run_cli, home, "--store-dir", store_site.directory)
    assert code == 2 and "todo.txt" in err and "did not write" in err
    assert tree(home) == before


def test_a_crash_midway_leaves_the_old_site_and_the_next_run_finishes(store_site, tmp_path, make_dist):
    site = tmp_path / "site"
    build_site(store_site, site, keep=4)
    before = tree(site)
    release_dist(store_site, make_dist("0.9.1.dev20261123"))
    original = store_site.read_asset_range

    def crash(release, asset, start, length):
        raise KeyboardInterrupt  # the process is killed in the middle of reading a wheel
    store_site.read_asset_range = crash
    with pytest.raises(KeyboardInterrupt):
        build_site(store_site, site, keep=4)
    assert tree(site) == before
    store_site.read_asset_range = original
    result = build_site(store_site, site, keep=4)
    assert result["channels"]["nightly"][PLUGIN][-1].split("-")[1] == "0.9.1.dev20261123"
    every_link_resolves(site)
    assert not list(tmp_path.glob(".site.new")) + list(tmp_path.glob(".site.old"))


def test_a_crash_between_the_renames_of_the_fallback_swap_is_recovered(store_site, tmp_path, monkeypatch):
    from release.publish import staging
    site = tmp_path / "site"
    build_site(store_site, site, keep=1)
    before = tree(site)
    # the old site was moved aside, then the process died before the new one took its place
    os.replace(site, tmp_path / ".site.old")
    monkeypatch.setattr(staging, "_exchange", lambda a, b: False)  # a system without renameat2
    result = build_site(store_site, site, keep=2)
    assert result["changed"] and not (tmp_path / ".site.old").exists()
    after = tree(site)
    assert set(before) <= set(after)  # nothing of the old site was lost
    assert len(json.loads((site / "nightly" / PLUGIN / "index.json").read_text())["files"]) == 2  # keep=2 now
    every_link_resolves(site)


def test_a_tampered_store_naming_a_path_is_refused(store_site, tmp_path):
    from release.core.errors import UserError
    site = tmp_path / "site"
    build_site(store_site, site, keep=4)
    before = tree(site)
    release = store_site.published_for("rocm-jax-v0.9.1")
    meta = store_site.directory / str(release.id) / "release.json"
    data = json.loads(meta.read_text())
    data["assets"][0]["name"] = "../../../evil-0.9.1-py3-none-any.whl"
    meta.write_text(json.dumps(data))
    with pytest.raises(UserError, match="expected a plain file name"):
        build_site(store_site, site, keep=4)
    assert tree(site) == before and not list(tmp_path.rglob("evil*"))


def test_write_index_refuses_what_is_not_a_wheel(tmp_path, make_dist):
    from release.core.errors import UserError
    bogus = tmp_path / "jax_rocm7_pjrt-0.9.1-py3-none-any.whl"
    bogus.write_text("not a zip")
    with pytest.raises(UserError, match="not a wheel"):
        write_index(tmp_path / "out", [bogus])
    with pytest.raises(UserError, match="no such wheel"):
        write_index(tmp_path / "out", [tmp_path / "missing-1.0-py3-none-any.whl"])
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.new"))


def test_a_second_writer_waits_for_the_first(store_site, tmp_path):
    from release.core.errors import UserError
    from release.core.file_lock import held
    from release.publish.staging import Staging
    site = tmp_path / "site"
    build_site(store_site, site, keep=4)
    before = tree(site)
    with held(tmp_path / ".site.lock"):  # another `release index` is writing SITE
        with pytest.raises(UserError, match="another `release index` is still writing it"):
            with Staging(site, lock_timeout=0.2):
                pass
    assert tree(site) == before


def test_the_state_is_read_once_unless_another_run_wrote_it_while_this_one_waited(store_site, tmp_path, monkeypatch):
    """The site's state (its kept wheel facts, links, counts) is read before the lock for the
    wheel names and taken again under the lock only when the file changed meanwhile: a run that
    waited for another sees what that one wrote, even in place, at the same size and inode."""
    from release.publish import index as index_module
    from release.publish import staging
    site = tmp_path / "site"
    build_site(store_site, site, keep=4)
    state_file = site / staging.STATE_FILE
    reads = []
    real_read = index_module.read_state
    monkeypatch.setattr(index_module, "read_state", lambda out: reads.append(out) or real_read(out))
    build_site(store_site, site, keep=4)
    assert len(reads) == 1  # unchanged: parsed once

    enter = staging.Staging.__enter__

    def another_run_wrote_it(self):  # as a run holding the lock would have, before this one gets it
        text = state_file.read_text()
        assert text.count('"requires_python":">=3.11"') > 1
        state_file.write_text(text.replace('"requires_python":">=3.11"', '"requires_python":">=3.99"'))
        return enter(self)

    monkeypatch.setattr(staging.Staging, "__enter__", another_run_wrote_it)
    reads.clear()
    build_site(store_site, site, keep=4)
    assert len(reads) == 2
    page = json.loads((site / "stable" / PLUGIN / "index.json").read_text())
    assert {f["requires-python"] for f in page["files"]} == {">=3.99"}
