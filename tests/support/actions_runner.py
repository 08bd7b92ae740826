"""A small stand-in for the GitHub Actions runner: runs a workflow's jobs as GitHub would, for
the flow tests (tests/test_workflow_flow.py).

Each job runs in a fresh clone of the repository's origin at the job's ref (a new machine), its
``run:`` steps through ``bash -eo pipefail`` in that clone with the step's ``env:`` (expressions
``${{ inputs.* }}``, ``needs.*.outputs.*``, ``steps.*.outputs.*``, ``matrix.*``, ``github.*``,
``vars.*``, ``secrets.*`` and ``a || b`` evaluated), ``$GITHUB_OUTPUT`` read back into the step's
outputs and the job's ``outputs:``. Step ``if:`` (``always()``, ``failure()``, ``success()``)
and ``continue-on-error`` behave as on GitHub; a job's ``failure()`` sees every job it depends
on, directly or not; ``contains`` and ``needs.*.result`` are evaluated; a job's GITHUB_TOKEN
writes only where it is granted a repository write (``id-token``, ``pages``, ``attestations``
alone grant none), and ``needs`` holds only the jobs it names. Of the actions,
``upload-artifact`` and ``download-artifact`` are real (files kept per run under
``artifacts/``, the upload's root is the paths' common directory, a second upload of a name
fails unless ``overwrite: true``, a download of a missing name, or of one past its
``retention-days`` on the runner's clock, fails); ``cache/restore``, ``cache/save`` keep files
and whole directories by key and prefix; checkout, setup-python, the composite setup and the attestation and Pages
actions do nothing (the test's interpreter has the project installed: ``RELEASE_PYTHON``); a
checkout's ``ref:`` naming a branch checks that branch out, as actions/checkout does.

The runner's clock is ``now``: a step whose env does not set ``RELEASE_NOW`` (or sets it to
an empty expression) runs with the runner's clock as ``RELEASE_NOW``, as a real runner runs
with the wall clock.
"""

from __future__ import annotations

import copy
import datetime
import functools
import glob
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from tests.support import warm_start

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def load_workflow(path: Path) -> dict:
    """The workflow file as a fresh dict (the caller's to change): parsed once per content, with
    libyaml where PyYAML has it (38 parses by the pure-Python parser cost a roller week about a CPU-second)."""
    return copy.deepcopy(_parsed_workflow(path.read_text()))


@functools.lru_cache(maxsize=64)
def _parsed_workflow(text: str) -> dict:
    doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if True in doc:
        doc["on"] = doc.pop(True)
    return doc


def _lookup(name: str, ctx: dict) -> str:
    name = name.strip()
    if name.startswith("'") and name.endswith("'"):
        return name[1:-1]
    value: object = ctx
    for key in name.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    if isinstance(value, bool):
        return str(value).lower()
    return "" if value is None else str(value)


def _contains(haystack: object, needle: object) -> bool:
    """GitHub's ``contains``: an item of an array, or a substring, ignoring case."""
    if isinstance(haystack, list):
        return any(str(item).lower() == str(needle).lower() for item in haystack)
    return str(needle).lower() in str(haystack).lower()


def _format(template: str, *values: object) -> str:
    """GitHub's ``format``: ``{N}`` replaced by the N-th value as text, ``{{``/``}}`` braces."""
    def text(value: object) -> str:
        return str(value).lower() if isinstance(value, bool) else "" if value is None else str(value)
    return re.sub(r"\{\{|\}\}|\{(\d+)\}", lambda m: m.group(0)[0] if m.group(1) is None
                  else text(values[int(m.group(1))]), template)


def _value(expr: str, ctx: dict, *, failed: bool = False) -> object:
    """An expression as GitHub evaluates it (the forms the workflows use): status functions,
    ``contains``, ``format``, ``needs.*.result`` (every need's result), ``==``, ``!=``, ``!``, and ``&&``
    and ``||``, which give an operand's value as GitHub's do (``a && 'x' || 'y'``)."""
    funcs = {"always()": "True", "cancelled()": "False", "failure()": str(failed), "success()": str(not failed)}
    for name, value in funcs.items():
        expr = expr.replace(name, value)
    expr = re.sub(r"needs\.\*\.result", lambda m: repr([n["result"] for n in ctx.get("needs", {}).values()]), expr)
    expr = re.sub(r"(?<![\w'.])([a-z_]+(?:\.[\w-]+)+)", lambda m: repr(_lookup(m.group(1), ctx)), expr)
    expr = expr.replace("&&", " and ").replace("||", " or ").replace("!=", " != ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    return eval(expr, {"__builtins__": {}, "contains": _contains, "format": _format}, {})  # noqa: S307 (our own workflow files)


def evaluate(expr: str, ctx: dict) -> str:
    """``${{ expr }}`` as text: ``a || b || 'c'`` the first non-empty value, ``c && 'x' || 'y'``
    as GitHub's operators give it."""
    value = _value(expr, ctx)
    if isinstance(value, bool):
        return str(value).lower()
    return "" if value is None else str(value)


def substitute(text: str, ctx: dict) -> str:
    return EXPR.sub(lambda m: evaluate(m.group(1), ctx), str(text))


def condition(text: str | None, ctx: dict, *, failed: bool) -> bool:
    """A job's or step's ``if:`` (the forms the workflows use): status functions, ``==``,
    ``!``, ``&&``, ``||`` over context values."""
    if text is None:
        return not failed
    return bool(_value(EXPR.sub(lambda m: m.group(1), str(text)), ctx, failed=failed))


@dataclass
class JobResult:
    result: str  # success | failure | skipped
    outputs: dict[str, str] = field(default_factory=dict)
    steps: list[tuple[str, str]] = field(default_factory=list)  # (step name, outcome)
    log: str = ""
    checkout: Path | None = None  # the job's machine: its clone, as the job left it


class Runner:
    """One workflow run: its artifacts, caches and the jobs' results (``needs``)."""

    def __init__(self, origin: Path, work: Path, env: dict[str, str], *, now: str, sha: str,
                 ref_name: str = "main", run_id: int = 1, variables: dict | None = None,
                 secrets: dict | None = None):
        self.origin, self.work, self.base_env = origin, work, env
        self.now, self.sha, self.ref_name, self.run_id = now, sha, ref_name, run_id
        self.attempt = 1
        self.vars, self.secrets = variables or {}, secrets or {}
        # The job's GITHUB_TOKEN: the write token for a job granted a write permission, else the
        # read-only one (base_env's RUNNER_WRITE_TOKEN and RUNNER_READ_TOKEN, never in a step's env).
        self.tokens = (env.get("RUNNER_WRITE_TOKEN", ""), env.get("RUNNER_READ_TOKEN", ""))
        self.artifacts = work / "artifacts"
        self._expiry: dict[str, datetime.datetime] = {}
        self.caches = work / "caches"
        self.jobs: dict[str, JobResult] = {}
        self.needs: dict[str, list[str]] = {}  # job -> the jobs it needs, as run
        self.machines = 0

    # ------------------------------------------------------------ jobs

    def context(self, inputs: dict, matrix: dict | None, steps: dict, job: dict | None = None) -> dict:
        wanted = _needs_of(job) if job is not None else list(self.jobs)
        needs = {name: {"result": r.result, "outputs": r.outputs} for name, r in self.jobs.items()
                 if name in wanted or job is None}
        # A write of the repository (contents, pull requests, issues, actions) gets the write
        # token; id-token, pages or attestations alone grant none of it, as on GitHub.
        perms = (job or {}).get("permissions") or {}
        writes = any(v == "write" for k, v in perms.items() if k not in ("id-token", "pages", "attestations"))
        token = self.tokens[0] if writes or job is None else self.tokens[1]
        github = {"token": token, "sha": self.sha, "ref_name": self.ref_name,
                  "ref": f"refs/heads/{self.ref_name}", "run_id": self.run_id, "run_attempt": self.attempt}
        return {"inputs": inputs, "needs": needs, "matrix": matrix or {}, "steps": steps, "github": github,
                "vars": self.vars, "secrets": self.secrets}

    def run_job(self, key: str, job: dict, *, inputs: dict | None = None, matrix: dict | None = None,
                ref: str | None = None, extra_env: dict | None = None) -> JobResult:
        """Run ``job`` (its steps, on a fresh clone at ``ref``); recorded as ``key`` for later
        jobs' ``needs``. A job whose ``if:`` is false is skipped."""
        inputs = inputs or {}
        ctx = self.context(inputs, matrix, {}, job)
        # failure() in a job's if: any job it depends on, directly or not, failed (GitHub's)
        upstream_failed = any(self.jobs[name].result == "failure" for name in self._ancestors(_needs_of(job))
                              if name in self.jobs)
        self.needs[key] = _needs_of(job)
        if not condition(job.get("if"), ctx, failed=upstream_failed) or (
                "if" not in job and any(self.jobs.get(n, JobResult("skipped")).result != "success"
                                        for n in _needs_of(job))):
            result = JobResult("skipped")
            self.jobs[key] = result
            return result
        self.machines += 1
        checkout = self.work / f"machine-{self.machines}"
        subprocess.run(["git", "clone", "--quiet", str(self.origin), str(checkout)], check=True)
        if ref is None:  # the ref the job's checkout step names (empty: the run's commit)
            checkout_step = next((s for s in job.get("steps", [])
                                  if s.get("uses", "").startswith("actions/checkout@")), {})
            ref = (checkout_step.get("with") or {}).get("ref")
        target = substitute(ref, ctx) if ref else self.sha
        branch = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"refs/remotes/origin/{target}"],
                                cwd=checkout, capture_output=True).returncode == 0 if target else False
        if branch:  # a branch named: actions/checkout checks that branch out, not a detached commit
            subprocess.run(["git", "checkout", "--quiet", "-B", target, f"origin/{target}"], cwd=checkout, check=True)
        else:
            subprocess.run(["git", "checkout", "--quiet", "--detach", target or self.sha], cwd=checkout, check=True)
        for name in ("user.name", "user.email"):
            subprocess.run(["git", "config", name, "Release Bot" if name == "user.name" else "bot@example.com"],
                           cwd=checkout, check=True)
        steps: dict[str, dict] = {}
        result = JobResult("success", checkout=checkout)
        failed = False
        for step in job.get("steps", []):
            ctx = self.context(inputs, matrix, steps, job)
            name = step.get("name") or step.get("uses") or step.get("run", "")[:40]
            if not condition(step.get("if"), ctx, failed=failed):
                result.steps.append((name, "skipped"))
                continue
            ok, outputs, log = self._step(step, ctx, checkout, extra_env or {})
            result.log += f"--- {name}\n{log}"
            if "id" in step:
                steps[step["id"]] = {"outputs": outputs, "outcome": "success" if ok else "failure"}
            result.steps.append((name, "success" if ok else "failure"))
            if not ok and not step.get("continue-on-error"):
                failed = True
        result.result = "failure" if failed else "success"
        ctx = self.context(inputs, matrix, steps, job)
        result.outputs = {k: substitute(v, ctx) for k, v in (job.get("outputs") or {}).items()}
        self.jobs[key] = result
        return result

    def _ancestors(self, names: list[str]) -> set[str]:
        seen: set[str] = set()
        todo = list(names)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo += self.needs.get(name, [])
        return seen

    # ------------------------------------------------------------ steps

    def _step(self, step: dict, ctx: dict, cwd: Path, extra_env: dict) -> tuple[bool, dict, str]:
        uses = step.get("uses", "")
        with_ = {k: substitute(v, ctx) if isinstance(v, str) else v for k, v in (step.get("with") or {}).items()}
        if uses:
            action = uses.split("@")[0]
            if action == "actions/upload-artifact":
                return self._upload(with_, cwd)
            if action == "actions/download-artifact":
                return self._download(with_, cwd)
            if action == "actions/cache/restore":
                return self._cache_restore(with_, cwd)
            if action == "actions/cache/save":
                return self._cache_save(with_, cwd)
            return True, {}, f"{action}: nothing to do here\n"
        env = {k: v for k, v in {**self.base_env, **extra_env}.items() if not k.startswith("RUNNER_")}
        for key, value in (step.get("env") or {}).items():
            env[key] = substitute(value, ctx)
        if not env.get("RELEASE_NOW"):
            env["RELEASE_NOW"] = self.now  # the runner's wall clock
        env["GITHUB_RUN_ID"], env["GITHUB_RUN_ATTEMPT"] = str(self.run_id), str(self.attempt)
        out_file = cwd / ".runner-output"
        out_file.write_text("")
        env["GITHUB_OUTPUT"] = str(out_file)
        env["GITHUB_STEP_SUMMARY"] = str(cwd / ".runner-summary")
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=cwd,
                              env=env, capture_output=True, text=True, timeout=600)
        outputs = dict(line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line)
        return proc.returncode == 0, outputs, proc.stdout + proc.stderr

    def _upload(self, with_: dict, cwd: Path) -> tuple[bool, dict, str]:
        files = sorted({Path(f) for pattern in with_["path"].split()
                        for f in glob.glob(str(cwd / pattern)) if Path(f).is_file()})
        if not files:
            missing = with_.get("if-no-files-found", "warn")
            return missing != "error", {}, f"no files for {with_['name']}\n"
        dest = self.artifacts / with_["name"]
        if dest.exists():
            if with_.get("overwrite") is not True:
                return False, {}, (f"an artifact with this name already exists on the workflow run: "
                                   f"{with_['name']}\n")
            shutil.rmtree(dest)
        root = Path(os.path.commonpath([str(f.parent) for f in files]))
        for f in files:
            target = dest / f.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
        days = int(with_.get("retention-days") or 90)   # GitHub's default retention
        self._expiry[with_["name"]] = _when(self.now) + datetime.timedelta(days=days)
        return True, {}, f"uploaded {len(files)} file(s) as {with_['name']}\n"

    def _download(self, with_: dict, cwd: Path) -> tuple[bool, dict, str]:
        if "pattern" in with_:  # every artifact whose name matches, merged into one directory
            import fnmatch
            found = [d for d in sorted(self.artifacts.glob("*")) if fnmatch.fnmatchcase(d.name, with_["pattern"])
                     and not self._expired(d.name)]
            for src in found:
                dest = cwd / with_.get("path", ".")
                shutil.copytree(src, dest if with_.get("merge-multiple") else dest / src.name,
                                dirs_exist_ok=True)
            return True, {}, f"downloaded {len(found)} artifact(s)\n"
        src = self.artifacts / with_["name"]
        if not src.is_dir() or self._expired(with_["name"]):
            return False, {}, f"Artifact not found for name: {with_['name']}\n"
        shutil.copytree(src, cwd / with_.get("path", "."), dirs_exist_ok=True)
        return True, {}, ""

    def _expired(self, name: str) -> bool:
        """An artifact past its retention on the runner's clock is gone, as on GitHub."""
        return name in self._expiry and _when(self.now) >= self._expiry[name]

    def _cache_restore(self, with_: dict, cwd: Path) -> tuple[bool, dict, str]:
        keys = [with_["key"], *(with_.get("restore-keys") or "").split()]
        saved = sorted(self.caches.glob("*"), key=lambda p: p.stat().st_mtime_ns, reverse=True) \
            if self.caches.is_dir() else []
        for key in keys:
            hit = next((p for p in saved if json.loads((p / "key").read_text()).startswith(key)), None)
            if hit is not None:
                shutil.copytree(hit / "files", cwd, dirs_exist_ok=True)
                return True, {"cache-matched-key": json.loads((hit / "key").read_text())}, ""
        return True, {}, "cache not found\n"

    def _cache_save(self, with_: dict, cwd: Path) -> tuple[bool, dict, str]:
        slot = self.caches / re.sub(r"[^\w.-]", "_", with_["key"])
        if slot.exists():
            return True, {}, "cache entry exists; not saved\n"  # entries are immutable
        for pattern in with_["path"].split():
            for f in glob.glob(str(cwd / pattern)):
                target = slot / "files" / Path(f).relative_to(cwd)
                target.parent.mkdir(parents=True, exist_ok=True)
                if Path(f).is_dir():  # a directory is saved whole, as actions/cache saves one
                    shutil.copytree(f, target, dirs_exist_ok=True)
                else:
                    shutil.copy2(f, target)
        slot.mkdir(parents=True, exist_ok=True)
        (slot / "key").write_text(json.dumps(with_["key"]))
        return True, {}, ""


def _when(iso: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _needs_of(job: dict) -> list[str]:
    needs = job.get("needs") or []
    return [needs] if isinstance(needs, str) else list(needs)


def base_env(fake, **more: str) -> dict[str, str]:
    """What every step sees: the runner's environment (GitHub's variables) on the stand-in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RELEASE_", "GITHUB_", "BUMP_"))}
    env.update(GITHUB_ACTIONS="true", GITHUB_REPOSITORY=fake.repo, GITHUB_API_URL=fake.api_url,
               GITHUB_SERVER_URL="https://github.com", GITHUB_RUN_ID="1", GITHUB_RUN_ATTEMPT="1",
               RELEASE_PYTHON=warm_start.python(), RELEASE_GITHUB_WRITE_INTERVAL="0",
               RELEASE_PUBLIC_INDEX="none")
    env.update(more)
    env.pop("GITHUB_TOKEN", None)  # a step has it only when its env names it (${{ github.token }})
    env.update(RUNNER_WRITE_TOKEN=fake.token, RUNNER_READ_TOKEN=fake.read_token)
    return env
