"""Provenance: what ``release build`` writes, the spec's shape, and tampering caught by
``release verify --provenance`` and by ``release validate``.

The wheels are real (``release build --artifacts`` over ELF objects compiled here, or the
publishing tests' small dists); the schema is the one written from the in-toto Statement v1
and SLSA provenance v1 specs, and is itself tested against statements that break them.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from release.build import bazel, provenance
from release.build.provenance_schema import SCHEMA
from release.check.validate import validate
from release.core import naming
from release.core.config import load_deps
from release.core.revisions import RevisionMap
from release.publish.drafts import publish_draft, read_dist, render_body
from release.publish.stores import LocalStore
from tests.support import warm_start
from tests.support.elf import ALL_SOS, compile_so
from tests.support.project import copy_config

REPO = Path(__file__).resolve().parents[1]
PY = f"{sys.version_info.major}.{sys.version_info.minor}"
VERSION = "0.9.1rc2"
NIGHTLY = "0.9.1.dev20261122"
TAG = naming.release_tag(NIGHTLY)
FILE = naming.PROVENANCE_ASSET
ACTIONS_ENV = {"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://github.com",
               "GITHUB_REPOSITORY": "rocm/jax-rocm-release", "GITHUB_RUN_ID": "4242",
               "GITHUB_RUN_ATTEMPT": "3",
               "GITHUB_WORKFLOW_REF": "rocm/jax-rocm-release/.github/workflows/nightly.yml@refs/heads/main"}


def release(*argv, env=None, cwd=None):
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RELEASE_"))}
    return subprocess.run([warm_start.python(), "-m", "release", *map(str, argv)], capture_output=True,
                          text=True, env={**base, **(env or {})}, cwd=cwd)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------- what build writes


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """``release build --kind rc`` of the pjrt wheel and one plugin wheel, from real ELF."""
    tmp = tmp_path_factory.mktemp("prov")
    artifacts = tmp / "artifacts"
    flags = bazel.configured_linkopts()
    for i, name in enumerate(ALL_SOS):
        compile_so(artifacts / name, extra_flags=flags, answer=i)
    root = tmp / "proj"
    root.mkdir()
    copy_config(root)
    proc = release("build", "--kind", "rc", "--number", "2", "--python", PY, "--root", root,
                   "--artifacts", artifacts, "--dist", tmp / "dist", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["provenance"].endswith(FILE)
    return tmp / "dist" / VERSION


def test_build_writes_one_statement_over_every_wheel(built):
    stmt = json.loads((built / FILE).read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(stmt)
    wheels = sorted(built.glob("*.whl"))
    assert len(wheels) == 2
    assert stmt["_type"] == "https://in-toto.io/Statement/v1"
    assert stmt["predicateType"] == "https://slsa.dev/provenance/v1"
    assert stmt["subject"] == [{"name": w.name, "digest": {"sha256": sha(w)}} for w in wheels]
    build = stmt["predicate"]["buildDefinition"]
    assert build["buildType"] == provenance.BUILD_TYPE
    assert build["externalParameters"] == {"kind": "rc", "version": VERSION, "pythons": [PY],
                                           "bazelConfigs": ["rocm_build", "python" + PY.replace(".", "")]}
    deps = load_deps(REPO / "deps.yaml")
    git_deps = {d["name"]: d for d in build["resolvedDependencies"] if d["name"] in deps.names}
    assert set(git_deps) == {"plugin", "jax", "xla"}
    for dep in deps:
        assert git_deps[dep.name]["digest"] == {"gitCommit": dep.commit}
        assert git_deps[dep.name]["uri"] == f"git+{dep.url}@refs/heads/{dep.branch}"
    # Outside Actions: the host builds, and the statement says it is unsigned.
    run = stmt["predicate"]["runDetails"]
    assert run["builder"]["id"].startswith("urn:jax-rocm-release:host:")
    assert run["metadata"]["jaxrocm_signing"]["statement"] == "unsigned"
    assert "outside GitHub Actions" in run["metadata"]["jaxrocm_signing"]["note"]
    # It is checksummed like every other asset.
    sums = (built / "SHA256SUMS").read_text()
    assert f"{sha(built / FILE)}  {FILE}" in sums.splitlines()


def test_build_records_this_repositorys_commit_when_it_is_a_checkout(tmp_path):
    revisions = RevisionMap.from_deps(load_deps(REPO / "deps.yaml"), NIGHTLY, "c" * 40)
    stmt = provenance.statement(version=NIGHTLY, wheels={"a.whl": "0" * 64}, revisions=revisions,
                                pythons=["3.12"], invocation=provenance.Invocation.from_env(ACTIONS_ENV))
    [mine] = [d for d in stmt["predicate"]["buildDefinition"]["resolvedDependencies"]
              if d["name"] == provenance.RELEASE_REPO]
    assert mine == {"name": "jax-rocm-release", "digest": {"gitCommit": "c" * 40},
                    "uri": "git+https://github.com/rocm/jax-rocm-release"}


def test_in_github_actions_the_run_is_the_builder():
    inv = provenance.Invocation.from_env({**ACTIONS_ENV, "RELEASE_ATTESTATIONS": "github"})
    assert inv.builder_id == ("https://github.com/rocm/jax-rocm-release/.github/workflows/"
                              "nightly.yml@refs/heads/main")
    assert inv.invocation_id == "https://github.com/rocm/jax-rocm-release/actions/runs/4242/attempts/3"
    assert inv.signing()["wheels"] == "github-attestation"
    bare = provenance.Invocation.from_env({k: v for k, v in ACTIONS_ENV.items()
                                           if k != "GITHUB_WORKFLOW_REF"})
    assert bare.builder_id == "https://github.com/rocm/jax-rocm-release/actions/runs/4242"
    assert bare.signing()["wheels"] == "unsigned"  # no attestation step said it ran
    host = provenance.Invocation.from_env({}, host="build-7")
    assert host.builder_id == "urn:jax-rocm-release:host:build-7" and host.repository is None


def test_the_finish_stage_writes_one_statement_over_every_cells_wheels(make_dist, monkeypatch):
    """A split build's finish (``write_for_files``, what the collect step calls over the draft's
    wheels): one statement whose subjects are the pjrt cell's and both plugin cells' wheels,
    whose pythons are the plugin cells' and whose invocation is the finishing run's, so the notes
    name a ``gh attestation verify`` line for each wheel. (The collect step itself runs in the
    workflow flow: tests/test_workflow_flow.py.)"""
    dist_dir = make_dist(NIGHTLY, pythons=("3.12", "3.11"))
    revisions = read_dist(dist_dir).revisions
    for key in [k for k in os.environ if k.startswith("GITHUB_")]:
        monkeypatch.delenv(key)
    for key, value in {**ACTIONS_ENV, "RELEASE_ATTESTATIONS": "github"}.items():
        monkeypatch.setenv(key, value)
    wheels = sorted(p.name for p in dist_dir.glob("*.whl"))
    assert len(wheels) == 3
    stmt = json.loads(provenance.write_for_files(dist_dir, wheels, revisions).read_text())
    assert {s["name"]: s["digest"]["sha256"] for s in stmt["subject"]} == {
        name: sha(dist_dir / name) for name in wheels}
    assert stmt["predicate"]["buildDefinition"]["externalParameters"]["pythons"] == ["3.11", "3.12"]
    assert stmt["predicate"]["runDetails"]["metadata"]["invocationId"] == (
        "https://github.com/rocm/jax-rocm-release/actions/runs/4242/attempts/3")
    assert provenance.attestation_commands(stmt) == [
        f"gh attestation verify {name} --repo rocm/jax-rocm-release" for name in wheels]


def test_a_token_in_a_deps_url_never_reaches_the_statement():
    revisions = RevisionMap.from_deps(load_deps(REPO / "deps.yaml"), NIGHTLY)
    data = revisions.to_json()
    data["deps"]["xla"]["url"] = "https://x-access-token:ghs_SECRETSECRETSECRET@github.com/ROCm/xla"
    [xla] = [d for d in provenance.dependency_descriptors(data["deps"], None) if d["name"] == "xla"]
    assert xla["uri"].startswith("git+https://github.com/ROCm/xla@refs/heads/")
    assert "SECRET" not in json.dumps(xla)


def test_archive_and_patches_become_part_of_the_dependencies_when_the_map_knows_them():
    deps = load_deps(REPO / "deps.yaml")
    jax = deps["jax"]
    pinned = dataclasses.replace(jax, archive_sha256="b" * 64,
                                 patches=("//third_party/jax:a.patch", "//third_party/jax:b.patch"))
    bare_xla = dataclasses.replace(deps["xla"], archive_sha256=None, patches=())  # whatever deps.yaml ships
    changed = {"jax": pinned, "xla": bare_xla}
    deps = dataclasses.replace(deps, items=tuple(changed.get(d.name, d) for d in deps))
    revisions = RevisionMap.from_deps(deps, NIGHTLY, "d" * 40)
    stmt = provenance.statement(version=NIGHTLY, wheels={"a.whl": "0" * 64}, revisions=revisions,
                                pythons=[], invocation=provenance.Invocation.from_env({}, host="h"))
    found = {d["name"]: d for d in stmt["predicate"]["buildDefinition"]["resolvedDependencies"]}
    assert found["jax"]["annotations"] == {"branch": jax.branch, "patches": [
        "//third_party/jax:a.patch", "//third_party/jax:b.patch"]}
    assert found["jax/archive"]["digest"] == {"sha256": "b" * 64}
    assert "patches" not in found["xla"]["annotations"] and "xla/archive" not in found
    jsonschema.Draft202012Validator(SCHEMA).validate(stmt)
    # A patch dropped from the statement is a mismatch with revisions.json.
    found["jax"]["annotations"]["patches"].pop()
    problems = provenance.check(stmt, wheels={"a.whl": "0" * 64}, version=NIGHTLY,
                                revisions=revisions)
    assert any("dependency jax annotations" in p for p in problems), problems


# --------------------------------------------------------------------- the schema itself


def _valid() -> dict:
    revisions = RevisionMap.from_deps(load_deps(REPO / "deps.yaml"), NIGHTLY, "d" * 40)
    return provenance.statement(version=NIGHTLY, wheels={"x.whl": "e" * 64}, revisions=revisions,
                                pythons=["3.12"], invocation=provenance.Invocation.from_env({}, host="h"))


BREAKS = {
    "wrong _type": lambda s: s.update(_type="https://in-toto.io/Statement/v0.1"),
    "no subject": lambda s: s.update(subject=[]),
    "subject without digest": lambda s: s["subject"][0].pop("digest"),
    "upper-case sha256": lambda s: s["subject"][0]["digest"].update(sha256="E" * 64),
    "short sha256": lambda s: s["subject"][0]["digest"].update(sha256="e" * 63),
    "wrong predicateType": lambda s: s.update(predicateType="https://slsa.dev/provenance/v0.2"),
    "no buildType": lambda s: s["predicate"]["buildDefinition"].pop("buildType"),
    "buildType not a URI": lambda s: s["predicate"]["buildDefinition"].update(buildType="wheels"),
    "no externalParameters": lambda s: s["predicate"]["buildDefinition"].pop("externalParameters"),
    "dependency with neither uri, digest nor content": lambda s: s["predicate"]["buildDefinition"]
    ["resolvedDependencies"].append({"name": "loose"}),
    "bad gitCommit": lambda s: s["predicate"]["buildDefinition"]["resolvedDependencies"][0]
    ["digest"].update(gitCommit="abc"),
    "no builder id": lambda s: s["predicate"]["runDetails"]["builder"].pop("id"),
    "no runDetails": lambda s: s["predicate"].pop("runDetails"),
    "bad timestamp": lambda s: s["predicate"]["runDetails"]["metadata"].update(startedOn="yesterday"),
}


@pytest.mark.parametrize("case", BREAKS)
def test_the_schema_rejects_what_the_specs_forbid(case):
    stmt = _valid()
    assert provenance.schema_problems(stmt) == []
    BREAKS[case](stmt)
    assert provenance.schema_problems(stmt), case
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SCHEMA).validate(stmt)


def test_the_schema_is_a_valid_2020_12_schema_and_allows_extension_fields():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    stmt = _valid()
    stmt["predicate"]["runDetails"]["metadata"]["acme_extra"] = {"anything": 1}
    stmt["predicate"]["runDetails"]["metadata"]["finishedOn"] = "2026-11-23T03:04:05Z"
    assert provenance.schema_problems(stmt) == []


def test_the_official_in_toto_bindings_read_the_statement(built):
    """in-toto's own Python bindings (in-toto-attestation: the Statement and SLSA provenance v1
    protos) parse the file strictly and validate it: a second opinion beside our schema.
    The one field they cannot know is our SLSA extension field, which is taken out first."""
    from google.protobuf import json_format
    from in_toto_attestation.predicates.provenance.v1 import provenance_pb2
    from in_toto_attestation.v1 import statement_pb2
    from in_toto_attestation.v1.statement import Statement

    for stmt in (json.loads((built / FILE).read_text()), _valid()):
        predicate = copy.deepcopy(stmt["predicate"])
        assert predicate["runDetails"]["metadata"].pop(provenance.SIGNING_FIELD)
        json_format.ParseDict(predicate, provenance_pb2.Provenance())   # strict: no unknown field
        parsed = json_format.ParseDict(stmt, statement_pb2.Statement())
        Statement.copy_from_pb(parsed).validate()
        assert parsed.predicate_type == "https://slsa.dev/provenance/v1"
        assert [s.digest["sha256"] for s in parsed.subject] == [s["digest"]["sha256"]
                                                               for s in stmt["subject"]]
    broken = _valid()
    broken["subject"] = []
    with pytest.raises(ValueError):
        Statement.copy_from_pb(json_format.ParseDict(broken, statement_pb2.Statement())).validate()


# --------------------------------------------------------------------- verify --provenance


def verify(dist: Path, *extra, provenance_file: Path | None = None):
    wheels = sorted(dist.glob("*.whl"))
    return release("verify", *wheels, "--provenance", provenance_file or dist / FILE,
                   "--revisions", dist / "revisions.json", "--runpath", "$ORIGIN/../rocm/lib",
                   "--json", *extra)


def test_verify_passes_the_built_dist(built):
    proc = verify(built)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["provenance"] == {"file": str(built / FILE), "ok": True, "problems": []}


def tampered(built: Path, tmp_path: Path, change) -> Path:
    copy_dir = tmp_path / "tampered" / VERSION
    shutil.copytree(built, copy_dir)
    change(copy_dir)
    return copy_dir


def edit_statement(fn):
    def change(directory: Path):
        stmt = json.loads((directory / FILE).read_text())
        fn(stmt)
        (directory / FILE).write_text(json.dumps(stmt))
    return change


def swap_wheel(directory: Path):
    """A wheel with the same name and revision map but other bytes (its zip comment)."""
    import zipfile
    wheel = next(directory.glob("jax_rocm7_plugin-*.whl"))
    with zipfile.ZipFile(wheel, "a") as zf:
        zf.comment = b"swapped"


def _dep(stmt, name):
    return next(d for d in stmt["predicate"]["buildDefinition"]["resolvedDependencies"]
                if d["name"] == name)


TAMPERING = {
    "a wheel": (swap_wheel, "the file hashes to"),
    "a digest": (edit_statement(lambda s: s["subject"][0]["digest"].update(sha256="0" * 64)),
                 "says sha256 000000000000"),
    "a dependency": (edit_statement(lambda s: _dep(s, "xla")["digest"].update(gitCommit="1" * 40)),
                     "dependency xla digest"),
    "a dependency's branch": (edit_statement(lambda s: _dep(s, "jax").update(
        uri=_dep(s, "jax")["uri"].rsplit("@", 1)[0] + "@refs/heads/evil")), "dependency jax uri"),
    "a dropped subject": (edit_statement(lambda s: s["subject"].pop()), "is not a subject of"),
    "an extra subject": (edit_statement(lambda s: s["subject"].append(
        {"name": "evil.whl", "digest": {"sha256": "2" * 64}})), "subject evil.whl is not one of"),
    "an extra dependency": (edit_statement(lambda s: s["predicate"]["buildDefinition"]
                                           ["resolvedDependencies"].append(
        {"name": "evil", "digest": {"gitCommit": "3" * 40}})), "dependency evil is not in"),
    "the version": (edit_statement(lambda s: s["predicate"]["buildDefinition"]
                                   ["externalParameters"].update(version="9.9.9")), "version is"),
    "the shape": (edit_statement(lambda s: s.pop("predicateType")), "predicateType"),
}


@pytest.mark.parametrize("case", TAMPERING)
def test_verify_catches_tampering(built, tmp_path, case):
    change, expected = TAMPERING[case]
    directory = tampered(built, tmp_path, change)
    proc = verify(directory)
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["provenance"]["ok"] is False
    assert any(expected in p for p in data["provenance"]["problems"]), data["provenance"]


def test_verify_compares_with_the_wheels_own_revision_maps(built, tmp_path, make_dist):
    """A provenance that matches revisions.json but not what the wheels embed is refused."""
    other = make_dist(VERSION, commits={"xla": "5" * 40})
    wheels = sorted(other.glob("*.whl"))
    honest = RevisionMap.loads((built / "revisions.json").read_text())
    provenance.write_for_files(other, [w.name for w in wheels], honest)
    problems = provenance.check_files(other / FILE, wheels, version=VERSION)
    assert any("revision map" in p and "dependency xla" in p for p in problems), problems


def test_verify_refuses_a_missing_provenance_file_in_one_line(built, tmp_path):
    proc = verify(built, provenance_file=tmp_path / "nope.json")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "nope.json" in proc.stderr


def test_verify_reports_a_file_that_is_not_json(built, tmp_path):
    directory = tampered(built, tmp_path, lambda d: (d / FILE).write_text("{not json"))
    proc = verify(directory)
    assert proc.returncode == 1
    assert "is not JSON" in " ".join(json.loads(proc.stdout)["provenance"]["problems"])


# --------------------------------------------------------------------- validate


def _replace_asset(store, release_, name: str, path: Path):
    old = next(a for a in store.list_assets(release_) if a.name == name)
    store.delete_asset(release_, old)
    store.upload_asset(release_, path, name)


def _tamper_store(store, tag, change, tmp_path):
    """Change the draft's assets as a hostile store could, and keep SHA256SUMS consistent,
    so only the provenance check can notice."""
    draft = store.drafts_for(tag)[0]
    work = tmp_path / "work"
    work.mkdir()
    for asset in store.list_assets(draft):
        store.download_asset(draft, asset, work / asset.name)
    before = {p.name: sha(p) for p in work.iterdir()}
    change(work)
    for path in sorted(work.iterdir()):
        if path.name != naming.CHECKSUMS_ASSET and sha(path) != before[path.name]:
            _replace_asset(store, draft, path.name, path)
    sums = work / naming.CHECKSUMS_ASSET
    sums.write_text("".join(f"{sha(p)}  {p.name}\n" for p in sorted(work.iterdir())
                            if p.name != naming.CHECKSUMS_ASSET))
    _replace_asset(store, draft, sums.name, sums)


def _rebuilt_plugin(make_dist):
    """The same plugin wheel (name, version, revision map) with other bytes."""
    other = make_dist(NIGHTLY, requires_python=">=3.10")
    return next(other.glob("jax_rocm7_plugin-*.whl"))


@pytest.mark.parametrize("case", ["a wheel", "a digest", "a dependency"])
def test_validate_catches_tampering(make_dist, tmp_path, case):
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(NIGHTLY)))
    assert validate(store, TAG, mark=False).ok
    if case == "a wheel":
        rebuilt = _rebuilt_plugin(make_dist)
        change, expected = (lambda d: shutil.copy(rebuilt, d / rebuilt.name)), "the file hashes to"
    else:
        change, expected = TAMPERING[case]
    _tamper_store(store, TAG, change, tmp_path)
    result = validate(store, TAG)
    assert not result.ok
    assert any(expected in p for p in result.problems), result.problems
    assert not any("SHA256SUMS" in p for p in result.problems), result.problems
    assert not result.marked


def test_validate_requires_the_provenance_asset(make_dist, tmp_path):
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(NIGHTLY)))
    draft = store.drafts_for(TAG)[0]
    store.delete_asset(draft, next(a for a in store.list_assets(draft) if a.name == FILE))
    result = validate(store, TAG)
    assert any(f"no {FILE} asset" in p for p in result.problems)


def test_publish_refuses_a_dist_whose_provenance_disagrees(make_dist):
    from release.core.errors import UserError
    dist_dir = make_dist(NIGHTLY)
    edit_statement(lambda s: _dep(s, "xla")["digest"].update(gitCommit="1" * 40))(dist_dir)
    (dist_dir / "SHA256SUMS").write_text("".join(
        f"{sha(p)}  {p.name}\n" for p in sorted(dist_dir.iterdir()) if p.name != "SHA256SUMS"))
    with pytest.raises(UserError) as err:
        read_dist(dist_dir)
    assert "dependency xla" in str(err.value) and str(err.value).count("\n") == 0


# --------------------------------------------------------------------- release notes


def test_notes_show_gh_attestation_verify_per_wheel_only_when_attested(make_dist):
    dist_dir = make_dist(NIGHTLY)
    plain = read_dist(dist_dir)
    body = render_body(plain, "")
    assert "### Provenance" in body and "gh attestation verify" not in body
    assert "outside GitHub Actions" in body
    revisions = plain.revisions
    wheels = {w.name: w.digest for w in plain.wheels}
    provenance.write_dist(dist_dir, wheels, revisions, invocation=provenance.Invocation.from_env(
        {**ACTIONS_ENV, "RELEASE_ATTESTATIONS": "github"}))
    (dist_dir / "SHA256SUMS").write_text("".join(
        f"{sha(p)}  {p.name}\n" for p in sorted(dist_dir.iterdir()) if p.name != "SHA256SUMS"))
    body = render_body(read_dist(dist_dir), "")
    for name in wheels:
        assert f"gh attestation verify {name} --repo rocm/jax-rocm-release" in body
    assert body.count("gh attestation verify") == len(wheels)


def test_a_revision_map_that_inflates_past_the_bound_is_never_read(tmp_path):
    """A hostile wheel's commit_info.py that would inflate to megabytes is not inflated."""
    import zipfile
    wheel = tmp_path / "jax_rocm7_pjrt-0.9.1-py3-none-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("jax_plugins/xla_rocm7/commit_info.py", "#" * (provenance.MAX_COMMIT_INFO + 1))
    assert wheel.stat().st_size < 64 * 1024
    assert provenance.wheel_revision_map(wheel) is None
    problems = provenance.check_files(_write(tmp_path, _valid()), [wheel])
    assert any("no readable revision map" in p for p in problems), problems


def _write(directory: Path, stmt: dict) -> Path:
    return provenance.write(directory, stmt)
