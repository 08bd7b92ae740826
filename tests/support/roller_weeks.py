"""Weeks of the roller on the GitHub stand-in (issue 25's proof, tests/test_roller_weeks.py).

``Upstreams`` are the three upstream repositories growing day by day: each plugin commit on
``master`` is made at the time a week's script says (commit dates are what a cooldown reads),
pinning a new jax and xla commit when asked, as rocm-jax rolls its own pins. ``RollerWorld`` is
this repository on GitHub: a checkout pushed to a bare origin that the stand-in reads
(``fake.git_dir``: a PR's head branch must exist, a merge needs green checks and the head sha
and writes the merge commit there). ``RollerWorld.bump`` runs one scheduled bump as bump.yml runs
it: a fresh clone of origin's main (a new machine), the git mirrors kept between days (the
workflow's cache), the step's environment from the workflow file, the ``release`` argv that
``scripts/bump.sh`` builds from it (recorded, then run in-process: the same command, quicker)
and the run's clock (``RELEASE_NOW``) at the cron's minute of that day.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
from pathlib import Path
from typing import Any, Callable

import yaml

from tests.support.actions_runner import load_workflow, substitute
from tests.support.gitrepos import (
    BRANCH,
    JAX_BZL,
    XLA_BZL,
    Remotes,
    RepoBuilder,
    deps_yaml,
    git,
    push_to_origin,
    release_repo,
)
from tests.support.project import REPO, write_version_info
from tests.test_bump_people import PERSON

UTC = dt.timezone.utc
BUMP_WORKFLOW = REPO / ".github" / "workflows" / "bump.yml"
NIGHTLY_WORKFLOW = REPO / ".github" / "workflows" / "nightly.yml"
WRITES = ("POST", "PATCH", "PUT", "DELETE")
STEP_PREFIXES = ("GITHUB_TOKEN", "GITHUB_RUN_ID", "BUMP_", "BISECT_", "DASHBOARD_", "GIT_AUTHOR_", "GIT_COMMITTER_")
_RECORDED: dict[tuple, list[str]] = {}  # (script, env) -> the release argv it runs


def stamp(moment: dt.datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def cron_time(workflow: Path, day: dt.date) -> dt.datetime:
    """When the workflow's (first) schedule fires on ``day``: ``M H * * *`` crons only."""
    cron = load_workflow(workflow)["on"]["schedule"][0]["cron"]
    minute, hour = (int(x) for x in cron.split()[:2])
    return dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)


class Upstreams:
    """plugin (``master``), jax and xla (``rocm-jaxlib-v0.9.1``), committed at given times."""

    def __init__(self, root: Path, start: dt.datetime):
        root.mkdir(parents=True, exist_ok=True)
        self.jax, self.xla, self.plugin = (RepoBuilder(root / f"{n}.git") for n in ("jax", "xla", "plugin"))
        self.n = 0
        self.times: dict[str, int] = {}  # plugin commit -> its commit time (epoch seconds)
        self.pins: dict[str, tuple[str, str]] = {}  # plugin commit -> (jax, xla) it pins
        self._at(self.jax, start)
        jax = self.jax.commit(BRANCH, "Initial jax", {"jax/__init__.py": "v = 0\n"})
        self._at(self.xla, start)
        xla = self.xla.commit(BRANCH, "Initial xla", {"xla/BUILD": "# xla\n"})
        self.first = self.commit(start, jax=False, xla=False, subject="Initial plugin", pins=(jax, xla))
        self.remotes = Remotes(root, self.plugin, self.jax, self.xla, {"P0": self.first, "J1": jax, "X1": xla})

    @staticmethod
    def _at(repo: RepoBuilder, moment: dt.datetime) -> None:
        repo.time = int(moment.timestamp()) - 60  # RepoBuilder.commit adds its minute first

    @property
    def tip(self) -> str:
        tip = self.plugin.tip("master")
        assert tip is not None
        return tip

    def commit(self, when: dt.datetime, *, jax: bool = True, xla: bool = False, subject: str | None = None,
               pins: tuple[str, str] | None = None) -> str:
        """One plugin commit on master at ``when``; with ``jax``/``xla`` it pins a new commit of
        that upstream, made a minute before."""
        self.n += 1
        old_jax, old_xla = pins or self.pins[self.tip]
        new_jax, new_xla = old_jax, old_xla
        if jax:
            self._at(self.jax, when - dt.timedelta(minutes=1))
            new_jax = self.jax.commit(BRANCH, f"jax change {self.n}", {"jax/rocm.py": f"c = {self.n}\n"})
        if xla:
            self._at(self.xla, when - dt.timedelta(minutes=1))
            new_xla = self.xla.commit(BRANCH, f"xla change {self.n}", {"xla/rocm.cc": f"int c{self.n};\n"})
        self._at(self.plugin, when)
        sha = self.plugin.commit("master", subject or f"plugin change {self.n}", {
            JAX_BZL: _workspace("JAX_COMMIT", new_jax), XLA_BZL: _workspace("XLA_COMMIT", new_xla),
            "jax_rocm_plugin/build/change.txt": f"{self.n}\n"})
        self.times[sha], self.pins[sha] = int(when.timestamp()), (new_jax, new_xla)
        return sha

    def newest_at_least(self, hours: float, now: dt.datetime) -> str | None:
        """The newest plugin commit at least ``hours`` old at ``now`` (the cooldown's rule, here
        from the commit times this script chose, not from git)."""
        limit = now.timestamp() - hours * 3600
        soaked = [(t, sha) for sha, t in self.times.items() if t <= limit]
        return max(soaked)[1] if soaked else None


def _workspace(var: str, sha: str) -> str:
    return f'"""Pinned by the plugin."""\n\n{var} = "{sha}"\n'


@dataclasses.dataclass
class Run:
    """One scheduled bump: its answer (``--json``), step summary and the writes it sent GitHub."""

    now: dt.datetime
    code: int
    data: dict[str, Any]
    summary: str
    err: str
    writes: list[tuple[str, str]]
    checkout: Path

    @property
    def pull(self) -> dict[str, Any]:
        return self.data.get("pull_request") or {}

    @property
    def merge(self) -> dict[str, Any]:
        return self.data.get("auto_merge") or {}


class RollerWorld:
    """This repository on the stand-in, and its scheduled bump (see the module's docstring)."""

    def __init__(self, tmp: Path, fake, run_cli: Callable, monkeypatch, upstreams: Upstreams, *,
                 roller: str | None = None, variables: dict[str, str] | None = None):
        self.tmp, self.fake, self.run_cli, self.monkeypatch, self.up = tmp, fake, run_cli, monkeypatch, upstreams
        self.variables = variables or {}
        tmp.mkdir(parents=True, exist_ok=True)
        seed = release_repo(tmp / "seed")
        write_version_info(seed)
        (seed / "deps.yaml").write_text(deps_yaml(upstreams.remotes))
        (seed / ".gitignore").write_text("/dist/\n/.cache/\n/workspace/\n")
        if roller is not None:
            (seed / "roller.yaml").write_text(roller)
        self.origin = tmp / "origin.git"
        push_to_origin(seed, self.origin, message="Initial pins")
        fake.git_dir = self.origin
        fake.branches["main"] = self.main
        self.cache = tmp / "mirrors"  # the workflow's actions/cache of .cache/git
        self.runs: list[Run] = []
        self.machines = 0
        self._checked: set[tuple[str, str, str]] = set()
        self.step_env, self.argv = self._workflow_step()

    # ------------------------------------------------------------ the workflows' steps

    def _workflow_step(self) -> tuple[dict[str, str], list[str]]:
        """bump.yml's ``scripts/bump.sh`` step: its env as GitHub fills it, and the one
        ``release`` argv the script runs with that env."""
        job = load_workflow(BUMP_WORKFLOW)["jobs"]["bump"]
        step = next(s for s in job["steps"] if s.get("run", "").strip() == "scripts/bump.sh")
        ctx = {"inputs": {"deps": ""}, "vars": self.variables, "secrets": {}, "github": {"token": self.fake.token}}
        env = {k: substitute(v, ctx) for k, v in (step.get("env") or {}).items()}
        argv = self.script_argv(["bump.sh"], env)
        assert argv[0] == "bump", argv
        return env, argv

    def script_argv(self, script: list[str], env: dict[str, str]) -> list[str]:
        """The one ``release`` argv ``scripts/<script>`` runs with ``env`` (recorded, not run;
        once per script and env: GITHUB_RUN_ID, which only the tool reads, is left out)."""
        from tests.test_workflow_rules import release_argvs
        env = {"GITHUB_REPOSITORY": self.fake.repo, **{k: v for k, v in env.items() if k != "GITHUB_RUN_ID"}}
        key = (tuple(script), tuple(sorted(env.items())))
        if key not in _RECORDED:
            self._clear_step_env()  # the recorder sees this step's env alone
            self.machines += 1
            (_RECORDED[key],) = release_argvs(self.tmp / f"script-{self.machines}", script, **env)
        return list(_RECORDED[key])

    def _clear_step_env(self) -> None:
        """Each step starts from the runner's environment: nothing an earlier step set."""
        for key in [k for k in os.environ if k.startswith(STEP_PREFIXES)]:
            self.monkeypatch.delenv(key, raising=False)

    def machine(self) -> Path:
        """A job's new machine: a fresh clone of origin's main."""
        self.machines += 1
        checkout = self.tmp / f"run-{self.machines}"
        git("clone", "--quiet", "--branch", "main", self.origin.as_uri(), checkout)
        return checkout

    def run(self, now: dt.datetime, argv: list[str], env: dict[str, str], checkout: Path | None = None) -> Run:
        """``release ARGV --json`` as a workflow step at ``now``, with the step's ``env`` (and
        no GITHUB_TOKEN unless it names one), on ``checkout`` (default: a new machine)."""
        checkout = checkout or self.machine()
        summary = checkout.with_suffix(f".{argv[0]}.summary.md")
        env = {"GITHUB_REPOSITORY": self.fake.repo, **env, "RELEASE_NOW": stamp(now),
               "JAX_ROCM_RELEASE_CACHE": str(self.cache), "GITHUB_STEP_SUMMARY": str(summary),
               "GITHUB_OUTPUT": str(checkout.with_suffix(f".{argv[0]}.output"))}
        self._clear_step_env()
        for key, value in env.items():
            self.monkeypatch.setenv(key, value)
        seen = len(self.fake.log)
        code, out, err = self.run_cli(*argv, "--json", cwd=checkout)
        writes = [(m, p) for kind, m, p, *_ in self.fake.log[seen:] if kind != "storage" and m in WRITES]
        return Run(now, code, json.loads(out) if code == 0 and out.strip() else {},
                   summary.read_text() if summary.exists() else "", err, writes, checkout)

    def bump(self, day: dt.date, *extra: str) -> Run:
        """The scheduled bump of ``day`` (bump.yml's step), on a new machine."""
        run = self.run(cron_time(BUMP_WORKFLOW, day), [*self.argv, *extra], self.step_env)
        self.runs.append(run)
        return run

    def release(self, day: dt.date, *argv: str, checkout: Path | None = None) -> Run:
        """``release ARGV`` as a workflow's step runs it on ``day`` (the bump's cron minute),
        with the workflow's own token."""
        return self.run(cron_time(BUMP_WORKFLOW, day), list(argv), {"GITHUB_TOKEN": self.fake.token}, checkout)

    def dashboard(self, day: dt.date, nightly: dict[str, Any] | None = None) -> Run:
        """The dashboard job that ends the bump workflow of ``day``, or the nightly workflow
        whose ``nightly`` run it is (that run's ending handed over as bump.yml/nightly.yml do):
        ``scripts/dashboard.sh`` with the workflow's own token, on a new machine."""
        env = {"GITHUB_TOKEN": self.fake.token}
        now = cron_time(BUMP_WORKFLOW, day) + dt.timedelta(minutes=10)
        if nightly is not None:
            ending = {"success": "success", "cancelled": "cancelled"}.get(nightly["conclusion"], "failure")
            env |= {"DASHBOARD_THIS_RUN": ending, "GITHUB_RUN_ID": str(nightly["id"])}
            now = cron_time(NIGHTLY_WORKFLOW, day) + dt.timedelta(hours=1)
        return self.run(now, self.script_argv(["dashboard.sh"], env), env)

    def nightly(self, day: dt.date, conclusion: str) -> dict[str, Any]:
        """Tonight's nightly workflow run on main, as GitHub records it (the build itself is the
        jobs tests' business); a green one published ``0.9.1.dev<day>`` with the revisions.json
        of the pins it built."""
        from release.core.config import parse_deps
        from release.core.revisions import RevisionMap
        when = cron_time(NIGHTLY_WORKFLOW, day)
        run = self.fake.add_workflow_run("nightly.yml", conclusion=conclusion, created_at=when, head_sha=self.main)
        if conclusion == "success":
            version = f"0.9.1.dev{day:%Y%m%d}"
            deps = parse_deps(Path("deps.yaml"), git("show", "main:deps.yaml", cwd=self.origin))
            self.fake.seed_release(f"rocm-jax-v{version}", prerelease=True, published_at=when, assets={
                "revisions.json": RevisionMap.from_deps(deps, version).dumps().encode()})
        return run

    def red_night_bisects(self, day: dt.date, run: dict[str, Any], probe: str) -> tuple[Run, Run | None, Run | None]:
        """After a red nightly ``run``: nightly.yml's bisect job (``scripts/bisect.sh plan`` at the
        run's commit), then, when it dispatched bisect.yml, that workflow's bisect job (with
        ``probe`` as the ROCm probe: the one stand-in) and its hold job, on one machine (the
        state goes from one to the other as an artifact)."""
        now = cron_time(NIGHTLY_WORKFLOW, day) + dt.timedelta(minutes=30)
        token = {"GITHUB_TOKEN": self.fake.token}
        dispatched = len(self.fake.dispatches)
        plan = self.run(now, self.script_argv(["bisect.sh", "plan"], {"BISECT_BAD_COMMIT": run["head_sha"]}), token)
        if len(self.fake.dispatches) == dispatched:
            return plan, None, None
        inputs = self.fake.dispatches[-1]["inputs"]
        env = {"BISECT_GOOD": inputs["good"], "BISECT_BAD_COMMIT": inputs.get("bad_commit", ""),
               "BISECT_SKIP_KNOWN": inputs.get("skip_known", "")}
        machine = self.machine()
        bisect = self.run(now, [*self.script_argv(["bisect.sh"], env), "--probe-command", probe], token, machine)
        if bisect.code != 0 or not bisect.data.get("first_bad"):
            return plan, bisect, None
        hold_env = {**token, **{k: v for k, v in self.step_env.items() if k.startswith("GIT_")}}
        hold = self.run(now, self.script_argv(["bisect.sh", "hold"], env), hold_env, machine)
        return plan, bisect, hold

    # ------------------------------------------------------------ what GitHub and origin hold

    @property
    def main(self) -> str:
        return git("rev-parse", "refs/heads/main", cwd=self.origin).strip()

    def refs(self) -> dict[str, str]:
        out = git("for-each-ref", "--format=%(refname) %(objectname)", cwd=self.origin)
        return dict(line.split() for line in out.splitlines())

    def tip(self, branch: str) -> str | None:
        return self.refs().get(f"refs/heads/{branch}")

    def pins(self, ref: str = "main") -> dict[str, str]:
        """deps.yaml's pins at ``ref`` of origin."""
        deps = yaml.safe_load(git("show", f"{ref}:deps.yaml", cwd=self.origin))["deps"]
        return {name: dep["commit"] for name, dep in deps.items()}

    def open_pulls(self) -> list[dict[str, Any]]:
        return [p for p in self.fake.pulls() if p["state"] == "open"]

    def ci(self, conclusion: str = "success", name: str = "build") -> list[str]:
        """CI on every open PR's head (as a push triggers it): one check run each, once;
        ``conclusion`` "running" leaves it in progress (a later call finishes it)."""
        heads = []
        for pull in self.open_pulls():
            head = self.tip(pull["head"]["ref"])
            if head and (head, name, conclusion) not in self._checked:
                self._checked.add((head, name, conclusion))
                if conclusion == "running":
                    self.fake.add_check_run(head, name, status="in_progress")
                else:
                    self.fake.add_check_run(head, name, conclusion=conclusion)
            heads.append(head)
        return heads

    def person_commits(self, branch: str, files: dict[str, str], message: str) -> str:
        """A person's commit on top of ``branch`` of origin, pushed (no force); returns it.
        On ``main`` it stands for a reviewed change landing there."""
        env = os.environ | PERSON
        clone = self.tmp / f"person-{len(list(self.tmp.glob('person-*')))}"
        git("clone", "--quiet", "--branch", branch, self.origin.as_uri(), clone, env=env)
        for name, text in files.items():
            (clone / name).write_text(text)
        git("add", "-A", cwd=clone, env=env)
        git("commit", "--quiet", "-m", message, cwd=clone, env=env)
        git("push", "--quiet", "origin", branch, cwd=clone, env=env)
        self.fake.branches["main"] = self.main
        return git("rev-parse", "HEAD", cwd=clone).strip()

    def person_merges(self, number: int) -> str:
        """A person presses "Merge" on PR ``number`` (GitHub's rules apply: green, the head)."""
        from release.sources.github import GitHubClient
        pull = next(p for p in self.fake.pulls() if p["number"] == number)
        head = self.tip(pull["head"]["ref"])
        owner, name = self.fake.repo.split("/")
        GitHubClient(self.fake.token, self.fake.api_url, write_interval=0).merge_pull(owner, name, number, sha=head)
        self.fake.branches["main"] = self.main
        return self.main

    def first_parents(self, ref: str = "main") -> list[str]:
        return git("rev-list", "--first-parent", ref, cwd=self.origin).split()

    def merge_parents(self, sha: str) -> list[str]:
        return git("rev-list", "--parents", "-n", "1", sha, cwd=self.origin).split()[1:]

    def author(self, sha: str) -> tuple[str, str]:
        return tuple(git("log", "-1", "--format=%an%n%cn", sha, cwd=self.origin).split("\n")[:2])  # type: ignore[return-value]

