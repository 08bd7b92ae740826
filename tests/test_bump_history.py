"""Replay a year of upstream pin history: a plain ``release bump`` at every step, no manual edits.

The generated history (tests/support/history.py) has 18 pin moves of jax and xla through
three branch switches each, a move back, the jax file changing from an http_archive of
jax-ml/jax (COMMIT, SHA, patch_file) to a git_repository of the fork (JAX_COMMIT, patches),
a release branch appearing upstream mid-history, a backport branch holding the same pin as a
newer one, and a pin only on a fork's pull-request ref. After every step deps.yaml must pin
exactly what the plugin pins, on the branch found upstream, with the changelog a reviewer
would write; the fork-only pin is refused with one line and nothing written.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from release.core import config
from release.core.errors import UserError
from tests.support.bumping import bump
from tests.support.history import build_history
from tests.support.project import write_version_info

REPO = Path(__file__).resolve().parents[1]

# What the changelog says at each step (commit names from the generator; plugin lines omitted).
EXPECTED = {
    1: ["jax: moved forward 1 commit to j62_2 on rocm-jaxlib-v0.6.2 (as the plugin pins); "
         "https://github.com/jax-ml/jax is named as its source, the commit is on {jax_url}"],
    2: ["xla: moved forward 2 commits to x60_3 on rocm-jaxlib-v0.6.0 (as the plugin pins); on no "
         "release branch of jax's line (rocm-jaxlib-v0.6.2 is no branch upstream)"],
    3: ["jax: switched rocm-jaxlib-v0.6.2 -> rocm-jaxlib-v0.7.1 (j71_1; 3 commits since the "
         "merge-base jm2, drops 2 commits of the old pin's, 3 behind that branch's tip); "
         "https://github.com/jax-ml/jax is named as its source, the commit is on {jax_url}"],
    4: ["xla: switched rocm-jaxlib-v0.6.0 -> rocm-jaxlib-v0.8.0 (x80_2; 5 commits since the "
         "merge-base xm2, drops 3 commits of the old pin's, 4 behind that branch's tip); on no "
         "release branch of jax's line (rocm-jaxlib-v0.7.1 is no branch upstream)"],
    5: ["jax: moved forward 2 commits to j71_3 on rocm-jaxlib-v0.7.1 (as the plugin pins); "
         "https://github.com/jax-ml/jax is named as its source, the commit is on {jax_url}"],
    6: ["xla: moved forward 3 commits to x80_5 on rocm-jaxlib-v0.8.0 (as the plugin pins); on no "
         "release branch of jax's line (rocm-jaxlib-v0.7.1 is no branch upstream)"],
    7: ["xla: moved back 2 commits to x80_3 (as the plugin pins); on no release branch of jax's "
         "line (rocm-jaxlib-v0.7.1 is no branch upstream)"],
    8: ["jax: switched rocm-jaxlib-v0.7.1 -> rocm-jaxlib-v0.8.0 (j80_2; 4 commits since the "
         "merge-base jm4, drops 3 commits of the old pin's, 3 behind that branch's tip); "
         "https://github.com/jax-ml/jax is named as its source, the commit is on {jax_url}"],
    9: ["xla: moved forward 3 commits to x80_6 on rocm-jaxlib-v0.8.0 (as the plugin pins)"],
    10: ["jax: moved forward 1 commit to j80_3 on rocm-jaxlib-v0.8.0 (as the plugin pins)",
        "xla: switched rocm-jaxlib-v0.8.0 -> rocm-jaxlib-v0.9.1 (x91_1; 4 commits since the "
         "merge-base xm5, drops 6 commits of the old pin's, 4 behind that branch's tip); on no "
         "release branch of jax's line (rocm-jaxlib-v0.8.0 does not hold it)"],
    11: ["jax: stays at j80_3, patches now 0005-c.patch, 0007-d.patch (as the plugin pins)"],
    12: ["jax: moved forward 2 commits to j80_5 on rocm-jaxlib-v0.8.0 (as the plugin pins)"],
    13: ["jax: switched rocm-jaxlib-v0.8.0 -> rocm-jaxlib-v0.9.1 (j91_2; 4 commits since the "
         "merge-base jm6, drops 5 commits of the old pin's, 2 behind that branch's tip)"],
    14: ["xla: moved forward 1 commit to x91_2 on rocm-jaxlib-v0.9.1 (as the plugin pins)"],
    15: ["xla: moved forward 3 commits to x91_5 on rocm-jaxlib-v0.9.1 (as the plugin pins)"],
    16: ["xla: switched rocm-jaxlib-v0.9.1 -> rocm-jaxlib-v0.10.0 (x100_1; 1 commit since the "
         "merge-base x91_3, drops 2 commits of the old pin's, 1 behind that branch's tip); on no "
         "release branch of jax's line (rocm-jaxlib-v0.9.1 does not hold it)"],
    17: [],  # refused
    18: ["jax: moved forward 2 commits to j91_4 on rocm-jaxlib-v0.9.1 (as the plugin pins)",
        "xla: switched rocm-jaxlib-v0.10.0 -> rocm-jaxlib-v0.9.2 (x100_2; 1 commit since x100_1); "
         "on no release branch of jax's line (rocm-jaxlib-v0.9.1 does not hold it)"],
}


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    return build_history(tmp_path_factory.mktemp("history"))


def test_the_history_has_the_patterns_of_the_real_one(history):
    steps = history.steps
    moves = sum((a.jax != b.jax) + (a.xla != b.xla) for a, b in zip(steps, steps[1:]))
    switches = sum((a.jax_branch != b.jax_branch) + (a.xla_branch != b.xla_branch) for a, b in zip(steps, steps[1:]))
    assert moves >= 15 and switches >= 6 and any(s.refused for s in steps)
    assert set(EXPECTED) == set(range(1, len(steps)))


def test_replay_plain_bump_follows_every_step(history, tmp_path, monkeypatch):
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "proj"
    root.mkdir()
    write_version_info(root)
    history.apply(0)
    (root / "deps.yaml").write_text(history.deps_yaml())
    deps_file = root / "deps.yaml"
    name_of = {sha[:7]: name for name, sha in history.c.items()}
    urls = {"jax_url": history.jax.url}
    for i in range(1, len(history.steps)):
        step = history.apply(i)
        before = deps_file.read_text()
        if step.refused:  # a user's error: one line, nothing written
            with pytest.raises(UserError) as refused:
                bump(root)  # what the scheduled job runs, minus the PR
            assert "\n" not in str(refused.value) and step.refused in str(refused.value), (i, refused.value)
            assert deps_file.read_text() == before
            continue
        text = bump(root).body.markdown()
        said = [re.sub(r"\b[0-9a-f]{7}\b", lambda m: name_of.get(m.group(0), m.group(0)), line)
                for line in text.splitlines() if line.startswith(("jax: ", "xla: "))]
        assert said == [e.format(**urls) for e in EXPECTED[i]], i
        deps = config.load_deps(deps_file)
        # Exactly what the plugin pins now, on the branch that holds it, with the file's extras.
        assert (deps["plugin"].commit, deps["jax"].commit, deps["xla"].commit) == (step.plugin, step.jax, step.xla)
        assert (deps["jax"].branch, deps["xla"].branch) == (step.jax_branch, step.xla_branch), i
        for name in ("jax", "xla"):
            pin = history.pin(i, name)
            assert (deps[name].archive_sha256, deps[name].patches) == (pin.sha256, pin.patches), (i, name)
        assert deps_file.read_text().startswith("# pins replayed from a generated history")
    # The last run left nothing to do.
    assert not bump(root).changed  # pins are current
