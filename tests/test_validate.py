"""``release validate``: assets as users get them, checked, installed and imported; a failure
changes nothing."""

from __future__ import annotations

import hashlib
import json

from release import provenance
from release.publish import publish_draft, read_dist, undraft, validated_digest
from release.revisions import RevisionMap
from release.stores import LocalStore
from release.validate import validate
from tests.support.publish_dist import gh_store

NIGHTLY = "0.9.1.dev20261122"
TAG = "rocm-jax-v" + NIGHTLY


def test_valid_draft_is_marked_then_can_be_published(fake_github, make_dist):
    store = gh_store(fake_github)
    dist = read_dist(make_dist(NIGHTLY))
    publish_draft(store, dist)
    result = validate(store, TAG)
    assert result.ok, result.problems
    assert result.checked == ["checksums", "provenance", "verify", "install", "import"]
    assert result.marked
    sums = next(a for a in dist.assets if a.name == "SHA256SUMS")
    assert validated_digest(store.drafts_for(TAG)[0].body) == sums.digest
    assert undraft(store, TAG)["status"] == "published"
    # downloads went through the storage host, which never saw the token
    assert any(e[0] == "storage" for e in fake_github.log)


def swap_asset(store, tag, name, data, tmp_path):
    draft = store.drafts_for(tag)[0]
    old = next(a for a in store.list_assets(draft) if a.name == name)
    store.delete_asset(draft, old)
    path = tmp_path / name
    path.write_bytes(data)
    store.upload_asset(draft, path, name)


def test_tampered_asset_fails_and_leaves_the_draft_alone(fake_github, make_dist, tmp_path):
    store = gh_store(fake_github)
    dist = read_dist(make_dist(NIGHTLY))
    publish_draft(store, dist)
    swap_asset(store, TAG, "revisions.json", (dist.directory / "revisions.json").read_bytes() + b" ",
               tmp_path)
    before = fake_github.releases()
    result = validate(store, TAG)
    assert not result.ok and not result.marked
    assert "revisions.json does not match its SHA256SUMS entry" in result.problems
    assert fake_github.releases() == before


def test_wheels_that_disagree_with_revisions_json_fail(make_dist, tmp_path):
    """Consistent checksums, but the wheels embed other commits than revisions.json says."""
    store = LocalStore(tmp_path / "store")
    good = make_dist(NIGHTLY)
    other = make_dist(NIGHTLY, commits={"xla": "6" * 40})
    (good / "revisions.json").write_bytes((other / "revisions.json").read_bytes())
    provenance.write_for_files(good, [p.name for p in good.glob("*.whl")],  # agrees with it
                               RevisionMap.loads((good / "revisions.json").read_text()))
    sums = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n"
                   for p in sorted(good.iterdir()) if p.name != "SHA256SUMS")
    (good / "SHA256SUMS").write_text(sums)
    publish_draft(store, read_dist(good))
    result = validate(store, TAG)
    assert not result.ok
    text = "\n".join(result.problems)
    assert "verify jax_rocm7_pjrt" in text and "revisions" in text
    assert "commit_info.commits" in text  # the installed, imported wheels say so too
    assert validated_digest(store.drafts_for(TAG)[0].body) is None


def test_cli_validate_exit_codes(run_cli, make_dist, tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    where = tmp_path / "rel"
    code, _, err = run_cli("publish", make_dist(NIGHTLY), "--store-dir", where)
    assert code == 0, err
    code, out, err = run_cli("validate", TAG, "--store-dir", where, "--json")
    assert code == 0, err
    assert json.loads(out)["ok"] is True
    code, out, err = run_cli("validate", "rocm-jax-v9.9.9", "--store-dir", where)
    assert code == 2 and "no draft or release of rocm-jax-v9.9.9" in err
    store = LocalStore(where)
    swap_asset(store, TAG, "SHA256SUMS", b"0" * 64 + b"  nothing.whl\n", tmp_path)
    code, out, err = run_cli("validate", TAG, "--store-dir", where)
    assert code == 1
    assert "NOT valid" in out and "lists nothing.whl" in out


def test_runpath_the_config_does_not_set_fails_validation(tmp_path):
    """Shared objects linked without the configured RUNPATH never get published."""
    from release import bazel
    from release.build import build_release
    from release.config import load_project
    from release.plan import make_plan
    from tests.support.elf import compile_artifacts
    from tests.support.project import REPO
    import datetime as dt

    artifacts = compile_artifacts(tmp_path / "art", ["/opt/rocm/lib"])  # only the last entry
    plan = make_plan(load_project(REPO), "nightly", date=dt.date(2026, 11, 22), pythons=("3.11",))
    built = build_release(plan, tmp_path / "dist", root=REPO, artifacts=artifacts)
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(built.directory))
    configured = tuple(bazel.configured_runpath(REPO))
    failed = validate(store, plan.tag, runpath=configured)
    assert not failed.ok and not failed.marked
    missing = [p for p in failed.problems if ": runpath: " in p]
    assert missing and all(".so" in p for p in missing)
    assert validated_digest(store.drafts_for(plan.tag)[0].body) is None
    # The same draft passes when no RUNPATH is required: the check is what failed it.
    assert validate(store, plan.tag, mark=False).ok
