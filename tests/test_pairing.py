"""A release is whole or it is not published: every PJRT wheel has its plugin beside it, and every
plugin's Requires-Dist PJRT is in the same set (ROCm/jax#334: a plugin published without its
pjrt left ``jax[rocm]`` with no solution). One rule, held by validate (which reads Requires-Dist)
and by undraft (asset names only), so it holds on every path that publishes: nightly, cut, post
and ``publish --undraft`` all publish through undraft after validate."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from packaging.requirements import Requirement
from packaging.version import Version

from release.build import provenance
from release.check.validate import validate
from release.core import core_metadata, naming, pairing
from release.core.errors import UserError
from release.core.revisions import RevisionMap
from release.publish.drafts import publish_draft, read_dist, undraft
from tests.support.crafted import craft, member_text
from tests.support.publish_dist import PYTHON, gh_store, mark_validated

VERSIONS = ("0.9.1", "0.9.1.post1", "0.9.1.dev20261120", "0.10.0rc1")


def _pjrt(major, version):
    return naming.pjrt_wheel(major, version)


def _plugin(major, version, python="3.12"):
    return naming.plugin_wheel(major, version, python)


@st.composite
def wheel_sets(draw):
    """Up to 4 PJRT and 4 plugin wheels of ROCm 6 or 7, with pins of every kind."""
    pjrts = draw(st.lists(st.tuples(st.sampled_from((6, 7)), st.sampled_from(VERSIONS)), max_size=3))
    plugins = draw(st.lists(st.tuples(
        st.sampled_from((6, 7)), st.sampled_from(VERSIONS), st.sampled_from(("3.11", "3.12")),
        st.one_of(st.none(), st.just("own"), st.sampled_from(VERSIONS), st.just("wild"), st.just("absent"),
                  st.just("extra"))), max_size=3))
    wheels = [(_pjrt(m, v), None) for m, v in pjrts]
    for major, version, python, pin in plugins:
        dist = naming.pjrt_dist(major)
        requires = {None: None, "own": [f"{dist}=={version}"], "wild": [f"{dist}=={Version(version).base_version}.*"],
                    "absent": ["numpy>=1.26"], "extra": [f'{dist}=={version}; extra == "x"']}.get(
            pin, [f"{dist}=={pin}"])
        wheels.append((_plugin(major, version, python), requires))
    return wheels


def whole(wheels) -> bool:
    """The rule, written from the outside: which versions a plugin's pins accept, by packaging."""
    pjrts = {(naming.Identity.of(n).rocm_major, naming.Identity.of(n).version)
             for n, _ in wheels if "pjrt" in n}
    plugins = [(naming.Identity.of(n), r) for n, r in wheels if "plugin" in n]
    for major, version in pjrts:
        if not any((p.rocm_major, p.version) == (major, version) for p, _ in plugins):
            return False
    for plugin, requires in plugins:
        have = [v for m, v in pjrts if m == plugin.rocm_major]
        if requires is None:
            if plugin.version not in have:
                return False
            continue
        reqs = [Requirement(r) for r in requires]
        reqs = [r for r in reqs if "pjrt" in r.name and r.marker is None]
        if not reqs or not all(any(r.specifier.contains(v, prereleases=True) for v in have) for r in reqs):
            return False
    return True


@settings(derandomize=True, max_examples=300, deadline=None)
@given(wheel_sets())
# the pin only an extra asks for is no pin; a wildcard pin is met by a post release of its line
@example([(_pjrt(7, "0.9.1"), None), (_plugin(7, "0.9.1"), ['jax-rocm7-pjrt==0.9.1; extra == "x"'])])
@example([(_pjrt(7, "0.9.1.post1"), None), (_plugin(7, "0.9.1.post1"), ["jax-rocm7-pjrt==0.9.1.*"])])
def test_a_set_is_whole_exactly_when_every_pjrt_has_a_plugin_and_every_pin_is_met(wheels):
    assert (pairing.problems(wheels) == []) == whole(wheels)


@pytest.mark.parametrize("wheels, problem", [
    ([(_pjrt(7, "0.9.1"), None)],
     "jax_rocm7_pjrt-0.9.1-py3-none-manylinux_2_28_x86_64.whl has no jax-rocm7-plugin 0.9.1 beside it: "
     "a PJRT wheel alone is half a release"),
    ([(_plugin(7, "0.9.1"), ["jax-rocm7-pjrt==0.9.1"])],
     "jax_rocm7_plugin-0.9.1-cp312-cp312-manylinux_2_28_x86_64.whl requires jax-rocm7-pjrt==0.9.1, which no "
     "jax-rocm7-pjrt wheel in the same release satisfies (there: none)"),
    ([(_pjrt(6, "0.9.1"), None), (_plugin(7, "0.9.1"), None)],
     "jax_rocm6_pjrt-0.9.1-py3-none-manylinux_2_28_x86_64.whl has no jax-rocm6-plugin 0.9.1 beside it: "
     "a PJRT wheel alone is half a release"),
    ([(_pjrt(7, "0.9.1"), None), (_plugin(7, "0.9.1"), ["numpy"])],
     "jax_rocm7_plugin-0.9.1-cp312-cp312-manylinux_2_28_x86_64.whl has no Requires-Dist on jax-rocm7-pjrt"),
])
def test_each_half_release_is_named(wheels, problem):
    assert problem in pairing.problems(wheels)


def test_other_wheels_are_not_the_rules_business():
    assert pairing.problems([("numpy-2.1.0-cp312-cp312-manylinux_2_28_x86_64.whl", None)]) == []


NIGHTLY = "0.9.1.dev20261122"
TAG = naming.release_tag(NIGHTLY)


def test_undraft_refuses_a_validated_draft_that_lost_its_plugin(fake_github, make_dist):
    """Whatever the mark says, a draft whose assets are half a release is never published."""
    store = gh_store(fake_github)
    dist = read_dist(make_dist(NIGHTLY))
    publish_draft(store, dist)
    draft = store.drafts_for(TAG)[0]
    for asset in store.list_assets(draft):
        if "plugin" in asset.name:
            store.delete_asset(draft, asset)
    mark_validated(store, TAG)
    with pytest.raises(UserError, match="is not a whole release, so it is not published: "
                                        r"jax_rocm7_pjrt-0\.9\.1\.dev20261122-py3-none-manylinux_2_28_x86_64\.whl "
                                        "has no jax-rocm7-plugin"):
        undraft(store, TAG)
    assert store.published_for(TAG) is None and store.drafts_for(TAG)


def test_validate_fails_a_plugin_whose_pin_names_another_pjrt(fake_github, make_dist, tmp_path):
    directory = make_dist(NIGHTLY)
    plugin = next(directory.glob("jax_rocm7_plugin-*.whl"))
    name, _ = member_text(plugin, ".dist-info/METADATA")
    bad = craft(plugin, tmp_path / plugin.name, replace={
        name: lambda t: t.replace(f"jax-rocm7-pjrt=={NIGHTLY}", "jax-rocm7-pjrt==0.9.0")})
    bad.replace(plugin)
    core_metadata.write_beside(plugin)  # its PEP 658 file says the same as the crafted METADATA
    revisions = RevisionMap.loads((directory / naming.REVISIONS_ASSET).read_text())
    provenance.write_dist(directory, {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                                      for p in directory.glob("*.whl")}, revisions,
                          invocation=provenance.Invocation.from_env({}, host="test-host"))
    sums = directory / naming.CHECKSUMS_ASSET
    sums.write_text("".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n"
                            for p in sorted(directory.iterdir()) if p.name != naming.CHECKSUMS_ASSET))
    store = gh_store(fake_github)
    publish_draft(store, read_dist(directory))
    result = validate(store, TAG, public_index="none")
    assert not result.ok and not result.marked
    assert (f"{plugin.name} requires jax-rocm7-pjrt==0.9.0, which no jax-rocm7-pjrt wheel in the same "
            f"release satisfies (there: {NIGHTLY})") in result.problems
    assert (7, PYTHON) not in result.cells or not result.cells[(7, PYTHON)].get("tested")


# ------------------------------------------------------------------ every major of the line


def _release(majors=(7, 10), pythons=("3.12", "3.13"), version=NIGHTLY):
    return [name for m in majors for name in (_pjrt(m, version), *(_plugin(m, version, p) for p in pythons))]


@pytest.mark.parametrize("drop, problem", [
    ("jax_rocm10_pjrt", "no jax-rocm10-pjrt wheel: the line builds ROCm 7, ROCm 10"),
    ("jax_rocm10_", "no jax-rocm10-pjrt wheel: the line builds ROCm 7, ROCm 10"),
    ("jax_rocm7_", "no jax-rocm7-pjrt wheel: the line builds ROCm 7, ROCm 10"),
    ("jax_rocm10_plugin-0.9.1.dev20261122-cp313", "no jax-rocm10-plugin wheel for Python 3.13"),
    ("jax_rocm7_plugin-0.9.1.dev20261122-cp312", "no jax-rocm7-plugin wheel for Python 3.12"),
])
def test_a_line_naming_two_majors_publishes_both_or_neither(drop, problem):
    """ROCm 7 without ROCm 10 (or one major's Python missing) is half a release when the line
    names both; the rule holds whichever major or cell is the one missing."""
    wheels = [(n, None) for n in _release() if not n.startswith(drop)]
    found = pairing.problems(wheels, (7, 10))
    assert found and any(problem in line for line in found)
    assert pairing.problems([(n, None) for n in _release()], (7, 10)) == []
    assert pairing.problems([(n, None) for n in _release()], (10, 7)) == []


def test_a_major_the_line_does_not_build_is_not_published_beside_it():
    found = pairing.problems([(n, None) for n in _release()], (7,))
    assert found == ["jax-rocm10-plugin/jax-rocm10-pjrt wheels of ROCm 10, which the line does not build "
                     "(it builds ROCm 7)"]


def test_without_the_lines_majors_each_major_present_is_still_whole():
    """Outside a checkout nothing says which majors the line builds; each major present must still
    have its pair (the one-major rule, per major)."""
    assert pairing.problems([(n, None) for n in _release()]) == []
    half = [n for n in _release() if not n.startswith("jax_rocm10_plugin")]
    assert pairing.problems([(n, None) for n in half]) == [
        f"{_pjrt(10, NIGHTLY)} has no jax-rocm10-plugin {NIGHTLY} beside it: a PJRT wheel alone is half a release"]


def test_undraft_refuses_a_draft_missing_one_of_the_lines_majors(fake_github, make_dist):
    """The draft holds ROCm 7 whole; the line builds 7 and 10: it is not published."""
    store = gh_store(fake_github)
    publish_draft(store, read_dist(make_dist(NIGHTLY)))
    mark_validated(store, TAG)
    with pytest.raises(UserError, match="is not a whole release, so it is not published: no jax-rocm10-pjrt "
                                        "wheel: the line builds ROCm 7, ROCm 10"):
        undraft(store, TAG, majors=(7, 10))
    assert store.published_for(TAG) is None
    assert undraft(store, TAG, majors=(7,))["status"] == "published"
