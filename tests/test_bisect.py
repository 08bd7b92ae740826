"""``release bisect``: the first bad pin set between two nightlies, over real git histories.

Upstreams are generated bare repositories (tests/support/bisect_history.py); the nightlies'
revisions.json live in a local store or the GitHub stand-in; probes are ``--probe-command``
scripts deciding from real git ancestry, or the real build + verify + validate steps with the
recorded Bazel stand-in, which fails once a jax commit adding ``BREAKS_ROCM_BUILD`` is pinned.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from release.core.config import load_deps
from release.core.errors import UserError
from release.core.revisions import RevisionMap
from release.jobs import bisect
from release.jobs.bisect import BAD, GOOD, SKIP, next_step
from release.publish.stores import LocalStore
from tests.support import warm_start
from tests.support.bisect_history import build_history, make_project
from tests.support.bisecting import bisect as run_job
from tests.support.events import await_fifo, fifo

GOOD_TAG = "rocm-jax-v0.9.1.dev20261120"
BAD_TAG = "rocm-jax-v0.9.1.dev20261122"
LATER_TAG = "rocm-jax-v0.9.1.dev20261121"  # a good nightly nearer the red tip: a build bisect's short range


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    return build_history(tmp_path_factory.mktemp("upstream"))


def revisions_json(history, project: Path, plugin: str, version: str) -> bytes:
    deps = load_deps(project / "deps.yaml").with_commits(history.pins_at(plugin))
    return RevisionMap.from_deps(deps, version).dumps().encode()


def seed_local(store_dir: Path, tag: str, content: bytes, tmp: Path) -> None:
    store = LocalStore(store_dir)
    release = store.create_draft(tag, name=tag, body="", prerelease=True)
    asset = tmp / "revisions.json"
    asset.write_bytes(content)
    store.upload_asset(release, asset, "revisions.json")
    store.publish(release, prerelease=True, make_latest=False)


@pytest.fixture(scope="module")
def mirrors(tmp_path_factory):
    """One git cache for the module's bisects: a mirror answers alike cold or warm (the
    candidates' test reads its own, cold), so each bisect need not fetch the upstreams again."""
    return tmp_path_factory.mktemp("mirrors")


@pytest.fixture
def world(tmp_path, history, mirrors, monkeypatch):
    """A project pinned at P8 (the red tip), a local store holding the good nightly (P0); the
    module's git cache."""
    root = make_project(tmp_path / "proj", history, pins=history.pins_at(history.c["P8"]))
    store_dir = tmp_path / "store"
    seed_local(store_dir, GOOD_TAG, revisions_json(history, root, history.c["P0"], "0.9.1.dev20261120"),
               tmp_path)
    for key in ("GITHUB_REPOSITORY", "GITHUB_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(mirrors))
    return type("World", (), {"root": root, "store": store_dir, "tmp": tmp_path, "h": history, "cache": mirrors})


def release(*argv, env=None, **kwargs):
    """``python -m release``: for what only a process shows (a kill midway)."""
    return subprocess.run([warm_start.python(), "-m", "release", *map(str, argv)], capture_output=True,
                          text=True, env=env, **kwargs)


def refused(match: str, *args, **asked) -> str:
    """The one line a bisect (``run_job``'s arguments) is refused with."""
    with pytest.raises(UserError, match=match) as refusal:
        run_job(*args, **asked)
    assert "\n" not in str(refusal.value)
    return str(refusal.value)


def probe_script(world, culprit_repo: str, culprit: str, *, skip: tuple[str, ...] = (),
                 then: str = "") -> str:
    """A probe command: bad when the candidate contains ``culprit`` (real git ancestry); it also
    records each call with the pins it was given."""
    repo = {"plugin": world.h.plugin, "jax": world.h.jax}[culprit_repo].path
    var = f"BISECT_{culprit_repo.upper()}_COMMIT"
    calls = world.tmp / "calls.txt"
    skips = "".join(f'[ "$BISECT_PLUGIN_COMMIT" = {s} ] && exit 125\n' for s in skip)
    return (f'echo "$BISECT_INDEX $BISECT_PLUGIN_COMMIT $BISECT_JAX_COMMIT $BISECT_XLA_COMMIT $BISECT_DIR" '
            f'>> {calls}\n{then}{skips}'
            f'git --git-dir={repo} merge-base --is-ancestor {culprit} "${var}" && exit 1\nexit 0')


def calls(world) -> list[list[str]]:
    path = world.tmp / "calls.txt"
    return [line.split() for line in path.read_text().splitlines()] if path.exists() else []


def bound(n: int) -> int:
    return math.ceil(math.log2(n)) + 1


# ---------------------------------------------------------------- candidates


def test_candidates_are_the_first_parent_line_with_its_pins_and_what_moved(world):
    h = world.h
    deps = load_deps(world.root / "deps.yaml")
    found, notes = bisect.list_candidates(deps, h.pins_at(h.c["P0"]), h.pins_at(h.c["P8"]),
                                          world.tmp / "cache")
    assert [c.sha for c in found] == h.line[1:]  # the side branch's own commit is not one
    assert [dict(c.commits) for c in found] == [h.pins_at(s) for s in h.line[1:]]
    # P3 only adds a test outside the Bazel workspace: it builds what P2 builds.
    assert [c.moved for c in found] == [
        ("plugin code",), ("jax",), (), ("xla",), ("plugin code",), ("jax",),
        ("plugin code",), ("jax", "xla")]
    assert [c.inert for c in found] == [False, False, True, False, False, False, False, False]
    assert found[5].subject == "Roll jax" and notes == []


def test_candidates_refuse_a_good_that_is_not_before_bad(world):
    h = world.h
    deps = load_deps(world.root / "deps.yaml")
    with pytest.raises(bisect.UserError, match="not an ancestor"):
        bisect.list_candidates(deps, h.pins_at(h.c["P5"]), h.pins_at(h.c["P2"]), world.tmp / "cache")


# ---------------------------------------------------------------- the search


def search(n, verdict_of):
    verdicts, probes = {}, []
    while True:
        kind, what = next_step(n, verdicts)
        if kind == "done":
            return what, probes
        probes.append(what)
        verdicts[what] = verdict_of(what)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 33])
def test_search_finds_every_culprit_within_log2_probes(n):
    for culprit in range(1, n + 1):
        found, probes = search(n, lambda i, culprit=culprit: BAD if i >= culprit else GOOD)
        assert found == (culprit,)
        assert len(probes) <= math.ceil(math.log2(n)) if n > 1 else probes == []


@pytest.mark.parametrize("n", [4, 8, 13])
def test_search_with_one_skip_costs_at_most_one_more_probe(n):
    for culprit in range(1, n + 1):
        for skipped in range(1, n):
            found, probes = search(
                n, lambda i, s=skipped, c=culprit: SKIP if i == s else BAD if i >= c else GOOD)
            assert len(probes) <= bound(n)
            if skipped == culprit - 1:  # the skipped one could be the first bad: say both
                assert found == (skipped, culprit)
            elif skipped == culprit:  # the culprit itself could not be told from the next one
                assert found == (culprit, culprit + 1)
            else:
                assert found == (culprit,)


# ---------------------------------------------------------------- the job, probes by command


def test_plugin_code_culprit_against_the_github_stand_in_publishes_nothing(world, github_env):
    from tests.support.publish_dist import gh_store

    h = world.h
    fake = github_env
    fake.seed_release(GOOD_TAG, prerelease=True,
                      assets={"revisions.json": revisions_json(h, world.root, h.c["P0"], "0.9.1.dev20261120")})
    before = fake.releases()
    result = run_job(world.root, gh_store(fake), good=GOOD_TAG, probe_command=probe_script(world, "plugin", h.c["P7"]))
    assert result.exit_status == 0
    data = result.to_json()
    first = data["first_bad"]
    assert first["plugin"] == h.c["P7"] and first["moved"] == ["plugin code"]
    assert first["subject"] == "plugin: logging" and first["step"] == "command"
    assert Path(first["log"]).is_file()
    made = calls(world)
    assert len(made) == data["probes_run"] <= bound(7)  # 8 candidates, 7 that change the build
    assert h.c["P3"] not in [m[1] for m in made]  # builds as P2 does: never probed
    for index, plugin, jax, xla, directory in made:  # each probe was told a consistent set
        assert h.pins_at(plugin) == {"plugin": plugin, "jax": jax, "xla": xla}
        assert h.line.index(plugin) == int(index)
        assert Path(directory) == world.root / "dist" / "bisect" / plugin
    assert "plugin: logging" in data["changelog"] and data["published"] is False
    # Nothing published: the store is as it was and only GETs reached it.
    assert fake.releases() == before
    assert {entry[1] for entry in fake.log} == {"GET"}


def test_jax_culprit_by_command_names_jax_and_its_changelog(world):
    h = world.h
    result = run_job(world.root, world.store, good=GOOD_TAG, probe_command=probe_script(world, "jax", h.c["J3"]))
    assert result.exit_status == 0
    data = result.to_json()
    assert data["first_bad"]["plugin"] == h.c["P6"] and data["first_bad"]["moved"] == ["jax"]
    assert result.outputs() == {"found": "true", "first-bad": h.c["P6"], "moved": "jax"}  # bisect.yml's
    moved = data["changelog_json"]["deps"]
    assert set(moved) == {"plugin", "jax"}
    assert (moved["jax"]["old"], moved["jax"]["new"]) == (h.c["J1"], h.c["J3"])
    assert [c["subject"] for c in moved["jax"]["commits"]] == ["jax: new FFI attribute API", "jax: docs"]
    assert data["probes_run"] <= bound(8)


def test_a_skipped_probe_is_stepped_around(world):
    h = world.h
    result = run_job(world.root, world.store, good=GOOD_TAG,
                     probe_command=probe_script(world, "jax", h.c["J3"], skip=(h.c["P4"],)))
    assert result.exit_status == 0
    data = result.to_json()
    assert data["first_bad"]["plugin"] == h.c["P6"]
    verdicts = {c["plugin"]: c["verdict"] for c in data["candidates"]}
    assert verdicts[h.c["P4"]] == "skip"
    assert data["probes_run"] <= bound(8)


def test_a_skip_next_to_the_culprit_leaves_two_and_says_so(world):
    h = world.h
    result = run_job(world.root, world.store, good=GOOD_TAG,
                     probe_command=probe_script(world, "jax", h.c["J3"], skip=(h.c["P5"],)))
    assert result.exit_status == 1 and result.outputs() == {"found": "false"}
    data = result.to_json()
    assert data["first_bad"] is None and data["undecided"] == [h.c["P5"], h.c["P6"]]


def test_the_bad_end_is_probed_when_it_is_the_answer_and_may_not_reproduce(world):
    h = world.h
    result = run_job(world.root, world.store, good=GOOD_TAG, probe_command=probe_script(world, "plugin", h.c["P8"]))
    data = result.to_json()
    assert result.exit_status == 0 and data["first_bad"]["plugin"] == h.c["P8"]
    assert result.outputs() == {"found": "true", "first-bad": h.c["P8"], "moved": "jax,xla"}  # two moved at once
    assert data["first_bad"]["log"] and data["probes_run"] <= bound(8)
    never = run_job(world.root, world.store, good=GOOD_TAG, reset=True, probe_command="exit 0")
    data = never.to_json()
    assert never.exit_status == 1 and data["reproduced"] is False and data["first_bad"] is None
    assert never.outputs() == {"found": "false"}


@pytest.mark.parametrize("culprit", [None, "P4", "P8"])
def test_the_newest_is_probed_first_and_a_failure_it_does_not_reproduce_costs_one_probe(world, culprit):
    """Probes take the ROCm runners from the nightly: the red nightly's own pins are probed
    first, and when they probe good nothing else is built."""
    h = world.h
    command = probe_script(world, "plugin", h.c[culprit]) if culprit else probe_script(world, "plugin", "0" * 40,
                                                                                   then="exit 0\n")
    result = run_job(world.root, world.store, good=GOOD_TAG, probe_command=command)
    data = result.to_json()
    probed = [c[1] for c in calls(world)]
    newest = data["candidates"][-1]["plugin"]
    assert probed[0] == newest
    if culprit is None:
        assert result.exit_status == 1 and data["reproduced"] is False and probed == [newest]
        assert data["probes_run"] == 1
    else:
        assert result.exit_status == 0 and data["first_bad"]["plugin"] == h.c[culprit]
        assert probed.count(newest) == 1 and data["probes_run"] <= bound(8) + 1


def test_resume_after_sigkill_mid_probe_redoes_no_finished_probe(world):
    h = world.h
    gate = world.tmp / "gate"
    os.mkfifo(gate)  # opened for reading, it blocks until a writer comes: none ever does
    started = fifo(world.tmp / "started")
    # The second probe says it started, then blocks on the gate: the bisect is killed inside it.
    script = probe_script(world, "jax", h.c["J3"], then=(
        f'if [ -p {gate} ] && [ "$(wc -l < {world.tmp}/calls.txt)" -ge 2 ]; then '
        f'echo started > {world.tmp}/started; read -r _ < {gate}; fi\n'))
    argv = [sys.executable, "-m", "release", "bisect", "--good", GOOD_TAG, "--store-dir", world.store,
            "--json", "--probe-command", script]
    proc = subprocess.Popen(argv, cwd=world.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        assert await_fifo(started, proc, "the second probe") == b"started\n"
        state = json.loads((world.root / "dist" / "bisect" / "state.json").read_text())
        first, second = [line[1] for line in calls(world)]
        assert list(state["probes"]) == [first] and state["running"] == second
        busy = release(*argv[3:], cwd=world.root)  # a second bisect meanwhile: refused, one line
        assert busy.returncode == 2 and "another bisect is running" in busy.stderr
        os.killpg(proc.pid, signal.SIGKILL)  # the bisect and its probe, at once
        proc.wait()
    finally:
        os.close(started)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    gate.unlink()  # the re-run's probes never block
    again = release(*argv[3:], cwd=world.root)
    assert again.returncode == 0, again.stderr
    data = json.loads(again.stdout)
    assert data["first_bad"]["plugin"] == h.c["P6"]
    probed = [line[1] for line in calls(world)]
    assert probed.count(first) == 1  # finished before the kill: not redone
    assert probed.count(second) == 2  # killed midway: run again
    assert len(set(probed)) == data["probes_total"] <= bound(8)


def test_nothing_that_changes_the_build_between_the_nightlies_is_said_without_probing(world, tmp_path):
    h = world.h
    root = make_project(tmp_path / "p3", h, pins=h.pins_at(h.c["P3"]))
    seed_local(tmp_path / "s", GOOD_TAG, revisions_json(h, root, h.c["P2"], "0.9.1.dev20261120"), tmp_path)
    result = run_job(root, tmp_path / "s", good=GOOD_TAG, probe_command=f"touch {tmp_path}/probed")
    data = result.to_json()
    assert result.exit_status == 1 and data["first_bad"] is None and data["reproduced"] is False
    assert data["probes_run"] == 0 and not (tmp_path / "probed").exists()
    assert [c["inert"] for c in data["candidates"]] == [True]
    assert any("changes what is built" in note for note in data["notes"])


def test_another_bisects_state_needs_reset(world):
    h = world.h
    first = run_job(world.root, world.store, good=GOOD_TAG, probe_command=probe_script(world, "jax", h.c["J3"]))
    assert first.culprit is not None
    state = (world.root / "dist" / "bisect" / "state.json").read_bytes()
    refused("pass --reset", world.root, world.store, good=GOOD_TAG, probe_command="exit 1")
    assert (world.root / "dist" / "bisect" / "state.json").read_bytes() == state


def test_a_refused_bisect_writes_nothing_and_the_next_one_needs_no_reset(world, tmp_path):
    h = world.h
    seed_local(world.store, "rocm-jax-v0.9.1.dev20261121",
               revisions_json(h, world.root, h.c["P8"], "0.9.1.dev20261121"), tmp_path)
    seed_local(world.store, "rocm-jax-v0.9.1.dev20261119",  # P5 is no ancestor of the bad pin here
               revisions_json(h, world.root, h.c["P5"], "0.9.1.dev20261119"), tmp_path)
    make_project(tmp_path / "older", h, pins=h.pins_at(h.c["P2"]))
    for good, cwd, says in (("rocm-jax-v0.9.1.dev20261121", world.root, "nothing to bisect"),
                            ("rocm-jax-v0.9.1.dev20261119", tmp_path / "older", "not an ancestor")):
        refused(says, cwd, world.store, good=good, probe_command="exit 1")
        assert not (cwd / "dist").exists()
    found = run_job(world.root, world.store, good=GOOD_TAG, probe_command=probe_script(world, "jax", h.c["J3"]))
    assert found.culprit is not None and found.culprit.sha == h.c["P6"]


def test_bad_input_is_one_line(world, run_cli):
    """The command: a refusal is one line on stderr and exit 2."""
    code, _, err = run_cli("bisect", "--good", "rocm-jax-v0.0.1.dev20200101", "--store-dir", world.store,
                           "--probe-command", "exit 0", cwd=world.root)
    assert code == 2 and err.count("\n") == 1
    assert "no release or draft rocm-jax-v0.0.1.dev20200101" in err
    code, _, err = run_cli("bisect", "--good", GOOD_TAG, "--store-dir", world.store,
                           "--probe-command", "exit 130", cwd=world.root)
    assert code == 2 and err.count("\n") == 1 and "128 or more stops a bisect" in err
    state = json.loads((world.root / "dist" / "bisect" / "state.json").read_text())
    assert state["probes"] == {} and state["running"]  # recorded, resumable


# ---------------------------------------------------------------- probes by building


def test_build_probe_finds_the_jax_roll_that_breaks_the_build(world, fake_bazel, monkeypatch):
    """Real build probes; Bazel, which runs upstream code, gets none of the job's credentials
    (bisect.yml's job holds a GITHUB_TOKEN to read the nightlies, and an OIDC request token)."""
    h = world.h
    secrets = {"GITHUB_TOKEN": "ghs_x", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "y",
               "ACTIONS_ID_TOKEN_REQUEST_URL": "https://token.example/", "BUMP_TOKEN": "z", "TWINE_PASSWORD": "w"}
    for key, value in {"SOURCE_DATE_EPOCH": "1700000000", **secrets}.items():
        monkeypatch.setenv(key, value)
    # Two candidates, each built once: P5 (plugin code, builds) and P6 (the jax roll, red).
    (world.root / "deps.yaml").write_text(h.deps_yaml(pins=h.pins_at(h.c["P6"])))
    seed_local(world.store, LATER_TAG, revisions_json(h, world.root, h.c["P4"], "0.9.1.dev20261121"), world.tmp)
    result = run_job(world.root, world.store, good=LATER_TAG)
    assert fake_bazel.calls() and all(not set(secrets) & set(c["env"]) for c in fake_bazel.calls())
    assert all("SOURCE_DATE_EPOCH" in c["env"] for c in fake_bazel.calls())
    assert result.exit_status == 0
    data = result.to_json()
    first = data["first_bad"]
    assert first["plugin"] == h.c["P6"] and first["moved"] == ["jax"] and first["step"] == "build"
    log = Path(first["log"])
    assert log.is_relative_to(world.root / "dist" / "bisect" / h.c["P6"])
    assert "hipcc: error" in log.read_text()
    assert data["probes_run"] == 2
    assert {c["plugin"]: c["verdict"] for c in data["candidates"]} == {h.c["P5"]: "good", h.c["P6"]: "bad"}
    text = (world.root / "dist" / "bisect" / h.c["P5"] / "probe.log").read_text()
    assert "good: built, verified and validated" in text
    assert list((world.root / "dist" / "bisect" / h.c["P5"]).glob("*/jax_rocm7_pjrt-*.whl"))
    # The store holds the published nightlies only; the probes' drafts stayed private.
    assert sorted(r.tag for r in LocalStore(world.store).list_releases()) == [GOOD_TAG, LATER_TAG]


def probes_of(root: Path) -> dict:
    """The finished probes state.json records, by plugin commit."""
    return json.loads((root / "dist" / "bisect" / "state.json").read_text())["probes"]


def test_build_probe_marks_a_commit_whose_wheels_fail_verify_bad_with_the_reason(tmp_path, fake_bazel, monkeypatch,
                                                                                 history):
    """A plugin commit that links the kernels against the build tree builds fine; its wheels fail
    verify (RUNPATH into /tmp), so that commit is bad at step verify, the reason in state.json."""
    from tests.support.bisect_history import BAZEL_WORKSPACE

    h = history.copy(tmp_path / "upstream")  # commits of its own on a branch of its own
    rc = BAZEL_WORKSPACE["jax_rocm_plugin/.bazelrc"] + \
        "build:rocm_base --linkopt=-Wl,-rpath,/tmp/bazel-out/k8-opt/bin/_solib_k8\n"
    culprit = h.plugin.commit("verify-case", "plugin: link against the build tree",
                              {"jax_rocm_plugin/.bazelrc": rc}, parents=(h.c["P4"],))
    tip = h.plugin.commit("verify-case", "plugin: docs", {"README.md": "plugin docs\n"})
    root = make_project(tmp_path / "proj", h, pins={**h.pins_at(h.c["P4"]), "plugin": tip})
    # Good at P4, so the culprit (with the docs commit after it, which builds as it does) is the one
    # probe: a good probe's build, verify and validate are test_build_probe_finds_the_jax_roll...'s.
    store = tmp_path / "store"
    seed_local(store, LATER_TAG, revisions_json(h, root, h.c["P4"], "0.9.1.dev20261121"), tmp_path)
    for key in ("GITHUB_REPOSITORY", "GITHUB_TOKEN", "JAX_ROCM_RELEASE_CACHE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    result = run_job(root, store, good=LATER_TAG)
    assert result.exit_status == 0
    first = result.to_json()["first_bad"]
    assert first["plugin"] == culprit and first["moved"] == ["plugin code"] and first["step"] == "verify"
    recorded = probes_of(root)[culprit]
    assert recorded["verdict"] == BAD and recorded["step"] == "verify"
    assert "runpath" in recorded["message"] and "/tmp/bazel-out" in recorded["message"]
    assert "verify failed" in Path(recorded["log"]).read_text()
    assert {sha: p["verdict"] for sha, p in probes_of(root).items()} == {culprit: BAD}


def test_build_probe_marks_a_set_whose_draft_fails_validate_bad_with_the_reason(world, fake_bazel, make_dist,
                                                                                monkeypatch):
    """Built and verified, but validate fails: pip, with the public index in play, would install a
    newer release of the probe's own line than its draft (a newer line alone does not fail a
    maintenance line's nightly). Each probe is bad at step validate with pip's pick as the reason,
    and nothing is published."""
    from release.publish.index import write_index
    from tests.support.index_server import serve

    h = world.h
    (world.root / "deps.yaml").write_text(h.deps_yaml(pins=h.pins_at(h.c["P4"])))  # red from P1 to P4
    # From P2: P3 builds as P2 does, so P4 is the one build (a range of more probes each fails alike).
    seed_local(world.store, LATER_TAG, revisions_json(h, world.root, h.c["P2"], "0.9.1.dev20261121"), world.tmp)
    public = world.tmp / "public"
    line_release = json.loads((world.root / "version_info.json").read_text())["version"]  # X.Y.Z[.postN]
    write_index(public, sorted(make_dist(line_release).glob("*.whl")))
    served = serve(public)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv("RELEASE_PUBLIC_INDEX", served.url + "/")
    try:
        result = run_job(world.root, world.store, good=LATER_TAG)
    finally:
        served.close()
    assert result.exit_status == 0
    data = result.to_json()
    assert data["first_bad"]["step"] == "validate" and data["first_bad"]["plugin"] == h.c["P4"]
    probes = probes_of(world.root)
    assert list(probes) == [h.c["P4"]]
    for sha, recorded in probes.items():
        assert recorded["verdict"] == BAD and recorded["step"] == "validate", (sha, recorded)
        assert line_release in recorded["message"]
        assert "validate: " in Path(recorded["log"]).read_text()
    assert sorted(r.tag for r in LocalStore(world.store).list_releases()) == [GOOD_TAG, LATER_TAG]


# ---------------------------------------------------------------- --hold


def checkout(world, origin: Path | None = None) -> str:
    """Make the project a git checkout on main (with ``origin``, a bare remote); returns HEAD."""
    from tests.support.gitrepos import git

    root = world.root
    (root / ".gitignore").write_text("/dist/\n/.cache/\n")
    git("init", "--quiet", "-b", "main", cwd=root)
    git("config", "user.name", "Release Bot", cwd=root)
    git("config", "user.email", "bot@example.com", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "--quiet", "-m", "pins", cwd=root)
    if origin is not None:
        git("init", "--quiet", "--bare", origin)
        git("remote", "add", "origin", origin.as_uri(), cwd=root)
        git("push", "--quiet", "origin", "main", cwd=root)
    return git("rev-parse", "HEAD", cwd=root).strip()


def test_hold_commits_the_culprit_on_its_branch_and_the_next_bump_stops_before_it(world):
    from release.core.config import parse_deps
    from release.sources.roll import roll
    from tests.support.gitrepos import git

    h, root = world.h, world.root
    head = checkout(world)
    before = (root / "deps.yaml").read_text()
    asked = {"good": GOOD_TAG, "hold": True, "probe_command": probe_script(world, "jax", h.c["J3"])}
    result = run_job(root, world.store, **asked)
    assert result.exit_status == 0
    hold = result.hold
    held = f"plugin: held before {h.c['P6'][:7]} (first bad between {GOOD_TAG} and deps.yaml by release bisect"
    assert hold["line"] == f"{held} (jax moved; command failed)); committed {hold['sha'][:12]} on hold/plugin"
    assert hold["branch"] == "hold/plugin" and hold["commit"] == h.c["P6"] and not hold["pushed"]
    assert "jax moved; command failed" in hold["reason"]
    # The work tree and the checked-out branch are untouched; the branch has one commit on HEAD.
    assert git("rev-parse", "HEAD", cwd=root).strip() == head
    assert (root / "deps.yaml").read_text() == before
    assert git("rev-parse", f"{hold['branch']}^", cwd=root).strip() == head
    committed = git("show", f"{hold['branch']}:deps.yaml", cwd=root)
    deps = parse_deps(root / "deps.yaml", committed)
    assert deps["plugin"].hold.commit == h.c["P6"]
    added = [line for line in committed.splitlines() if line not in before.splitlines()]
    assert len(added) == 1 and added[0].startswith("    hold: {commit: ")
    assert committed.replace(added[0] + "\n", "", 1) == before
    again = run_job(root, world.store, **asked)
    assert again.hold["line"] == hold["line"]
    assert again.hold["sha"] == hold["sha"]  # idempotent
    assert again.to_json()["probes_run"] == 0
    # The next bump from that deps.yaml leaves the red pins and stops before the culprit.
    result = roll(deps, world.tmp / "cache")
    assert {d.name: d.commit for d in result.new} == h.pins_at(h.c["P5"])
    assert result.notes[0].startswith(f"plugin: held before {h.c['P6'][:7]} (first bad between")


def test_hold_open_pr_pushes_one_pr_with_culprit_probes_and_reason_and_a_bump_leaves_it(world, github_env):
    """--open-pr delivers the hold as bump delivers a roll: the branch pushed, one PR opened and
    refreshed on re-runs; and the bump flow (one bump PR, closed when the pins are current) never
    takes the hold PR for its own."""
    from tests.support.bumping import bump
    from tests.support.gitrepos import git

    h, root, fake = world.h, world.root, github_env
    origin = world.tmp / "origin.git"
    checkout(world, origin)
    asked = {"good": GOOD_TAG, "open_pr": True, "probe_command": probe_script(world, "jax", h.c["J3"])}
    result = run_job(root, world.store, **asked)
    assert result.exit_status == 0
    hold = result.hold
    held = f"plugin: held before {h.c['P6'][:7]} (first bad between {GOOD_TAG} and deps.yaml by release bisect"
    assert hold["line"] == (f"{held} (jax moved; command failed)); committed {hold['sha'][:12]} on hold/plugin, "
                            f"pushed; pull request opened: {hold['pull_request']['url']}")
    assert hold["pushed"] and hold["pull_request"]["action"] == "opened"
    assert git("rev-parse", f"refs/heads/{hold['branch']}", cwd=origin).strip() == hold["sha"]
    (pr,) = fake.pulls()
    assert pr["head"]["ref"] == hold["branch"] and pr["base"]["ref"] == "main" and pr["state"] == "open"
    assert pr["title"] == f"Hold plugin before {h.c['P6'][:7]}"
    body = pr["body"]
    assert f"plugin: held before {h.c['P6'][:7]} (first bad between {GOOD_TAG} and deps.yaml" in body
    assert "jax moved; command failed" in body  # the reason
    assert f"**First bad:** plugin `{h.c['P6'][:12]}`" in body  # the culprit
    assert "| # | plugin | moved | verdict | subject |" in body and "| bad |" in body  # the probes
    assert fake.token not in body

    again = run_job(root, world.store, **asked)  # the same culprit again: nothing written, the same one PR
    assert again.exit_status == 0
    second = again.hold
    assert second["line"] == (f"{held} (jax moved; command failed)): already the culprit (hold PR "
                              f"#{hold['pull_request']['number']} is open); nothing written")
    assert second["known"]["number"] == hold["pull_request"]["number"] and second["known"]["state"] == "open"
    assert second["sha"] is None and "pull_request" not in second and "nothing written" in second["line"]
    assert git("rev-parse", f"refs/heads/{hold['branch']}", cwd=origin).strip() == hold["sha"]
    assert len(fake.pulls()) == 1 and fake.pulls()[0]["state"] == "open"

    # The pins are current for bump: it closes "the bump PR", and must not take the hold's for it.
    bumped = bump(root, open_pr=True)
    assert bumped.pull_request is not None and bumped.pull_request["action"] == "none"
    assert [(p["head"]["ref"], p["state"]) for p in fake.pulls()] == [(hold["branch"], "open")]


def test_a_hold_needs_one_first_bad_commit(world):
    checkout(world)
    refused("^--hold needs one first bad commit; this bisect did not find one$", world.root, world.store,
            good=GOOD_TAG, hold=True, probe_command="exit 0")  # not reproduced: nothing to hold
    assert "hold/plugin" not in git_refs(world.root)


def git_refs(root: Path) -> str:
    from tests.support.gitrepos import git
    return git("for-each-ref", "--format=%(refname)", cwd=root)


def test_hold_open_pr_without_a_repository_is_refused_before_any_probe(world, monkeypatch):
    checkout(world)
    refused("GITHUB_REPOSITORY", world.root, world.store, env={}, good=GOOD_TAG, open_pr=True,
            probe_command=f"touch {world.tmp}/probed")
    assert not (world.tmp / "probed").exists()


def test_hold_outside_a_checkout_is_refused_before_any_probe(world):
    refused("not inside a git checkout", world.root, world.store, good=GOOD_TAG, hold=True,
            probe_command=f"touch {world.tmp}/probed")
    assert not (world.tmp / "probed").exists()


@pytest.mark.parametrize("asked", [{"hold": True}, {"push": True}, {"open_pr": True}, {"skip_known": True}])
def test_what_needs_the_checkout_is_refused_outside_one_before_the_store_is_read(world, asked):
    """--push and --open-pr imply --hold; a hold and --skip-known need this checkout: without one,
    one line, and neither the store read nor anything probed."""
    import datetime as dt

    from release.core.config import load_project
    from release.core.errors import UserError
    from release.jobs.bisect_run import BisectOptions, run_bisect_job
    opened: list[int] = []
    options = BisectOptions(good=GOOD_TAG, date=dt.date(2026, 11, 23), dist=world.tmp / "dist",
                            probe_command=f"touch {world.tmp}/probed", **asked)
    with pytest.raises(UserError, match="not inside a git checkout"):
        run_bisect_job(load_project(world.root), options, lambda: opened.append(1) or LocalStore(world.store),
                       env={"GITHUB_REPOSITORY": "rocm/jax-rocm-release", "GITHUB_TOKEN": "t"})
    assert opened == [] and not (world.tmp / "probed").exists()


def test_bad_tag_reads_the_red_nightlys_draft(world, tmp_path):
    """A red nightly usually stays a draft: --bad TAG reads its revisions.json from the draft,
    whatever deps.yaml pins now."""
    h = world.h
    (world.root / "deps.yaml").write_text(h.deps_yaml(pins=h.pins_at(h.c["P2"])))  # bumped since
    store = LocalStore(world.store)
    draft = store.create_draft(BAD_TAG, name=BAD_TAG, body="", prerelease=True)
    asset = tmp_path / "bad-revisions.json"
    asset.write_bytes(revisions_json(h, world.root, h.c["P7"], "0.9.1.dev20261122"))
    store.upload_asset(draft, asset, "revisions.json")
    result = run_job(world.root, world.store, good=GOOD_TAG, bad=BAD_TAG,
                     probe_command=probe_script(world, "jax", h.c["J3"]))
    assert result.exit_status == 0
    data = result.to_json()
    assert data["bad"] == {"name": BAD_TAG, "commits": h.pins_at(h.c["P7"])}
    assert [c["plugin"] for c in data["candidates"]] == h.line[1:8]
    assert data["first_bad"]["plugin"] == h.c["P6"]
    assert [r.tag for r in store.list_releases() if not r.draft] == [GOOD_TAG]  # the draft stays one


def test_a_resumed_build_bisect_builds_the_version_it_started_with(world):
    """Day two of a bisect resumes the same nightly version, so a half-done build resumes too."""
    import datetime as dt

    from release.core.config import load_project

    h = world.h
    seen = []

    class Recording(bisect.BuildProbe):
        def run(self, candidate, directory, say):
            seen.append(self.date)
            bad = h.line.index(candidate.sha) >= h.line.index(h.c["P6"])
            return bisect.ProbeResult(BAD if bad else GOOD, "build" if bad else None, None)

    proj = load_project(world.root)
    good = {"name": GOOD_TAG, "commits": h.pins_at(h.c["P0"])}
    bad = {"name": "deps.yaml", "commits": h.pins_at(h.c["P8"])}
    state = world.root / "dist" / "bisect"
    day1, day2 = dt.date(2026, 11, 22), dt.date(2026, 11, 23)
    probe = Recording(proj, world.tmp / "ws", world.tmp / "cache", day1)
    bisect.State.open(state / "state.json", good=good, bad=bad, probe=probe.identity, reset=False,
                      date=day1).save()  # day one's bisect, recorded before its first probe
    later = Recording(proj, world.tmp / "ws", world.tmp / "cache", day2)
    outcome = bisect.run_bisect(proj.deps, good, bad, later, state, world.tmp / "cache", date=day2)
    assert outcome.culprit.sha == h.c["P6"]
    assert seen and set(seen) == {day1}
