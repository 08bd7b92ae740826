"""A published release carries a PEP 751 lock of what validate installed, per (ROCm major, Python):
every file of the as-users install (jax, jaxlib, the plugin, the pjrt and what they pull in) with
its sha256, the draft's own files at the URL the release serves them from. ``uv pip install -r``
and ``pip install -r`` (pip >= 26) of that lock into a fresh venv reproduce the set; the locks
are validate's own assets (not in SHA256SUMS), so a second validate passes and replaces them.
Real pip and uv, public stand-ins served on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.check import user_install
from release.check.resolver import pip_argv
from release.check.validate import validate
from release.core import locks, naming
from release.publish.drafts import publish_draft, read_dist, undraft
from release.publish.stores import LocalStore
from tests.conftest import NOW
from tests.support.installs import _fresh_venv, jax_stand_ins, uv_bin
from tests.support.publish_dist import PYTHON, build_dist
from tests.support.registry import LocalIndex

CELL = locks.lock_name(7, PYTHON)


def _report(*items: tuple[str, str, str, str | None]) -> dict:
    return {"version": "1", "install": [
        {"metadata": {"name": n, "version": v, **({"requires_python": rp} if rp else {})},
         "download_info": {"url": u, "archive_info": {"hashes": {"sha256": hashlib.sha256(n.encode()).hexdigest()}}}}
        for n, v, u, rp in items]}


_names = st.from_regex(r"[a-z][a-z0-9]{0,6}([-_.][a-z0-9]{1,4})?", fullmatch=True)
_versions = st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,3}){0,3}((rc|\.dev|\.post)[0-9]{1,8})?", fullmatch=True)


@given(st.dictionaries(_names, st.tuples(_versions, st.booleans(), st.sampled_from([None, ">=3.11", "<4,>=3.10"])),
                       min_size=1, max_size=6))
def test_a_lock_names_every_installed_file_with_its_hash_in_one_order(dists):
    items = [(n, v, f"https://files.example/{n}-{v}{'-py3-none-any.whl' if wheel else '.tar.gz'}", rp)
             for n, (v, wheel, rp) in dists.items()]
    report = _report(*items)
    text = locks.render(locks.from_report(report), "3.12")
    assert text == locks.render(locks.from_report(_report(*reversed(items))), "3.12")  # the order is the lock's
    data = tomllib.loads(text)
    assert data["lock-version"] == "1.0" and data["created-by"] == "jax-rocm-release"
    assert data["requires-python"] == "==3.12.*"
    got = {p["name"]: p for p in data["packages"]}
    assert [p["name"] for p in data["packages"]] == sorted(got)
    from packaging.utils import canonicalize_name
    assert set(got) == {canonicalize_name(n) for n in dists}
    for n, (v, wheel, rp) in dists.items():
        entry = got[canonicalize_name(n)]
        archive = entry["wheels"][0] if wheel else entry["sdist"]
        assert entry["version"] == v and entry.get("requires-python") == rp
        assert archive["hashes"] == {"sha256": hashlib.sha256(n.encode()).hexdigest()}
        assert archive["url"].endswith(archive["name"])


def test_a_report_file_without_a_sha256_is_no_lock():
    report = _report(("jax", "0.9.1", "https://x/jax-0.9.1-py3-none-any.whl", None))
    del report["install"][0]["download_info"]["archive_info"]
    with pytest.raises(locks.LockError, match="no sha256 for jax-0.9.1-py3-none-any.whl"):
        locks.from_report(report)
    with pytest.raises(locks.LockError, match="installs nothing"):
        locks.from_report({"install": []})


@pytest.mark.parametrize("major, python", [(7, "3.12"), (10, "3.9"), (7, "3.14"), (12, "3.10")])
def test_a_cell_is_named_as_pep_751_names_a_lock_and_read_back(major, python):
    name = locks.lock_name(major, python)
    assert locks.is_lock(name) and name.count(".") == 2  # pylock.<name>.toml, no dot in <name>
    assert locks.cell_of(name) == (major, python)
    assert not locks.is_lock("pylock.rocm7-py3.12.toml") and not locks.is_lock("SHA256SUMS")


@pytest.mark.parametrize("url, tag, expected", [
    ("https://github.com/o/r/releases/download/untagged-1a2b/x-1.whl", "rocm-jax-v0.9.1",
     "https://github.com/o/r/releases/download/rocm-jax-v0.9.1/x-1.whl"),
    ("https://github.com/o/r/releases/download/rocm-jax-v0.9.1/x-1.whl", "rocm-jax-v0.9.1",
     "https://github.com/o/r/releases/download/rocm-jax-v0.9.1/x-1.whl"),
    ("file:///store/4/assets/x-1.whl", "rocm-jax-v0.9.1", "file:///store/4/assets/x-1.whl")])
def test_a_draft_asset_is_locked_at_the_url_the_release_serves_it_from(url, tag, expected):
    assert locks.published_url(url, tag) == expected


def test_the_environment_is_the_wheels_one_architecture():
    assert locks.environment(["a-1-cp312-cp312-manylinux_2_28_x86_64.whl", "b-1-py3-none-manylinux2014_x86_64.whl"]) \
        == "sys_platform == 'linux' and platform_machine == 'x86_64'"
    assert locks.environment(["a-1-cp312-cp312-manylinux_2_28_x86_64.whl",
                              "a-1-cp312-cp312-manylinux_2_28_aarch64.whl"]) is None
    assert locks.environment(["a-1-py3-none-any.whl"]) is None


# ---------------------------------------------------------------- as users reproduce it


def _pip_reads_locks() -> bool:
    """Whether the pip that installs (this tool's, run in the venv) takes ``-r pylock.toml``: its
    ``-r`` option's help says so (read from pip's source, not from a pip started to print it)."""
    import importlib.util
    spec = importlib.util.find_spec("pip")
    options = Path(next(iter(spec.submodule_search_locations))) / "_internal" / "cli" / "cmdoptions.py"
    return "pylock.toml format" in options.read_text(encoding="utf-8")


def _install_lock(installer: str, lock: Path, tmp_path: Path, name: str) -> dict[str, str]:
    py = _fresh_venv(tmp_path, name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, UV_NO_CONFIG="1", UV_CACHE_DIR=str(tmp_path / "uv-cache"))
    argv = ([uv_bin(), "pip", "install", "--python", str(py), "-r", str(lock)] if installer == "uv" else
            [*pip_argv(py), "install", "--no-cache-dir",
             "--disable-pip-version-check", "-r", str(lock)])
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    got = subprocess.run([str(py), "-c", "import json, importlib.metadata as m; print(json.dumps("
                          "{d.metadata['Name']: d.version for d in m.distributions()}))"],
                         capture_output=True, text=True, check=True, cwd=tmp_path)  # not this checkout's metadata
    return json.loads(got.stdout)


@pytest.fixture(scope="module")
def _validated_once(tmp_path_factory):
    """One validated draft for the module (validate installs with pip and uv: about 3 CPU-s),
    with a snapshot of its store taken before any test changes it."""
    if user_install.find_uv() is None:
        pytest.skip("uv is not installed (it is in the test extras)")
    base = tmp_path_factory.mktemp("validated")
    public = LocalIndex(jax_stand_ins(base / "public", "0.9.1"))
    tag = naming.release_tag("0.9.1")
    with pytest.MonkeyPatch.context() as env:  # the suite's clock and index (conftest's are per test)
        env.setenv("RELEASE_NOW", NOW)
        env.setenv("RELEASE_PUBLIC_INDEX", "none")
        publish_draft(LocalStore(base / "store"), read_dist(build_dist(base / "dist", "0.9.1")))
        result = validate(LocalStore(base / "store"), tag, public_index=public.url)
    shutil.copytree(base / "store", base / "snapshot")
    yield base, tag, public, result
    public.close()


@pytest.fixture
def validated(_validated_once):
    """The validated draft in its own store (its lock names that store's files); one test only."""
    base, tag, public, result = _validated_once
    return LocalStore(base / "store"), tag, public, result


@pytest.fixture
def validated_copy(_validated_once, tmp_path):
    """A copy of the validated draft's store as validate left it, for a test that changes it."""
    base, tag, public, result = _validated_once
    shutil.copytree(base / "snapshot", tmp_path / "store")
    return LocalStore(tmp_path / "store"), tag, public, result


def test_validate_puts_the_lock_of_what_it_installed_on_the_release(validated, tmp_path):
    store, tag, public, result = validated
    assert result.ok and result.marked, result.problems
    assert result.locks == [CELL] and "lock" in result.checked
    assert "reports" not in result.to_json() and result.to_json()["locks"] == [CELL]
    release = store.our_drafts(tag)[0]
    assets = {a.name: a for a in store.list_assets(release)}
    lock = store.download_asset(release, assets[CELL], tmp_path / CELL)
    data = tomllib.loads(lock.read_text(encoding="utf-8"))
    packages = {p["name"]: p for p in data["packages"]}
    assert set(packages) == {"jax", "jaxlib", "jax-rocm7-plugin", "jax-rocm7-pjrt"}
    assert data["requires-python"] == f"=={PYTHON}.*"
    for name, entry in packages.items():
        [wheel] = entry["wheels"]
        if name.startswith("jax-rocm7"):  # the draft's files, where the release serves them
            assert entry["version"] == "0.9.1"
            asset = assets[wheel["name"]]
            assert wheel["url"] == asset.url and wheel["hashes"]["sha256"] == asset.digest
        else:
            assert wheel["url"].startswith(public.url.rsplit("/simple/", 1)[0])
    # the mark covers the lock: the draft publishes as validated
    assert undraft(store, tag)["status"] == "published"
    expected = {"jax": "0.9.1", "jaxlib": "0.9.1", "jax-rocm7-plugin": "0.9.1", "jax-rocm7-pjrt": "0.9.1"}
    assert _install_lock("uv", lock, tmp_path, "from-uv") == expected
    if _pip_reads_locks():
        assert _install_lock("pip", lock, tmp_path, "from-pip") == expected


def test_the_locks_are_validates_own_assets(validated_copy, tmp_path):
    """A second validate passes (a lock is no asset SHA256SUMS must list), writes the lock again
    and deletes one no install of its run made; a lock put there by hand after validation
    changes the assets' digest, so the draft is no longer validated."""
    store, tag, public, first = validated_copy
    assert first.ok, first.problems
    draft = store.our_drafts(tag)[0]
    stale = tmp_path / "stale" / locks.lock_name(7, "3.99")
    stale.parent.mkdir()
    stale.write_text('lock-version = "1.0"\n', encoding="utf-8")
    store.upload_asset(draft, stale, stale.name)
    again = validate(store, tag, public_index=public.url)
    assert again.ok and again.marked, again.problems
    assert [a.name for a in store.list_assets(draft) if locks.is_lock(a.name)] == [CELL]
    store.upload_asset(draft, stale, locks.lock_name(7, "3.98"))
    from release.core.errors import UserError
    with pytest.raises(UserError, match="has not passed"):
        undraft(store, tag)
