"""``release validate``: assets as users get them, checked, installed and imported; a failure
changes nothing."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

from release.build import provenance
from release.check.resolver import pip_argv
from release.check.validate import validate
from release.core.revisions import RevisionMap
from release.publish import notes
from release.publish.drafts import assets_digest, publish_draft, read_dist, undraft
from release.publish.stores import LocalStore
from tests.support.publish_dist import PYTHON, gh_store

NIGHTLY = "0.9.1.dev20261122"
TAG = "rocm-jax-v" + NIGHTLY


def test_valid_draft_is_marked_then_can_be_published(fake_github, make_dist):
    store = gh_store(fake_github)
    dist = read_dist(make_dist(NIGHTLY))
    publish_draft(store, dist)
    said: list[str] = []
    result = validate(store, TAG, say=said.append)  # the tests' public index: none
    assert result.ok, result.problems
    # the draft's index alone: the pinned line only (test_unpinned_resolves_as_pinned_on_the_drafts_index_alone)
    assert [line for line in said if ": pip install --pre " in line] == [
        f"Python {PYTHON}: pip install --pre jax-rocm7-plugin==0.9.1.*"]
    assert result.checked == ["checksums", "pairing", "core-metadata", "provenance", "verify", "resolve", "install",
                              "import"]
    assert result.cells[(7, PYTHON)]["tested"] and result.untested_cells == []
    assert result.marked
    every_asset = assets_digest({a.name: a.digest for a in dist.assets})
    assert notes.read(store.drafts_for(TAG)[0].body).validated == every_asset
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
    assert "install not tried" in text  # pip never gets wheels that failed verify
    assert notes.read(store.drafts_for(TAG)[0].body).validated is None


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
    import datetime as dt

    from release.build import bazel
    from release.build.dist import build_release
    from release.build.plan import make_plan
    from release.core.config import load_project
    from tests.support.elf import compile_artifacts
    from tests.support.project import REPO

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
    assert notes.read(store.drafts_for(plan.tag)[0].body).validated is None
    # The same draft passes when no RUNPATH is required: the check is what failed it.
    assert validate(store, plan.tag, mark=False).ok


# ---------------------------------------------------------------- resolving as users do


def test_a_public_version_of_the_lines_own_wins_and_validate_names_it(make_dist, local_index,
                                                                      tmp_path):
    """The line's users pin it (``==0.9.1.*``, with --pre): a public 0.9.1 beats tonight's
    0.9.1.dev nightly of that line, so validation fails, naming the install line and the winner."""
    public = local_index(sorted(make_dist("0.9.1").glob("*.whl")))
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(NIGHTLY)))
    result = validate(store, TAG, public_index=public.url)
    assert not result.ok and not result.marked
    wrong = [p for p in result.problems if "0.9.1 " in p]
    assert wrong == [f"ROCm 7, Python {PYTHON}: `pip install --pre jax-rocm7-plugin==0.9.1.*`: pip would "
                     f"install jax-rocm7-plugin 0.9.1 and jax-rocm7-pjrt 0.9.1 from {public.url}, "
                     f"not the draft's {NIGHTLY}; move version_info.json's version past it"], \
        result.problems
    assert result.cells[(7, PYTHON)]["tested"] is False
    assert any(path.startswith("/simple/jax-rocm7-plugin") for path in public.log)
    assert notes.read(store.drafts_for(TAG)[0].body).validated is None


def test_a_maintenance_line_is_validated_pinned_while_a_newer_line_is_public(make_dist, local_index,
                                                                            tmp_path):
    """Issue 19: a maintenance line is not refused because a newer line exists: 0.10.2 on the
    public index wins an unpinned `pip install --pre`, but the 0.9.1 line's users pin 0.9.1.*;
    only the newest line must also win unpinned."""
    public = local_index(sorted(make_dist("0.10.2").glob("*.whl")))
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(NIGHTLY)))
    said: list[str] = []
    result = validate(store, TAG, public_index=public.url, say=said.append)
    assert result.ok, result.problems
    assert result.cells[(7, PYTHON)]["tested"] and "resolve" in result.checked
    assert any("maintenance line" in line and "0.10.2" in line for line in said)
    resolved = [line for line in said if "pip install --pre" in line]
    assert resolved and all("jax-rocm7-plugin==0.9.1.*" in line for line in resolved)


def test_a_version_line_above_the_public_one_passes_through_both_indexes(make_dist, local_index,
                                                                         tmp_path):
    public = local_index(sorted(make_dist("0.9.0").glob("*.whl")))
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(NIGHTLY)))
    said: list[str] = []
    result = validate(store, TAG, public_index=public.url, say=said.append)
    assert result.ok, result.problems
    assert "resolve" in result.checked and result.cells[(7, PYTHON)]["tested"]
    # the newest line, and the public page lists only a lower line of the plugin: the unpinned
    # line could only take what the pinned one took (resolver.unpinned_settled), so one pip run,
    # the pinned line's real install, its report read
    pip_lines = [line for line in said if ": pip install --pre " in line]
    assert pip_lines == [f"Python {PYTHON}: pip install --pre jax-rocm7-plugin==0.9.1.*"]
    assert any("the unpinned line can only take what the pinned one takes (not run)" in line for line in said)
    assert any(path.startswith("/simple/jax-rocm7-p") for path in public.log)  # it was asked


@pytest.mark.parametrize("files, settled", [
    ((), True),  # the index does not know the plugin
    (("jax_rocm7_plugin-0.9.0-cp311-cp311-manylinux_2_28_x86_64.whl",
      "jax_rocm7_plugin-0.9.0.post3-cp312-cp312-manylinux_2_28_x86_64.whl",
      "jax_rocm7_plugin-0.9.1.dev20261101-cp311-cp311-manylinux_2_28_x86_64.whl"), True),  # lower, or its line
    (("jax_rocm7_plugin-0.9.1.post1-1-cp311-cp311-manylinux_2_28_x86_64.whl",), True),  # its line, a build tag
    (("jax_rocm7_plugin-0.9.0-cp311-cp311-manylinux_2_28_x86_64.whl",
      "jax_rocm7_plugin-0.10.0.dev20261101-cp311-cp311-manylinux_2_28_x86_64.whl"), False),  # a newer line
    (("jax_rocm7_plugin-1!0.1.0-cp311-cp311-manylinux_2_28_x86_64.whl",), False),  # an epoch sorts above
    (("jax-rocm7-plugin-0.9.0.tar.gz",), False),  # an sdist: pip may take it, this reading cannot place it
    (("jax_rocm7_plugin-0.9.0-cp311-cp311-manylinux_2_28_x86_64.whl", "README.txt"), False),
])
def test_the_unpinned_line_is_left_out_only_where_the_public_page_settles_it(files, settled, monkeypatch):
    """`pip install --pre jax-rocm7-plugin` can only take what the pinned `==0.9.1.*` took when
    every file the public index lists of the plugin is a wheel of line 0.9.1 or a lower one: pip
    tries candidates highest version first, and all of a lower line sort below all of 0.9.1's.
    Anything else (a newer line, a file it cannot place) is left to pip."""
    from release.check import resolver
    from release.publish import pypi_index
    asked = []
    monkeypatch.setattr(pypi_index, "index_files",
                        lambda url, project, **kw: asked.append((url, project)) or dict.fromkeys(files))
    assert resolver.unpinned_settled("jax-rocm7-plugin", NIGHTLY, "http://public.example/simple") is settled
    assert asked == [("http://public.example/simple", "jax-rocm7-plugin")]


def test_the_unpinned_line_is_left_to_pip_with_its_own_configuration_or_no_answer(monkeypatch):
    """pip's own configuration may add indexes and find-links no page read here shows; an
    unreachable page tells nothing: pip resolves the unpinned line then. The draft's index alone
    holds one version, the tag's: settled without asking."""
    from release.check import resolver
    from release.publish import pypi_index

    def unreachable(url, project, **kw):
        raise pypi_index.IndexUnavailable(f"{url}: no answer")
    monkeypatch.setattr(pypi_index, "index_files", unreachable)
    assert resolver.unpinned_settled("jax-rocm7-plugin", NIGHTLY, "http://public.example/simple") is False
    monkeypatch.setattr(pypi_index, "index_files", lambda url, project, **kw: {})  # a page that would settle it
    assert resolver.unpinned_settled("jax-rocm7-plugin", NIGHTLY, resolver.PIP_DEFAULT) is False
    assert resolver.unpinned_settled("jax-rocm7-plugin", NIGHTLY, resolver.NO_PUBLIC_INDEX) is True


def _validate_against_pips_own_index(url, make_dist, tmp_path, monkeypatch, **kwargs):
    """validate of tonight's draft with no --public-index and pip configured with ``url`` alone
    ($PIP_INDEX_URL; no find-links, no configuration file)."""
    monkeypatch.delenv("RELEASE_PUBLIC_INDEX")
    monkeypatch.setenv("PIP_INDEX_URL", url)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(NIGHTLY)))
    return validate(store, TAG, **kwargs)


def test_with_pips_own_index_the_unpinned_line_is_still_resolved_by_pip(make_dist, local_index, tmp_path,
                                                                        monkeypatch):
    """With no --public-index, pip's configuration may add indexes no page read shows, so the
    newest line's unpinned `pip install --pre` is resolved by pip (a dry run) beside the pinned one."""
    public = local_index(sorted(make_dist("0.9.0").glob("*.whl")))
    said: list[str] = []
    result = _validate_against_pips_own_index(public.url, make_dist, tmp_path, monkeypatch,
                                              say=said.append, mark=False)
    assert result.ok, result.problems
    assert [line for line in said if ": pip install --pre " in line] == [
        f"Python {PYTHON}: pip install --pre jax-rocm7-plugin==0.9.1.*",
        f"Python {PYTHON}: pip install --pre jax-rocm7-plugin (dry run)"]


def test_where_the_page_settles_the_unpinned_line_pip_resolves_it_as_the_pinned_one(make_dist, local_index,
                                                                                   tmp_path):
    """The reason the unpinned run is left out, checked against pip itself: a public index with an
    older nightly of the line and a lower line's release, both of the plugin and pjrt; pip's
    unpinned resolve takes exactly the pinned one's files, the draft's."""
    from pathlib import Path

    from release.check import resolver
    older = sorted(make_dist("0.9.1.dev20261101").glob("*.whl")) + sorted(make_dist("0.9.0").glob("*.whl"))
    public = local_index(older)
    assert resolver.unpinned_settled("jax-rocm7-plugin", NIGHTLY, public.url)
    with resolver.staged_index(sorted(make_dist(NIGHTLY).glob("*.whl")), tmp_path / "index") as index:
        picks = [resolver.pip_install(Path(sys.executable), requirement, resolver.index_args(index, public.url),
                                      tmp_path, dry_run=True, fresh=True)
                 for requirement in ("jax-rocm7-plugin==0.9.1.*", "jax-rocm7-plugin")]
    assert all(p.ok for p in picks), [p.error for p in picks]
    assert picks[0].picks == picks[1].picks and picks[0].picks["jax-rocm7-plugin"].version == NIGHTLY


def test_unpinned_resolves_as_pinned_on_the_drafts_index_alone(make_dist, tmp_path):
    """Why validate resolves the newest line unpinned only beside a public index: on the draft's
    index alone (``--public-index none``: ``--isolated``, no pip configuration) the one version of
    the plugin is the tag's, so ``pip install --pre jax-rocm7-plugin`` takes exactly what the
    pinned line takes, file for file."""
    from pathlib import Path

    from release.check import resolver
    draft = resolver.NO_PUBLIC_INDEX
    assert resolver.line_requirements("jax-rocm7-plugin", NIGHTLY, None, draft) == ["jax-rocm7-plugin==0.9.1.*"]
    assert resolver.line_requirements("jax-rocm7-plugin", NIGHTLY, None, "http://public.example/simple") == [
        "jax-rocm7-plugin==0.9.1.*", "jax-rocm7-plugin"]
    with resolver.staged_index(sorted(make_dist(NIGHTLY).glob("*.whl")), tmp_path / "index") as index:
        picks = [resolver.pip_install(Path(sys.executable), requirement, resolver.index_args(index, draft),
                                      tmp_path, dry_run=True, fresh=True)
                 for requirement in ("jax-rocm7-plugin==0.9.1.*", "jax-rocm7-plugin")]
    assert all(p.ok for p in picks), [p.error for p in picks]
    assert picks[0].picks == picks[1].picks and picks[0].picks["jax-rocm7-plugin"].version == NIGHTLY


def test_the_default_public_index_is_the_one_pip_is_configured_with(make_dist, local_index,
                                                                    tmp_path, monkeypatch):
    """With no --public-index, validate runs exactly the README's line (--extra-index-url
    <draft>), so pip's own index (here $PIP_INDEX_URL) is what the draft competes with."""
    public = local_index(sorted(make_dist("0.9.1").glob("*.whl")))
    result = _validate_against_pips_own_index(public.url, make_dist, tmp_path, monkeypatch)
    assert not result.ok
    assert any("jax-rocm7-plugin 0.9.1 and jax-rocm7-pjrt 0.9.1 from pip's configured index"
               in p for p in result.problems), result.problems


def test_a_pair_pip_cannot_resolve_is_one_line(make_dist, tmp_path):
    """The plugin pins its PJRT wheel; a draft whose plugin needs a Python nobody has cannot
    be installed by the README's line."""
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(NIGHTLY, requires_python=">=3.99")))
    result = validate(store, TAG)
    assert not result.ok
    line = next(p for p in result.problems if "cannot resolve" in p)
    assert line.startswith(f"ROCm 7, Python {PYTHON}: pip cannot resolve jax-rocm7-plugin==0.9.1.* from "
                           "the draft's index and nowhere else: ERROR: ")
    assert "\n" not in line


def test_every_python_carried_is_tested_or_named(make_dist, tmp_path, run_cli, monkeypatch):
    """A draft carrying 3.11 and 3.12 plugin wheels on a machine with no 3.12 interpreter:
    3.11 is installed and imported, 3.12 is named as untested (a warning), and
    --require-all-pythons turns that into a failure. (Each validate installs the tested cell:
    the command's four runs say it all, with no fifth validate called directly.)"""
    store = LocalStore(tmp_path / "store")
    other = "3.12" if PYTHON != "3.12" else "3.11"
    publish_draft(store, read_dist(make_dist(NIGHTLY, pythons=(PYTHON, other))))
    nowhere = tmp_path / "empty-path"
    nowhere.mkdir()
    monkeypatch.setenv("PYENV_ROOT", str(nowhere))   # no pyenv installs either
    monkeypatch.setenv("PATH", str(nowhere))
    # the command: --json names it, a person reads it, and --require-all-pythons (the same
    # validate with require_all_pythons) makes that warning its one problem
    code, out, err = run_cli("validate", TAG, "--store-dir", tmp_path / "store", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["ok"] and data["problems"] == []
    assert data["untested_pythons"] == [other] and data["untested_cells"] == [{"rocm_major": 7, "python": other}]
    assert [c["tested"] for c in data["cells"] if c["python"] == PYTHON and c["rocm_major"] == 7] == [True]
    assert data["warnings"] == [f"untested cells: ROCm 7, Python {other} (no Python {other} interpreter found "
                                f"(--python, python{other} on PATH, pyenv, uv))"]
    code, out, _ = run_cli("validate", TAG, "--store-dir", tmp_path / "store")
    assert code == 0 and f"warning: untested cells: ROCm 7, Python {other}" in out
    code, out, _ = run_cli("validate", TAG, "--store-dir", tmp_path / "store",
                           "--require-all-pythons")
    assert code == 1 and "warning:" not in out
    problems = [line.removeprefix("  - ") for line in out.splitlines() if line.startswith("  - ")]
    assert problems == [data["warnings"][0] + "; every Python must be tested (--require-all-pythons)"]
    monkeypatch.setenv("RELEASE_REQUIRE_ALL_PYTHONS", "1")  # what CI sets (and the jobs read)
    code, out, _ = run_cli("validate", TAG, "--store-dir", tmp_path / "store")
    assert code == 1 and f"untested cells: ROCm 7, Python {other}" in out


def test_every_python_with_an_interpreter_here_is_installed(make_dist, tmp_path):
    """Where a second interpreter exists (CI images with several Pythons), both are tested."""
    from release.check import interpreters
    others = [py for py in ("3.11", "3.12", "3.13", "3.14")
              if py != PYTHON and interpreters.find(py, use_running=False)]
    if not others:
        pytest.skip("only one Python on this machine")
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(NIGHTLY, pythons=(PYTHON, others[0]))))
    result = validate(store, TAG, mark=False, require_all_pythons=True)
    assert result.ok, result.problems
    assert {cell for cell, info in result.cells.items() if info["tested"]} == {(7, PYTHON), (7, others[0])}


def test_installed_version_is_compared_with_the_tag(make_dist, tmp_path):
    """A version.py whose ``__version__`` is not its ``_release_version`` (the real PJRT
    wheel's defect: it computes a dev version at run time) passes the static checks; the
    import in the fresh venv is what catches it."""
    computed = ('_version = "0.9.1"\n_release_version = "%s"\n_git_hash = None\n'
                '__version__ = _version + ".dev20990101"\n' % NIGHTLY)
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(NIGHTLY, version_py=computed)))
    result = validate(store, TAG, mark=False)
    assert not result.ok
    assert f"ROCm 7, Python {PYTHON}: pjrt: __version__ is '0.9.1.dev20990101', expected {NIGHTLY}" \
        in result.problems
    assert f"ROCm 7, Python {PYTHON}: plugin: __version__ is '0.9.1.dev20990101', expected {NIGHTLY}" \
        in result.problems


def test_installed_revision_map_is_compared_with_revisions_json(make_dist, tmp_path):
    """The import step reads ``commit_info.commits`` in the venv and compares it (the step
    alone: a whole validate of a right draft is test_valid_draft_is_marked_then_can_be_published)."""
    from release.check.validate_install import step_import
    from release.core.revisions import RevisionMap
    dist = make_dist(NIGHTLY)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run([*pip_argv(venv / "bin" / "python"), "install",
                    "--no-index", "--no-deps", "--quiet", *sorted(map(str, dist.glob("*.whl")))],
                   check=True)
    right = RevisionMap.loads((dist / "revisions.json").read_text())
    assert step_import(venv / "bin" / "python", 7, NIGHTLY, right) == []
    other = RevisionMap.loads((make_dist(NIGHTLY, commits={"xla": "6" * 40}) / "revisions.json")
                              .read_text())
    problems = step_import(venv / "bin" / "python", 7, NIGHTLY, other)
    assert [p.split(":")[0] for p in problems] == ["pjrt", "plugin"]
    assert all("commit_info.commits" in p for p in problems)


# ---------------------------------------------------------------- hostile stores and bad paths


def test_traversal_asset_names_from_the_api_are_refused(fake_github, make_dist, tmp_path):
    from release.publish.notes import MARKER
    dist = make_dist(NIGHTLY)
    assets = {p.name: p.read_bytes() for p in dist.iterdir()}
    outside = tmp_path / "abs-escaped"  # absolute, but inside this test's folder if it escapes
    hostile = {"../escaped.whl": b"x", str(outside): b"x", ".hidden": b"x", "nul\x00name": b"x",
               "sub/dir.whl": b"x", "..": b"x"}
    fake_github.seed_release(TAG, draft=True, prerelease=True, body=MARKER,
                             assets={**assets, **hostile})
    work = tmp_path / "work" / "deeper"
    work.mkdir(parents=True)
    result = validate(gh_store(fake_github), TAG, workdir_root=work)
    assert not result.ok and not result.marked
    refused = [p for p in result.problems if "refused" in p]
    assert len(refused) == len(hostile)
    assert "asset '../escaped.whl' refused: it contains a path separator; expected a plain file " \
           "name" in refused
    assert not list(tmp_path.rglob("escaped*")) and not outside.exists()
    assert not list(work.iterdir())  # its work folder is gone too


def test_tampered_local_store_records_are_one_line(tmp_path, make_dist, run_cli, monkeypatch):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    where = tmp_path / "store"
    store = LocalStore(where)
    publish_draft(store, read_dist(make_dist(NIGHTLY)))
    meta = where / str(store.drafts_for(TAG)[0].id) / "release.json"
    data = json.loads(meta.read_text())
    data["assets"][0]["name"] = "../../../outside.whl"
    meta.write_text(json.dumps(data))
    code, out, err = run_cli("validate", TAG, "--store-dir", where)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "file name '../../../outside.whl' refused" in err
    assert str(meta) in err
    assert not list(tmp_path.rglob("outside.whl"))


def test_a_wheel_that_is_not_a_jax_rocm_wheel_is_a_finding(make_dist, tmp_path, run_cli):
    """A draft (a hostile or tampered store) holding a wheel of the version that is not ours,
    and a file that is no wheel name at all: findings, not a crash."""
    from tests.support.publish_dist import write_wheel
    dist = make_dist(NIGHTLY)
    other = write_wheel(tmp_path / f"other-{NIGHTLY}-py3-none-any.whl", "other", NIGHTLY,
                        "py3-none-any", {"other/__init__.py": ""})
    broken = write_wheel(tmp_path / "broken.whl", "other", "1.0", "py3-none-any",
                         {"other/__init__.py": ""})
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(dist))
    draft = store.drafts_for(TAG)[0]
    for extra in (other, broken):
        store.upload_asset(draft, extra, extra.name)
    sums = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n"
                   for p in sorted([*dist.iterdir(), other, broken]) if p.name != "SHA256SUMS")
    swap_asset(store, TAG, "SHA256SUMS", sums.encode(), tmp_path)
    result = validate(store, TAG)
    assert not result.ok
    assert (f"{other.name}: not a jax-rocm wheel; a release carries only jax_rocmN_pjrt and "
            "jax_rocmN_plugin wheels") in result.problems
    assert any(p.startswith("broken.whl: not a valid wheel file name") for p in result.problems)
    assert "install not tried: pip never gets wheels that failed the checks above" in result.problems
    code, out, _ = run_cli("validate", TAG, "--store-dir", tmp_path / "store")
    assert code == 1 and "not a jax-rocm wheel" in out and "Traceback" not in out


@pytest.mark.parametrize("kind", ["missing", "directory", "not-executable", "not-python"])
def test_bad_python_paths_are_one_line(kind, tmp_path, make_dist, run_cli):
    where = tmp_path / "store"
    publish_draft(LocalStore(where), read_dist(make_dist(NIGHTLY)))
    target = tmp_path / "python"
    if kind == "directory":
        target.mkdir()
    elif kind == "not-executable":
        target.write_text("#!/bin/sh\nexit 0\n")
    elif kind == "not-python":
        target.write_text("#!/bin/sh\necho hello\n")
        target.chmod(0o755)
    before = sorted(p.name for p in where.rglob("*"))
    code, out, err = run_cli("validate", TAG, "--store-dir", where, "--python", target)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "--python" in err and str(target) in err
    assert sorted(p.name for p in where.rglob("*")) == before
    # the Python entry point says the same in one line
    from release.core.errors import UserError
    with pytest.raises(UserError) as caught:
        validate(LocalStore(where), TAG, python=str(target))
    assert str(caught.value).startswith(f"--python {target}: ")
    assert str(caught.value).endswith("expected a Python 3 interpreter")


def test_a_bad_public_index_flag_is_one_line(run_cli, tmp_path):
    code, out, err = run_cli("validate", TAG, "--store-dir", tmp_path, "--public-index", "pypi")
    assert code == 2 and "--public-index" in err and "expected an index URL" in err


# ---------------------------------------------------------------- leftovers of killed runs


def test_folders_of_killed_validates_are_removed_by_the_next_run(make_dist, tmp_path):
    from release.check.validate import clean_stale_workdirs
    root = tmp_path / "tmp"
    root.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # reaped: its pid names no process now
    stale = root / f"release-validate-{dead.pid}-abcd"
    (stale / "py3.11" / "venv" / "bin").mkdir(parents=True)
    live = root / f"release-validate-{os.getpid()}-live"
    live.mkdir()
    legacy_old, legacy_new = root / "release-validate-k3j2h1g0", root / "release-validate-z9y8x7w6"
    legacy_old.mkdir()
    legacy_new.mkdir()
    os.utime(legacy_old, (1_000_000, 1_000_000))
    os.utime(legacy_new, (1_000_000 + 7 * 3600, 1_000_000 + 7 * 3600))
    removed = clean_stale_workdirs(root, now=1_000_000 + 7 * 3600 + 60)
    assert sorted(removed) == sorted([stale, legacy_old])
    assert live.exists() and legacy_new.exists() and not stale.exists()
    # a validate run does it on its way (and leaves a legacy folder made just now alone)
    (root / f"release-validate-{dead.pid}-again").mkdir()
    os.utime(legacy_new)
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(NIGHTLY)))
    said = []
    assert validate(store, TAG, workdir_root=root, say=said.append).ok
    assert f"removed release-validate-{dead.pid}-again, left by a validate that was killed" in said
    assert sorted(p.name for p in root.iterdir()) == sorted([live.name, legacy_new.name])


def test_a_killed_validate_process_leaves_nothing_after_the_next_run(make_dist, tmp_path,
                                                                     monkeypatch):
    """A real ``release validate`` killed with SIGKILL while its venv exists: the moment it
    says it resolves the install line in the fresh venv (its progress line after the venv is
    made), the test kills it."""
    import signal
    import tempfile

    from tests.support.events import await_output
    root = tmp_path / "tmp"
    root.mkdir()
    where = tmp_path / "store"
    publish_draft(LocalStore(where), read_dist(make_dist(NIGHTLY)))
    env = dict(os.environ, TMPDIR=str(root))
    proc = subprocess.Popen([sys.executable, "-m", "release", "validate", TAG, "--store-dir",
                             str(where)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        await_output(proc.stdout, b": pip install --pre ", proc, "validate reaching pip in its venv")
        assert list(root.glob("release-validate-*/rocm*-py*/venv/bin/python"))
        assert proc.poll() is None, "validate finished before it could be killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole job, pip included (as CI cancels it)
        proc.wait()
        proc.stdout.close()
    assert [p.name for p in root.iterdir()] == [f"release-validate-{proc.pid}-" +
                                                 next(root.iterdir()).name.split("-", 3)[3]]
    monkeypatch.setenv("TMPDIR", str(root))
    monkeypatch.setattr(tempfile, "tempdir", None)
    assert validate(LocalStore(where), TAG, mark=False).ok
    assert list(root.iterdir()) == []


def test_a_zip_bomb_in_the_draft_never_reaches_pip(make_dist, tmp_path):
    """A plugin wheel with a member that inflates 1000x (swapped into the draft, its
    SHA256SUMS entry too): verify's size bound is a finding and validate never creates a venv
    or runs pip for it."""
    from tests.support.crafted import craft
    dist = make_dist(NIGHTLY)
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(dist))
    plugin = next(dist.glob("jax_rocm7_plugin-*.whl"))
    bomb = craft(plugin, tmp_path / "bomb" / plugin.name,
                 add={"jax_rocm7_plugin/zeros.bin": b"\0" * (64 << 20)})
    swap_asset(store, TAG, plugin.name, bomb.read_bytes(), tmp_path)
    sums = (dist / "SHA256SUMS").read_text().replace(
        hashlib.sha256(plugin.read_bytes()).hexdigest(), hashlib.sha256(bomb.read_bytes()).hexdigest())
    swap_asset(store, TAG, "SHA256SUMS", sums.encode(), tmp_path)
    said = []
    result = validate(store, TAG, say=said.append)
    assert not result.ok and not result.marked
    assert any(p.startswith(f"verify {plugin.name}: size: ") and "zip bomb" in p
               for p in result.problems), result.problems
    assert "install not tried: pip never gets wheels that failed the checks above" in result.problems
    assert result.cells == {} and not any("pip install" in line or "venv" in line for line in said)


def test_a_proxy_in_the_environment_is_not_used_for_the_local_index(make_dist, tmp_path,
                                                                    monkeypatch):
    """A machine whose HTTP(S)_PROXY points somewhere dead still validates: the draft's index
    on 127.0.0.1 is never asked through a proxy."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    for key in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.setenv(key, dead)
    for key in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(key, raising=False)
    store = LocalStore(tmp_path / "store")
    publish_draft(store, read_dist(make_dist(NIGHTLY)))
    result = validate(store, TAG, mark=False)
    assert result.ok, result.problems


@pytest.mark.parametrize("n_pjrt, n_plugin", [(a, b) for a in range(4) for b in range(4)])
def test_a_set_is_valid_only_with_exactly_one_pjrt_and_a_plugin(tmp_path, n_pjrt, n_plugin):
    """The rule: a draft carries exactly one pjrt wheel and at least one plugin wheel of its
    ROCm major. Two pjrt wheels of it (which would pip pick?), none (a plugin without its pjrt
    breaks ``jax[rocm]``) or no plugin at all are each a finding, whatever else the draft holds."""
    from release.check.validate import Validation, step_check_files
    from release.core import naming
    pjrts = [naming.pjrt_wheel(7, NIGHTLY, platform) for platform in
             ("manylinux_2_28_x86_64", "manylinux_2_34_x86_64", "manylinux_2_28_aarch64")][:n_pjrt]
    plugins = [naming.plugin_wheel(7, NIGHTLY, py) for py in ("3.11", "3.12", "3.13")][:n_plugin]
    files = {name: tmp_path / name for name in pjrts + plugins}
    result = Validation(TAG, None)
    step_check_files(files, NIGHTLY, result)
    complaint = [p for p in result.problems if "expected one pjrt wheel" in p]
    assert bool(complaint) == (n_pjrt != 1 or n_plugin == 0), result.problems
