"""``release promote`` as a job (``release.jobs.promote``), at unit level over small real dists
(``tests.support.publish_dist``: wheels without native payload): a bad ``--to`` is refused
before anything is written, what the run reports (JSON, ``$GITHUB_OUTPUT``, the summary, the
bar), and when ``--out`` becomes a dist ``release publish`` takes (wheels of one dist directory
of one version, its ``revisions.json`` beside them) or says why it holds the wheels only.
The wheel rewriting itself is ``test_promote.py``'s, over built wheels."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from release.core.errors import UserError
from release.core.naming import CHECKSUMS_ASSET, REVISIONS_ASSET
from release.core.revisions import RevisionMap
from release.jobs.promote import PromoteOptions, complete_promoted_dist, run_promote
from tests.support.progress import Bar
from tests.support.publish_dist import build_dist

NIGHTLY = "0.9.1.dev20261122"


def promote(wheels, to, out=None, bar=None):
    """(the result, the lines said)."""
    said: list[str] = []
    return run_promote(PromoteOptions(tuple(wheels), to, out), bar or Bar(), said.append), said


def wheels_of(dist: Path) -> list[Path]:
    return sorted(dist.glob("*.whl"))


@pytest.fixture
def nightly(tmp_path) -> Path:
    """A nightly dist of two ROCm majors (four wheels), its revisions.json beside them."""
    return build_dist(tmp_path / "dist", NIGHTLY, majors=(7, 10))


def test_a_bad_target_for_any_wheel_is_refused_before_one_is_written(tmp_path):
    good = wheels_of(build_dist(tmp_path / "a", NIGHTLY))
    post = wheels_of(build_dist(tmp_path / "b", "0.9.1.post2"))        # rc1 sorts below it
    out = tmp_path / "out"
    out.mkdir()
    bar = Bar()
    for order in ([*good, *post], [*post, *good]):
        with pytest.raises(UserError, match="sorts below the wheel's own version 0.9.1.post2"):
            promote(order, "rc1", out, bar)
    assert list(out.iterdir()) == [] and bar.described == []


def test_a_file_named_as_no_wheel_is_refused_in_one_line(tmp_path):
    odd = tmp_path / "notes.txt"
    odd.write_text("x")
    with pytest.raises(UserError) as err:
        promote([odd], "rc1", tmp_path / "out")
    assert str(err.value).startswith(f"{odd}: ") and "\n" not in str(err.value)


def test_each_wheel_is_promoted_in_order_and_its_copied_bytes_reported(nightly, tmp_path):
    bar = Bar()
    result, _ = promote(wheels_of(nightly), "rc1", tmp_path / "out", bar)
    assert bar.described == [f"promoting {w.name}" for w in wheels_of(nightly)]
    assert bar.advanced == sum(p.copied_bytes for p in result.promotions) > 0
    assert [p.source for p in result.promotions] == wheels_of(nightly)


@pytest.mark.parametrize("to, version", [("rc1", "0.9.1rc1"), ("release", "0.9.1"), ("post3", "0.9.1.post3")])
def test_one_version_promoted_is_said_as_one(nightly, tmp_path, to, version):
    result, _ = promote(wheels_of(nightly), to, tmp_path / "out")
    outputs = [p.output for p in result.promotions]
    assert result.versions == [version]
    assert result.to_json()["to"] == version
    assert result.to_json()["wheels"] == [p.to_json() for p in result.promotions]
    assert result.outputs() == {"promoted": "\n".join(map(str, outputs)), "promoted-version": version}
    assert result.summary() == f"### promoted to {version}\n\n" + "".join(f"- `{o.name}`\n" for o in outputs)


def test_wheels_of_two_versions_promoted_say_both_in_order(tmp_path):
    older = wheels_of(build_dist(tmp_path / "a", "0.10.0.dev20261122"))
    newer = wheels_of(build_dist(tmp_path / "b", "0.9.1.dev20261122"))
    result, said = promote([*older, *newer], "rc1", tmp_path / "out")
    assert result.versions == ["0.10.0rc1", "0.9.1rc1"]                 # sorted once, as text
    assert result.to_json()["to"] == ["0.10.0rc1", "0.9.1rc1"]
    assert result.outputs()["promoted-version"] == "0.10.0rc1,0.9.1rc1"
    assert result.summary().startswith("### promoted to 0.10.0rc1, 0.9.1rc1\n\n")
    assert result.dist_files == () and len(said) == 1 and "do not come from one dist directory" in said[0]


def test_promoted_next_to_the_source_writes_no_dist_files(nightly):
    result, said = promote(wheels_of(nightly), "rc1")
    assert result.dist_files == () and said == []
    assert {p.output.parent for p in result.promotions} == {nightly}


def test_one_dist_promoted_into_out_makes_out_a_dist_of_the_new_version(nightly, tmp_path):
    out = tmp_path / "out"
    result, said = promote(wheels_of(nightly), "rc1", out)
    names = sorted(p.output.name for p in result.promotions)
    assert said == []
    assert list(result.dist_files) == [*(n + ".metadata" for n in names), REVISIONS_ASSET,
                                       "provenance.intoto.json", CHECKSUMS_ASSET]
    assert result.to_json()["dist_files"] == list(result.dist_files)
    before = RevisionMap.loads((nightly / REVISIONS_ASSET).read_text())
    after = RevisionMap.loads((out / REVISIONS_ASSET).read_text())
    assert (after.version, after.commits) == ("0.9.1rc1", before.commits)
    prov = json.loads((out / "provenance.intoto.json").read_text())
    assert prov["predicate"]["buildDefinition"]["externalParameters"]["promotedFrom"] == f"rocm-jax-v{NIGHTLY}"
    assert sorted(s["name"] for s in prov["subject"]) == names


@pytest.mark.parametrize("how", ["two directories", "into its own directory", "two versions"])
def test_wheels_not_of_one_dist_leave_out_holding_the_wheels_only(nightly, tmp_path, how):
    wheels = wheels_of(nightly)
    out = tmp_path / "out"
    if how == "two directories":
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        shutil.copy(nightly / REVISIONS_ASSET, elsewhere)
        wheels[-1] = Path(shutil.copy(wheels[-1], elsewhere))
    elif how == "into its own directory":
        out = nightly
    else:
        wheels += wheels_of(build_dist(tmp_path / "other", "0.9.1.dev20261123"))[:1]
        shutil.copy(wheels[-1], nightly)
        wheels[-1] = nightly / wheels[-1].name
    result, said = promote(wheels, "rc1", out)
    assert result.dist_files == ()
    assert said == [f"note: {out} holds the promoted wheels only (they do not come from one "
                    "dist directory of one version)"]
    assert not (out / CHECKSUMS_ASSET).exists() or out == nightly


def test_a_dist_without_revisions_is_promoted_as_wheels_only_and_says_so(nightly, tmp_path):
    (nightly / REVISIONS_ASSET).unlink()
    out = tmp_path / "out"
    result, said = promote(wheels_of(nightly), "rc1", out)
    assert result.dist_files == () and len(result.promotions) == 4
    assert said == [f"note: {out} holds the promoted wheels only ({nightly / REVISIONS_ASSET}: missing, "
                    "so no revisions.json, provenance or SHA256SUMS for `release publish`)"]
    assert sorted(p.suffix for p in out.iterdir()) == [".whl"] * 4


@pytest.mark.parametrize("text, message", [
    ("not json", "not a revision map"),
    (None, f"is for 0.9.0.dev20261122, the wheels are {NIGHTLY}"),
])
def test_revisions_that_are_no_map_of_these_wheels_are_refused_in_one_line(nightly, tmp_path, text, message):
    path = nightly / REVISIONS_ASSET
    if text is None:
        text = RevisionMap.loads(path.read_text()).dumps().replace(NIGHTLY, "0.9.0.dev20261122")
    path.write_text(text)
    with pytest.raises(UserError) as err:
        promote(wheels_of(nightly), "rc1", tmp_path / "out")
    assert str(err.value).startswith(f"{path}: {message}") and "\n" not in str(err.value)


def test_no_out_directory_completes_nothing():
    said: list[str] = []
    assert complete_promoted_dist(None, [], said.append) == [] and said == []


def test_the_promoted_wheels_are_the_ones_the_dist_lists(nightly, tmp_path):
    result, _ = promote(wheels_of(nightly), "release", tmp_path / "out")
    sums = (tmp_path / "out" / CHECKSUMS_ASSET).read_text()
    for p in result.promotions:
        assert p.output.name in sums
        with zipfile.ZipFile(p.output) as zf:
            assert any(n.endswith("0.9.1.dist-info/METADATA") for n in zf.namelist())
