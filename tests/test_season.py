"""A synthetic season, end to end: every day the scheduled bump (merged), the invariants after it,
on some days the nightly with gc and the index (the site rebuilt from empty, as the nightly
workflow does), and when the jax line moves on, the release and a post release of the old line.

Upstreams come from tests/support/history.py (three branch switches each, a move back, the
jax file changing shape, a fork's pin refused); this repository is a real checkout; releases go
to the GitHub stand-in. After every day: deps.yaml pins what the plugin pins, on a branch that
holds the pin; the recorded line is jax's ``_version`` at the jax pin and version_info.json and
tonight's nightly are on it; everything published sorts, in PEP 440 order, as it was published
within its line; nothing published is lost but by gc's rule (``keep`` newer nightlies); the site
lists all of stable and exactly the newest ``keep`` nightlies, within the Pages limit; and at the
end pip and uv take from the served site the newest of each channel and of each pinned line, and
tonight's nightly installs with both (``tests/support/season.py``, shared with the real replay
in ``benchmarks/season.py``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from packaging.version import Version

from release.build import bazel
from release.core import config
from tests.support import season
from tests.support.elf import compile_artifacts
from tests.support.gitrepos import git, release_repo
from tests.support.history import build_history
from tests.support.index_server import serve
from tests.support.installs import pip_install, uv_bin, uv_install
from tests.support.project import write_version_info

REPO = Path(__file__).resolve().parents[1]
PY = "3.11"
PLUGIN = "jax-rocm7-plugin"
KEEP = 1  # gc keeps the newest nightly of each line: it collects within the season
# Nightlies of the 0.7.1 line (a maintenance line's, after its release) and two of the 0.9.1 line:
# gc collects the 0.9.1 line's first on the second's night, and never the 0.7.1 line's (each line
# keeps its own).
NIGHTLY_STEPS = (7, 13, 14)
RELEASE_STEP = 7  # 0.7.1 is released (and re-spun) before its last nightly; step 8 moves jax to 0.8.0


def line_at(history, sha: str) -> str | None:
    text = subprocess.run(["git", "show", f"{sha}:jax/version.py"], cwd=history.jax.path, capture_output=True,
                          text=True).stdout
    return text.split('"')[1] if text else None


def holds(repo: Path, branch: str, sha: str) -> bool:
    return subprocess.run(["git", "merge-base", "--is-ancestor", sha, f"refs/heads/{branch}"], cwd=repo,
                          capture_output=True).returncode == 0


def day_of(i: int) -> str:
    return f"2026-11-{i + 1:02d}"


def test_a_season_of_bumps_nightlies_releases_and_gc_needs_no_intervention(tmp_path, github_env, monkeypatch,
                                                                            run_cli):
    history = build_history(tmp_path / "upstream")
    artifacts = compile_artifacts(tmp_path / "artifacts", bazel.configured_runpath(REPO))
    root = release_repo(tmp_path / "release-repo")
    history.apply(0)
    first_line = line_at(history, history.steps[0].jax)
    write_version_info(root, first_line)
    (root / "deps.yaml").write_text(history.deps_yaml().replace(
        "    roll: {via: plugin, file: jax_rocm_plugin/third_party/jax/workspace.bzl}",
        f'    line: "{first_line}"\n    roll: {{via: plugin, file: jax_rocm_plugin/third_party/jax/workspace.bzl}}'))
    (root / ".gitignore").write_text("/dist/\n/.cache/\n/workspace/\n")
    git("add", "-A", cwd=root)
    git("commit", "--quiet", "-m", "Initial pins", cwd=root)
    monkeypatch.chdir(root)

    published: list[str] = []  # tags, in the order they were published
    ledger, site = season.Ledger(), tmp_path / "site"

    def on_github() -> dict:
        return season.published_versions(r["tag_name"] for r in github_env.releases() if not r["draft"])

    def release(i: int, *argv) -> dict:
        """``release ... --json`` at 03:00 UTC on day ``i``, in-process (the command a subprocess would
        run, without a second interpreter's start-up; its pip and uv runs are processes as ever)."""
        monkeypatch.setenv("RELEASE_NOW", f"{day_of(i)}T03:00:00Z")
        code, out, err = run_cli(*argv, "--json")
        assert code == 0, err[-3000:]
        return json.loads(out)

    def publishing_problems(i: int, line: str) -> list:
        """Tonight's nightly (on its line), gc, then the site from empty: what broke."""
        got = release(i, "nightly", "--date", day_of(i), "--artifacts", artifacts, "--python", PY, "--keep", KEEP,
                      "--store", "github")
        assert got["built"], got["reason"]
        published.append(got["tag"])
        broken = [] if Version(got["version"]).base_version == line else [f"nightly {got['version']} off {line}"]
        # Tonight's joins the ledger as the nightly published it (its own gc ran since): no gc may take it.
        tonight = {**on_github(), got["tag"]: Version(got["version"])}
        broken += ledger.sorts_below(tonight)
        broken += [f"lost {tag}" for tag in ledger.lost(tonight, KEEP)]
        assert run_cli("gc", "--keep", KEEP, "--store", "github", "--json")[0] == 0  # in-process: quicker
        if site.exists():
            shutil.rmtree(site)
        code, _, err = run_cli("index", "--out", site, "--keep", KEEP, "--store", "github", "--json")
        assert code == 0, err
        now = on_github()
        broken += ledger.sorts_below(now)
        broken += [f"lost {tag}" for tag in ledger.lost(now, KEEP)]
        broken += season.listing_problems(season.listed(site, PLUGIN), now, KEEP)
        if season.site_bytes(site) >= season.PAGES_LIMIT:
            broken.append("site over the Pages limit")
        return broken

    def cut(i: int) -> None:
        published.append(release(i, "cut", "--artifacts", artifacts, "--python", PY, "--store", "github")["tag"])

    def merge_next_version() -> None:
        for branch in git("for-each-ref", "--format=%(refname:short)", "refs/heads/release/next-*", cwd=root).split():
            git("merge", "--quiet", "--no-edit", branch, cwd=root)

    interventions = []
    for i in range(1, len(history.steps)):
        step = history.steps[i]
        history.apply(i)
        code, _, err = run_cli("bump", "--json")  # in-process: the same command, quicker
        if step.refused:
            assert code == 2 and step.refused in err
            ledger.lost(on_github(), KEEP)
            continue
        if code != 0:
            interventions.append((i, err.strip()))
            continue
        if git("status", "--porcelain", cwd=root).strip():  # the bump PR, merged
            git("commit", "--quiet", "-am", f"Bump {i}", cwd=root)
        deps = config.load_deps(root / "deps.yaml")
        line = line_at(history, step.jax)
        version = json.loads((root / "version_info.json").read_text())["version"]
        broken = [what for what, ok in (
            ("pins", (deps["plugin"].commit, deps["jax"].commit, deps["xla"].commit) == (step.plugin, step.jax,
                                                                                        step.xla)),
            ("jax branch", holds(history.jax.path, deps["jax"].branch, step.jax)),
            ("xla branch", holds(history.xla.path, deps["xla"].branch, step.xla)),
            ("line", deps["jax"].line == line),
            ("version on the line", Version(version).base_version == line),
            ("released line's next is a post", i <= RELEASE_STEP or line != "0.7.1" or Version(version).post),
        ) if not ok]
        if i == RELEASE_STEP:
            # The line moves on soon: release it and re-spin it once, each next-version PR merged,
            # so its last nightly is a maintenance line's (0.7.1.post2.devN).
            cut(i)
            merge_next_version()
            post = release(i, "cut", "--post", "1", "--store", "github")
            published.append(f"rocm-jax-v{post['version']}")
            merge_next_version()
        if i in NIGHTLY_STEPS:
            broken += publishing_problems(i, line)
        else:
            broken += ledger.sorts_below(on_github())
            broken += [f"lost {tag}" for tag in ledger.lost(on_github(), KEEP)]
        if broken:
            interventions.append((i, broken))
    assert interventions == []
    collected = season.expected_collected([v for v in ledger.seen.values() if season.kind_of(v) == "nightly"], KEEP)
    assert len(ledger.seen) - len(on_github()) == collected  # gc collected exactly what the rule lets go

    # pip and uv take the newest of each channel and of each pinned line; tonight's installs.
    listed = season.listed(site, PLUGIN)
    served = serve(site, negotiate=False)  # GitHub Pages: static files; the wheels at the release assets
    try:
        picks = season.expected_picks(listed)
        assert {k for k, v in picks.items() if v is not None} >= {("nightly", "", True), ("stable", "", False),
                                                                  ("nightly", "==0.9.1.*", True),
                                                                  ("stable", "==0.7.1.*", False)}
        # The unpinned nightly line is asked by installing it for real, with both, below.
        tonight = str(picks.pop(("nightly", "", True)))
        assert season.resolver_problems(served.url, PLUGIN, picks, uv_bin(), tmp_path / "uv-cache") == []
        for who, install, flags in (("pip", pip_install, ["--pre"]), ("uv", uv_install, ["--prerelease", "allow"])):
            code, got, err = install(tmp_path, served.url + "/nightly/", *flags, PLUGIN, name=who)
            assert code == 0, err
            assert (got[PLUGIN], got[PLUGIN.replace("plugin", "pjrt")]) == (tonight, tonight), who
    finally:
        served.close()

    # Every release and post is still there, and within each line all sorts as it was published.
    tags = {r["tag_name"] for r in github_env.releases() if not r["draft"]}
    assert {t for t in published if ".dev" not in t} <= tags
    versions = [Version(t.removeprefix("rocm-jax-v")) for t in published]
    for a, b in zip(versions, versions[1:]):
        if a.base_version == b.base_version:
            assert a < b, (a, b)
    assert [str(v) for v in versions if not v.is_devrelease] == ["0.7.1", "0.7.1.post1"]
    assert "rocm-jax-v0.7.1.post2.dev20261108" in published  # the maintenance line's nightly
    # The line moved on with jax: tonight's version sorts above everything published.
    assert Version(json.loads((root / "version_info.json").read_text())["version"]) > max(versions)


def test_the_season_ledger_allows_only_gcs_losses_and_new_versions_above_their_line():
    """The season's own judge: a wrong ledger would let a lost release or a version published
    below its line pass every day unnoticed."""
    def tags(*versions: str) -> dict:
        return season.published_versions(f"rocm-jax-v{v}" for v in versions)

    ledger = season.Ledger()
    day1 = tags("0.7.1.dev20261101", "0.7.1.dev20261102", "0.7.1rc1")
    assert ledger.sorts_below(day1) == [] and ledger.lost(day1, keep=2) == []
    # A nightly under a published rc is fine; under a release of its line it is not.
    assert ledger.sorts_below(tags(*map(str, day1.values()), "0.7.1.dev20261103")) == []
    assert ledger.sorts_below(tags("0.7.1", "0.7.1.dev20261104")) == []
    ledger.lost(tags(*map(str, day1.values()), "0.7.1", "0.7.1.dev20261103"), keep=2)
    assert ledger.sorts_below(tags("0.7.1.dev20261105")) == [
        "0.7.1.dev20261105 published at or below 0.7.1 of its line"]
    assert ledger.sorts_below(tags("0.8.0.dev20261101", "0.7.1.post1.dev20261105")) == []
    # gc may take a nightly that `keep` newer nightlies outrank, and nothing else.
    later = tags("0.7.1rc1", "0.7.1", "0.7.1.dev20261103", "0.7.1.post1.dev20261105")
    assert ledger.lost(later, keep=2) == []  # 01 and 02 are outranked by 03 and post1.dev05
    assert ledger.lost(tags("0.7.1rc1", "0.7.1.post1.dev20261105"), keep=2) == [
        "rocm-jax-v0.7.1", "rocm-jax-v0.7.1.dev20261101", "rocm-jax-v0.7.1.dev20261102",
        "rocm-jax-v0.7.1.dev20261103"]  # a release is never collected; one newer nightly is not two
    assert ledger.lost(tags("0.7.1.post1.dev20261105", "0.7.1.post1.dev20261106"), keep=1) == [
        "rocm-jax-v0.7.1", "rocm-jax-v0.7.1rc1"]  # however many nightlies outrank them


def test_the_expected_picks_are_the_newest_of_each_channel_and_line_by_pep_440():
    listed = {"nightly": [Version(v) for v in ("0.9.1.dev20261130", "0.10.0.dev20261129", "0.9.1.post1.dev20261201")],
              "stable": [Version(v) for v in ("0.9.1", "0.9.1.post1", "0.10.0rc1", "0.9.0")]}
    picks = {k: str(v) for k, v in season.expected_picks(listed).items()}
    assert picks == {("nightly", "", True): "0.10.0.dev20261129",
                     ("nightly", "==0.9.1.*", True): "0.9.1.post1.dev20261201",
                     ("nightly", "==0.10.0.*", True): "0.10.0.dev20261129",
                     ("stable", "", True): "0.10.0rc1", ("stable", "", False): "0.9.1.post1",
                     ("stable", "==0.9.0.*", False): "0.9.0", ("stable", "==0.9.1.*", False): "0.9.1.post1"}


def test_the_listing_rule_is_all_of_stable_and_exactly_the_newest_keep_nightlies():
    published = season.published_versions(f"rocm-jax-v{v}" for v in (
        "0.9.1.dev20261101", "0.9.1.dev20261102", "0.9.1.dev20261103", "0.9.1rc1", "0.9.1", "0.9.1.post1"))
    stable = [Version(v) for v in ("0.9.1rc1", "0.9.1", "0.9.1.post1")]
    newest = [Version("0.9.1.dev20261103"), Version("0.9.1.dev20261102")]
    assert season.listing_problems({"nightly": newest, "stable": stable}, published, keep=2) == []
    assert season.listing_problems({"nightly": newest[:1], "stable": stable}, published, keep=2) == [
        "nightly/ lists [] it should not and lacks ['0.9.1.dev20261102']"]
    assert season.listing_problems({"nightly": newest, "stable": stable[:2]}, published, keep=3) == [
        "nightly/ lists [] it should not and lacks ['0.9.1.dev20261101']",
        "stable/ lists [] it should not and lacks ['0.9.1.post1']"]


def test_the_listing_rule_keeps_the_newest_nightlies_of_each_line_apart():
    # Two maintained lines publish the same nights: the newer line's nights never push the older
    # line's out (the checker must hold the product to that, and to collecting within a line).
    published = season.published_versions(f"rocm-jax-v{v}" for v in (
        "0.9.1.post1.dev20261101", "0.9.1.post1.dev20261102", "0.10.0.dev20261101", "0.10.0.dev20261102"))
    both = [Version("0.10.0.dev20261102"), Version("0.9.1.post1.dev20261102")]
    assert season.listing_problems({"nightly": both, "stable": []}, published, keep=1) == []
    assert season.listing_problems({"nightly": both[:1], "stable": []}, published, keep=1) == [
        "nightly/ lists [] it should not and lacks ['0.9.1.post1.dev20261102']"]
    assert season.expected_collected(list(published.values()), 1) == 2
    assert season.expected_collected(list(published.values()), 2) == 0
