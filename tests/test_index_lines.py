"""Per-line channels: ``SITE/<X.Y>/nightly/`` and ``SITE/<X.Y>/stable/`` list one jax line only, with
the public files that line's releases were validated with, their provenance, statuses and a
matrix.json; ``--index-url`` of a line channel installs that line's newest validated set with real
pip and uv (the site served on 127.0.0.1), while the site's own channels take the newest line.
A line the default branch no longer maintains, or one declared retired, is never current."""

from __future__ import annotations

import dataclasses
import hashlib
import html
import json
import re

import jsonschema
import pytest

from release.check import public_set
from release.check.resolver import Pick
from release.publish import project_status, public_files
from release.publish.index import build_site
from release.publish.retention import retention
from release.publish.stores import LocalStore
from tests.support.index_server import serve
from tests.support.installs import pip_install, uv_install
from tests.support.registry import LocalIndex
from tests.test_index_set import PJRT, PLUGIN, publish, stand_ins
from tests.test_index_set import recipe as docs_recipe
from tests.test_matrix import SCHEMA as MATRIX_SCHEMA

OLD_LINE = ("0.9.1", "0.9.1.dev20261126", "0.9.1.dev20261127")  # public jax, then two nightlies
NEW_LINE = ("0.10.0", "0.10.0.dev20261127",)


def _record(public: LocalIndex, wheels: list) -> str:
    """The notes' record of ``wheels`` of the public stand-in, as validate describes them."""
    base = public.url.rsplit("/simple/", 1)[0]
    picks = [Pick(w.name.split("-")[0].replace("_", "-"), w.name.split("-")[1], f"{base}/files/{w.name}",
                  hashlib.sha256(w.read_bytes()).hexdigest()) for w in wheels]
    files, warnings = public_set.describe(picks, public.url)
    assert warnings == []
    return public_files.to_text(files)


@pytest.fixture(scope="module")
def two_lines(tmp_path_factory):
    """Line 0.9 (two nightlies validated with jax 0.9.1, a release without a record) and line 0.10
    (a nightly validated with jax 0.10.0, newer than every 0.9 one), the site served."""
    root = tmp_path_factory.mktemp("lines")
    old = stand_ins(root / "public-0.9", "0.9.1")
    new = stand_ins(root / "public-0.10", "0.10.0")
    public = LocalIndex([*old, *new[:2]], metadata=True)
    store = LocalStore(root / "store")
    for nightly in OLD_LINE[1:]:
        publish(store, root / "dists", nightly, _record(public, old))
    publish(store, root / "dists", "0.9.1", None)
    publish(store, root / "dists", NEW_LINE[1], _record(public, [*new[:2], old[2]]))
    site = root / "site"
    build_site(store, site, keep=14)
    served = serve(site)
    result = build_site(store, site, keep=14, site_url=served.url)  # the page's lines name where it is served
    yield {"site": site, "url": served.url, "result": result, "store": store, "root": root}
    served.close()
    public.close()


def listed(site, where: str, project: str) -> list[str]:
    return [f["filename"] for f in json.loads((site / where / project / "index.json").read_text())["files"]]


def test_each_line_channel_lists_only_its_lines_releases_and_their_public_files(two_lines):
    site, result = two_lines["site"], two_lines["result"]
    assert result["lines"] == {
        "0.10": {"current": True, "status": None, "channels": ["0.10/nightly/"]},
        "0.9": {"current": True, "status": None, "channels": ["0.9/nightly/", "0.9/stable/"]}}
    assert [v.split("-")[1] for v in listed(site, "0.9/nightly", PLUGIN)] == list(OLD_LINE[1:])
    assert [v.split("-")[1] for v in listed(site, "0.10/nightly", PLUGIN)] == [NEW_LINE[1]]
    assert [v.split("-")[1] for v in listed(site, "0.9/stable", PLUGIN)] == ["0.9.1"]
    assert listed(site, "0.9/nightly", "jax") == ["jax-0.9.1-py3-none-any.whl"]
    assert listed(site, "0.10/nightly", "jax") == ["jax-0.10.0-py3-none-any.whl"]
    assert listed(site, "nightly", "jax") == ["jax-0.9.1-py3-none-any.whl", "jax-0.10.0-py3-none-any.whl"]
    # the same entries as the site's channel gives them (hashes, metadata, urls), one line's only
    for project in ("jax", "jaxlib", PLUGIN, PJRT):
        page = json.loads((site / "nightly" / project / "index.json").read_text())
        everything = {f["filename"]: f for f in page["files"]}
        for line in ("0.9", "0.10"):
            for f in json.loads((site / line / "nightly" / project / "index.json").read_text())["files"]:
                assert f == everything[f["filename"]]
    assert json.loads((site / "0.9" / "nightly" / "index.json").read_text())["projects"] == [
        {"name": n} for n in sorted(["jax", "jaxlib", PJRT, PLUGIN, "ml-dtypes"])]
    for line, channel in (("0.9", "nightly"), ("0.9", "stable"), ("0.10", "nightly")):
        doc = json.loads((site / line / channel / "matrix.json").read_text())
        jsonschema.validate(doc, MATRIX_SCHEMA)
        assert doc["line"] == line and doc["channel"] == channel
        assert {r["version"].rsplit(".dev", 1)[0].rsplit(".", 1)[0] for r in doc["releases"]} == {line}
    assert not (site / "0.10" / "stable").exists()  # nothing of 0.10 is stable yet


def install_lines(site) -> list[str]:
    """The commands of the page's install lines, as a person copies them."""
    return [html.unescape(re.sub(r"<[^>]+>", "", pre))
            for pre in re.findall(r'<pre class="install">(.*?)</pre>', (site / "index.html").read_text())]


def test_the_page_shows_install_lines_per_channel_and_per_current_line_with_the_whole_set(two_lines):
    """jax and jaxlib named where the channel holds them (its releases recorded the public files they
    were validated with: the nightlies); the plugin alone where it does not (the release recorded none)."""
    url, lines = two_lines["url"], install_lines(two_lines["site"])
    for where, pre, wanted in (("nightly", True, f"jax jaxlib {PLUGIN}"), ("stable", False, PLUGIN),
                               ("0.10/nightly", True, f"jax jaxlib {PLUGIN}"),
                               ("0.9/nightly", True, f"jax jaxlib {PLUGIN}"), ("0.9/stable", False, PLUGIN)):
        assert (f"pip install {'--pre ' if pre else ''}{wanted} --index-url {url}/{where}/") in lines
        assert (f"uv pip install {'--prerelease allow ' if pre else ''}{wanted} "
                f"--index-url {url}/{where}/") in lines
        assert ("jax" in listed(two_lines["site"], where, "jax")[0]) if "jaxlib" in wanted else not (
            two_lines["site"] / where / "jax").exists()  # what a line names, its channel holds
    assert not [line for line in lines if "0.10/stable" in line or "SITE_URL" in line]
    page = (two_lines["site"] / "index.html").read_text()
    recipe = html.unescape(re.search(r'<pre class="recipe">(.*?)</pre>', page, re.S).group(1))
    assert recipe == docs_recipe(url)  # the docs' recipe, which test_index_set installs with uv sync


def said_to_hold(page: str) -> dict[str, bool]:
    """What the install paragraph says each channel holds: True for the whole set (jax and jaxlib
    too), False for the plugin and its pjrt only; "Each" speaks of both channels."""
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", "", re.search(r"<p>Indexes:(.*?)</p>", page, re.S)[1])).split())
    said: dict[str, bool] = {}
    for subject, holding in re.findall(r"(?:^|\. )(Each|nightly/|stable/) (is one index holding the whole set"
                                       r"|holds the plugin and its pjrt only)", words):
        for channel in ("nightly", "stable") if subject == "Each" else (subject.rstrip("/"),):
            assert channel not in said, words  # one word on each channel, never two
            said[channel] = "whole set" in holding
    return said


def test_the_page_says_what_each_channel_holds_as_its_index_holds_it(two_lines):
    """The install paragraph's words on each channel are true of its index: the whole set where
    the channel lists jax and jaxlib (the nightlies recorded the public files they were validated
    with), the plugin and its pjrt only where it does not (the release recorded none)."""
    site = two_lines["site"]
    assert said_to_hold((site / "index.html").read_text()) == {
        channel: (site / channel / "jax").is_dir() for channel in ("nightly", "stable")} == {
        "nightly": True, "stable": False}


@pytest.mark.parametrize("nightly, stable", [(True, True), (True, False), (False, True), (False, False)])
def test_the_page_says_what_each_channel_holds_as_its_install_lines_name_it(nightly, stable):
    """Whichever channels hold jax and jaxlib, each channel's words agree with its install lines:
    the whole set where they name jax and jaxlib, the plugin alone where they do not."""
    from release.publish.page import install_lines, render
    from release.publish.site import ReleaseRow, SiteData
    rows = (ReleaseRow("rocm-jax-v0.10.0.dev20261128", "0.10.0.dev20261128", "nightly", "nightly", None, None,
                       True, (), None, None, None, (), public_set=nightly),
            ReleaseRow("rocm-jax-v0.10.0", "0.10.0", "release", "stable", None, None,
                       True, (), None, None, None, (), public_set=stable))
    data = SiteData(project=PLUGIN, site_url="https://x.example", keep=14, releases=rows, drafts=(),
                    plugins=(PLUGIN,), lines=())
    named = {channel: all(" jax jaxlib " in c for c in cmds)
             for channel in ("nightly", "stable")
             for cmds in [[c for _, _, way in install_lines(data) for c in way if f"/{channel}/" in c]]}
    assert named == {"nightly": nightly, "stable": stable}
    assert said_to_hold(render(data).decode()) == named


def test_a_line_that_is_not_current_is_named_apart_on_the_page_with_no_install_line(two_lines, tmp_path):
    site = tmp_path / "site"
    build_site(two_lines["store"], site, rule=retention(14, lines=frozenset({(0, 10)})), site_url="https://x.example")
    lines = install_lines(site)
    assert [line for line in lines if "/0.10/" in line] and not [line for line in lines if "/0.9/" in line]
    assert "<li>0.9: no longer maintained; <code>https://x.example/0.9/stable/</code></li>" in (
        site / "index.html").read_text()


def test_pip_on_a_line_channel_installs_that_lines_newest_validated_set(two_lines, tmp_path):
    command = f"pip install --pre jax jaxlib {PLUGIN} --index-url {two_lines['url']}/0.9/nightly/"
    assert command in install_lines(two_lines["site"])  # the page's line, as pasted
    words = command.split()[2:]
    at = words.index("--index-url")
    code, got, err = pip_install(tmp_path, words[at + 1], *words[:at], *words[at + 2:])
    assert code == 0, err
    assert (got["jax"], got["jaxlib"], got[PLUGIN], got[PJRT]) == ("0.9.1", "0.9.1", OLD_LINE[2], OLD_LINE[2])


def test_uv_on_a_line_channel_installs_that_lines_newest_validated_set(two_lines, tmp_path):
    code, got, err = uv_install(tmp_path, two_lines["url"] + "/0.9/nightly/", "--prerelease", "allow",
                                "jax", "jaxlib", PLUGIN)
    assert code == 0, err
    assert (got["jax"], got["jaxlib"], got[PLUGIN], got[PJRT]) == ("0.9.1", "0.9.1", OLD_LINE[2], OLD_LINE[2])


def test_a_line_channel_keeps_what_the_retention_rule_keeps_and_a_retired_line_is_never_current(two_lines, tmp_path):
    store, site = two_lines["store"], tmp_path / "site"
    kept = build_site(store, site, rule=retention(1))
    assert [v.split("-")[1] for v in listed(site, "0.9/nightly", PLUGIN)] == [OLD_LINE[2]]
    assert kept["lines"]["0.9"]["current"] is True
    # the default branch maintains 0.10 only: 0.9 keeps no nightly, its releases stay listed
    gone = build_site(store, site, rule=retention(14, lines=frozenset({(0, 10)})))
    assert gone["lines"]["0.9"] == {"current": False, "status": None, "channels": ["0.9/stable/"]}
    assert not (site / "0.9" / "nightly").exists()
    assert listed(site, "0.9/stable", PLUGIN) == listed(site, "stable", PLUGIN)
    # declared retired: its channel's pages carry the status, and it is not current either
    retired = project_status.parse({"lines": {"0.9": {"status": "archived", "reason": "use 0.10"}}}, "f")
    declared = build_site(store, site, keep=14, retired=retired)
    assert declared["lines"]["0.9"]["current"] is False and declared["lines"]["0.9"]["status"] == "archived"
    assert json.loads((site / "0.9" / "stable" / PLUGIN / "index.json").read_text())["project-status"] == {
        "status": "archived", "reason": "use 0.10"}
    assert "project-status" not in json.loads((site / "0.10" / "nightly" / PLUGIN / "index.json").read_text())


def test_install_lines_name_each_rocm_majors_plugin_and_the_known_address_only():
    from release.publish.page import install_lines, line_install_lines
    from release.publish.site import LineView, ReleaseRow, SiteData
    nightly = ReleaseRow("rocm-jax-v0.10.0.dev20261128", "0.10.0.dev20261128", "nightly", "nightly", None, None,
                         True, (), None, None, None, (), public_set=True)  # validated with public jax
    data = SiteData(project="jax-rocm10-plugin", site_url="https://x.example/jax", keep=14, releases=(nightly,),
                    drafts=(), plugins=("jax-rocm7-plugin", "jax-rocm10-plugin"),
                    lines=(LineView("0.10", ("nightly",), True), LineView("0.9", ("stable",), False, "archived")))
    every = [c for _, _, cmds in install_lines(data) for c in cmds]
    assert {c.split(" --index-url ")[0].rsplit(" ", 1)[1] for c in every} == {"jax-rocm7-plugin", "jax-rocm10-plugin"}
    assert all(("/nightly/" in c) == (" jax jaxlib jax-rocm" in c) and "https://x.example/jax/" in c for c in every)
    assert [c for _, _, cmds in line_install_lines(data) for c in cmds] == [
        f"{tool} jax jaxlib jax-rocm{major}-plugin --index-url https://x.example/jax/0.10/nightly/"
        for major in (7, 10) for tool in ("pip install --pre", "uv pip install --prerelease allow")]
    unknown = [c for _, _, cmds in install_lines(dataclasses.replace(data, site_url=None)) for c in cmds]
    assert all("--index-url SITE_URL/" in c for c in unknown)  # said so on the page, once


def test_each_release_pins_its_whole_set_and_pip_installs_it_from_the_page(two_lines, tmp_path):
    """A release's own line names jax and jaxlib of its line beside its plugin (installing the
    plugin alone loads no backend) where it recorded the public files it was validated with (its
    channel links them), and pip installs exactly that set from the line as pasted; a release
    that recorded none (validated without the public index) gets its plugin alone, which installs."""
    url, lines = two_lines["url"], install_lines(two_lines["site"])
    for version, line in ((OLD_LINE[1], "0.9.1"), (OLD_LINE[2], "0.9.1"), (NEW_LINE[1], "0.10.0")):
        assert (f"pip install --pre jax=={line} jaxlib=={line} {PLUGIN}=={version} --index-url {url}/nightly/"
                in lines), version
    alone = f"pip install {PLUGIN}==0.9.1 --index-url {url}/stable/"
    assert [line for line in lines if re.search(rf" {PLUGIN}==\S+ --index-url", line) and " jax==" not in line] == [
        alone]
    code, got, err = pip_install(tmp_path, f"{url}/stable/", f"{PLUGIN}==0.9.1", name="alone")
    assert code == 0 and (got[PLUGIN], got[PJRT]) == ("0.9.1", "0.9.1") and "jax" not in got, err
    command = f"pip install --pre jax==0.9.1 jaxlib==0.9.1 {PLUGIN}=={OLD_LINE[1]} --index-url {url}/nightly/"
    words = command.split()[2:]
    at = words.index("--index-url")
    code, got, err = pip_install(tmp_path, words[at + 1], *words[:at], *words[at + 2:])
    assert code == 0, err
    assert (got["jax"], got["jaxlib"], got[PLUGIN], got[PJRT]) == ("0.9.1", "0.9.1", OLD_LINE[1], OLD_LINE[1])


@pytest.mark.parametrize("kind, version, channel, flag", [("release", "0.10.2.post1", "stable", ""),
                                                          ("nightly", "0.10.3.dev20261128", "nightly", "--pre "),
                                                          ("rc", "0.10.3rc1", "stable", "--pre ")])
def test_a_release_of_two_majors_has_a_pinned_line_for_each(kind, version, channel, flag):
    from release.publish import matrix
    from release.publish.page import release_pins
    from release.publish.site import ReleaseRow, SiteData
    line = version.split(".post")[0].split(".dev")[0].split("rc")[0]
    cells = tuple(matrix.Cell(py, major, None, line, line, version, version, "p.whl", "j.whl", None, ())
                  for major in (7, 10) for py in ("3.12", "3.11"))
    row = ReleaseRow(f"rocm-jax-v{version}", version, kind, channel, None, None, True, (), None, None, None, (),
                     cells=cells, public_set=True)
    data = SiteData(project="jax-rocm7-plugin", site_url="https://x.example", keep=14, releases=(row,), drafts=())
    assert release_pins(row, data) == [
        f"pip install {flag}jax=={line} jaxlib=={line} jax-rocm{major}-plugin=={version} "
        f"--index-url https://x.example/{channel}/" for major in (7, 10)]
    assert release_pins(dataclasses.replace(row, cells=()), data) == [  # no wheel read: the plugin alone
        f"pip install {flag}jax-rocm7-plugin=={version} --index-url https://x.example/{channel}/"]
    assert release_pins(dataclasses.replace(row, public_set=False), data) == [  # no jax on its channel
        f"pip install {flag}jax-rocm{major}-plugin=={version} --index-url https://x.example/{channel}/"
        for major in (7, 10)]
