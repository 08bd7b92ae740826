"""The Bazel configs and commands: exact argv, output discovery, RUNPATH at link time.

Bazel itself is replaced by the recorded stand-in in tests/support/build.py, which
expands the configs and links real ELF objects with the config's linkopts.
"""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest
from elftools.elf.elffile import ELFFile

from release.build import bazel
from release.build.wheel_specs import load_specs, plugin_dir
from release.core.errors import UserError

RUNPATH = ["$ORIGIN/../rocm/lib", "$ORIGIN/../rocm/lib/rocm_sysdeps/lib", "$ORIGIN/../../rocm/lib",
           "$ORIGIN/../../rocm/lib/rocm_sysdeps/lib", "/opt/rocm/lib", "/opt/rocm/lib/rocm_sysdeps/lib"]
KERNELS = ["_linalg.so", "_prng.so", "_solver.so", "_sparse.so", "_hybrid.so", "_rnn.so", "_triton.so",
           "rocm_plugin_extension.so"]


def runpath_of(data_or_path) -> tuple[str | None, str | None]:
    """(DT_RUNPATH, DT_RPATH) of an ELF file (path or open binary file)."""
    handle = open(data_or_path, "rb") if not hasattr(data_or_path, "read") else data_or_path
    with handle:
        dynamic = ELFFile(handle).get_section_by_name(".dynamic")
        runpath = [t.runpath for t in dynamic.iter_tags("DT_RUNPATH")]
        rpath = [t.rpath for t in dynamic.iter_tags("DT_RPATH")]
    return (runpath[0] if runpath else None), (rpath[0] if rpath else None)


def test_configured_runpath_has_both_origin_depths_and_matches_repo_env():
    assert bazel.configured_runpath() == RUNPATH
    options = bazel.expand_config(bazel.read_configs(), "rocm_build")
    assert "--linkopt=-Wl,--enable-new-dtags" in options
    assert f"--repo_env=ROCM_WHEEL_RPATH={':'.join(RUNPATH)}" in options
    assert options[:2] == ["--config=rocm_base", "--config=rocm"]  # the workspace's, left to Bazel
    assert any(o.startswith("--action_env=CLANG_COMPILER_PATH=") for o in options)
    assert any(o.startswith("--action_env=ROCM_PATH=") for o in options)
    assert any(o.startswith("--action_env=TF_ROCM_AMDGPU_TARGETS=gfx") for o in options)


def test_python_cpu_and_remote_configs_are_defined():
    configs = bazel.read_configs()
    for minor in (11, 12, 13, 14):
        assert bazel.expand_config(configs, f"python3{minor}") == \
            [f"--repo_env=HERMETIC_PYTHON_VERSION=3.{minor}"]
    assert "--copt=-mavx" in bazel.expand_config(configs, "avx_posix")
    assert "--copt=-march=native" in bazel.expand_config(configs, "native_arch_posix")
    rbe = bazel.expand_config(configs, "rbe")
    assert "--remote_download_toplevel" in rbe  # nested remote_cache expanded: outputs come back


@pytest.mark.parametrize("edit, fragment", [
    (lambda t: t.replace("rocm_sysdeps/lib:/opt/rocm/lib:", "rocm_sysdeps/lib:/usr/lib:"), "disagrees"),
    (lambda t: t.replace("build:rocm_build --linkopt=-Wl,--enable-new-dtags\n", ""), "enable-new-dtags"),
    (lambda t: t.replace("-rpath,$ORIGIN/../rocm/lib\n", "-rpath,$$ORIGIN/../rocm/lib\n")
                .replace("ROCM_WHEEL_RPATH=$ORIGIN/../rocm/lib:", "ROCM_WHEEL_RPATH=$$ORIGIN/../rocm/lib:"),
     "Make-expanded"),
])
def test_configured_runpath_refuses_inconsistent_configs(tmp_path, edit, fragment):
    (tmp_path / "jax_rocm_plugin").mkdir()
    shutil.copy(bazel.bazelrc_path(), tmp_path / "jax_rocm_plugin" / ".bazelrc")
    rc = tmp_path / "jax_rocm_plugin" / ".bazelrc"
    rc.write_text(edit(rc.read_text()))
    with pytest.raises(UserError, match=fragment):
        bazel.configured_runpath(tmp_path)


def test_the_bazel_stand_in_links_each_build_with_its_own_options(fake_bazel, tmp_path):
    """The stand-in compiles an object once per worker and copies it after (tests/support/build.py):
    keyed by what the link is given, so a build of the same target with other linkopts is linked
    anew, and the first options again give the first object."""
    import os
    import subprocess
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "WORKSPACE").write_text('workspace(name = "stand_in")\n')
    out = fake_bazel.output_base / "execroot" / "__main__" / "bazel-out" / "k8-opt" / "bin" / "p" / "x.so"
    seen = []
    for rpath in ("/opt/first/lib", "/opt/second/lib", "/opt/first/lib"):
        subprocess.run(["bazel", "build", "--linkopt=-Wl,--enable-new-dtags", f"--linkopt=-Wl,-rpath,{rpath}",
                        "//p:x.so"], cwd=ws, check=True, capture_output=True, env=dict(os.environ))
        seen.append(runpath_of(out))
    assert seen == [("/opt/first/lib", None), ("/opt/second/lib", None), ("/opt/first/lib", None)]


def test_exact_argv_for_each_wheel(tmp_path):
    ws = tmp_path / "ws"
    rc = f"--bazelrc={bazel.bazelrc_path()}"
    overrides = [f"--override_repository=xla={ws.resolve()}/xla",
                 f"--override_repository=jax={ws.resolve()}/jax"]
    kernels = [f"@jax//jaxlib/rocm:{k}" for k in KERNELS]
    steps = bazel.build_steps(ws, ["3.12", "3.13"])
    assert [s.argv() for s in steps] == [
        ["bazel", rc, "build", "--config=rocm_build", "--config=python312",
         "//pjrt:pjrt_c_api_gpu_plugin.so", *overrides],
        ["bazel", rc, "build", "--config=rocm_build", "--config=python312", *kernels, *overrides],
        ["bazel", rc, "build", "--config=rocm_build", "--config=python313", *kernels, *overrides],
    ]
    assert steps[1].cquery_argv() == ["bazel", rc, "cquery", "--config=rocm_build", "--config=python312",
                                      f"set({' '.join(kernels)})", *overrides, "--output=files"]
    assert steps[0].bazel_workspace == ws.resolve() / "plugin" / "jax_rocm_plugin"
    assert [o.file for o in load_specs()["plugin"].outputs] == KERNELS
    assert [(o.output, o.file) for o in load_specs()["pjrt"].outputs] == \
        [("pjrt_c_api_gpu_plugin.so", "xla_rocm_plugin.so")]


def test_nightly_dry_run_shows_the_real_commands(run_cli, project_dir):
    code, out, err = run_cli("nightly", "--dry-run", "--json", "--date", "2026-11-22", "--python", "3.12",
                             "--root", project_dir)
    assert code == 0, err
    expected = [s.argv() for s in bazel.build_steps(project_dir / "workspace", ["3.12"], root=project_dir)]
    assert json.loads(out)["bazel_commands"] == expected


def build_cmd(project_dir, dist, *extra):
    return ("build", "--kind", "nightly", "--date", "2026-11-22", "--root", project_dir, "--dist", dist,
            *extra)


def test_build_runs_bazel_and_packs_what_it_linked(run_cli, project_dir, fake_bazel, plugin_workspace,
                                                   tmp_path):
    dist = tmp_path / "dist"
    code, out, err = run_cli(*build_cmd(project_dir, dist, "--python", "3.11", "--python", "3.12",
                                        "--workspace", plugin_workspace, "--json"))
    assert code == 0, err
    calls = fake_bazel.calls()
    steps = bazel.build_steps(plugin_workspace, ["3.11", "3.12"], root=project_dir)
    assert [c["argv"] for c in calls] == [
        argv[1:] for s in steps for argv in (s.argv(), s.cquery_argv(), s.info_argv())]
    assert {c["cwd"] for c in calls} == {str(plugin_workspace.resolve() / "plugin" / "jax_rocm_plugin")}

    version_dir = dist / "0.9.1.dev20261122"
    result = json.loads(out)
    assert sorted(result["wheels"]) == [
        "jax_rocm7_pjrt-0.9.1.dev20261122-py3-none-manylinux_2_28_x86_64.whl",
        "jax_rocm7_plugin-0.9.1.dev20261122-cp311-cp311-manylinux_2_28_x86_64.whl",
        "jax_rocm7_plugin-0.9.1.dev20261122-cp312-cp312-manylinux_2_28_x86_64.whl"]
    # each plugin wheel holds the objects built for its Python, though Bazel reused the paths
    for py in ("3.11", "3.12"):
        name = f"jax_rocm7_plugin-0.9.1.dev20261122-cp3{py[2:]}-cp3{py[2:]}-manylinux_2_28_x86_64.whl"
        with zipfile.ZipFile(version_dir / name) as zf:
            for kernel in KERNELS:
                data = zf.read(f"jax_rocm7_plugin/{kernel}")
                assert py.encode() + b"\0" in data and f"@jax//jaxlib/rocm:{kernel}".encode() in data
                assert (zf.getinfo(f"jax_rocm7_plugin/{kernel}").external_attr >> 16) & 0o777 == 0o755
                assert data == (version_dir / "artifacts" / py / kernel).read_bytes()
    pjrt = version_dir / "artifacts" / "xla_rocm_plugin.so"
    assert b"//pjrt:pjrt_c_api_gpu_plugin.so" in pjrt.read_bytes()
    # RUNPATH set at link time by the config, DT_RUNPATH not DT_RPATH, nothing patched after
    assert runpath_of(pjrt) == (":".join(RUNPATH), None)
    assert (version_dir / "logs" / "bazel_pjrt.log").read_text().count("Linking") == 1

    fake_bazel.clear()
    code, out, err = run_cli(*build_cmd(project_dir, dist, "--python", "3.11", "--python", "3.12",
                                        "--workspace", plugin_workspace, "--json"))
    assert code == 0, err
    assert fake_bazel.calls() == []  # every build recorded as done: Bazel not even asked
    assert {s["status"] for s in json.loads(out)["steps"]} == {"skipped"}


def test_bazel_failure_is_one_line_naming_the_log(release_subprocess, project_dir, fake_bazel,
                                                  plugin_workspace, tmp_path, monkeypatch):
    import os
    monkeypatch.setenv("FAKE_BAZEL_FAIL", "1")
    dist = tmp_path / "dist"
    proc = release_subprocess(*build_cmd(project_dir, dist, "--python", "3.12", "--workspace",
                                         plugin_workspace), env=dict(os.environ))
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert "hipcc exited 1" in proc.stderr and "bazel_pjrt.log" in proc.stderr
    log = dist / "0.9.1.dev20261122" / "logs" / "bazel_pjrt.log"
    assert "ERROR: rocm toolchain" in log.read_text()
    assert not list((dist / "0.9.1.dev20261122").glob("*.whl"))


def test_missing_bazel_or_workspace_is_one_line(run_cli, project_dir, plugin_workspace, tmp_path,
                                                monkeypatch):
    bindir = tmp_path / "only-git"  # git (the pins are checked first), no bazel
    bindir.mkdir()
    (bindir / "git").symlink_to(shutil.which("git"))
    monkeypatch.setenv("PATH", str(bindir))
    code, _, err = run_cli(*build_cmd(project_dir, tmp_path / "d", "--python", "3.12", "--workspace",
                                      plugin_workspace))
    assert code == 2 and "bazel: not found on PATH" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(*build_cmd(project_dir, tmp_path / "d", "--python", "3.12", "--workspace",
                                      tmp_path / "nowhere"))
    assert code == 2 and "not a Bazel workspace" in err and "fetch-sources" in err


def test_remote_cache_from_the_environment_and_its_header_never_logged(
        run_cli, project_dir, fake_bazel, plugin_workspace, tmp_path, monkeypatch):
    token = "cache-token-8c1f0e5a77d94b1b"
    monkeypatch.setenv("BAZEL_REMOTE_CACHE", "grpcs://cache.internal.test:443")
    monkeypatch.setenv("BAZEL_REMOTE_HEADER", f"Authorization=Bearer {token}")
    dist = tmp_path / "dist"
    code, out, err = run_cli(*build_cmd(project_dir, dist, "--python", "3.11", "--wheel", "pjrt",
                                        "--workspace", plugin_workspace, "--json"))
    assert code == 0, err
    [build, *_] = [c["argv"] for c in fake_bazel.calls() if "build" in c["argv"]]
    assert build[-3:] == ["--config=remote_cache", "--remote_cache=grpcs://cache.internal.test:443",
                          f"--remote_header=Authorization=Bearer {token}"]
    # The reproducible command (fingerprints, dry runs) carries no cache flags at all.
    [step] = bazel.build_steps(plugin_workspace, ["3.11"], root=project_dir, kinds=("pjrt",))
    assert not any(a.startswith("--remote") or a == "--config=remote_cache" for a in step.argv())
    log = (dist / "0.9.1.dev20261122" / "logs" / "bazel_pjrt.log").read_text()
    assert "--remote_cache=grpcs://cache.internal.test:443" in log
    assert token not in log and token not in out + err and "***" in log


def test_remote_cache_header_must_be_name_value(monkeypatch):
    monkeypatch.setenv("BAZEL_REMOTE_CACHE", "https://cache.internal.test")
    monkeypatch.setenv("BAZEL_REMOTE_HEADER", "just-a-token")
    with pytest.raises(bazel.UserError, match="NAME=VALUE"):
        bazel.remote_cache_flags()
    monkeypatch.delenv("BAZEL_REMOTE_CACHE")
    assert bazel.remote_cache_flags() == []


# ---------------------------------------------------------------- inputs before anything runs


def _tree(path):
    """Every file under ``path`` with its bytes' sha256 (the state a refusal must not change)."""
    import hashlib
    if not path.exists():
        return None
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file()
            else "dir" for p in sorted(path.rglob("*"))}


def _break_workspace(ws, how):
    from tests.support.gitrepos import git
    if how == "jax-not-git":   # what issue 15 found: empty, non-git jax/ and xla/
        for name in ("jax", "xla"):
            shutil.rmtree(ws / name)
            (ws / name).mkdir()
    elif how == "xla-moved":    # a checkout one commit past its pin
        (ws / "xla" / "NEW").write_text("x")
        git("add", "NEW", cwd=ws / "xla")
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "x",
            cwd=ws / "xla")
    elif how == "no-bazel-workspace":
        (ws / "plugin" / "jax_rocm_plugin" / "WORKSPACE").unlink()
    return {"jax-not-git": "jax: not a git checkout, expected the jax pin",
            "xla-moved": "xla: HEAD is", "no-bazel-workspace": "not a Bazel workspace"}[how]


@pytest.mark.parametrize("how", ["jax-not-git", "xla-moved", "no-bazel-workspace"])
def test_workspace_must_be_at_the_pins_before_bazel_runs(run_cli, project_dir, fake_bazel,
                                                         plugin_workspace, tmp_path, how):
    fragment = _break_workspace(plugin_workspace, how)
    dist = tmp_path / "dist"
    before = _tree(tmp_path)
    code, out, err = run_cli(*build_cmd(project_dir, dist, "--python", "3.12", "--workspace",
                                        plugin_workspace))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert fragment in err
    assert fake_bazel.calls() == []          # Bazel never ran
    assert _tree(tmp_path) == before and not dist.exists()   # nothing written


def test_a_bazel_output_that_is_not_elf_writes_no_wheel(run_cli, project_dir, fake_bazel,
                                                        plugin_workspace, tmp_path, monkeypatch):
    """What Bazel built is checked like prebuilt artifacts, before any wheel is written."""
    real_collect = bazel.collect

    def corrupt(found, dest):
        copies = real_collect(found, dest)
        for path in copies.values():
            if path.name == "_rnn.so":
                path.write_text("INPUT(libwhatever.so)\n")  # a linker script, not ELF
        return copies

    monkeypatch.setattr(bazel, "collect", corrupt)
    dist = tmp_path / "dist"
    code, _, err = run_cli(*build_cmd(project_dir, dist, "--python", "3.12", "--workspace",
                                      plugin_workspace))
    assert code == 2 and "_rnn.so: not an ELF file" in err
    assert not list(dist.rglob("*.whl")) and not list(dist.rglob("manifest.json")) or \
        "wheel_" not in (next(dist.rglob("manifest.json")).read_text())


def test_supported_pythons_come_from_the_bazel_configs(tmp_path):
    plugin = tmp_path / "jax_rocm_plugin"
    shutil.copytree(plugin_dir(), plugin)
    assert bazel.supported_pythons(tmp_path) == ("3.11", "3.12", "3.13", "3.14")
    rc = plugin / ".bazelrc"
    rc.write_text(rc.read_text().replace("build:python311 ", "build:python310 ")
                  + "build:python315 --repo_env=HERMETIC_PYTHON_VERSION=3.15\n")
    assert bazel.supported_pythons(tmp_path) == ("3.10", "3.12", "3.13", "3.14", "3.15")
    assert bazel.requires_python(tmp_path) == ">=3.10"
    assert bazel.check_pythons(["3.15", "3.12", "3.15"], tmp_path) == ("3.15", "3.12")
    with pytest.raises(UserError, match=r"--python 3.11: the Bazel configs build 3.10, 3.12"):
        bazel.check_pythons(["3.11"], tmp_path)
    runpath = bazel.configured_runpath(tmp_path)
    mine = bazel.read_configs(tmp_path)  # split once per text: what a caller does with it stays its own
    mine["build:python316"] = []
    mine["build:rocm_build"].clear()
    assert bazel.supported_pythons(tmp_path) == ("3.10", "3.12", "3.13", "3.14", "3.15")
    assert bazel.configured_runpath(tmp_path) == runpath


@pytest.mark.parametrize("python", ["3.10", "3.15"])
def test_unsupported_python_is_refused_with_one_line(release_subprocess, project_dir, tmp_path,
                                                     python):
    for argv in (build_cmd(project_dir, tmp_path / "dist", "--python", python, "--artifacts",
                           tmp_path),
                 ("nightly", "--dry-run", "--root", project_dir, "--python", python)):
        proc = release_subprocess(*argv)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert f"--python {python}: the Bazel configs build 3.11, 3.12, 3.13, 3.14" in proc.stderr
        assert "Traceback" not in proc.stderr and "python3" + python[2:] not in proc.stdout
    assert not (tmp_path / "dist").exists()


def test_a_repeated_python_is_built_and_listed_once(run_cli, project_dir):
    code, out, err = run_cli("nightly", "--dry-run", "--json", "--root", project_dir,
                             "--python", "3.12", "--python", "3.12", "--python", "3.13")
    assert code == 0, err
    plan = json.loads(out)
    assert plan["pythons"] == ["3.12", "3.13"]
    assert len(plan["wheels"]["plugin"]) == 2
    assert [c.count("--config=python312") for c in map(" ".join, plan["bazel_commands"])] == [1, 1, 0]
    assert sum(a.endswith(".whl") for a in plan["assets"]) == 3


@pytest.mark.parametrize("date, ok", [("2026-11-22", True), ("2026-11-23", True),
                                      ("2026-11-21", True), ("2026-11-24", False),
                                      ("2026-11-20", False), ("2025-11-22", False)])
def test_a_nightly_date_far_from_today_needs_force(run_cli, project_dir, tmp_path, date, ok,
                                                   fixed_clock):
    assert fixed_clock.startswith("2026-11-22")
    code, _, err = run_cli("nightly", "--dry-run", "--date", date, "--root", project_dir)
    assert (code == 0) == ok, err
    code, _, err = run_cli("build", "--kind", "nightly", "--date", date, "--root", project_dir,
                           "--dist", tmp_path / "dist", "--artifacts", tmp_path)
    if not ok:
        assert code == 2 and "pass --force" in err and "today (2026-11-22 UTC)" in err
        assert not (tmp_path / "dist").exists()
        code, _, err = run_cli("nightly", "--dry-run", "--date", date, "--root", project_dir,
                               "--force")
        assert code == 0, err


def test_the_nightly_date_rule_takes_today_as_an_input():
    import datetime as dt

    from release.build.plan import check_nightly_date
    day = dt.date(2030, 3, 1)
    check_nightly_date(day, dt.date(2030, 2, 28))
    check_nightly_date(day, dt.date(2030, 3, 2))
    with pytest.raises(UserError, match="2 days ahead of today"):
        check_nightly_date(day, dt.date(2030, 2, 27))
    with pytest.raises(UserError, match="2 days before today"):
        check_nightly_date(day, dt.date(2030, 3, 3))
    check_nightly_date(day, dt.date(2031, 1, 1), force=True)
def test_read_only_remote_cache_uploads_nothing_and_needs_no_header(
        run_cli, project_dir, fake_bazel, plugin_workspace, tmp_path, monkeypatch):
    """CI's build cells run upstream code: they read the cache without a credential and
    upload nothing (a later flag wins over --config=remote_cache's upload setting)."""
    monkeypatch.setenv("BAZEL_REMOTE_CACHE", "https://cache.internal.test")
    monkeypatch.delenv("BAZEL_REMOTE_HEADER", raising=False)
    monkeypatch.setenv("BAZEL_REMOTE_READ_ONLY", "true")
    code, _, err = run_cli(*build_cmd(project_dir, tmp_path / "dist", "--python", "3.11", "--wheel",
                                      "pjrt", "--workspace", plugin_workspace, "--json"))
    assert code == 0, err
    [build, *_] = [c["argv"] for c in fake_bazel.calls() if "build" in c["argv"]]
    assert build[-3:] == ["--config=remote_cache", "--remote_cache=https://cache.internal.test",
                          "--noremote_upload_local_results"]
    assert not any(a.startswith("--remote_header") for a in build)
    monkeypatch.setenv("BAZEL_REMOTE_READ_ONLY", "")
    assert "--noremote_upload_local_results" not in bazel.remote_cache_flags()
