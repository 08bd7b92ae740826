"""validate's with-rocm resolution judged on what pip and uv answer, in memory: their ``--report``
and `` + name==version`` lines, their error text as they print it, a deadline that passes, uv not
installed, runtime data that cannot be read. No installer runs here (test_with_rocm_path.py runs
the real ones once); these are the rules a release manager reads a cell's line by."""

from __future__ import annotations

import json
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.requirements import Requirement

from release.check import resolver, with_rocm_path
from release.core import rocm_sdk_wheels
from release.core.errors import UserError
from tests.support.publish_dist import write_wheel

LINE = "0.9.1"
UV = "/opt/uv/bin/uv"  # where find_uv found uv
DRAFT, PUBLIC, ROCM = "http://127.0.0.1:8123/draft/", "https://public.example/simple/", "https://rocm.example/v2/gfx94X/"


def plugin(tmp_path: Path, major: int, *requires: str) -> Path:
    """A plugin wheel of ``major`` whose with-rocm extra is ``requires``."""
    return write_wheel(tmp_path / f"jax_rocm{major}_plugin-{LINE}-py3-none-any.whl", f"jax-rocm{major}-plugin", LINE,
                       "py3-none-any", {}, requires=[f'{r}; extra == "with-rocm"' for r in requires],
                       provides_extra=("with-rocm",))


def resolution(major: int, rocm: str) -> dict[str, str]:
    """What the with-rocm line of a ``major`` cell resolves, its runtime wheels at ``rocm``."""
    return {"jax": LINE, "jaxlib": LINE, f"jax-rocm{major}-plugin": LINE, f"jax-rocm{major}-pjrt": LINE,
            "numpy": "2.3.1", "rocm": rocm, "rocm-sdk-core": rocm, "rocm-sdk-libraries": rocm}


def pip_report(resolved: dict[str, str]) -> dict:
    """pip's ``--report`` of a dry run (the members this reading uses, as pip writes them)."""
    return {"version": "1", "pip_version": "26.3", "install": [
        {"download_info": {"url": f"https://x/{n}.whl"}, "is_direct": False, "requested": False,
         "metadata": {"metadata_version": "2.1", "name": n, "version": v}} for n, v in resolved.items()]}


def uv_said(resolved: dict[str, str]) -> str:
    """uv's dry run output (stderr), as uv 0.13 prints it."""
    return (f"Using Python 3.11.7 environment at: venv\nResolved {len(resolved)} packages in 9ms\n"
            f"Would install {len(resolved)} packages\n" + "".join(f" + {n}=={v}\n" for n, v in resolved.items()))


class Installers:
    """check_cell's subprocesses answered in memory, as ``subprocess.run`` answers with the options
    given (output captured or not, text or bytes). ``venv``: the venv step's exit status; ``pip``:
    ``(status, stderr, resolution written as its --report or None)``; ``uv``: ``(status, stderr)``;
    ``late``: the installers that run past their deadline. Every call is kept, argv and options."""

    def __init__(self, pip=(0, "", None), uv=(0, ""), venv=0, late=()):
        self.pip, self.uv, self.venv, self.late = pip, uv, venv, late
        self.calls: list[tuple[list[str], dict]] = []

    def run(self, argv, **options):
        self.calls.append((list(argv), options))
        if argv[1:3] == ["-m", "venv"]:
            return self.done(argv, options, self.venv, "")
        installer = "uv" if argv[0] == UV else "pip"
        if installer in self.late:
            raise subprocess.TimeoutExpired(argv, options.get("timeout"))
        if installer == "uv":
            return self.done(argv, options, *self.uv)
        code, err, resolved = self.pip
        if resolved is not None:
            Path(argv[argv.index("--report") + 1]).write_text(json.dumps(pip_report(resolved)))
        return self.done(argv, options, code, err)

    @staticmethod
    def done(argv, options, code, err) -> subprocess.CompletedProcess:
        if not options.get("capture_output"):
            return subprocess.CompletedProcess(argv, code, None, None)  # it went to our own output
        if not (options.get("text") or options.get("encoding")):
            return subprocess.CompletedProcess(argv, code, b"", err.encode())
        return subprocess.CompletedProcess(argv, code, "", err)

    def argv(self, installer: str) -> list[str]:
        [found] = [a for a, _ in self.calls if (a[0] == UV) == (installer == "uv") and a[1:3] != ["-m", "venv"]]
        return found


@pytest.fixture
def installers(monkeypatch):
    """Install an ``Installers`` as check_cell's subprocess; uv is found."""
    def install(**answers) -> Installers:
        fake = Installers(**answers)
        monkeypatch.setattr(with_rocm_path, "subprocess", types.SimpleNamespace(
            run=fake.run, TimeoutExpired=subprocess.TimeoutExpired))
        return fake
    monkeypatch.setattr(with_rocm_path.user_install, "find_uv", lambda: UV)
    return install


def check(tmp_path, major, wheel, public=PUBLIC, rocm=ROCM, installers=("pip", "uv"), say=None, work=None):
    return with_rocm_path.check_cell(sys.executable, major, LINE, wheel, DRAFT, public, rocm, work or tmp_path / "work",
                                     say or (lambda _: None), installers=installers)


def indexes(argv: list[str]) -> list[tuple[str, str]]:
    """The index flags of an installer's argv, in order."""
    return [(flag, argv[i + 1]) for i, flag in enumerate(argv) if flag in ("--index-url", "--extra-index-url")]


# ---------------------------------------------------------------- which indexes, with what environment


@pytest.mark.parametrize("public, pip_asks, uv_asks", [
    (PUBLIC, [("--index-url", PUBLIC), ("--extra-index-url", DRAFT)],
     [("--extra-index-url", DRAFT), ("--index-url", PUBLIC)]),
    (resolver.PIP_DEFAULT, [("--extra-index-url", DRAFT)],
     [("--extra-index-url", DRAFT), ("--index-url", "https://configured.example/simple/")])],
    ids=["public-url", "pip-configured"])
@pytest.mark.parametrize("rocm", [ROCM, None], ids=["therock", "no-therock"])
def test_the_dry_runs_ask_the_drafts_index_the_public_one_and_therocks_when_named(
        tmp_path, installers, monkeypatch, public, pip_asks, uv_asks, rocm):
    """pip merges its indexes; uv takes a package from the first index that has it, so it asks the
    draft's first (a plugin TheRock's index also serves never shadows the draft's), TheRock's next,
    the public one (pip's configured one when none is named) last. Without TheRock's index it is
    not asked."""
    monkeypatch.setenv("PIP_INDEX_URL", "https://configured.example/simple/")
    fake = installers(pip=(0, "", resolution(7, "7.2.0")), uv=(0, uv_said(resolution(7, "7.2.0"))))
    record = check(tmp_path, 7, plugin(tmp_path, 7, "rocm[libraries]==7.2.0"), public=public, rocm=rocm)
    assert record.problems == [] and record.installers == {"pip": "ok", "uv": "ok"}
    therock = [("--extra-index-url", rocm)] if rocm else []
    assert indexes(fake.argv("pip")) == pip_asks + therock
    uv = indexes(fake.argv("uv"))
    assert [u for u in uv if u[0] == "--extra-index-url"] == uv_asks[:1] + therock
    assert [u for u in uv if u[0] == "--index-url"] == uv_asks[1:]
    for installer in ("pip", "uv"):
        argv = fake.argv(installer)
        assert "--dry-run" in argv and argv[-3:] == with_rocm_path.requirements(7, LINE)


def test_each_installer_has_a_deadline_and_one_past_it_fails_the_cell_saying_so(tmp_path, installers):
    fake = installers(pip=(0, "", resolution(7, "7.2.0")), late=("uv",))
    record = check(tmp_path, 7, plugin(tmp_path, 7, "rocm[libraries]==7.2.0"))
    assert record.installers == {"pip": "ok", "uv": "failed"}
    assert record.problems == ["with-rocm path, uv: did not resolve within 600 s"]
    deadlines = [o.get("timeout") for a, o in fake.calls if a[1:3] != ["-m", "venv"]]
    assert len(deadlines) == 2 and all(isinstance(d, float) and 0 < d < 3600 for d in deadlines)


def test_the_users_environment_reaches_the_installers_but_no_proxy_for_the_drafts_index(
        tmp_path, installers, monkeypatch):
    """The user's proxy and pip configuration are theirs to keep; pip never prompts nor checks its
    own version; the draft's index is on 127.0.0.1, so it is never asked through the proxy."""
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example")
    monkeypatch.delenv("no_proxy", raising=False)
    fake = installers(pip=(0, "", resolution(7, "7.2.0")), uv=(0, uv_said(resolution(7, "7.2.0"))))
    check(tmp_path, 7, plugin(tmp_path, 7, "rocm[libraries]==7.2.0"))
    envs = [o.get("env") or {} for a, o in fake.calls if a[1:3] != ["-m", "venv"]]
    assert len(envs) == 2
    for env in envs:
        assert env.get("HTTPS_PROXY") == "http://proxy.example:3128"
        assert env.get("PIP_NO_INPUT") == "1" and env.get("PIP_DISABLE_PIP_VERSION_CHECK") == "1"
        for key in ("NO_PROXY", "no_proxy"):
            assert {"127.0.0.1", "localhost"} <= set(env.get(key, "").split(","))
        assert "internal.example" in env["NO_PROXY"].split(",")


def test_a_venv_that_cannot_be_made_fails_every_installer_in_one_line_printing_nothing(tmp_path, capfd):
    """A real interpreter that cannot make a venv (it complains on both streams): nothing it
    printed reaches validate's own output (its ``--json`` is stdout), the cell is failed."""
    broken = tmp_path / "python3"
    broken.write_text("#!/bin/sh\necho 'venv on stdout'\necho 'Error: no ensurepip' >&2\nexit 1\n")
    broken.chmod(0o755)
    record = with_rocm_path.check_cell(broken, 7, LINE, plugin(tmp_path, 7, "rocm[libraries]==7.2.0"), DRAFT, PUBLIC,
                                       ROCM, tmp_path / "work", lambda _: None)
    assert record.to_json() == {"pip": "failed", "uv": "failed", "runtime": [], "reason": None}
    assert record.problems == [f"{broken} -m venv failed"]
    assert capfd.readouterr() == ("", "")


def test_without_uv_its_resolution_is_not_tried_the_others_still_are(tmp_path, installers, monkeypatch):
    fake = installers(pip=(0, "", resolution(7, "7.2.0")))
    monkeypatch.setattr(with_rocm_path.user_install, "find_uv", lambda: None)
    record = check(tmp_path, 7, plugin(tmp_path, 7, "rocm[libraries]==7.2.0"), installers=("uv", "pip"))
    assert record.installers == {"uv": "not tried", "pip": "ok"} and record.problems == []
    assert record.warnings == ["with-rocm path: uv is not installed here: the uv resolution was not tried"]
    assert not [a for a, _ in fake.calls if a[0] == UV] and fake.argv("pip")


def test_what_is_resolved_is_said_first_as_the_line_a_user_types(tmp_path, installers):
    installers(pip=(0, "", resolution(10, "10.1.0")), uv=(0, uv_said(resolution(10, "10.1.0"))))
    said: list[str] = []
    check(tmp_path, 10, plugin(tmp_path, 10, "rocm[libraries]==10.1.0"), say=said.append)
    line = "jax[rocm10]==0.9.1 jaxlib==0.9.1 jax-rocm10-plugin[with-rocm]==0.9.1"
    assert said == [f"{i} install --dry-run {line} (the with-rocm path, metadata only)" for i in ("pip", "uv")]


def test_the_dry_runs_are_the_users_line_metadata_only_for_an_empty_venv(tmp_path, installers):
    """pip: prereleases allowed as the draft's may be one, nothing installed, resolved as for an
    empty venv, no cache, its report written; uv: the venv made for it, no user uv configuration
    (the indexes are the ones named), no cache, prereleases allowed."""
    fake = installers(pip=(0, "", resolution(7, "7.2.0")), uv=(0, uv_said(resolution(7, "7.2.0"))))
    check(tmp_path, 7, plugin(tmp_path, 7, "rocm[libraries]==7.2.0"), rocm=None)
    venv = str(tmp_path / "work" / "venv" / "bin" / "python")
    line = with_rocm_path.requirements(7, LINE)
    pip = fake.argv("pip")
    assert pip[:len(resolver.pip_argv(Path(venv)))] == resolver.pip_argv(Path(venv))
    assert pip[len(resolver.pip_argv(Path(venv))):] == [
        "install", "--pre", "--dry-run", "--ignore-installed", "--no-cache-dir", "--quiet",
        "--report", str(tmp_path / "work" / "with-rocm-pip.json"), "--isolated", "--index-url", PUBLIC,
        "--extra-index-url", DRAFT, *line]
    assert fake.argv("uv") == [UV, "pip", "install", "--dry-run", "--python", venv, "--no-config", "--no-cache",
                               "--prerelease", "allow", "--extra-index-url", DRAFT, "--index-url", PUBLIC, *line]
    [(made, options)] = [c for c in fake.calls if c[0][1:3] == ["-m", "venv"]]
    assert made == [sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "work" / "venv")]


@pytest.mark.parametrize("major, got, extra, problem", [
    (7, resolution(7, "10.1.0"), "rocm[libraries]>=7", "the with-rocm extra resolves ROCm 10 runtime wheels "
     "(rocm==10.1.0, rocm-sdk-core==10.1.0, rocm-sdk-libraries==10.1.0) for a rocm7 plugin"),
    (10, {**resolution(10, "10.1.0"), "jax-rocm10-plugin": "0.9.0"}, "rocm[libraries]",
     "it resolves jax-rocm10-plugin 0.9.0, not the draft's 0.9.1"),
    (7, resolution(7, "7.2.0"), "rocm-sdk-libraries-gfx94X-dcgpu==7.2.0",
     "the with-rocm extra's rocm-sdk-libraries-gfx94x-dcgpu not in what it resolves")],
    ids=["another-major", "another-plugin", "extra-package-missing"])
def test_a_resolution_that_is_wrong_fails_each_installer_in_one_line(tmp_path, installers, major, got, extra,
                                                                     problem):
    installers(pip=(0, "", got), uv=(0, uv_said(got)))
    record = check(tmp_path, major, plugin(tmp_path, major, extra, "rocm[libraries]"))
    assert record.installers == {"pip": "failed", "uv": "failed"}
    assert record.problems == [f"with-rocm path, {i}: {problem}" for i in ("pip", "uv")]


# ---------------------------------------------------------------- the cell's record


def test_the_runtime_recorded_is_what_pip_resolves(tmp_path, installers):
    installers(pip=(0, "", resolution(7, "7.2.0")))
    record = check(tmp_path, 7, plugin(tmp_path, 7, "rocm[libraries]==7.2.0"), installers=("pip",))
    assert record.to_json() == {"pip": "ok", "reason": None,
                                "runtime": ["rocm==7.2.0", "rocm-sdk-core==7.2.0", "rocm-sdk-libraries==7.2.0"]}


def test_a_cell_checked_again_in_the_same_work_directory_is_judged_on_that_run_alone(tmp_path, installers):
    """validate run twice (a retry) reuses the work directory (made with its parents the first
    time): the first run's report is still there when pip fails the second time before writing one."""
    wheel = plugin(tmp_path, 7, "rocm[libraries]==7.2.0")
    work = tmp_path / "validate" / "rocm7-py3.11" / "with-rocm"
    installers(pip=(0, "", resolution(7, "7.2.0")))
    assert check(tmp_path, 7, wheel, installers=("pip",), work=work).installers == {"pip": "ok"}
    installers(pip=(1, "ERROR: No matching distribution found for rocm==7.2.0\n", None))
    again = check(tmp_path, 7, wheel, installers=("pip",), work=work)
    assert again.installers == {"pip": "failed"}
    assert again.problems[0].endswith(": ERROR: No matching distribution found for rocm==7.2.0")


@pytest.mark.parametrize("public, rocm, where", [
    (resolver.PIP_DEFAULT, None, "the draft's index and pip's configured index"),
    (PUBLIC, None, f"the draft's index and {PUBLIC}"),
    (resolver.PIP_DEFAULT, ROCM, f"the draft's index and pip's configured index and {ROCM}")])
def test_a_line_that_does_not_resolve_names_the_indexes_asked(tmp_path, installers, public, rocm, where):
    installers(pip=(1, "ERROR: No matching distribution found for rocm==7.9.9\n", None))
    record = check(tmp_path, 7, plugin(tmp_path, 7, "rocm[libraries]==7.9.9"), public=public, rocm=rocm,
                   installers=("pip",))
    assert record.problems == ["with-rocm path, pip: cannot resolve jax[rocm7]==0.9.1 jaxlib==0.9.1 "
                               f"jax-rocm7-plugin[with-rocm]==0.9.1 from {where}: "
                               "ERROR: No matching distribution found for rocm==7.9.9"]


def test_an_installer_that_succeeds_naming_nothing_fails_the_cell_saying_so(tmp_path, installers):
    """uv exits 0 having resolved nothing to install (no `` + name==version`` line): the cell's line
    did not resolve, whatever uv printed."""
    installers(pip=(0, "", resolution(7, "7.2.0")), uv=(0, "Resolved 0 packages in 1ms\nWould make no changes\n"))
    record = check(tmp_path, 7, plugin(tmp_path, 7, "rocm[libraries]==7.2.0"), rocm=None)
    assert record.installers == {"pip": "ok", "uv": "failed"}
    assert record.problems == ["with-rocm path, uv: cannot resolve jax[rocm7]==0.9.1 jaxlib==0.9.1 "
                               f"jax-rocm7-plugin[with-rocm]==0.9.1 from the draft's index and {PUBLIC}: "
                               "it named nothing it would install"]


def test_runtime_data_that_cannot_be_read_still_resolves_the_line_without_judging_majors(
        tmp_path, installers, monkeypatch):
    """Without rocm_runtime.json's packages the extra's own names are the runtime, and no major is
    judged (a rocm10 runtime for a rocm7 plugin passes); that is said once."""
    def unreadable(*_):
        raise UserError("rocm_runtime.json: not JSON")
    monkeypatch.setattr(with_rocm_path.rocm_sdk_wheels, "load", unreadable)
    installers(pip=(0, "", resolution(7, "10.1.0")), uv=(0, uv_said(resolution(7, "10.1.0"))))
    said: list[str] = []
    record = check(tmp_path, 7, plugin(tmp_path, 7, "rocm[libraries]>=7", "rocm-sdk-core"), say=said.append)
    assert record.problems == [] and record.installers == {"pip": "ok", "uv": "ok"}
    assert record.runtime == ["rocm==10.1.0", "rocm-sdk-core==10.1.0"]
    assert said[0] == "ROCm runtime wheels unknown (rocm_runtime.json: not JSON): no check of their major"


def test_an_extra_naming_several_packages_no_runtime_data_records_names_them_all(tmp_path, installers):
    fake = installers()
    record = check(tmp_path, 7, plugin(tmp_path, 7, "amd_hipblas_instinct", "amd-rocblas-instinct",
                                       "rocm[libraries]==7.2.0"))
    assert record.reason == ("the with-rocm extra names amd-hipblas-instinct, amd-rocblas-instinct, which "
                             "rocm_runtime.json does not record as ROCm runtime wheels")
    assert fake.calls == []


def test_every_package_the_extra_names_and_no_resolution_holds_is_named():
    extra = [Requirement("rocm[libraries]==7.2.0"), Requirement("rocm-sdk-core"), Requirement("Amd_Smi")]
    problems = with_rocm_path.judge({"jax-rocm7-plugin": LINE, "rocm": "7.2.0"}, 7, LINE, extra,
                                    rocm_sdk_wheels.load())
    assert problems == ["the with-rocm extra's amd-smi, rocm-sdk-core not in what it resolves"]


def test_metadata_that_is_not_utf8_is_still_read(tmp_path):
    """A Latin-1 byte in the plugin's METADATA (a summary pasted from elsewhere) does not hide its
    extra."""
    wheel = tmp_path / "jax_rocm7_plugin-0.9.1-py3-none-any.whl"
    meta = (b"Metadata-Version: 2.1\nName: jax-rocm7-plugin\nVersion: 0.9.1\nSummary: caf\xe9 \xff\n"
            b"Provides-Extra: with-rocm\nRequires-Dist: rocm[libraries]==7.2.0; extra == \"with-rocm\"\n")
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("jax_rocm7_plugin-0.9.1.dist-info/METADATA", meta)
        zf.writestr("jax_rocm7_plugin-0.9.1.dist-info/WHEEL", "Wheel-Version: 1.0\n")
    assert [r.name for r in with_rocm_path.declared(wheel) or ()] == ["rocm"]


# ---------------------------------------------------------------- reading the installers' answers


NAMES = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4}){0,2}", fullmatch=True)
VERSIONS = st.from_regex(r"[0-9]{1,2}(\.[0-9]{1,2}){1,2}(rc[0-9]|\.dev[0-9]{8})?", fullmatch=True)


@given(st.dictionaries(NAMES, VERSIONS, min_size=1, max_size=8), st.data())
def test_uvs_lines_are_read_from_both_of_its_streams(resolved, data):
    """uv prints what it would install on stderr; where a wrapper sends some of it to stdout, or
    the lines start either stream, every package is read, its version exact."""
    lines = uv_said(resolved).splitlines(keepends=True)
    cut = data.draw(st.integers(0, len(lines)))
    out, err = "".join(lines[cut:]), "".join(lines[:cut])
    if data.draw(st.booleans()):
        out = out.rstrip("\n")
    assert with_rocm_path.resolved_by("uv", out, err, None) == resolved


@given(st.dictionaries(NAMES, VERSIONS, min_size=1, max_size=8), st.randoms(use_true_random=False),
       st.sampled_from([str.upper, str.title, lambda n: n.replace("-", "_"), lambda n: n.replace("-", ".")]))
def test_what_pip_reports_is_read_in_any_order_however_names_are_spelled(tmp_path_factory, resolved, rng, spell):
    report = pip_report({spell(n): v for n, v in resolved.items()})
    rng.shuffle(report["install"])
    path = tmp_path_factory.mktemp("report") / "r.json"
    path.write_text(json.dumps(report))
    assert with_rocm_path.resolved_by("pip", "", "", path) == resolved


@pytest.mark.parametrize("written", [None, "", "not json", "[]", '{"install": {}}', '{"version": "1"}'])
def test_a_pip_report_missing_or_not_pips_shape_reads_as_nothing_resolved(tmp_path, written):
    report = tmp_path / "r.json"
    if written is not None:
        report.write_text(written)
    assert with_rocm_path.resolved_by("pip", "", "", report) is None
    assert with_rocm_path.resolved_by("pip", "", "", None) is None


HASHES = ("ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the "
          "package versions, please update the hashes.\n    rocm==7.2.0 from https://rocm.example/rocm-7.2.0.whl:\n"
          "        Expected sha256 00\n             Got        cc\n")
UV_FETCH = ("Using Python 3.11.7 environment at: venv\nerror: Request failed after 3 retries in 6.7s\n"
            "  cause: Failed to fetch: http://127.0.0.1:1/simple/rocm/\n  cause: client error (Connect)\n"
            "  cause: Connection refused (os error 111)\n")


@pytest.mark.parametrize("stderr, said", [
    (HASHES, HASHES.splitlines()[0]),
    (UV_FETCH, "error: Request failed after 3 retries in 6.7s"),
    ("error: No solution found when resolving dependencies\nBecause rocm==7.9.9 was not found, we can conclude "
     "that your requirements are unsatisfiable.\n",
     "Because rocm==7.9.9 was not found, we can conclude that your requirements are unsatisfiable."),
    ("Collecting rocm\nKilled\n\n", "Killed"),
    ("first\nsecond\nthird\n", "third")],
    ids=["pip-error-then-detail", "uv-error-then-causes", "uv-reason-on-its-own-line", "no-error-line",
         "three-plain-lines"])
def test_the_reason_said_is_the_installers_reason_else_its_error_else_its_last_line(stderr, said):
    """pip prints details under its ``ERROR:`` line and uv ``cause:`` lines under its ``error:``
    one: the error line is said; uv's ``Because ...`` reason beats it; a run that printed neither
    says its last line."""
    assert with_rocm_path._said(stderr) == said


@given(st.sampled_from(["ERROR: ", "error: ", "  ╰─▶ Because ", "Because ", ""]),
       st.text(st.sampled_from("abc xyz.:=-é"), min_size=300, max_size=700))
def test_a_reason_is_cut_at_300_characters(prefix, text):
    line = f"{prefix}x{text}x"
    assert with_rocm_path._said(f"Collecting jax\n{line}\n") == line.strip().removeprefix("╰─▶ ")[:300]
