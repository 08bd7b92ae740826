"""``release promote``: a nightly pair becomes an rc, a release, a post release without a
rebuild; the result passes ``release verify``, ``python -m wheel unpack`` and pip install."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from release.build.promote import promote_wheel, rewrite_assignment, rewrite_metadata, target_version
from release.check.verify import Options, verify_wheel
from release.core import core_metadata
from release.core.errors import UserError
from release.core.scan import data_offset
from tests.support.crafted import VERSION, configured_runpath, craft, member_text, pip_install, revision_map

SOS = ("jax_plugins/xla_rocm7/xla_rocm_plugin.so", "jax_rocm7_plugin/_linalg.so",
       "jax_rocm7_plugin/rocm_plugin_extension.so")


@pytest.fixture(scope="session")
def promoted_rc(good_wheels, tmp_path_factory):
    """The nightly pair promoted to rc1 (read it, never change it)."""
    out = tmp_path_factory.mktemp("rc1")
    return {kind: promote_wheel(path, "rc1", out) for kind, path in good_wheels.items()}


class _NoBar:
    def describe(self, text: str) -> None: ...

    def advance(self, n: int) -> None: ...


def promote(wheels, to, out=None):
    """``release promote`` as its jobs function (``run_promote``): (the result, what it said)."""
    from release.jobs.promote import PromoteOptions, run_promote
    said: list[str] = []
    return run_promote(PromoteOptions(tuple(wheels), to, out), _NoBar(), said.append), said


def raw_members(wheel) -> dict[str, tuple[bytes, int, int]]:
    """name -> (compressed bytes, mode, CRC) straight from the archive."""
    result = {}
    with zipfile.ZipFile(wheel) as zf, open(wheel, "rb") as fp:
        for info in zf.infolist():
            start = data_offset(fp, info)
            fp.seek(start)
            result[info.filename] = (fp.read(info.compress_size), info.external_attr >> 16, info.CRC)
    return result


@pytest.mark.parametrize("current, target, expected", [
    ("0.9.1.dev20261122", "rc1", "0.9.1rc1"),
    ("0.9.1.dev20261122", "release", "0.9.1"),
    ("0.9.1rc1", "rc2", "0.9.1rc2"),
    ("0.9.1rc2", "release", "0.9.1"),
    ("0.9.1", "post1", "0.9.1.post1"),
    ("0.9.1.post1", "post1", "0.9.1.post1"),
])
def test_target_version(current, target, expected):
    assert target_version(current, target) == expected


@pytest.mark.parametrize("current, target, fragment", [
    ("0.9.1", "rc1", "sorts below"),
    ("0.9.1.post2", "release", "sorts below"),
    ("0.9.1", "rc0", "expected release, rcN or postN"),
    ("0.9.1", "final", "expected release, rcN or postN"),
])
def test_target_version_refusals(current, target, fragment):
    with pytest.raises(UserError, match=fragment):
        target_version(current, target)


def test_rewrite_metadata_moves_version_and_pjrt_pin_only():
    text = ("Metadata-Version: 2.4\nName: jax-rocm7-plugin\nVersion: 0.9.1rc1\n"
            "Requires-Dist: jax-rocm7-pjrt==0.9.1rc1\n"
            "Requires-Dist: rocm[libraries]==7.2.0; extra == \"with-rocm\"\n"
            "Provides-Extra: with-rocm\n\nVersion: 0.9.1rc1 in the description stays\n")
    new = rewrite_metadata(text, "0.9.1", "jax-rocm7-pjrt")
    assert new == text.replace("Version: 0.9.1rc1\nRequires-Dist: jax-rocm7-pjrt==0.9.1rc1",
                               "Version: 0.9.1\nRequires-Dist: jax-rocm7-pjrt==0.9.1")


def test_rewrite_metadata_fixes_a_wildcard_pin():
    text = "Name: jax-rocm7-plugin\nVersion: 0.9.1\nRequires-Dist: jax-rocm7-pjrt==0.9.1.*\n"
    assert "Requires-Dist: jax-rocm7-pjrt==0.9.1.post1\n" in rewrite_metadata(
        text, "0.9.1.post1", "jax-rocm7-pjrt")


def by_packaging(value: str, pjrt: str, new_version: str) -> str | None:
    """The pin moved as packaging reads ``value`` (what promote did for every line before)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name
    try:
        req = Requirement(value.strip())
    except InvalidRequirement:
        return None
    if canonicalize_name(req.name) != canonicalize_name(pjrt) or (req.marker and "extra" in str(req.marker)):
        return None
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    marker = f"; {req.marker}" if req.marker else ""
    return f"Requires-Dist: {req.name}{extras}=={new_version}{marker}"


PIN_NAMES = st.sampled_from(["jax-rocm7-pjrt", "jax_rocm7_pjrt", "JAX.rocm7--PJRT", "jax-rocm7-plugin", "x",
                             "-jax-rocm7-pjrt", "jax-rocm7-pjrt-", "jax rocm7 pjrt", "jаx-rocm7-pjrt"])
PIN_OPS = st.sampled_from(["==", "===", ">=", " == ", "=", "~=", "!="])
PIN_VERSIONS = st.sampled_from(["0.9.1rc1", "0.9.1.dev20261128", "1!2.0", "v1.0", "1.0+local.7", "0.9.1.*",
                                "0.9.1.post1", "1.0_rc-1"]) \
    | st.text(alphabet="0123456789.abcdeprvostl+!*-_ ", max_size=14)
PIN_TAILS = st.sampled_from(["", " ; python_version >= '3.11'", "; extra == 'x'", "[cuda]", " ", ",<2", "\t"])


@given(name=PIN_NAMES, op=PIN_OPS, version=PIN_VERSIONS, tail=PIN_TAILS, fuzz=st.text(max_size=30))
@example(name="jax-rocm7-pjrt", op="==", version="0.9.1rc1", tail="", fuzz="")
@example(name="jax-rocm7-pjrt", op="==", version="v1.0", tail="", fuzz="")
@example(name="JAX.rocm7--PJRT", op="==", version="0.9.1", tail="", fuzz="")
@example(name="jax-rocm7-pjrt", op="==", version="1.0+local.7", tail="", fuzz="")
def test_a_pin_line_is_moved_as_packaging_reads_it(name, op, version, tail, fuzz):
    """promote reads the build's own ``NAME==VERSION`` without loading packaging's requirement
    parser; every line, of that form or not, moves (or stays) as packaging reads it."""
    from release.build.promote import _moved_pin
    for value in (f"{name}{op}{version}{tail}", fuzz, f"{name}=={fuzz}"):
        for pjrt in ("jax-rocm7-pjrt", "x"):
            assert _moved_pin(value.strip(), pjrt, "0.9.1") == by_packaging(value, pjrt, "0.9.1"), (value, pjrt)


@pytest.mark.parametrize("line", [
    "_release_version: str | None = None", "_release_version = '0.9.1rc1'  # set by the build",
    "_release_version: str = \"0.9.1\"",
])
def test_rewrite_assignment(line):
    source = f"_version = '0.9.1'\n{line}\n_git_hash = None\n"
    new, found = rewrite_assignment(source, "_release_version", "0.9.1.post1")
    assert found
    assert re.search(r"^_release_version\b[^=]*= '0\.9\.1\.post1'", new, re.M)
    assert new.replace(re.search(r"^_release_version.*$", new, re.M).group(0), line) == source


def test_promoted_pair_passes_verify(promoted_rc):
    for kind, result in promoted_rc.items():
        assert result.new_version == "0.9.1rc1" and result.old_version == VERSION
        report = verify_wheel(result.output, Options(runpath=tuple(configured_runpath()),
                                                     revisions=revision_map()))
        assert report.findings == [], kind
    assert promoted_rc["pjrt"].output.name == "jax_rocm7_pjrt-0.9.1rc1-py3-none-manylinux_2_28_x86_64.whl"


def test_big_members_are_copied_raw_with_their_mode(good_wheels, promoted_rc):
    for kind in ("pjrt", "plugin"):
        before, after = raw_members(good_wheels[kind]), raw_members(promoted_rc[kind].output)
        for name in SOS:
            if name in before:
                assert after[name] == before[name]  # same compressed bytes, mode and CRC
                assert after[name][1] & 0o777 == 0o755
                assert name in promoted_rc[kind].copied
    assert promoted_rc["pjrt"].copied_bytes == len(before_so := raw_members(
        good_wheels["pjrt"])[SOS[0]][0]) + len(raw_members(good_wheels["pjrt"])[
            "jax_plugins/xla_rocm7/__init__.py"][0]) and before_so


def test_what_carries_the_version_is_rewritten(promoted_rc):
    plugin = promoted_rc["plugin"].output
    _, metadata = member_text(plugin, ".dist-info/METADATA")
    assert "Version: 0.9.1rc1\n" in metadata and "Requires-Dist: jax-rocm7-pjrt==0.9.1rc1\n" in metadata
    _, version_py = member_text(plugin, "/version.py")
    assert "_release_version = '0.9.1rc1'" in version_py
    _, commit_info = member_text(plugin, "/commit_info.py")
    assert "version = '0.9.1rc1'" in commit_info
    assert revision_map().legacy_commits() == _constants(commit_info)["commits"]
    with zipfile.ZipFile(plugin) as zf:
        names = zf.namelist()
    assert names[-1] == "jax_rocm7_plugin-0.9.1rc1.dist-info/RECORD"
    assert not [n for n in names if VERSION in n]


def _constants(source):
    from release.core.scan import module_constants
    return module_constants(source)


def test_wheel_unpack_checks_record(promoted_rc, tmp_path):
    for result in promoted_rc.values():
        proc = subprocess.run([sys.executable, "-m", "wheel", "unpack", "-d", str(tmp_path),
                               str(result.output)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    so = tmp_path / "jax_rocm7_pjrt-0.9.1rc1" / "jax_plugins" / "xla_rocm7" / "xla_rocm_plugin.so"
    assert so.stat().st_mode & 0o111


def test_promoted_pair_installs_together(promoted_rc, bare_venv):
    out = promoted_rc["plugin"].output.parent
    proc = pip_install(bare_venv, "--find-links", str(out), "jax-rocm7-plugin==0.9.1rc1")
    assert proc.returncode == 0, proc.stderr
    probe = subprocess.run([str(bare_venv), "-c", (
        "import importlib.metadata as m, json, jax_plugins.xla_rocm7 as p, jax_rocm7_plugin.version as v,"
        " jax_rocm7_plugin.commit_info as c\n"
        "print(json.dumps([m.version('jax-rocm7-pjrt'), m.version('jax-rocm7-plugin'),"
        " p.__version__, v.__version__, c.version]))")], capture_output=True, text=True)
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout) == ["0.9.1rc1"] * 5


def test_promote_is_idempotent_and_atomic(good_wheels, tmp_path):
    first = promote_wheel(good_wheels["pjrt"], "release", tmp_path).output
    data = first.read_bytes()
    (tmp_path / (first.name + ".part")).write_bytes(b"left by a crash")
    again = promote_wheel(good_wheels["pjrt"], "release", tmp_path).output
    assert again == first and again.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == [first.name]


def test_promote_again_to_post(promoted_rc, tmp_path):
    release = promote_wheel(promoted_rc["plugin"].output, "release", tmp_path)
    post = promote_wheel(release.output, "post2", tmp_path)
    _, metadata = member_text(post.output, ".dist-info/METADATA")
    assert "Requires-Dist: jax-rocm7-pjrt==0.9.1.post2\n" in metadata
    assert verify_wheel(post.output, Options(runpath=tuple(configured_runpath()))).findings == []


def test_unset_release_version_is_set(good_wheels, tmp_path):
    """The published PJRT wheel's defect (``_release_version = None``) is fixed by promotion."""
    name, text = member_text(good_wheels["pjrt"], "/version.py")
    unset = re.sub(r"^_release_version\b.*$", "_release_version: str | None = None", text, flags=re.M)
    src = craft(good_wheels["pjrt"], tmp_path / "src" / good_wheels["pjrt"].name, replace={name: unset})
    assert [f.check for f in verify_wheel(src).findings] == ["version"]
    out = promote_wheel(src, "rc3", tmp_path / "out").output
    assert [f.check for f in verify_wheel(out).findings] == []
    assert "_release_version: str | None = '0.9.1rc3'" in member_text(out, "/version.py")[1]


def test_promote_refuses_a_wheel_whose_record_lacks_a_member(good_wheels, tmp_path):
    src = craft(good_wheels["pjrt"], tmp_path / "src" / good_wheels["pjrt"].name,
                record_edit=lambda rows: [r for r in rows if not r[0].endswith(".so")])
    with pytest.raises(UserError, match="RECORD has no sha256") as caught:
        promote([src], "rc1", tmp_path / "out")
    assert caught.value.exit_code == 2 and "\n" not in str(caught.value)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


@pytest.mark.parametrize("argv, fragment", [
    (["--to", "rc1"], "sorts below"),
    (["--to", "beta"], "expected release, rcN or postN"),
])
def test_cli_refusals_exit_2(release_subprocess, promoted_rc, tmp_path, argv, fragment):
    release = promote_wheel(promoted_rc["pjrt"].output, "release", tmp_path)
    proc = release_subprocess("promote", release.output, *argv, "--out", tmp_path / "x")
    assert proc.returncode == 2 and proc.stdout == "" and fragment in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_cli_json_then_verify(run_cli, good_wheels, tmp_path):
    code, out, err = run_cli("promote", good_wheels["pjrt"], good_wheels["plugin"], "--to", "release",
                             "--out", tmp_path, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["to"] == "0.9.1"
    outputs = [w["output"] for w in data["wheels"]]
    assert [w["from"] for w in data["wheels"]] == [VERSION, VERSION]
    code, out, _ = run_cli("verify", *outputs, "--json")
    assert code == 0 and json.loads(out)["ok"]


@pytest.mark.parametrize("to, version", [("rc1", "0.9.1rc1"), ("release", "0.9.1"),
                                         ("post2", "0.9.1.post2")])
def test_a_promoted_dist_is_published_as_it_is(run_cli, make_dist, project_dir, tmp_path, to,
                                               version):
    """promote --out D, then publish D: a tested nightly ships byte-identical as an rc (or a
    release, or a post release) by hand, with its pins, provenance and checksums."""
    import hashlib

    from release.core.revisions import RevisionMap
    from release.publish.drafts import read_dist

    nightly = make_dist("0.9.1.dev20261122")
    out = tmp_path / "promoted"
    result, _ = promote(sorted(nightly.glob("*.whl")), to, out)
    promoted = sorted(p.name for p in out.glob("*.whl"))
    assert result.versions == [version]
    assert list(result.dist_files) == [*(w + ".metadata" for w in promoted), "revisions.json",
                                       "provenance.intoto.json", "SHA256SUMS"]
    for wheel in promoted:  # the promoted wheel's METADATA (its new version), not the source's
        assert (out / (wheel + ".metadata")).read_bytes() == core_metadata.read(out / wheel)
        assert f"Version: {version}\n".encode() in (out / (wheel + ".metadata")).read_bytes()
    dist = read_dist(out)  # what publish reads: checksums, provenance and pins all agree
    before = RevisionMap.loads((nightly / "revisions.json").read_text())
    after = RevisionMap.loads((out / "revisions.json").read_text())
    assert after.version == version and after.commits == before.commits
    store = tmp_path / "store"
    code, _, err = run_cli("publish", out, "--store", "local", "--store-dir", store, cwd=project_dir)
    assert code == 0, err
    shipped = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
               for p in store.rglob("*.whl")}
    assert shipped == {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                       for p in out.glob("*.whl")} and len(shipped) == len(dist.wheels)


def test_promoted_wheels_from_no_dist_are_only_wheels(make_dist, tmp_path):
    nightly = make_dist("0.9.1.dev20261122")
    (nightly / "revisions.json").unlink()
    out = tmp_path / "promoted"
    result, said = promote(sorted(nightly.glob("*.whl")), "rc1", out)
    assert result.dist_files == () and len(result.promotions) == 2
    assert [line for line in said if "revisions.json: missing" in line] == said and len(said) == 1
    assert sorted(p.suffix for p in out.iterdir()) == [".whl", ".whl"]
