"""One index URL resolves the whole set: each channel lists, beside its own wheels, the exact files
of the public index its releases were validated with (the notes' record), linked where the public
index serves them, with their sha256, size and PEP 658 metadata. Real pip and uv in fresh venvs,
the site served on 127.0.0.1, a local stand-in for the public index; uv's project recipe is
taken from the docs page as it stands and installed."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from release.check import public_set
from release.check.resolver import Pick
from release.core import core_metadata
from release.core.errors import UserError
from release.publish import notes, project_status, public_files
from release.publish.drafts import current_assets_digest, publish_draft, read_dist, undraft
from release.publish.index import build_site
from release.publish.records import Release
from release.publish.stores import LocalStore
from tests.support.index_server import serve
from tests.support.installs import installed, pip_install, uv_bin, uv_install
from tests.support.publish_dist import build_dist, write_wheel
from tests.support.registry import LocalIndex

PLUGIN, PJRT = "jax-rocm7-plugin", "jax-rocm7-pjrt"
NIGHTLY, OLDER, RELEASE = "0.9.1.dev20261127", "0.9.1.dev20261126", "0.9.1"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "install.md"


def stand_ins(directory: Path, line: str) -> list[Path]:
    """jax (requiring jaxlib of its line and ml-dtypes), jaxlib, and ml-dtypes of ``line``."""
    directory.mkdir(parents=True, exist_ok=True)
    return [write_wheel(directory / f"jax-{line}-py3-none-any.whl", "jax", line, "py3-none-any",
                        {"jax/__init__.py": f"__version__ = {line!r}\n"},
                        requires=[f"jaxlib=={line}", "ml-dtypes"]),
            write_wheel(directory / f"jaxlib-{line}-py3-none-any.whl", "jaxlib", line, "py3-none-any",
                        {"jaxlib/__init__.py": f"__version__ = {line!r}\n"}),
            write_wheel(directory / "ml_dtypes-0.5.0-py3-none-any.whl", "ml-dtypes", "0.5.0", "py3-none-any",
                        {"ml_dtypes/__init__.py": ""})]


def publish(store: LocalStore, dist_root: Path, version: str, record: str | None) -> None:
    """Draft, validated mark (with ``record`` as validate leaves it), undraft."""
    dist = read_dist(build_dist(dist_root, version))
    publish_draft(store, dist)
    draft = store.drafts_for(dist.tag)[0]
    store.update_release(draft, body=notes.changed(draft, validated=current_assets_digest(store, draft),
                                                   validated_with=record))
    undraft(store, dist.tag)


@pytest.fixture(scope="module")
def served_set(tmp_path_factory):
    """The public stand-in (jax 0.9.1, validated, and a newer 0.9.2 nobody validated), a store with
    an older nightly (no record), tonight's (with its record) and a release (no record), the site."""
    root = tmp_path_factory.mktemp("set")
    validated = stand_ins(root / "public", "0.9.1")
    public = LocalIndex([*validated, *stand_ins(root / "public-next", "0.9.2")[:2]], metadata=True)
    base = public.url.rsplit("/simple/", 1)[0]
    picks = [Pick(w.name.split("-")[0].replace("_", "-"), w.name.split("-")[1], f"{base}/files/{w.name}",
                  hashlib.sha256(w.read_bytes()).hexdigest()) for w in validated]
    files, warnings = public_set.describe(picks, public.url)  # as validate describes what pip took
    assert warnings == []
    store = LocalStore(root / "store")
    publish(store, root / "dists", OLDER, None)
    publish(store, root / "dists", NIGHTLY, public_files.to_text(files))
    publish(store, root / "dists", RELEASE, None)
    site = root / "site"
    result = build_site(store, site, keep=14)
    served = serve(site)
    public.log.clear()
    yield {"public": public, "validated": validated, "site": site, "url": served.url, "result": result,
           "root": root}
    served.close()
    public.close()


def test_each_public_file_is_described_as_the_public_index_names_it(served_set):
    site, public, validated = served_set["site"], served_set["public"], served_set["validated"]
    base = public.url.rsplit("/simple/", 1)[0]
    for wheel in validated:
        project = wheel.name.split("-")[0].replace("_", "-")
        page = json.loads((site / "nightly" / project / "index.json").read_text())
        [item] = page["files"]
        meta = core_metadata.read(wheel)
        assert item == {"filename": wheel.name, "url": f"{base}/files/{wheel.name}",
                        "hashes": {"sha256": hashlib.sha256(wheel.read_bytes()).hexdigest()},
                        "size": wheel.stat().st_size, "requires-python": ">=3.11", "yanked": False,
                        "core-metadata": {"sha256": hashlib.sha256(meta).hexdigest()},
                        "dist-info-metadata": {"sha256": hashlib.sha256(meta).hexdigest()}}
        html = (site / "nightly" / project / "index.html").read_text()
        assert f'href="{base}/files/{wheel.name}#sha256=' in html
        assert f'data-core-metadata="sha256={hashlib.sha256(meta).hexdigest()}"' in html
    # the record is per release: the stable channel's release carries none, so it links none
    assert sorted(served_set["result"]["channels"]["stable"]) == [PJRT, PLUGIN]
    assert sorted(served_set["result"]["channels"]["nightly"]) == sorted(["jax", "jaxlib", PJRT, PLUGIN, "ml-dtypes"])


def test_pip_installs_the_validated_set_from_one_index_url(served_set, tmp_path):
    public = served_set["public"]
    public.log.clear()
    code, got, err = pip_install(tmp_path, served_set["url"] + "/nightly/", "--pre", "jax", "jaxlib", PLUGIN)
    assert code == 0, err
    assert {k: got[k] for k in ("jax", "jaxlib", "ml-dtypes", PLUGIN, PJRT)} == {
        "jax": "0.9.1", "jaxlib": "0.9.1", "ml-dtypes": "0.5.0", PLUGIN: NIGHTLY, PJRT: NIGHTLY}
    # the files came from where the public index serves them; its pages were never asked
    assert not [p for p in public.log if p.startswith("/simple/")]
    assert {p.rsplit("/", 1)[1] for p in public.log} >= {w.name for w in served_set["validated"]}


def test_uv_installs_the_validated_set_from_one_index_url(served_set, tmp_path):
    code, got, err = uv_install(tmp_path, served_set["url"] + "/nightly/", "--prerelease", "allow",
                                "jax", "jaxlib", PLUGIN)
    assert code == 0, err
    assert (got["jax"], got["jaxlib"], got[PLUGIN], got[PJRT]) == ("0.9.1", "0.9.1", NIGHTLY, NIGHTLY)


def recipe(url: str) -> str:
    """The uv project of the docs page, with the channel's address in place of ``<URL>``."""
    blocks = re.findall(r"```toml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1 and "unsafe-best-match" not in blocks[0]
    return blocks[0].replace("<URL>", url)


def test_the_uv_project_recipe_of_the_docs_installs_the_set_and_the_rest_from_the_default_index(
        served_set, tmp_path):
    """The four projects come from the channel only (the public index's newer jax 0.9.2 is not
    taken); what the recipe does not pin (ml-dtypes) comes from the default index."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(recipe(served_set["url"]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_"))}
    env.update(UV_NO_CONFIG="1", UV_CACHE_DIR=str(tmp_path / "uv-cache"), UV_PYTHON_DOWNLOADS="never",
               UV_DEFAULT_INDEX=served_set["public"].url)
    done = subprocess.run([uv_bin(), "sync", "--python", sys.executable], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    got = installed(project / ".venv" / "bin" / "python")
    assert (got["jax"], got["jaxlib"], got[PLUGIN], got[PJRT], got["ml-dtypes"]) == (
        "0.9.1", "0.9.1", NIGHTLY, NIGHTLY, "0.5.0")
    lock = (project / "uv.lock").read_text()
    assert re.search(r'name = "jax"\nversion = "0.9.1"\nsource = \{ registry = "' + re.escape(served_set["url"]), lock)
    assert re.search(r'name = "ml-dtypes"\nversion = "0.5.0"\nsource = \{ registry = "'
                     + re.escape(served_set["public"].url.rstrip("/")), lock)


# ------------------------------------------------------------------ the record, unit by unit

_HEX = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
_FILES = st.builds(
    public_files.PublicFile,
    filename=st.sampled_from(["jax-0.9.1-py3-none-any.whl", "jaxlib-0.9.1-cp312-cp312-manylinux_2_27_x86_64.whl",
                              "ml_dtypes-0.5.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"]),
    url=st.from_regex(r"https://files\.example/packages/[a-z0-9/]{1,20}/x\.whl", fullmatch=True),
    sha256=_HEX, size=st.none() | st.integers(0, 10**12),
    requires_python=st.none() | st.sampled_from([">=3.11", ">=3.11, <3.15", "~=3.12", "!=3.12.0"]),
    metadata_sha256=st.none() | _HEX)


@given(st.lists(_FILES, max_size=5))
def test_the_record_reads_back_exactly_what_validate_wrote(files):
    got = public_files.from_text(public_files.to_text(files))
    assert list(got) == sorted({f.filename: f for f in files}.values(), key=lambda f: f.filename)


@pytest.mark.parametrize("edit", [
    lambda t: t.replace("https://", "file://"),  # a link to a file of some machine
    lambda t: t.replace("| 12 |", "| twelve |"),
    lambda t: t + "\n| [evil.whl](https://x/evil.whl) | `abc` | - | - | - |",
    lambda t: t + "\nsome words a person added"])
def test_a_record_edited_by_hand_is_refused_naming_the_line(edit):
    text = public_files.to_text([public_files.PublicFile("jax-0.9.1-py3-none-any.whl", "https://x/jax.whl",
                                                         "a" * 64, 12)])
    with pytest.raises(public_files.RecordError, match=r"^where, line \d+: "):
        public_files.from_text(edit(text), "where")


def release_with(tag: str, files: list[public_files.PublicFile] | None, raw: str | None = None) -> Release:
    body = notes.write(notes.Notes(ours=True, validated="a" * 64,
                                   validated_with=raw or (public_files.to_text(files) if files else None)))
    return Release(id=hash(tag) & 0xFFFF, tag=tag, name=tag, body=body, draft=False, prerelease=False,
                   created_at=None, published_at=None)


def test_a_channel_links_each_file_once_as_the_newest_release_recorded_it_and_never_its_own_projects():
    jax_old = public_files.PublicFile("jax-0.9.1-py3-none-any.whl", "https://old.example/jax.whl", "a" * 64, 1)
    jax_new = public_files.PublicFile("jax-0.9.1-py3-none-any.whl", "https://new.example/jax.whl", "b" * 64, 2)
    ours = public_files.PublicFile("jax_rocm7_pjrt-0.9.1-py3-none-manylinux_2_28_x86_64.whl",
                                   "https://pypi.example/pjrt.whl", "c" * 64, 3)
    jaxlib = public_files.PublicFile("jaxlib-0.9.0-py3-none-any.whl", "https://old.example/jaxlib.whl", "d" * 64)
    said: list[str] = []
    for order in (1, -1):  # the order given is newest first, whatever the order of the files
        releases = [release_with("rocm-jax-v0.9.1.dev2", [jax_new, ours]),
                    release_with("rocm-jax-v0.9.1.dev1", [jaxlib, jax_old][::order]),
                    release_with("rocm-jax-v0.9.1.dev0", None, raw="| hand edited |")]
        got = public_files.linked(releases, {PJRT, PLUGIN}, said.append)
        assert sorted(got, key=lambda f: f.filename) == [jax_new, jaxlib]
    assert len(said) == 2 and said[0].startswith("warning: rocm-jax-v0.9.1.dev0's validated-with section, line 1")


@pytest.mark.parametrize("kind", ["json", "html"])
def test_a_public_page_names_sha256_size_requires_python_and_metadata_in_either_format(kind):
    meta, digest = "e" * 64, "f" * 64
    if kind == "json":
        text = json.dumps({"meta": {"api-version": "1.1"}, "name": "jax", "files": [
            {"filename": "jax-0.9.1-py3-none-any.whl", "url": "../../f/jax-0.9.1-py3-none-any.whl",
             "hashes": {"sha256": digest}, "size": 7, "requires-python": ">=3.11",
             "dist-info-metadata": {"sha256": meta}},
            {"filename": "jax-0.9.0-py3-none-any.whl", "url": "https://x/j.whl", "hashes": {},
             "core-metadata": True, "size": True}]})
        ctype = "application/vnd.pypi.simple.v1+json"
    else:
        text = ('<a href="../../f/jax-0.9.1-py3-none-any.whl#sha256=' + digest + '" data-requires-python="&gt;=3.11" '
                f'data-dist-info-metadata="sha256={meta}">jax-0.9.1-py3-none-any.whl</a>'
                '<a href="https://x/j.whl" data-core-metadata="true">jax-0.9.0-py3-none-any.whl</a>')
        ctype = "text/html"
    got = public_set.page_entries(ctype, text, "https://pypi.example/simple/jax/")
    assert got["jax-0.9.1-py3-none-any.whl"] == {
        "url": "https://pypi.example/f/jax-0.9.1-py3-none-any.whl", "sha256": digest,
        "size": 7 if kind == "json" else None, "requires_python": ">=3.11", "metadata_sha256": meta}
    assert got["jax-0.9.0-py3-none-any.whl"]["metadata_sha256"] is None  # no digest named: none claimed
    assert got["jax-0.9.0-py3-none-any.whl"]["size"] is None


def test_a_public_file_the_index_does_not_name_as_pip_took_it_is_not_recorded(served_set):
    public, wheel = served_set["public"], served_set["validated"][0]
    base = public.url.rsplit("/simple/", 1)[0]
    files, warnings = public_set.describe([
        Pick("jax", "0.9.1", f"{base}/files/{wheel.name}", "0" * 64),
        Pick("jax", "0.9.3", f"{base}/files/jax-0.9.3-py3-none-any.whl", "1" * 64),
        Pick("nothere", "1.0", f"{base}/files/nothere-1.0-py3-none-any.whl", "2" * 64)], public.url)
    assert files == []
    assert [w.split(": ", 1)[1] for w in warnings] == [
        f"the page names sha256 {hashlib.sha256(wheel.read_bytes()).hexdigest()}, pip took {'0' * 64}",
        "not on its page", "its page could not be read (HTTPError)"]


# ------------------------------------------------------------------ retired projects and lines (PEP 792)


def test_retired_projects_and_lines_carry_their_status_on_the_index_and_the_page(tmp_path):
    store = LocalStore(tmp_path / "store")
    for version in ("0.8.0", "0.9.1.dev20261127"):
        publish(store, tmp_path / "dists", version, None)
    retired = project_status.parse({
        "projects": {"JAX_ROCM7_PJRT": {"status": "deprecated", "reason": "renamed jax-rocm10-pjrt"}},
        "lines": {"0.8": {"status": "archived", "reason": "0.8 & older are not maintained"}}}, "f")
    site = tmp_path / "site"
    build_site(store, site, keep=14, retired=retired)

    def status(channel: str, project: str) -> tuple[dict | None, list[str]]:
        page = json.loads((site / channel / project / "index.json").read_text())
        assert page["meta"]["api-version"] == "1.4"
        html = (site / channel / project / "index.html").read_text()
        return page.get("project-status"), re.findall(r'<meta name="pypi:project-status[^>]*>', html)

    # named: on every channel; by line: where every listed version is on a retired line only
    pjrt = {"status": "deprecated", "reason": "renamed jax-rocm10-pjrt"}
    assert status("stable", PJRT) == status("nightly", PJRT)[:1] + status("stable", PJRT)[1:] == (pjrt, [
        '<meta name="pypi:project-status" content="deprecated">',
        '<meta name="pypi:project-status-reason" content="renamed jax-rocm10-pjrt">'])
    assert status("stable", PLUGIN) == ({"status": "archived", "reason": "0.8 & older are not maintained"}, [
        '<meta name="pypi:project-status" content="archived">',
        '<meta name="pypi:project-status-reason" content="0.8 &amp; older are not maintained">'])
    assert status("nightly", PLUGIN) == (None, [])
    page = (site / "index.html").read_text()
    assert "jax-rocm7-pjrt is deprecated (PEP 792): renamed jax-rocm10-pjrt" in page
    assert page.count("line archived: 0.8 &amp; older are not maintained") == 2  # overview and details
    assert "jax-rocm7-plugin is" not in page


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["projects", "lines", "status", "reason", "0.9", "x-y", "9"]), inner,
                        max_size=3), max_leaves=8))
def test_a_status_file_is_read_whole_or_refused_in_one_line(data):
    try:
        retired = project_status.parse(data, ".github/project-status.json")
    except UserError as exc:
        assert str(exc).startswith(".github/project-status.json") and "\n" not in str(exc)
    else:
        assert all(s.status in project_status.STATUSES for s in [*retired.projects.values(),
                                                                 *retired.lines.values()])


def test_the_default_status_file_may_be_missing_a_given_one_not(tmp_path):
    assert project_status.load(tmp_path / "none.json", given=False) == project_status.Retired()
    with pytest.raises(UserError, match="^--project-status .*none.json: no such file$"):
        project_status.load(tmp_path / "none.json", given=True)


@pytest.mark.parametrize(("versions", "expected"), [
    (["0.8.0", "0.8.1.dev1"], ("archived", "a")),
    (["0.8.0", "0.9.1"], None),  # a live line among them: the project is active
    (["0.7.2.post1", "0.8.0"], ("deprecated", "a; d")),  # archived only when every line is
    (["0.10.0"], None), ([], None)])
def test_a_projects_status_by_line_needs_every_listed_version_on_a_retired_line(versions, expected):
    retired = project_status.parse({"lines": {"0.8": {"status": "archived", "reason": "a"},
                                              "0.7": {"status": "deprecated", "reason": "d"},
                                              "0.1": {"status": "deprecated"}}}, "f")
    got = retired.of_project(PLUGIN, [Version(v) for v in versions])
    assert (None if got is None else (got.status, got.reason)) == expected


# ------------------------------------------------------------------ PEP 740 provenance from the bundles


def bundle_for(name: str, sha256: str, workflow: str = ".github/workflows/nightly.yml") -> dict:
    """A Sigstore bundle (v0.3) of a SLSA statement about ``name``, shaped as GitHub's attest
    action writes it (the index converts it; it verifies no signature itself)."""
    statement = {"_type": "https://in-toto.io/Statement/v1", "subject": [{"name": name, "digest": {"sha256": sha256}}],
                 "predicateType": "https://slsa.dev/provenance/v1",
                 "predicate": {"buildDefinition": {"externalParameters": {"workflow": {
                     "repository": "https://github.com/ROCm/jax-rocm-release", "path": workflow,
                     "ref": "refs/heads/main"}}}}}
    return {"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
            "verificationMaterial": {"certificate": {"rawBytes": base64.b64encode(b"DER " + name.encode()).decode()},
                                     "tlogEntries": [{"logIndex": "7", "kindVersion": {"kind": "dsse"}}]},
            "dsseEnvelope": {"payload": base64.b64encode(json.dumps(statement).encode()).decode(),
                             "payloadType": "application/vnd.in-toto+json",
                             "signatures": [{"sig": base64.b64encode(b"sig " + name.encode()).decode()}]}}


def test_each_wheel_with_an_attestation_bundle_gets_pep740_provenance_the_site_serves(tmp_path):
    store = LocalStore(tmp_path / "store")
    dist = read_dist(build_dist(tmp_path / "dists", NIGHTLY))
    publish_draft(store, dist)
    draft = store.drafts_for(dist.tag)[0]
    wheels = {a.name: a.digest for a in store.list_assets(draft) if a.name.endswith(".whl")}
    plugin = next(n for n in wheels if "plugin" in n)
    pjrt = next(n for n in wheels if "pjrt" in n)
    bundles = {plugin: [bundle_for(plugin, wheels[plugin]), bundle_for(plugin, wheels[plugin], "release.yml")],
               pjrt: [bundle_for(pjrt, "0" * 64)]}  # a bundle about other bytes: no provenance
    for name, lines in bundles.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(b) + "\n" for b in lines))
        store.upload_asset(draft, path, path.name)
    store.update_release(draft, body=notes.changed(draft, validated=current_assets_digest(store, draft)))
    undraft(store, dist.tag)
    said: list[str] = []
    site = tmp_path / "site"
    assert build_site(store, site, keep=14, say=said.append)["bundle_reads"] == 2

    [item] = json.loads((site / "nightly" / PLUGIN / "index.json").read_text())["files"]
    assert item["provenance"] == f"{plugin}.provenance"
    assert f'data-provenance="{plugin}.provenance"' in (site / "nightly" / PLUGIN / "index.html").read_text()
    served = json.loads((site / "nightly" / PLUGIN / item["provenance"]).read_text())
    # the line's channel names the same file, where its page's URL resolves the link
    [in_line] = json.loads((site / "0.9" / "nightly" / PLUGIN / "index.json").read_text())["files"]
    assert {**in_line, "provenance": None} == {**item, "provenance": None}
    resolved = urllib.parse.urljoin(f"https://h.example/site/0.9/nightly/{PLUGIN}/", in_line["provenance"])
    assert resolved == f"https://h.example/site/nightly/{PLUGIN}/{item['provenance']}"
    line_page = (site / "0.9" / "nightly" / PLUGIN / "index.html").read_text()
    assert f'data-provenance="{in_line["provenance"]}"' in line_page
    source = bundles[plugin][0]
    assert served["version"] == 1
    assert [b["publisher"] for b in served["attestation_bundles"]] == [
        {"kind": "GitHub", "repository": "ROCm/jax-rocm-release", "workflow": w}
        for w in ("nightly.yml", "release.yml")]
    assert served["attestation_bundles"][0]["attestations"] == [{
        "version": 1,
        "verification_material": {"certificate": source["verificationMaterial"]["certificate"]["rawBytes"],
                                  "transparency_entries": source["verificationMaterial"]["tlogEntries"]},
        "envelope": {"statement": source["dsseEnvelope"]["payload"],
                     "signature": source["dsseEnvelope"]["signatures"][0]["sig"]}}]
    [other] = json.loads((site / "nightly" / PJRT / "index.json").read_text())["files"]
    assert "provenance" not in other and not (site / "nightly" / PJRT / f"{pjrt}.provenance").exists()
    assert [s for s in said if "provenance" in s] == [
        f"warning: {pjrt}.jsonl of {dist.tag}: its statement's subject is not exactly {pjrt} with its sha256; "
        f"{pjrt} is listed without PEP 740 provenance"]
    # a re-run reads no bundle it read before: the old site's file is linked, the same bytes
    again = build_site(store, site, keep=14)
    assert again["changed"] is False and again["bundle_reads"] == 1  # only the refused one again
    assert json.loads((site / "nightly" / PLUGIN / item["provenance"]).read_text()) == served

    # another bundle for the same wheel (a store edited by hand): its provenance is built anew
    release = store.published_for(dist.tag)
    record_path = store.directory / str(release.id) / "release.json"
    record = json.loads(record_path.read_text())
    text = json.dumps(bundle_for(plugin, wheels[plugin], "hotfix.yml")) + "\n"
    (store.directory / str(release.id) / "assets" / f"{plugin}.jsonl").write_text(text)
    for asset in record["assets"]:
        if asset["name"] == f"{plugin}.jsonl":
            asset.update(digest=hashlib.sha256(text.encode()).hexdigest(), size=len(text))
    record_path.write_text(json.dumps(record))
    assert build_site(store, site, keep=14)["changed"] is True
    again_served = json.loads((site / "nightly" / PLUGIN / item["provenance"]).read_text())
    assert [b["publisher"]["workflow"] for b in again_served["attestation_bundles"]] == ["hotfix.yml"]
