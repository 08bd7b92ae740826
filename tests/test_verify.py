"""``release verify``: every named check passes on wheels the build makes and fails on a wheel
crafted with exactly its defect. Real ELF objects, real wheels, no stubs."""

from __future__ import annotations

import json
import re
import zipfile

import pytest

from release.check.verify import CHECKS, ERROR, WARNING, Options, verify_wheel
from tests.support.crafted import PYTHON, VERSION, build_pair, configured_runpath, craft, member_text, revision_map

DI_PJRT = f"jax_rocm7_pjrt-{VERSION}.dist-info"
DI_PLUGIN = f"jax_rocm7_plugin-{VERSION}.dist-info"
CP = "cp" + PYTHON.replace(".", "")


def options(**kw) -> Options:
    return Options(runpath=tuple(kw.get("runpath", configured_runpath())),
                   revisions=kw.get("revisions", revision_map()))


def problems(wheel, check=None, **kw) -> list[tuple[str, str, str | None, str]]:
    report = verify_wheel(wheel, options(**kw))
    return [(f.check, f.severity, f.member, f.message) for f in report.findings
            if check is None or f.check == check]


class _NoBar:
    def describe(self, text: str) -> None: ...

    def advance(self, n: int) -> None: ...


def verify(*wheels, **options):
    """``release verify`` as its jobs function (``run_verify``): the result the command prints."""
    from release.jobs.verify import VerifyOptions, run_verify
    return run_verify(VerifyOptions(tuple(wheels), **options), _NoBar())


def only(wheel, check, severity=ERROR, **kw):
    """The findings of ``wheel``: all of check ``check`` and severity ``severity``."""
    found = problems(wheel, **kw)
    assert found, f"{wheel.name}: expected a {check} {severity}"
    assert {(c, s) for c, s, _, _ in found} == {(check, severity)}, found
    return found


@pytest.mark.parametrize("kind", ["pjrt", "plugin"])
def test_wheels_the_build_makes_pass_every_check(good_wheels, kind):
    report = verify_wheel(good_wheels[kind], options())
    assert report.findings == []
    # the build's with-rocm extra names AMD's amd_*_instinct wheels, whose files nothing records
    expected_na = {"requires", "pair", "with-rocm"} if kind == "pjrt" else {"pair", "with-rocm"}
    assert {c for c in CHECKS if report.status(c) == "n/a"} == expected_na
    assert all(report.status(c) == "ok" for c in CHECKS if c not in expected_na)


def test_cli_ok_exit_0_json(run_cli, good_wheels, tmp_path):
    revisions = tmp_path / "revisions.json"
    revisions.write_text(revision_map().dumps())
    code, out, err = run_cli("verify", good_wheels["pjrt"], good_wheels["plugin"],
                             "--revisions", revisions, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["ok"] and data["errors"] == 0
    assert data["runpath"] == configured_runpath()  # the rocm_build config is the default
    assert [w["checks"]["runpath"] for w in data["wheels"]] == ["ok", "ok"]
    assert [w["checks"]["pair"] for w in data["wheels"]] == ["n/a", "ok"]


def test_cli_human_table_and_exit_1(run_cli, good_wheels, tmp_path):
    bad = craft(good_wheels["pjrt"], tmp_path / good_wheels["pjrt"].name,
                replace={f"{DI_PJRT}/WHEEL": lambda t: t.replace("Root-Is-Purelib: false",
                                                                 "Root-Is-Purelib: true")})
    code, out, _ = run_cli("verify", bad, good_wheels["plugin"])
    assert code == 1
    assert "FAILED" in out and "purelib" in out and "Root-Is-Purelib" in out
    assert f"{good_wheels['plugin'].name}: ok" in out


def test_github_summary_and_output(run_cli, good_wheels, tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary"))
    code, _, _ = run_cli("verify", good_wheels["pjrt"])
    assert code == 0
    assert "verify-ok=true" in (tmp_path / "out").read_text()
    assert "| all | ok |" in (tmp_path / "summary").read_text()


@pytest.mark.parametrize("make, fragment", [
    (lambda p: p, "no such file"),
    (lambda p: (p.write_text("not a zip"), p)[1], "not a zip archive"),
])
def test_user_errors_exit_2_one_line(release_subprocess, tmp_path, make, fragment):
    path = make(tmp_path / "x-1.0-py3-none-any.whl")
    proc = release_subprocess("verify", path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and fragment in proc.stderr


def test_revisions_file_must_be_readable(release_subprocess, good_wheels, tmp_path):
    bad = tmp_path / "revisions.json"
    bad.write_text("{}")
    proc = release_subprocess("verify", good_wheels["pjrt"], "--revisions", bad)
    assert proc.returncode == 2 and "not a revisions.json" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- zip, RECORD, paths, layout


def _flip_byte_in(wheel, member, dest):
    dest.write_bytes(wheel.read_bytes())
    with zipfile.ZipFile(dest) as zf:
        info = zf.getinfo(member)
    with open(dest, "r+b") as fh:
        fh.seek(info.header_offset + 26)
        name_len, extra_len = int.from_bytes(fh.read(2), "little"), int.from_bytes(fh.read(2), "little")
        at = info.header_offset + 30 + name_len + extra_len + info.compress_size // 2
        fh.seek(at)
        byte = fh.read(1)
        fh.seek(at)
        fh.write(bytes([byte[0] ^ 0xFF]))
    return dest


def test_zip_corrupt_member_is_reported_not_raised(good_wheels, tmp_path):
    member = "jax_plugins/xla_rocm7/xla_rocm_plugin.so"
    bad = _flip_byte_in(good_wheels["pjrt"], member, tmp_path / good_wheels["pjrt"].name)
    found = problems(bad, "zip")
    assert [(c, s, m) for c, s, m, _ in found] == [("zip", ERROR, member)]
    assert any(w in found[0][3] for w in ("CRC", "corrupt", "bytes"))


@pytest.mark.parametrize("edit, fragment", [
    (lambda rows: [(n, "sha256=" + "A" * 43 if n.endswith("__init__.py") else h, s)
                   for n, h, s in rows], "RECORD says sha256=AAAA"),
    (lambda rows: [(n, h, str(int(s) + 1) if n.endswith("version.py") else s) for n, h, s in rows],
     "RECORD says size"),
    (lambda rows: [r for r in rows if not r[0].endswith("commit_info.py")], "not in RECORD"),
    (lambda rows: rows + [("jax_plugins/xla_rocm7/gone.py", "sha256=x", "1")],
     "in RECORD but not in the archive"),
    (lambda rows: [(n, "md5=abc" if n.endswith("__init__.py") else h, s) for n, h, s in rows],
     "is not sha256"),
])
def test_record_tampering(good_wheels, tmp_path, edit, fragment):
    bad = craft(good_wheels["pjrt"], tmp_path / good_wheels["pjrt"].name, record_edit=edit)
    found = only(bad, "record")
    assert any(fragment in msg for *_, msg in found), found


def test_record_missing(good_wheels, tmp_path):
    src = good_wheels["pjrt"]
    bad = tmp_path / src.name
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            if not info.filename.endswith("RECORD"):
                zout.writestr(info, zin.read(info))
    assert ("record", ERROR, None, "no RECORD in the dist-info directory") in problems(bad)


@pytest.mark.parametrize("name, check, fragment", [
    ("../evil.py", "paths", "'..'"),
    ("jax_plugins/xla_rocm7/..\\evil.py", "paths", "backslash"),
    ("evil.py", "layout", "outside the package directories"),
    ("jax_plugins/__init__.py", "layout", "namespace package"),
    (f"jax_rocm7_pjrt-{VERSION}.data/scripts/evil", "layout", ".data"),
])
def test_paths_and_layout(good_wheels, tmp_path, name, check, fragment):
    bad = craft(good_wheels["pjrt"], tmp_path / good_wheels["pjrt"].name, add={name: "x = 1\n"})
    found = problems(bad)
    assert {(c, s) for c, s, _, _ in found} >= {(check, ERROR)}
    assert any(m == name and fragment in msg for c, _, m, msg in found if c == check), found
    assert {c for c, *_ in found} <= {"paths", "layout"}


def test_absolute_path(good_wheels, tmp_path):
    src = good_wheels["pjrt"]
    bad = tmp_path / src.name
    bad.write_bytes(src.read_bytes())
    with zipfile.ZipFile(bad, "a") as zf:
        info = zipfile.ZipInfo("placeholder")
        info.filename = "/etc/evil"
        zf.writestr(info, b"x")
    found = problems(bad, "paths")
    assert ("paths", ERROR, "/etc/evil", "absolute path") in found


# ---------------------------------------------------------------- names, purelib, glibc


def test_metadata_version_disagrees(good_wheels, tmp_path):
    bad = craft(good_wheels["plugin"], tmp_path / good_wheels["plugin"].name,
                replace={f"{DI_PLUGIN}/METADATA": lambda t: t.replace(f"Version: {VERSION}",
                                                                      "Version: 0.9.0")})
    found = only(bad, "names")
    assert "METADATA Version '0.9.0'" in found[0][3]


def test_metadata_name_disagrees(good_wheels, tmp_path):
    bad = craft(good_wheels["pjrt"], tmp_path / good_wheels["pjrt"].name,
                replace={f"{DI_PJRT}/METADATA": lambda t: t.replace("Name: jax-rocm7-pjrt",
                                                                    "Name: jax-rocm6-pjrt")})
    assert "METADATA Name" in only(bad, "names")[0][3]


def test_wheel_tag_disagrees(good_wheels, tmp_path):
    bad = craft(good_wheels["plugin"], tmp_path / good_wheels["plugin"].name,
                replace={f"{DI_PLUGIN}/WHEEL": lambda t: t.replace(f"{CP}-{CP}", "cp39-cp39")})
    assert "WHEEL Tag" in only(bad, "names")[0][3]


def test_dist_info_directory_disagrees(good_wheels, tmp_path):
    src = good_wheels["pjrt"]
    with zipfile.ZipFile(src) as zf:
        rename = {n: n.replace(DI_PJRT, "jax_rocm7_pjrt-0.9.0.dist-info") for n in zf.namelist()
                  if n.startswith(DI_PJRT)}
    bad = craft(src, tmp_path / src.name, rename=rename)
    assert "dist-info directory" in only(bad, "names")[0][3]


def test_file_name_disagrees(good_wheels, tmp_path):
    src = good_wheels["pjrt"]
    bad = tmp_path / src.name.replace(VERSION, "0.9.1")
    bad.write_bytes(src.read_bytes())
    found = problems(bad)
    checks = {c for c, *_ in found}
    assert "names" in checks and checks <= {"names", "version", "revisions", "sbom"}


def test_purelib_true_with_native_libraries(good_wheels, tmp_path):
    bad = craft(good_wheels["pjrt"], tmp_path / good_wheels["pjrt"].name,
                replace={f"{DI_PJRT}/WHEEL": lambda t: t.replace("Root-Is-Purelib: false",
                                                                 "Root-Is-Purelib: true")})
    found = only(bad, "purelib")
    assert found[0][2] == f"{DI_PJRT}/WHEEL" and "must be false" in found[0][3]


def test_glibc_newer_than_the_tag(good_wheels, wheel_artifacts, tmp_path):
    built = build_pair(tmp_path / "built", wheel_artifacts["good"],
                       overrides={"_linalg.so": wheel_artifacts["glibc"]})
    assert problems(built["plugin"]) == []  # manylinux_2_28 covers GLIBC_2.25
    old = built["plugin"].name.replace("manylinux_2_28", "manylinux_2_17")
    bad = craft(built["plugin"], tmp_path / old,
                replace={f"{DI_PLUGIN}/WHEEL": lambda t: t.replace("manylinux_2_28", "manylinux_2_17")})
    found = only(bad, "glibc")
    assert found[0][2] == "jax_rocm7_plugin/_linalg.so"
    assert "glibc 2.17" in found[0][3] and "GLIBC_2.25" in found[0][3]


# ---------------------------------------------------------------- RUNPATH


def _plugin_with(wheel_artifacts, tmp_path, variant):
    return build_pair(tmp_path / variant, wheel_artifacts["good"],
                      overrides={"_linalg.so": wheel_artifacts[variant]})["plugin"]


def test_runpath_build_tree_leaks(wheel_artifacts, tmp_path):
    found = only(_plugin_with(wheel_artifacts, tmp_path, "leaky"), "runpath")
    assert {m for _, _, m, _ in found} == {"jax_rocm7_plugin/_linalg.so"}
    messages = " ".join(msg for *_, msg in found)
    for what in ("_solib_", ".runfiles", "bazel-out", "/tmp/build-1234/lib", "/home/builder"):
        assert what in messages
    assert len(found) == 5


def test_runpath_dt_rpath_is_an_error(wheel_artifacts, tmp_path):
    found = only(_plugin_with(wheel_artifacts, tmp_path, "rpath"), "runpath")
    assert any("DT_RPATH" in msg for *_, msg in found)
    assert any("no DT_RUNPATH" in msg for *_, msg in found)


def test_runpath_absent(wheel_artifacts, tmp_path):
    found = only(_plugin_with(wheel_artifacts, tmp_path, "none"), "runpath")
    assert [msg for *_, msg in found] == ["no DT_RUNPATH"]


def test_runpath_missing_configured_entry(wheel_artifacts, tmp_path):
    found = only(_plugin_with(wheel_artifacts, tmp_path, "missing"), "runpath")
    assert [msg for *_, msg in found] == [f"configured entry {configured_runpath()[0]} is missing"]


def test_runpath_duplicate_is_a_warning(wheel_artifacts, tmp_path):
    wheel = _plugin_with(wheel_artifacts, tmp_path, "dup")
    found = only(wheel, "runpath", WARNING)
    assert [msg for *_, msg in found] == [f"duplicate entry {configured_runpath()[0]}"]
    result = verify(wheel)
    assert result.errors == 0 and result.to_json()["wheels"][0]["checks"]["runpath"] == "warning"


def test_runpath_relative_and_empty_entries(wheel_artifacts, tmp_path):
    found = only(_plugin_with(wheel_artifacts, tmp_path, "relative"), "runpath")
    messages = sorted(msg for *_, msg in found)
    assert len(messages) == 2
    assert messages[0].startswith("empty entry") and messages[1].startswith("relative entry lib")


def test_unreadable_elf_is_a_finding(good_wheels, tmp_path):
    bad = craft(good_wheels["plugin"], tmp_path / good_wheels["plugin"].name,
                add={"jax_rocm7_plugin/_broken.so": b"\x7fELF\x02\x01\x01" + b"\xff" * 200})
    found = only(bad, "runpath")
    assert [(m, msg.split(" (")[0]) for _, _, m, msg in found] == [
        ("jax_rocm7_plugin/_broken.so", "unreadable ELF")]


@pytest.mark.parametrize("entry, expected", [
    ("$ORIGIN/../rocm/lib", None),
    ("/opt/rocm/lib", None),
    ("/rootfs/lib", None),
    ("/tmpfs/lib", None),
    ("$ORIGIN/../../_solib_x86_64/_U_A_Alocal_Uconfig_Urocm", "_solib_"),
    ("$ORIGIN/x.so.runfiles/__main__/lib", "runfiles"),
    ("/b/execroot/__main__/bazel-out/k8-opt/bin", "Bazel output"),
    ("/tmp", "temporary"),
    ("/var/tmp/build/lib", "temporary"),
    ("/home/ci/rocm/lib", "home"),
    ("/root/lib", "home"),
    ("~/lib", "home"),
    ("lib64", "relative entry"),
    ("", "empty entry"),
    ("/usr/local/lib/python3.11/dist-packages/_rocm_sdk_core/lib", "one Python installation"),
])
def test_runpath_entry_rules(entry, expected):
    from release.check.runpath import runpath_problems
    found = runpath_problems([entry], [])
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and expected in found[0][1]


def test_runpath_flag_overrides_the_config(good_wheels):
    result = verify(good_wheels["plugin"], runpath=("/opt/other/lib",))
    messages = [f.message for f in result.reports[0].findings]
    assert set(messages) == {"configured entry /opt/other/lib is missing"}
    assert len(messages) == 8 == result.errors  # one per kernel .so


# ---------------------------------------------------------------- version, revisions, requires


@pytest.mark.parametrize("value, fragment", [
    ("None", "is None"), ("'0.9.0'", "is '0.9.0'"),
])
def test_release_version_wrong(good_wheels, tmp_path, value, fragment):
    name, text = member_text(good_wheels["pjrt"], "/version.py")
    new, count = re.subn(r"^_release_version\b.*$", f"_release_version = {value}", text, flags=re.M)
    assert count == 1
    bad = craft(good_wheels["pjrt"], tmp_path / good_wheels["pjrt"].name, replace={name: new})
    found = only(bad, "version")
    assert found[0][2] == name and fragment in found[0][3]


def test_version_py_missing(good_wheels, tmp_path):
    name, _ = member_text(good_wheels["pjrt"], "/version.py")
    bad = craft(good_wheels["pjrt"], tmp_path / good_wheels["pjrt"].name, drop=(name,))
    pin = revision_map().commits["plugin"][:12]
    assert problems(bad) == [("version", ERROR, None, "no version.py in the package"),
                             ("revisions", WARNING, None, "_git_hash not compared with the plugin "
                              f"pin {pin}: no version.py in the package")]


def test_revision_map_missing(good_wheels, tmp_path):
    name, _ = member_text(good_wheels["plugin"], "/commit_info.py")
    bad = craft(good_wheels["plugin"], tmp_path / good_wheels["plugin"].name, drop=(name,))
    assert "no revision map" in only(bad, "revisions")[0][3]


@pytest.mark.parametrize("edit, fragment", [
    (lambda t: t.replace("commits = {", "commits = {'x': 'abc', "), "full commit SHA"),
    (lambda t: t + "revisions = {'xla': 'oops'}\n", "revisions is not a map"),
    (lambda t: t.replace(f"version = {VERSION!r}", "version = '0.8.0'"), "version '0.8.0'"),
    (lambda t: t + "def (:\n", "not valid Python"),
])
def test_revision_map_malformed(good_wheels, tmp_path, edit, fragment):
    name, _ = member_text(good_wheels["plugin"], "/commit_info.py")
    bad = craft(good_wheels["plugin"], tmp_path / good_wheels["plugin"].name, replace={name: edit})
    assert any(fragment in msg for *_, msg in only(bad, "revisions"))


def test_revision_map_differs_from_deps(good_wheels, project_dir):
    from release.core.errors import UserError
    deps = project_dir / "deps.yaml"
    deps.write_text(deps.read_text().replace("b32df5f07315567cc1940388ef766b87c6e8b9e3", "cafe" * 10))
    result = verify(good_wheels["pjrt"], deps=deps)
    assert [(f.check, f.message) for f in result.reports[0].findings] == [
        ("revisions", f"ROCm/xla: wheel has b32df5f07315567cc1940388ef766b87c6e8b9e3, "
                      f"expected {'cafe' * 10}")] and result.errors == 1
    with pytest.raises(UserError) as caught:
        verify(good_wheels["pjrt"], deps=project_dir / "missing.yaml")
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("pin, fragment", [
    ("jax-rocm7-pjrt==0.9.1.*", "exactly"),
    (f"jax-rocm7-pjrt>={VERSION}", "exactly"),
    (None, "no Requires-Dist"),
])
def test_plugin_pin_on_pjrt(good_wheels, tmp_path, pin, fragment):
    def edit(text):
        line = f"Requires-Dist: jax-rocm7-pjrt=={VERSION}\n"
        assert line in text
        return text.replace(line, f"Requires-Dist: {pin}\n" if pin else "")
    bad = craft(good_wheels["plugin"], tmp_path / good_wheels["plugin"].name,
                replace={f"{DI_PLUGIN}/METADATA": edit})
    assert fragment in only(bad, "requires")[0][3]


def test_big_member_is_streamed_not_loaded(big_pjrt_wheel):
    """A 48 MB .so is read in bounded chunks: Python never holds it."""
    import tracemalloc
    tracemalloc.start()
    try:
        report = verify_wheel(big_pjrt_wheel, options())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.findings == []
    with zipfile.ZipFile(big_pjrt_wheel) as zf:
        size = zf.getinfo("jax_plugins/xla_rocm7/xla_rocm_plugin.so").file_size
    assert size > 48 << 20
    assert peak < 24 << 20, f"peak Python allocation {peak} bytes for a {size}-byte member"


def test_big_member_corruption_is_found(big_pjrt_wheel, tmp_path):
    member = "jax_plugins/xla_rocm7/xla_rocm_plugin.so"
    bad = _flip_byte_in(big_pjrt_wheel, member, tmp_path / big_pjrt_wheel.name)
    assert [(c, s, m) for c, s, m, _ in problems(bad, "zip")] == [("zip", ERROR, member)]


def test_verify_never_changes_the_wheel(good_wheels):
    before = good_wheels["pjrt"].read_bytes()
    verify_wheel(good_wheels["pjrt"], options())
    assert good_wheels["pjrt"].read_bytes() == before


def test_stored_members_are_read_in_place(good_wheels, tmp_path):
    """A wheel with stored (uncompressed) members: ELF facts come from the zip itself."""
    src = good_wheels["plugin"]
    stored = tmp_path / src.name
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            info.compress_type = zipfile.ZIP_STORED
            zout.writestr(info, data)
    report = verify_wheel(stored, options())
    assert report.findings == []
    leaky = verify_wheel(stored, options(runpath=["/nowhere"]))
    assert {f.member for f in leaky.findings} == {
        f"jax_rocm7_plugin/{n}" for n in ("_linalg.so", "_prng.so", "_solver.so", "_sparse.so",
                                          "_hybrid.so", "_rnn.so", "_triton.so",
                                          "rocm_plugin_extension.so")}


def test_pair_versions_must_match(good_wheels, tmp_path):
    from release.build.promote import promote_wheel
    rc_plugin = promote_wheel(good_wheels["plugin"], "rc1", tmp_path).output
    result = verify(good_wheels["pjrt"], rc_plugin)
    assert result.errors == 1 and result.reports[0].findings == []
    (finding,) = result.reports[1].findings
    assert finding.check == "pair"
    assert finding.message.startswith(f"the PJRT wheel given is {VERSION}; this plugin 0.9.1rc1 pins")


def test_pair_revision_maps_must_match(good_wheels, wheel_artifacts, tmp_path):
    from release.core.config import load_deps
    from release.core.revisions import RevisionMap
    from tests.support.crafted import REPO
    other = RevisionMap.from_deps(load_deps(REPO / "deps.yaml").with_commits({"jax": "cafe" * 10}),
                                  VERSION)
    plugin = build_pair(tmp_path, wheel_artifacts["good"], revisions=other)["plugin"]
    result = verify(good_wheels["pjrt"], plugin)
    assert [(f.check, f.message) for f in result.reports[1].findings] == [
        ("pair", "revision map differs from the PJRT wheel's for jax")] and result.errors == 1


# ---------------------------------------------------------------- the published wheels


@pytest.mark.network
def test_published_wheels_defects_are_reported(published_wheels, tmp_path):
    """jax-rocm7-* 0.10.2 as published: Bazel RUNPATH leaks, purelib, unset release version.

    Also the real-size check: the PJRT wheel is 154 MB with a 503 MB .so; it is read once.
    """
    pjrt = verify_wheel(published_wheels["pjrt"])
    plugin = verify_wheel(published_wheels["plugin"])
    so = "jax_plugins/xla_rocm7/xla_rocm_plugin.so"
    leaks = [f.message for f in pjrt.findings if f.check == "runpath" and f.member == so]
    assert sum("_solib_" in m for m in leaks) == 16
    assert any(".runfiles/__main__" in m for m in leaks)
    assert any(f.check == "runpath" and "_solib_" in f.message for f in plugin.findings)
    assert [(f.check, f.member) for f in pjrt.findings if f.check == "purelib"] == [
        ("purelib", "jax_rocm7_pjrt-0.10.2.dist-info/WHEEL")]
    assert plugin.status("purelib") == "ok"
    version = [f for f in pjrt.findings if f.check == "version"]
    assert len(version) == 1 and "_release_version is None" in version[0].message
    assert plugin.status("version") == "ok" and plugin.status("requires") == "ok"
    assert pjrt.status("revisions") == plugin.status("revisions") == ERROR  # no commit_info.py
    for report in (pjrt, plugin):
        assert all(report.status(c) == "ok" for c in ("zip", "size", "record", "paths", "layout",
                                                      "names", "glibc"))
    # The relative climbs into python3.X/dist-packages warn like the absolute ones do.
    climbs = [f for f in plugin.findings if f.group == "path into a Python installation"
              and f.message.startswith("relative path climbing")]
    assert len(climbs) == 8 * 28 and all(f.severity == WARNING for f in climbs)
    from release.check.verify import fold
    assert len(fold(pjrt.findings)) + len(fold(plugin.findings)) < 20  # was ~1000 lines

    from release.build.promote import promote_wheel
    promoted = [promote_wheel(w, "post1", tmp_path).output for w in published_wheels.values()]
    for wheel in promoted:
        report = verify_wheel(wheel)
        assert all(report.status(c) in ("ok", "n/a") for c in ("zip", "record", "names", "version",
                                                               "requires")), report.findings
    assert "_release_version: str | None = '0.10.2.post1'" in member_text(promoted[0], "/version.py")[1]


# ---------------------------------------------------------------- hardening (issue 15)


@pytest.mark.parametrize("name", ["jax_rocm7_plugin/_linalg.so", "jax_rocm7_plugin/_extra.so.1"])
def test_a_shared_object_that_is_not_elf_is_an_error(good_wheels, tmp_path, name):
    """Every member named like a shared object is read as ELF; text is not one."""
    src = good_wheels["plugin"]
    kw = {"replace": {name: "not an ELF file\n"}} if name.endswith("_linalg.so") else \
        {"add": {name: "INPUT(libfoo.so)\n"}}
    bad = craft(src, tmp_path / src.name, **kw)
    found = only(bad, "runpath")
    assert [(m, msg.split(";")[0]) for _, _, m, msg in found] == [
        (name, "named like a shared object but not an ELF file")]


@pytest.mark.parametrize("entry", [
    "$ORIGIN/../../../python3.11/dist-packages/_rocm_sdk_core/lib",
    "$ORIGIN/../../../../python3.9/site-packages/_rocm_sdk_libraries/lib",
    "${ORIGIN}/../../lib/python3.12/site-packages/rocm/lib",
])
def test_relative_runpath_into_another_python_is_the_same_warning(entry):
    """As the real 0.10.2 wheels have: $ORIGIN climbing into some python3.X/dist-packages."""
    from release.check.runpath import runpath_problems
    absolute = runpath_problems(["/usr/local/lib/python3.11/dist-packages/_rocm_sdk_core/lib"], [])
    relative = runpath_problems([entry], [])
    assert [(s, g) for s, _, g in relative] == [(s, g) for s, _, g in absolute] == [
        (WARNING, "path into a Python installation")]
    assert entry in relative[0][1]
    assert runpath_problems(["$ORIGIN/../rocm/lib", "$ORIGIN/../site_packages_like/lib"], []) == []


def _with_git_hash(good_wheels, tmp_path, value):
    src = good_wheels["plugin"]
    name, _ = member_text(src, "/version.py")
    return craft(src, tmp_path / src.name, replace={
        name: lambda t: re.sub(r"^_git_hash = .*$", f"_git_hash = {value!r}", t, flags=re.M)})


def test_deps_compares_git_hash_with_the_plugin_pin(good_wheels, tmp_path):
    pin = revision_map().commits["plugin"]
    assert problems(good_wheels["plugin"], "revisions") == []  # the build writes the pin
    other = "ab" * 20
    found = only(_with_git_hash(good_wheels, tmp_path, other), "revisions")
    assert [msg for *_, msg in found] == [f"_git_hash is {other}; the plugin pin is {pin}"]


def test_git_hash_not_comparable_says_so(good_wheels, tmp_path):
    found = only(_with_git_hash(good_wheels, tmp_path, None), "revisions", WARNING)
    assert [msg for *_, msg in found] == [
        f"_git_hash not compared with the plugin pin {revision_map().commits['plugin'][:12]}: "
        "it is None"]
    # Without --deps/--revisions there is nothing to compare with, and nothing is said.
    assert problems(_with_git_hash(good_wheels, tmp_path / "x", None), "revisions",
                    revisions=None) == []
    # Expected revisions without a plugin pin: said, not silent.
    from release.core.revisions import RevisionMap
    rm = revision_map()
    no_plugin = RevisionMap(rm.version, tuple((n, r) for n, r in rm.revisions if n != "plugin"))
    found = [f for f in verify_wheel(good_wheels["plugin"], options(revisions=no_plugin)).findings
             if f.message.startswith("_git_hash")]
    assert [(f.severity, f.message) for f in found] == [
        (WARNING, "_git_hash not compared: the expected revisions have no plugin pin")]


def _zip_with(dest, members):
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return dest


def test_zip_bomb_member_is_an_error_and_never_inflated(good_wheels, tmp_path, monkeypatch):
    """A member inflating more than MAX_RATIO times is refused from the central directory."""
    from release.core import scan
    src = good_wheels["plugin"]
    bad = craft(src, tmp_path / src.name,
                add={"jax_rocm7_plugin/data.bin": b"\0" * (8 << 20)})  # ~1000x
    inflated = []
    real_chunks = scan._chunks
    monkeypatch.setattr(scan, "_chunks", lambda fp, info, start: (
        inflated.append(info.filename), real_chunks(fp, info, start))[1])
    report = verify_wheel(bad, options())
    assert [(f.check, f.severity, f.member) for f in report.findings] == [
        ("size", ERROR, "jax_rocm7_plugin/data.bin")]
    assert "more than 100x" in report.findings[0].message
    assert "jax_rocm7_plugin/data.bin" not in inflated and inflated  # the rest was read


def test_inflated_total_is_bounded(good_wheels, tmp_path, monkeypatch):
    from release.core import scan
    with zipfile.ZipFile(good_wheels["pjrt"]) as zf:
        total = sum(i.file_size for i in zf.infolist())
    monkeypatch.setattr(scan, "MAX_INFLATED", total - 1)
    report = verify_wheel(good_wheels["pjrt"], options())
    sizes = [f for f in report.findings if f.check == "size"]
    assert len(sizes) == 1 and sizes[0].member is None
    assert f"inflate to {total:,} bytes in total" in sizes[0].message
    assert report.status("size") == ERROR
    monkeypatch.setattr(scan, "MAX_INFLATED", total)
    assert verify_wheel(good_wheels["pjrt"], options()).findings == []


def test_a_lying_central_directory_stops_at_the_declared_size(tmp_path):
    """Declared small, inflating big: the inflater stops at the declared size (bounded)."""
    from release.core.scan import scan_wheel
    wheel = _zip_with(tmp_path / "x-1.0-py3-none-any.whl", [("x/data.bin", b"\0" * (64 << 20))])
    raw = bytearray(wheel.read_bytes())
    cd = raw.rfind(b"PK\x01\x02")
    raw[cd + 24:cd + 28] = (1000).to_bytes(4, "little")  # uncompressed size in the directory
    wheel.write_bytes(bytes(raw))
    scan = scan_wheel(wheel)
    assert any("inflates past its declared size 1000" in p for _, p in scan.zip_errors)


def test_fold_groups_findings_across_shared_objects():
    from release.check.verify import Finding, fold
    findings = [Finding("runpath", ERROR, f"build-tree or machine path /b/{i}", f"p/{so}.so",
                        "build-tree or machine path") for so in "abc" for i in range(4)]
    findings += [Finding("runpath", ERROR, "configured entry /x is missing", f"p/{so}.so")
                 for so in "ab"]
    folds = fold(findings)
    assert [f.line() for f in folds] == [
        "runpath error: 4 x build-tree or machine path in 3 files (a.so, b.so, c.so); "
        "first: build-tree or machine path /b/0",
        "runpath error: configured entry /x is missing in 2 files (a.so, b.so)"]


def test_cli_prints_one_line_per_passing_wheel_and_json_keeps_every_finding(run_cli, good_wheels,
                                                                            tmp_path):
    code, out, _ = run_cli("verify", good_wheels["pjrt"], good_wheels["plugin"])
    assert code == 0
    assert out.splitlines() == [f"{good_wheels['pjrt'].name}: ok (15 checks)",
                                f"{good_wheels['plugin'].name}: ok (17 checks)"]
    code, out, _ = run_cli("verify", good_wheels["plugin"], "--runpath", "/a", "--runpath", "/b")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{good_wheels['plugin'].name}: FAILED (16 errors, 0 warnings)"
    assert lines[1:] == ["  runpath error: 2 x configured entry missing in 8 files (_hybrid.so, "
                         "_linalg.so, _prng.so and 5 more); first: configured entry /a is missing"]
    code, out, _ = run_cli("verify", good_wheels["plugin"], "--runpath", "/a", "--runpath", "/b",
                           "--json")
    assert len(json.loads(out)["wheels"][0]["findings"]) == 16


def test_an_unreadable_runpath_config_is_said_not_silently_dropped(run_cli, good_wheels, tmp_path):
    """Issue 14: the default RUNPATH silently became "require nothing" when the config was bad."""
    (tmp_path / "jax_rocm_plugin").mkdir()
    (tmp_path / "jax_rocm_plugin" / ".bazelrc").write_text("build:python312 --x=1\n")
    code, out, err = run_cli("verify", good_wheels["pjrt"], "--root", tmp_path, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["runpath"] == [] and "could not be read" in data["runpath_note"]
    assert "warning: no RUNPATH entry is required" in err and "--runpath ENTRY" in err
    code, out, err = run_cli("verify", good_wheels["pjrt"], "--json")
    assert "runpath_note" not in json.loads(out) and "warning" not in err


def _on_a_terminal(argv: list[str], env: dict[str, str]) -> str:
    """Run ``argv`` with stdout and stderr on a real pseudo-terminal; everything it drew."""
    import os
    import subprocess
    import sys
    primary, secondary = os.openpty()
    try:
        proc = subprocess.Popen([sys.executable, *argv], stdout=secondary, stderr=secondary,
                                stdin=subprocess.DEVNULL, env=env)
        os.close(secondary)
        drawn = bytearray()
        while True:
            try:
                block = os.read(primary, 65536)
            except OSError:  # EIO: the terminal's other side closed
                break
            if not block:
                break
            drawn += block
        assert proc.wait() == 0
    finally:
        os.close(primary)
    return drawn.decode("utf-8", "replace")


def test_the_progress_bar_draws_on_a_terminal_and_never_in_a_pipe(good_wheels, wheel_artifacts, tmp_path,
                                                                   release_subprocess):
    """rich is imported lazily, but a person at a terminal still sees the bar for a big wheel (and
    CI never); a small wheel is read before a bar could be seen: none is drawn, rich not imported."""
    import os
    import random
    import shutil

    from release.commands._progress import BAR_FROM
    from tests.support.crafted import PJRT_SO
    padded = tmp_path / "so" / PJRT_SO
    padded.parent.mkdir()
    shutil.copyfile(wheel_artifacts["good"] / PJRT_SO, padded)
    with padded.open("ab") as so:  # bytes after the ELF's own (not zeros: a zip bomb's ratio)
        so.write(random.Random(0).randbytes(BAR_FROM))
    big = build_pair(tmp_path / "big", wheel_artifacts["good"], overrides={PJRT_SO: padded})["pjrt"]
    env = {k: v for k, v in os.environ.items() if k not in ("TTY_COMPATIBLE", "FORCE_COLOR")}
    env.update(TERM="xterm-256color", COLUMNS="120")
    drawn = _on_a_terminal(["-m", "release", "verify", str(big)], env)
    assert "verifying" in drawn and f"{big.name}: ok" in drawn
    small = _on_a_terminal(["-m", "release", "verify", str(good_wheels["pjrt"])], env)
    assert "verifying" not in small and f"{good_wheels['pjrt'].name}: ok" in small
    piped = release_subprocess("verify", big, env=env)
    assert piped.returncode == 0 and "verifying" not in piped.stdout + piped.stderr


def test_draws_progress_agrees_with_rich(monkeypatch):
    """``Output.draws_progress`` decides "no bar" without rich only where rich would say so too."""
    import io
    import os

    from release.core.output import Output
    primary, secondary = os.openpty()
    try:
        with open(secondary, "w", closefd=False) as terminal:
            cases = [(io.StringIO(), {}), (terminal, {}), (io.StringIO(), {"FORCE_COLOR": "1"}),
                     (io.StringIO(), {"TTY_COMPATIBLE": "1"}), (terminal, {"TTY_COMPATIBLE": "0"})]
            answers = []
            for stream, env in cases:
                for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
                    monkeypatch.delenv(name, raising=False)
                for name, value in env.items():
                    monkeypatch.setenv(name, value)
                out = Output(stream=stream)
                answers.append(out.draws_progress())
                assert answers[-1] == out.progress_console().is_terminal, (stream, env)
            assert answers == [False, True, True, True, False]
    finally:
        os.close(primary)
        os.close(secondary)


def test_verify_in_ci_imports_no_printing_or_network_libraries(good_wheels, release_subprocess):
    """``release verify --json`` (CI's call) loads neither rich nor YAML, jsonschema, requests or the
    email package: its start-up is most of what separates it from a bare inflate + sha256 pass."""
    probe = ("import json, sys\nfrom release.cli import main\ncode = main(sys.argv[1:])\n"
             "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n")
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", probe, "verify", str(good_wheels["pjrt"]), "--json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout.splitlines()[-1]))
    assert "release" in loaded and "isal" in loaded
    assert loaded.isdisjoint({"rich", "yaml", "jsonschema", "requests", "pygments", "email", "uuid",
                              "tempfile"}), loaded


def _with_crc(wheel, member, dest, crc):
    """A copy of ``wheel`` whose central directory and local header give ``member`` this CRC-32
    (its bytes untouched, so it still inflates)."""
    raw = bytearray(wheel.read_bytes())
    with zipfile.ZipFile(wheel) as zf:
        info = zf.getinfo(member)
    raw[info.header_offset + 14:info.header_offset + 18] = crc.to_bytes(4, "little")
    at = raw.find(b"PK\x01\x02")
    while at != -1:
        name_len = int.from_bytes(raw[at + 28:at + 30], "little")
        if raw[at + 46:at + 46 + name_len].decode() == member:
            raw[at + 16:at + 20] = crc.to_bytes(4, "little")
        at = raw.find(b"PK\x01\x02", at + 46)
    dest.write_bytes(bytes(raw))
    return dest


@pytest.mark.parametrize("member", ["jax_plugins/xla_rocm7/xla_rocm_plugin.so",
                                    f"{DI_PJRT}/METADATA"])
def test_a_wrong_crc_is_a_zip_error_even_when_the_member_inflates(good_wheels, tmp_path, member):
    with zipfile.ZipFile(good_wheels["pjrt"]) as zf:
        crc = zf.getinfo(member).CRC
    bad = _with_crc(good_wheels["pjrt"], member, tmp_path / good_wheels["pjrt"].name, crc ^ 1)
    assert [(c, s, m, t) for c, s, m, t in problems(bad, "zip")] == [
        ("zip", ERROR, member, f"{member}: CRC mismatch (data corrupt)")]


def test_without_isal_the_scan_reads_the_same(good_wheels, tmp_path, monkeypatch):
    """zlib stands in when isal is missing: the same hashes, texts and ELF facts, and the same
    corruption found (isal computes the CRC while inflating; zlib after)."""
    import zlib

    from release.core import scan
    member = "jax_plugins/xla_rocm7/xla_rocm_plugin.so"
    (tmp_path / "flipped").mkdir()
    flipped = _flip_byte_in(good_wheels["pjrt"], member, tmp_path / "flipped" / good_wheels["pjrt"].name)
    wrong_crc = _with_crc(good_wheels["pjrt"], member, tmp_path / good_wheels["pjrt"].name, 0)
    wheels = (good_wheels["pjrt"], good_wheels["plugin"], flipped, wrong_crc)

    def read(wheel):
        found = scan.scan_wheel(wheel)
        return [(m.name, m.sha256, m.read_size, m.text, m.elf, m.error) for m in found.members], \
            found.zip_errors

    with_isal = [read(w) for w in wheels]
    monkeypatch.setattr(scan, "_isal", None)
    monkeypatch.setattr(scan, "_crc32", zlib.crc32)
    assert isinstance(scan._inflater(), scan._ZlibInflater)
    without = [read(w) for w in wheels]
    assert without[:2] == with_isal[:2] and without[0][1] == without[1][1] == []
    assert without[3] == with_isal[3] and without[3][1] == [(member, f"{member}: CRC mismatch (data corrupt)")]
    assert [m for m, _ in without[2][1]] == [member] == [m for m, _ in with_isal[2][1]]


HEADER_TEXTS = [
    "Metadata-Version: 2.1\nName: jax-rocm7-plugin\nVersion: 1.0\n\nThe description.\nName: not a field\n",
    "Wheel-Version: 1.0\r\nRoot-Is-Purelib: false\r\nTag: cp312-cp312-manylinux_2_28_x86_64\r\n"
    "Tag: cp313-cp313-manylinux_2_28_x86_64\r\n",
    "Requires-Dist: jax-rocm7-pjrt ==1.0\nrequires-dist: numpy\nREQUIRES-DIST: x ; extra == 'a'\n",
    "Name:   spaced   \nSummary: one\n  two\n\tthree\nVersion: 2\n",
    " leading continuation\nName: a\n",
    "From someone\nName: a\nFrom later\nVersion: 1\n",
    "Name: a\nthis line has no colon\nVersion: 2\n",
    ":no name\nName: b\n",
    "Name: a\rVersion: 3\r\rbody\r",
    "Name: é ünïcode\nVersion: 1",
    "",
    "\nName: after a blank line\n",
]


@pytest.mark.parametrize("text", HEADER_TEXTS)
def test_header_fields_read_as_the_email_parser_reads_them(text):
    """``scan.Headers`` (verify's METADATA/WHEEL reader, no email package) against the oracle."""
    from email.parser import HeaderParser

    from release.core.scan import Headers
    ours, oracle = Headers(text), HeaderParser().parsestr(text)
    for name in {k for k in oracle.keys()} | {"Name", "Version", "Tag", "Requires-Dist", "Summary"}:
        for asked in (name, name.lower(), name.upper()):
            assert (ours.get(asked), ours.get_all(asked)) == (oracle.get(asked), oracle.get_all(asked))
    assert ours.items() == [(k.lower(), v) for k, v in oracle.items()] and ours.body == oracle.get_payload()


def test_header_fields_of_the_built_wheels(good_wheels):
    from email.parser import HeaderParser

    from release.core.scan import Headers
    for wheel in good_wheels.values():
        with zipfile.ZipFile(wheel) as zf:
            for name in zf.namelist():
                if name.endswith((".dist-info/METADATA", ".dist-info/WHEEL")):
                    text = zf.read(name).decode()
                    oracle = HeaderParser().parsestr(text)
                    assert oracle.keys()
                    for key in oracle.keys():
                        assert Headers(text).get_all(key) == oracle.get_all(key), (name, key)
