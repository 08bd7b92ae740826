"""``release pypi-upload``: a published release's validated bytes reach a real index
(pypiserver on 127.0.0.1), pjrt first, both wheels or neither; a re-run finishes what a
killed one started; other bytes under a file's name are refused; no credential is ever shown."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys

import pytest

from release.check.resolver import pip_argv
from release.core import naming
from release.publish import pypi, pypi_budget
from release.publish.stores import LocalStore
from tests.support.build import run_python
from tests.support.publish_dist import release_dist
from tests.support.pypi_server import PASSWORD, pypi_server  # noqa: F401 (fixture)

VERSION = "0.9.1"
TAG = naming.release_tag(VERSION)
PJRT = naming.pjrt_wheel(7, VERSION)


@pytest.fixture
def env(monkeypatch, tmp_path, pypi_server):
    """twine's variables name the local index; no ~/.pypirc, no keyring of this machine; no
    secret registered by an earlier test (the redaction registry lives as long as the process)."""
    from release.core import redact
    monkeypatch.setattr(redact, "_SECRETS", set())
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    monkeypatch.setenv("TWINE_REPOSITORY_URL", pypi_server.upload_url)
    monkeypatch.setenv("TWINE_PASSWORD", PASSWORD)
    for name in ("TWINE_USERNAME", "TWINE_REPOSITORY", "ACTIONS_ID_TOKEN_REQUEST_URL",
                 "ACTIONS_ID_TOKEN_REQUEST_TOKEN", pypi.FILE_LIMIT_ENV):
        monkeypatch.delenv(name, raising=False)
    # pypiserver lists files without their sizes (no PEP 700) and has no project limit
    monkeypatch.setenv(pypi_budget.PROJECT_LIMIT_ENV, "none")
    return pypi_server


@pytest.fixture
def released(make_dist, tmp_path):
    """A published, validated release of VERSION in a local store: (store, dist, flags)."""
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, make_dist(VERSION))
    flags = ["--store", "local", "--store-dir", store.directory, "--dist", dist.directory.parent]
    return store, dist, flags


def release_sums(dist) -> dict[str, str]:
    return {a.name: a.digest for a in dist.wheels}


def pip_install_from(python, index_url: str, requirement: str) -> subprocess.CompletedProcess:
    """pip installing from the index alone, as a user of that index does."""
    return subprocess.run([*pip_argv(python), "install", "--no-cache-dir",
                           "--disable-pip-version-check", "--index-url", index_url, requirement],
                          capture_output=True, text=True, env={**os.environ, "NO_PROXY": "127.0.0.1"})


def test_both_wheels_land_pjrt_first_and_pip_installs_them(env, released, run_cli, bare_venv):
    store, dist, flags = released
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert env.files() == release_sums(dist)
    sent = [next(v for k, v in fields if k == "sha256_digest") for _, fields in env.uploads]
    by_sha = {a.digest: a.name for a in dist.wheels}
    assert [by_sha[s] for s in sent][0] == PJRT  # the pjrt goes first
    assert sorted(by_sha[s] for s in sent) == sorted(release_sums(dist))
    assert result["complete"] is True and result["notes"] == "updated"
    body = store.published_for(TAG).body
    assert "<!-- pypi -->" in body and body.count("| yes |") == len(dist.wheels)
    # the index serves them as pip sees them
    done = pip_install_from(bare_venv, env.index_url, f"{naming.plugin_dist(7)}=={VERSION}")
    assert done.returncode == 0, done.stderr
    assert run_python(bare_venv, "import jax_rocm7_plugin, jax_plugins.xla_rocm7 as p; "
                                 "print(jax_rocm7_plugin.__version__, p.__version__)").split() == [VERSION] * 2


def test_rerun_uploads_nothing_and_leaves_the_notes(env, released, run_cli):
    store, dist, flags = released
    assert run_cli("pypi-upload", TAG, *flags)[0] == 0
    body, count = store.published_for(TAG).body, len(env.uploads)
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert len(env.uploads) == count and result["uploaded"] == []
    assert {f["action"] for f in result["files"]} == {"present"} and result["notes"] == "unchanged"
    assert store.published_for(TAG).body == body


def test_a_kill_between_the_two_uploads_is_finished_by_a_rerun(env, released, run_cli, tmp_path):
    store, dist, flags = released
    env.hold(2)  # the plugin's upload: the pjrt is on the index, then the process dies
    proc = subprocess.Popen([sys.executable, "-m", "release", "pypi-upload", TAG, *map(str, flags)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
    try:
        assert env.arrived.wait(timeout=60), proc.communicate(timeout=5)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        env.release.set()
    assert list(env.files()) == [PJRT]  # half there: the pjrt alone, never a plugin alone
    assert "<!-- pypi -->" not in store.published_for(TAG).body
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert env.files() == release_sums(dist)
    assert {f["name"]: f["action"] for f in result["files"]} == {
        a.name: "present" if a.name == PJRT else "uploaded" for a in dist.wheels}


def test_an_upload_with_no_answer_in_time_is_exit_3_and_a_rerun_settles_it(env, released, run_cli, monkeypatch):
    """The index kept the pjrt upload past the deadline and stored it later: the run ends
    (exit 3, saying it may have been stored); the re-run finds it and uploads the rest."""
    from release.publish import pypi_index
    store, dist, flags = released
    monkeypatch.setattr(pypi_index, "UPLOAD_TIMEOUT", 0.3)
    env.hold(1, then_store=True)
    code, out, err = run_cli("pypi-upload", TAG, *flags)
    assert code == 3 and "no answer to the upload of " + PJRT in err and "re-run" in err
    env.release.set()
    assert env.stored.wait(timeout=30)
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--json")
    assert code == 0, err
    assert {f["name"]: f["action"] for f in json.loads(out)["files"]} == {
        a.name: "present" if a.name == PJRT else "uploaded" for a in dist.wheels}
    assert env.files() == release_sums(dist)


def test_other_bytes_under_a_name_are_refused_before_anything_is_uploaded(env, released, run_cli):
    store, dist, flags = released
    plugin = next(a for a in dist.wheels if a.name != PJRT)
    env.put(plugin.path, b"not the validated bytes")
    code, out, err = run_cli("pypi-upload", TAG, *flags)
    assert code == 3
    assert err.count("\n") == 1 and plugin.name in err and "nothing was uploaded" in err
    assert env.uploads == [] and PJRT not in env.files()


@pytest.mark.parametrize("same", [True, False])
def test_an_index_that_answers_already_exists_is_asked_for_the_bytes(env, make_dist, tmp_path, run_cli, same):
    """Its pages lagged (the first listing missed a file someone else had uploaded): the same
    bytes count as there; other bytes stop the run at once, naming what went up before it."""
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, make_dist(VERSION, pythons=("3.11", "3.12")))
    flags = ["--store", "local", "--store-dir", store.directory, "--dist", dist.directory.parent]
    plugin = sorted((a for a in dist.wheels if a.name != PJRT), key=lambda a: a.name)[0]
    env.put(plugin.path, None if same else b"other bytes")
    env.stale_pages = 2
    code, out, err = run_cli("pypi-upload", TAG, *flags)
    if same:
        assert code == 0, err
        assert env.files() == release_sums(dist)
        assert len(env.uploads) == 3
    else:
        assert code == 3 and plugin.name in err and f"uploaded before this: {PJRT}" in err
        sent = [sha for _, fields in env.uploads for k, sha in fields if k == "sha256_digest"]
        assert sent == [next(a.digest for a in dist.wheels if a.name == PJRT), plugin.digest]  # then stop


def _two_pythons(make_dist, tmp_path):
    """A published release with a pjrt and two plugin wheels: (store, dist, flags, upload order)."""
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, make_dist(VERSION, pythons=("3.11", "3.12")))
    flags = ["--store", "local", "--store-dir", store.directory, "--dist", dist.directory.parent]
    return store, dist, flags, [PJRT] + sorted(a.name for a in dist.wheels if a.name != PJRT)


def sent_digests(env) -> list[str]:
    return [sha for _, fields in env.uploads for k, sha in fields if k == "sha256_digest"]


@pytest.mark.parametrize("lost", [0, 1, 2])
def test_a_file_the_index_takes_but_does_not_list_stops_the_run_before_the_next(env, make_dist, tmp_path,
                                                                                run_cli, monkeypatch, lost):
    """Both wheels or neither: an index that answers 200 for a file and then does not list it
    (asked again after each wait) gets nothing more, and the run is exit 3, not done. Lost: the
    pjrt (no plugin may follow), the first plugin, or the last file (read back before done)."""
    store, dist, flags, order = _two_pythons(make_dist, tmp_path)
    digest = {a.name: a.digest for a in dist.wheels}
    monkeypatch.setattr(pypi, "READBACK_WAITS", (0.0, 0.0))
    env.lose = {order[lost]}
    code, out, err = run_cli("pypi-upload", TAG, *flags)
    assert code == 3, err
    assert err.count("\n") == 1 and f"does not list {order[lost]} " in err and "re-run" in err
    assert sent_digests(env) == [digest[n] for n in order[:lost + 1]]  # nothing after the lost file
    assert sorted(env.files()) == sorted(order[:lost])
    assert "<!-- pypi -->" not in store.published_for(TAG).body  # the notes never say done
    env.lose = set()
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--json")
    assert code == 0, err
    assert json.loads(out)["complete"] is True and env.files() == release_sums(dist)


def test_a_listing_that_lags_after_an_upload_is_asked_again_then_the_next_file_goes(env, released):
    """Pages that lag (a cache) are waited for, with the waits given as the run's clock, and
    the plugin goes only once the pjrt is listed."""
    from release.publish.pypi_index import find_repository
    store, dist, flags = released
    files = pypi.stage(store, pypi.read_release(store, TAG, tmp_work(dist), say=print), dist.directory,
                       say=print)
    env.stale_pages = 2 + 2  # the first look at both projects, then two asks after the pjrt's upload
    slept: list[float] = []
    result = pypi.upload_release(files, find_repository(), attach=False, dry_run=False, say=print,
                                 sleep=slept.append)
    assert slept == list(pypi.READBACK_WAITS[:2])
    assert result["complete"] is True and env.files() == release_sums(dist)
    assert [name for name, _ in env.uploads][0] == "jax-rocm7-pjrt"


def tmp_work(dist):
    return dist.directory / "pypi"


def test_files_already_in_the_work_folder_with_other_bytes_are_never_sent(env, released, run_cli, tmp_path):
    """PyPI gets only the validated bytes: every wheel's name already in the work folder with
    other bytes (one of the same size, one not) is fetched again, and the index gets the release's."""
    store, dist, flags = released
    work = tmp_path / "work"
    work.mkdir()
    for n, wheel in enumerate(dist.wheels):
        (work / wheel.name).write_bytes(b"\0" * (wheel.size if n % 2 == 0 else 7))
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--work", work)
    assert code == 0, err
    assert env.files() == release_sums(dist)
    assert sorted(sent_digests(env)) == sorted(a.digest for a in dist.wheels)


def test_a_dry_run_writes_nothing_release_notes_included(env, released, run_cli):
    """Before any upload and after one: a dry run sends nothing and leaves the notes as they are."""
    store, dist, flags = released
    for upload_first in (False, True):
        if upload_first:
            assert run_cli("pypi-upload", TAG, *flags, "--no-notes")[0] == 0
        body, sent = store.published_for(TAG).body, list(env.uploads)
        for extra in ([], ["--json"]):
            code, out, err = run_cli("pypi-upload", TAG, *flags, "--dry-run", *extra)
            assert code == 0, err
        assert store.published_for(TAG).body == body and "<!-- pypi -->" not in body
        assert env.uploads == sent


def tamper(store, tag, change):
    """Edit a local store's record of a published release (what a store that lies would say)."""
    from release.publish import notes
    from release.publish.drafts import assets_digest
    release = store.published_for(tag)
    path = store.directory / str(release.id) / "release.json"
    data = json.loads(path.read_text())
    change(data)
    digest = assets_digest({a["name"]: a["digest"] for a in data["assets"]})
    data["body"] = notes.write(dataclasses.replace(notes.read(data["body"]), validated=digest))
    path.write_text(json.dumps(data))


def test_only_the_assets_validate_marked_go_up(env, released, run_cli):
    from release.publish import notes
    store, dist, flags = released
    release = store.published_for(TAG)
    path = store.directory / str(release.id) / "release.json"
    data = json.loads(path.read_text())
    data["assets"][0]["digest"] = "0" * 64  # the store now says another sha256 than validate saw
    path.write_text(json.dumps(data))
    code, out, err = run_cli("pypi-upload", TAG, *flags)
    assert code == 2 and "not the ones `release validate` marked" in err and env.uploads == []
    data["body"] = notes.write(dataclasses.replace(notes.read(data["body"]), validated=None))
    path.write_text(json.dumps(data))
    code, out, err = run_cli("pypi-upload", TAG, *flags)
    assert code == 2 and "no validated mark" in err and env.uploads == []


@pytest.mark.parametrize("drop", ["plugin", "pjrt"])
def test_a_release_without_its_pair_never_goes_up(env, released, run_cli, drop):
    store, dist, flags = released
    tamper(store, TAG, lambda data: data.update(assets=[
        a for a in data["assets"] if not a["name"].startswith(f"jax_rocm7_{drop}")]))
    code, out, err = run_cli("pypi-upload", TAG, *flags)
    assert code == 2 and "both or neither" in err and env.uploads == []


def test_a_release_missing_one_of_the_lines_majors_never_goes_up(env, released, run_cli, tmp_path):
    """The checkout's line builds ROCm 7 and 10 (version_info.json rocm_versions): a release of
    ROCm 7 alone is half a release, and nothing of it goes to the index."""
    from tests.support.project import copy_config
    store, dist, flags = released
    (tmp_path / "line").mkdir()
    root = copy_config(tmp_path / "line")
    info = root / "version_info.json"
    info.write_text(json.dumps(json.loads(info.read_text()) | {"rocm_versions": ["7.2.0", "10.0.0"]}))
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--root", root)
    assert code == 2 and err.count("\n") == 1 and env.uploads == []
    assert f"{TAG} is not a whole release, so nothing goes to PyPI: no jax-rocm10-pjrt wheel" in err


def test_a_file_over_the_limit_stops_everything_naming_file_size_and_limit(env, released, run_cli):
    store, dist, flags = released
    size = os.path.getsize(dist.directory / PJRT)
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--file-limit", str(size - 1))
    assert code == 2
    assert PJRT in err and f"{size:,} bytes" in err and f"{size - 1:,} bytes" in err
    assert env.uploads == [] and env.files() == {}
    assert run_cli("pypi-upload", TAG, *flags, "--file-limit", str(size), "--dry-run")[0] == 0
    # the sizes the release lists decide before anything is downloaded
    code, out, err = run_cli("pypi-upload", TAG, *flags[:-1], dist.directory.parent / "elsewhere",
                             "--file-limit", str(size - 1))
    assert code == 2 and "download jax" not in out


def test_a_project_that_would_pass_its_limit_stops_everything_naming_total_new_and_limit(
        env, released, run_cli, monkeypatch):
    store, dist, flags = released
    monkeypatch.delenv(pypi_budget.PROJECT_LIMIT_ENV)
    plugins = [a for a in dist.wheels if a.name != PJRT]
    plugin_bytes = sum(os.path.getsize(dist.directory / a.name) for a in plugins)
    limit = f"{naming.plugin_dist(7)}={plugin_bytes - 1}"
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--project-limit", limit)
    assert code == 2 and env.uploads == [] and env.files() == {}
    assert f"{naming.plugin_dist(7)} holds 0 bytes" in err and f"+ {plugin_bytes:,} bytes" in err
    assert f"project limit of {plugin_bytes - 1:,} bytes" in err and naming.pjrt_dist(7) not in err
    # PyPI's default: the index does not know the projects yet, so each holds nothing today
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--json")
    assert code == 0, err
    budget = {b["project"]: b for b in json.loads(out)["budget"]}
    assert budget[naming.plugin_dist(7)] == {"project": naming.plugin_dist(7), "held": 0, "new": plugin_bytes,
                                              "limit": 10 << 30, "fits": True}
    # now pypiserver lists the files without sizes: the total is unknown, exit 3, unless no limit
    code, out, err = run_cli("pypi-upload", TAG, *flags)
    assert code == 3 and "without their sizes" in err
    assert run_cli("pypi-upload", TAG, *flags, "--project-limit", "none")[0] == 0


def test_the_validated_bytes_go_up_even_when_the_dist_directory_changed(env, released, run_cli):
    store, dist, flags = released
    (dist.directory / PJRT).write_bytes(b"rebuilt since")  # a rebuild is never what goes up
    assert run_cli("pypi-upload", TAG, *flags)[0] == 0
    assert env.files() == release_sums(dist)


@pytest.mark.parametrize("version, why", [("0.9.1rc1", "rc"), ("0.9.1.dev20261122", "nightly")])
def test_rcs_and_nightlies_never_go_to_pypi(env, make_dist, tmp_path, run_cli, version, why):
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, make_dist(version))
    code, out, err = run_cli("pypi-upload", dist.tag, "--store", "local", "--store-dir", store.directory,
                             "--dist", tmp_path / "dist")
    assert code == 2 and f"a {why}" in err and env.uploads == []


def test_a_draft_is_not_published_so_nothing_goes_up(env, make_dist, tmp_path, run_cli):
    from release.publish.drafts import publish_draft, read_dist

    store = LocalStore(tmp_path / "store")
    dist = read_dist(make_dist(VERSION))
    publish_draft(store, dist)
    code, out, err = run_cli("pypi-upload", TAG, "--store", "local", "--store-dir", store.directory,
                             "--dist", tmp_path / "dist")
    assert code == 2 and "not published" in err and env.uploads == []


def test_credentials_never_appear_in_output(env, released, run_cli, monkeypatch):
    store, dist, flags = released
    monkeypatch.setenv("TWINE_PASSWORD", PASSWORD[:-1] + "X")  # refused by the index
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--json")
    assert code == 2 and "refused the credentials" in err
    assert PASSWORD[:-1] not in out + err
    monkeypatch.setenv("TWINE_PASSWORD", PASSWORD)
    host = env.upload_url.split("//")[1]
    monkeypatch.setenv("TWINE_REPOSITORY_URL", f"http://user:{PASSWORD}@{host}")
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--json")
    assert code == 0, err
    assert PASSWORD not in out + err and PASSWORD[:20] not in out + err
    assert PASSWORD not in store.published_for(TAG).body


def test_an_index_that_quotes_the_credentials_back_does_not_make_them_shown(env, released, run_cli):
    store, dist, flags = released
    env.echo_credentials = True
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--json")
    assert code == 2 and "invalid credentials" in err
    assert PASSWORD not in out + err


def test_no_index_named_is_one_line_and_nothing_is_read(env, released, run_cli, monkeypatch):
    store, dist, flags = released
    monkeypatch.delenv("TWINE_REPOSITORY_URL")
    code, out, err = run_cli("pypi-upload", TAG, *flags)
    assert code == 2 and "--repository-url" in err and err.count("\n") == 1


def test_pypirc_names_the_index_and_the_password(env, released, run_cli, monkeypatch, tmp_path):
    store, dist, flags = released
    monkeypatch.delenv("TWINE_REPOSITORY_URL")
    monkeypatch.delenv("TWINE_PASSWORD")
    (tmp_path / "home" / ".pypirc").write_text(
        f"[distutils]\nindex-servers = local\n\n[local]\nrepository = {env.upload_url}\n"
        f"username = __token__\npassword = {PASSWORD}\n")
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--repository", "local")
    assert code == 0, err
    assert env.files() == release_sums(dist) and PASSWORD not in out + err


# ---------------------------------------------------------------- attestations


def fake_attestation(statement: dict) -> dict:
    """The shape Sigstore's tools leave (PEP 740): what is checked here is the statement; the
    signature is the index's to verify."""
    return {"version": 1,
            "verification_material": {"certificate": base64.b64encode(b"DER").decode(),
                                      "transparency_entries": [{"logIndex": "1"}]},
            "envelope": {"statement": base64.b64encode(json.dumps(statement).encode()).decode(),
                         "signature": base64.b64encode(b"sig").decode()}}


def test_each_wheel_gets_a_single_subject_statement_naming_the_same_pins(env, released, run_cli, tmp_path):
    store, dist, flags = released
    work = tmp_path / "work"
    assert run_cli("pypi-upload", TAG, *flags, "--work", work, "--dry-run")[0] == 0
    assert env.uploads == []
    set_level = json.loads((dist.directory / naming.PROVENANCE_ASSET).read_text())
    for wheel in dist.wheels:
        stmt = json.loads((work / f"{wheel.name}.intoto.json").read_text())
        assert stmt["subject"] == [{"name": wheel.name, "digest": {"sha256": wheel.digest}}]
        assert stmt["predicate"]["buildDefinition"] == set_level["predicate"]["buildDefinition"]
        assert stmt["predicate"]["runDetails"]["builder"] == set_level["predicate"]["runDetails"]["builder"]
        (work / f"{wheel.name}.slsa.attestation").write_text(json.dumps(fake_attestation(stmt)))
    predicate = json.loads((work / "predicate.slsa.json").read_text())
    assert predicate == stmt["predicate"]
    # what `sigstore attest --predicate-type https://slsa.dev/provenance/v1` checks before it signs
    from sigstore.dsse._predicate import SLSAPredicateV1_0
    SLSAPredicateV1_0.model_validate(predicate)
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--work", work, "--attestations")
    assert code == 0, err
    assert len(env.uploads) == len(dist.wheels)
    for _project, fields in env.uploads:
        sent = json.loads(dict(fields)["attestations"])
        stmt = json.loads(base64.b64decode(sent[0]["envelope"]["statement"]))
        sha = dict(fields)["sha256_digest"]
        assert len(sent) == 1 and stmt["subject"][0]["digest"]["sha256"] == sha


@pytest.mark.parametrize("break_it", ["other wheel", "other digest", "other pins", "two subjects", "not base64",
                                      "missing", "publish predicate"])
def test_a_wrong_or_missing_attestation_stops_the_run_before_any_upload(env, released, run_cli, tmp_path,
                                                                        break_it):
    store, dist, flags = released
    work = tmp_path / "work"
    assert run_cli("pypi-upload", TAG, *flags, "--work", work, "--dry-run")[0] == 0
    wheels = list(dist.wheels)
    for wheel in wheels:
        stmt = json.loads((work / f"{wheel.name}.intoto.json").read_text())
        (work / f"{wheel.name}.slsa.attestation").write_text(json.dumps(fake_attestation(stmt)))
    victim = next(w for w in wheels if w.name != PJRT)
    path = work / f"{victim.name}.slsa.attestation"
    stmt = json.loads((work / f"{victim.name}.intoto.json").read_text())
    if break_it == "other wheel":
        stmt["subject"] = [{"name": PJRT, "digest": {"sha256": dist.wheels[0].digest}}]
    elif break_it == "other digest":
        stmt["subject"][0]["digest"]["sha256"] = "0" * 64
    elif break_it == "publish predicate":
        stmt["predicateType"] = "https://docs.pypi.org/attestations/publish/v1"
    elif break_it == "other pins":
        stmt["predicate"]["buildDefinition"]["resolvedDependencies"][0]["digest"]["gitCommit"] = "0" * 40
    elif break_it == "two subjects":
        stmt["subject"] = stmt["subject"] * 2
    data = fake_attestation(stmt)
    if break_it == "not base64":
        data["envelope"]["signature"] = "%%%"
    path.write_text(json.dumps(data))
    if break_it == "missing":
        path.unlink()
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--work", work, "--attestations")
    if break_it == "publish predicate":  # PyPI's own kind is accepted as it is
        assert code == 0, err
        return
    assert code == 2 and victim.name in err and err.count("\n") == 1
    assert env.uploads == []


def test_an_upload_the_index_already_holds_is_exists_not_an_error(env, released):
    from release.core import core_metadata
    from release.publish.pypi_index import find_repository, upload, upload_fields

    store, dist, flags = released
    repo = find_repository()
    wheel = dist.directory / PJRT
    fields = upload_fields(wheel, core_metadata.read(wheel), "py3",
                           hashlib.sha256(wheel.read_bytes()).hexdigest(), None)
    assert upload(repo, wheel, fields).outcome == "stored"
    assert upload(repo, wheel, fields).outcome == "exists"


# ---------------------------------------------------------------- Trusted Publishing


@pytest.fixture
def trusted(env, monkeypatch):
    """GitHub Actions with `id-token: write` and no password: Trusted Publishing."""
    from tests.support.pypi_server import OIDC_PATH, REQUEST_TOKEN
    monkeypatch.delenv("TWINE_PASSWORD")
    base = env.upload_url.rstrip("/")
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_URL", f"{base}{OIDC_PATH}?api-version=2.0")
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", REQUEST_TOKEN)
    return env


def test_trusted_publishing_mints_the_upload_token_and_shows_none_of_the_three(trusted, released, run_cli):
    from tests.support.pypi_server import AUDIENCE, REQUEST_TOKEN, jwt_for
    store, dist, flags = released
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--json")
    assert code == 0, err
    assert json.loads(out)["credentials"] == "trusted publishing"
    assert trusted.files() == release_sums(dist)
    assert trusted.oidc_requests[0]["audience"] == [AUDIENCE]  # the index's audience, asked first
    for secret in (REQUEST_TOKEN, jwt_for(AUDIENCE), PASSWORD):
        assert secret not in out + err and secret not in store.published_for(TAG).body


def test_a_workflow_that_is_no_trusted_publisher_is_one_line_and_uploads_nothing(trusted, released, run_cli):
    from tests.support.pypi_server import REQUEST_TOKEN
    store, dist, flags = released
    trusted.publisher_registered = False
    code, out, err = run_cli("pypi-upload", TAG, *flags)
    assert code == 2 and "trusted publisher" in err and err.count("\n") == 1
    assert REQUEST_TOKEN not in err and trusted.uploads == []


def test_no_password_and_no_oidc_names_every_place_a_password_comes_from(env, released, run_cli, monkeypatch):
    store, dist, flags = released
    monkeypatch.delenv("TWINE_PASSWORD")
    code, out, err = run_cli("pypi-upload", TAG, *flags)
    assert code == 2 and all(w in err for w in ("$TWINE_PASSWORD", "~/.pypirc", "keyring", "id-token"))
    assert env.uploads == []


# ---------------------------------------------------------------- status


def test_status_says_per_release_whether_both_wheels_are_on_pypi(env, make_dist, tmp_path, run_cli,
                                                                  project_dir, monkeypatch):
    from release.publish.pypi_index import derive_index_url
    store = LocalStore(tmp_path / "store")
    full = release_dist(store, make_dist(VERSION))
    post = release_dist(store, make_dist(VERSION + ".post1"))
    release_dist(store, make_dist(VERSION + ".post2"))
    release_dist(store, make_dist("0.9.2.dev20261122"))  # a nightly is never looked for
    for wheel in full.wheels:
        env.put(wheel.path)
    env.put(post.directory / naming.pjrt_wheel(7, VERSION + ".post1"))
    assert derive_index_url(env.upload_url) == env.index_url
    args = ["status", "--json", "--root", project_dir, "--store", "local", "--store-dir", store.directory]
    code, out, err = run_cli(*args)
    assert code == 0, err
    assert json.loads(out)["pypi"]["versions"] == {VERSION: "both", VERSION + ".post1": "pjrt only",
                                                   VERSION + ".post2": "none"}
    monkeypatch.setenv("TWINE_REPOSITORY_URL", "http://127.0.0.1:9/")  # nothing listens there
    code, out, err = run_cli(*args)
    assert code == 0 and json.loads(out)["pypi"]["checked"] is False
    assert "PyPI not checked" in json.loads(out)["pypi"]["note"]
    code, out, err = run_cli(*args[:-4], "--offline")
    assert code == 0 and json.loads(out)["pypi"]["note"] == "PyPI not checked (--offline)"



@pytest.mark.parametrize("held, said", [
    ({7: ("pjrt", "plugin"), 10: ("pjrt", "plugin")}, "both"),
    ({7: ("pjrt", "plugin"), 10: ("pjrt",)}, "ROCm 7: both; ROCm 10: pjrt only"),
    ({10: ("pjrt", "plugin")}, "ROCm 7: none; ROCm 10: both")])
def test_pypi_presence_asks_every_majors_projects(make_dist, local_index, held, said):
    """A line of ROCm 7 and 10 is on PyPI only when both majors' pairs are; else each major is said."""
    dist = make_dist(VERSION, majors=(7, 10))
    wheels = [w for w in dist.glob("*.whl") if (i := naming.Identity.of(w)).kind in held.get(i.rocm_major, ())]
    index = local_index(wheels)
    projects = (naming.pjrt_dist(7), naming.plugin_dist(7), naming.pjrt_dist(10), naming.plugin_dist(10))
    assert pypi.presence(index.url, projects, [VERSION])["versions"] == {VERSION: said}

# ---------------------------------------------------------------- the cut job's step


def test_cut_post_with_pypi_publishes_on_github_then_puts_both_wheels_on_the_index(
        env, make_dist, tmp_path, run_cli, project_dir):
    store = LocalStore(tmp_path / "store")
    release_dist(store, make_dist(VERSION))
    flags = ["--root", project_dir, "--store", "local", "--store-dir", store.directory,
             "--dist", tmp_path / "dist", "--public-index", "none"]
    code, out, err = run_cli("cut", "--post", "1", "--from", VERSION, "--pypi", *flags, "--json")
    assert code == 0, err
    post = naming.release_tag(VERSION + ".post1")
    steps = [s["step"] for s in json.loads(out)["steps"]]
    assert steps.index("publish") < steps.index("pypi")
    released = store.published_for(post)
    assert set(env.files()) == {a.name for a in store.list_assets(released) if a.name.endswith(".whl")}
    assert "<!-- pypi -->" in store.published_for(post).body  # (without --pypi: test_job_catalog)


def test_from_a_github_release_the_bytes_are_downloaded_checked_and_the_notes_patched(
        env, github_env, make_dist, tmp_path, run_cli):
    """No dist/ here (another machine): the wheels come from the published GitHub release, each
    checked against the validated digests; the notes' PyPI section is one PATCH GitHub accepts."""
    from tests.support.publish_dist import gh_store
    dist = release_dist(gh_store(github_env), make_dist(VERSION))
    code, out, err = run_cli("pypi-upload", TAG, "--store", "github", "--dist", tmp_path / "elsewhere", "--json")
    assert code == 0, err
    assert env.files() == release_sums(dist)
    assert all(f"download {a.name}" in err for a in dist.wheels)
    [rel] = [r for r in github_env.releases() if r["tag_name"] == TAG]
    assert rel["draft"] is False and "<!-- pypi -->" in rel["body"] and rel["body"].count("| yes |") == 2
    assert github_env.token not in out + err


def test_the_project_dist_directory_is_where_the_wheels_are_looked_for_first(env, released, run_cli, project_dir):
    import shutil
    store, dist, flags = released
    shutil.copytree(dist.directory, project_dir / "dist" / VERSION)
    code, out, err = run_cli("pypi-upload", TAG, "--root", project_dir, "--store", "local",
                             "--store-dir", store.directory)
    assert code == 0, err
    assert "download jax" not in out and env.files() == release_sums(dist)
    work = project_dir / "dist" / VERSION / "pypi"
    assert (work / "predicate.slsa.json").is_file(), out
    assert {p.name for p in work.glob("*.whl")} == set(release_sums(dist))  # what Sigstore signs there


# ---------------------------------------------------------------- as twine does it


def twine_upload(server, wheel) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "twine", "upload", "--non-interactive", "--disable-progress-bar",
                           "--repository-url", server.upload_url, "-u", server.user, "-p", server.password,
                           str(wheel)], capture_output=True, text=True,
                          env={**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"})


def test_a_wheel_uploaded_by_hand_with_twine_is_skipped_and_we_send_what_twine_sends(env, released, run_cli):
    """Today a person uploads with twine: the re-run sees that file as there, and the fields this
    tool sends carry the same metadata twine's do."""
    store, dist, flags = released
    proc = twine_upload(env, dist.directory / PJRT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    twine_fields = dict(env.uploads[0][1])
    code, out, err = run_cli("pypi-upload", TAG, *flags, "--json")
    assert code == 0, err
    assert {f["name"]: f["action"] for f in json.loads(out)["files"]} == {
        a.name: "present" if a.name == PJRT else "uploaded" for a in dist.wheels}
    ours = dict(env.uploads[1][1])
    plugin = next(a for a in dist.wheels if a.name != PJRT)
    proc = twine_upload(env, plugin.path)  # a second copy from twine: the index refuses it
    assert proc.returncode != 0
    theirs = dict(env.uploads[2][1])
    shared = {":action", "protocol_version", "filetype", "pyversion", "metadata_version", "name", "version",
              "summary", "requires_python", "sha256_digest", "blake2_256_digest"}
    assert shared <= set(twine_fields) and shared <= set(ours)
    assert {k: ours[k] for k in shared} == {k: theirs[k] for k in shared}
    assert [v for k, v in env.uploads[1][1] if k == "requires_dist"] == [
        v for k, v in env.uploads[2][1] if k == "requires_dist"] == [f"jax-rocm7-pjrt=={VERSION}"]


@pytest.mark.parametrize("name", ["../x.whl", "/abs/x.whl", "sub/x.whl", ".hidden.whl", "x\n.whl"])
def test_an_asset_name_from_the_store_is_refused_before_it_is_joined_to_a_folder(tmp_path, name):
    """The PyPI step stages files under names the store gives: only plain file names, one line."""
    import types

    from release.core.errors import UserError
    from release.publish.pypi import _fetch
    store = types.SimpleNamespace(where="store")
    release = types.SimpleNamespace(tag="rocm-jax-v0.9.1")
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(UserError, match="refused"):
        _fetch(store, release, {}, name, "0" * 64, work, work, lambda _: None, None)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["work"]
