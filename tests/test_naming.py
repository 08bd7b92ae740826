"""Names and tags, checked against packaging's own parsers (what pip and the index read)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.tags import Tag
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

from release.core import naming


@pytest.mark.parametrize("version", ["0.9.1", "0.9.1rc2", "0.9.1.dev20261122", "0.9.1.post1"])
def test_pjrt_wheel_name_parses_back_to_its_parts(version):
    name = naming.pjrt_wheel(7, version)
    dist, parsed, build, tags = parse_wheel_filename(name)
    assert (dist, parsed, build) == ("jax-rocm7-pjrt", Version(version), ())
    assert tags == frozenset({Tag("py3", "none", naming.PLATFORM)})
    assert name == f"jax_rocm7_pjrt-{version}-py3-none-{naming.PLATFORM}.whl"


@pytest.mark.parametrize("python, tag", [("3.11", "cp311"), ("3.14", "cp314"), ("3.9", "cp39")])
def test_plugin_wheel_is_tagged_for_one_python(python, tag):
    name = naming.plugin_wheel(6, "1.0.0", python)
    dist, _, _, tags = parse_wheel_filename(name)
    assert dist == "jax-rocm6-plugin"
    assert tags == frozenset({Tag(tag, tag, naming.PLATFORM)})
    assert name == f"jax_rocm6_plugin-1.0.0-{tag}-{tag}-{naming.PLATFORM}.whl"  # as pip names it


@pytest.mark.parametrize("python", ["3", "3.", "311", "2.7", "3.x", "3.123", " 3.12", "3.12\n"])
def test_python_tag_refuses_what_is_not_3_x(python):
    with pytest.raises(ValueError) as err:
        naming.python_tag(python)
    assert repr(python) in str(err.value) and "3.X" in str(err.value)


def test_packages_and_dists_carry_the_rocm_major():
    assert naming.pjrt_dist(7) == "jax-rocm7-pjrt" and naming.plugin_dist(8) == "jax-rocm8-plugin"
    assert naming.pjrt_package(7) == "jax_plugins/xla_rocm7"
    assert naming.plugin_package(7) == "jax_rocm7_plugin"


@pytest.mark.parametrize("version", ["0.9.1", "0.10.0rc1", "0.9.1.dev20261122001"])
def test_release_tag_round_trips(version):
    tag = naming.release_tag(version)
    assert tag == "rocm-jax-v" + version and naming.version_from_tag(tag) == version


@pytest.mark.parametrize("tag", ["v0.9.1", "rocm-jaxlib-v0.9.1", "0.9.1", "xrocm-jax-v0.9.1", ""])
def test_other_tags_have_no_version(tag):
    assert naming.version_from_tag(tag) is None


@pytest.mark.parametrize("tag, kinds, version", [
    ("rocm-jax-v0.9.1", ("release",), "0.9.1"),
    ("rocm-jax-v0.9.1rc2", ("rc", "release"), "0.9.1rc2"),
    ("rocm-jax-v0.9.1.dev20261122", naming.versions.KINDS, "0.9.1.dev20261122"),
    ("rocm-jax-v0.9.1.post1", naming.versions.KINDS, "0.9.1.post1"),
])
def test_version_of_tag_reads_the_tags_we_make(tag, kinds, version):
    assert naming.version_of_tag(tag, kinds) == version


@pytest.mark.parametrize("tag, kinds, expected", [
    ("v0.9.1", ("release",), "expected a release tag rocm-jax-vX.Y.Z"),                 # no prefix
    ("rocm-jax-v0.9.1rc1", ("release",), "expected a release tag rocm-jax-vX.Y.Z"),     # wrong kind
    ("rocm-jax-v0.9.1.post1", ("rc", "release"), "rocm-jax-vX.Y.ZrcN or rocm-jax-vX.Y.Z"),
    ("rocm-jax-vlatest", naming.versions.KINDS, "rocm-jax-vX.Y.Z.devYYYYMMDD or"),      # no version
])
def test_version_of_tag_refuses_in_one_line(tag, kinds, expected):
    with pytest.raises(naming.versions.VersionError) as caught:
        naming.version_of_tag(tag, kinds, flag="--tag")
    assert str(caught.value).startswith(f"--tag {tag}: ")
    assert expected in str(caught.value)
    assert "\n" not in str(caught.value)


def test_identity_reads_our_wheel_names_and_others():
    plugin = naming.Identity.of(naming.plugin_wheel(7, "0.9.1rc2", "3.14"))
    assert (plugin.dist, plugin.version, plugin.kind, plugin.rocm_major) == (
        "jax-rocm7-plugin", "0.9.1rc2", "plugin", 7)
    assert plugin.pythons == ("3.14",)
    pjrt = naming.Identity.of(f"dist/{naming.pjrt_wheel(6, '0.9.1')}")
    assert (pjrt.kind, pjrt.rocm_major, pjrt.pythons, pjrt.name_error) == ("pjrt", 6, (), None)
    several = naming.Identity.of("jax_rocm7_plugin-0.9.1-cp311.cp312-cp311.cp312-manylinux_2_28_x86_64.whl")
    assert several.pythons == ("3.11", "3.12")
    other = naming.Identity.of("numpy-2.1.0-cp313-cp313-manylinux_2_28_x86_64.whl")
    assert (other.dist, other.kind, other.rocm_major) == ("numpy", None, None)
    bad = naming.Identity.of("jax_rocm7_plugin-0.9.1.whl")
    assert bad.kind is None and bad.name_error


@pytest.mark.parametrize("name", [naming.plugin_wheel(7, "0.9.1rc2", "3.14"), "jax_rocm7_plugin-0.9.1.whl",
                                  "x-1-py3-none-any.whl", ".", "", "..", "x-1-py3-none-any.whl\\y"])
def test_identity_reads_a_file_name_alike_as_text_path_or_in_a_folder(name):
    """Only the file's own name counts, however it is given (the index passes bare names)."""
    bare = naming.Identity.of(name)
    assert bare == naming.Identity.of(Path(name))
    if name not in (".", ""):  # a folder joined to these names itself
        assert bare == naming.Identity.of(Path("dist") / name) == naming.Identity.of(f"dist/{name}")


@pytest.mark.parametrize("given, tag", [
    ("rocm-jax-v0.9.1", "rocm-jax-v0.9.1"), ("0.9.1", "rocm-jax-v0.9.1"), ("v0.9.1", "rocm-jax-v0.9.1"),
    ("V0.10.0rc2", "rocm-jax-v0.10.0rc2"), (" 0.9.1.post12 ", "rocm-jax-v0.9.1.post12"),
    ("v0.9.1.dev20261122", "rocm-jax-v0.9.1.dev20261122"), ("0.9.1-rc1", "rocm-jax-v0.9.1rc1"),
    ("rocm-jax-vv0.9.1", "rocm-jax-v0.9.1"),
])
def test_a_tag_a_person_types_is_the_release_tag_they_mean(given, tag):
    """Issue 33: `yank v0.9.1` looked for rocm-jax-vv0.9.1."""
    assert naming.tag_of(given) == tag


@pytest.mark.parametrize("given", ["vv0.9.1", "latest", "", "rocm-jaxlib-v0.9.1", "0.9.1.dev20261122.post1x"])
def test_what_is_no_tag_nor_version_is_one_line_naming_both(given):
    with pytest.raises(naming.versions.VersionError) as caught:
        naming.tag_of(given)  # a person's TAG argument unless the caller names another
    assert str(caught.value) == (f"TAG {given.strip()}: expected a release tag rocm-jax-v<version> or a "
                                 "version (X.Y.Z.devYYYYMMDD, X.Y.ZrcN, X.Y.Z, X.Y.Z.postN)")
    with pytest.raises(naming.versions.VersionError, match=r"^--version latest: "):
        naming.tag_of("latest", what="--version")


def test_a_tag_refused_without_a_flag_named_is_the_tag_flags():
    with pytest.raises(naming.versions.VersionError) as caught:
        naming.version_of_tag("rocm-jax-vlatest")
    assert str(caught.value).startswith("--tag rocm-jax-vlatest: expected a release tag ")


@pytest.mark.parametrize("platform", ["manylinux_2_34_aarch64", "any"])
def test_a_wheel_named_for_another_platform_carries_it(platform):
    assert naming.pjrt_wheel(7, "0.9.1", platform) == f"jax_rocm7_pjrt-0.9.1-py3-none-{platform}.whl"
    assert naming.plugin_wheel(7, "0.9.1", "3.12", platform) == f"jax_rocm7_plugin-0.9.1-cp312-cp312-{platform}.whl"
    assert naming.wheel_filename("numpy", "2.1.0", None, platform) == f"numpy-2.1.0-py3-none-{platform}.whl"


@given(st.text(alphabet="aZ9-_.", max_size=12))
def test_a_name_is_normalized_as_packaging_normalizes_it(name):
    """naming's own PEP 503 normalization (packaging.utils is not loaded to name a wheel)."""
    assert naming.normalized_name(name) == canonicalize_name(name)


@given(st.one_of(st.sampled_from([naming.pjrt_wheel(7, "0.9.1"), naming.plugin_wheel(10, "0.9.1.dev20261120", "3.12"),
                                  "numpy-2.1.0-cp312-cp312-manylinux_2_28_x86_64.whl", "x.whl.jsonl", "SHA256SUMS"]),
                 st.text(min_size=1, max_size=40)))
def test_identity_asked_again_is_the_answer_parsed_afresh(name):
    """Identity.of keeps each file name's answer for the process (the index asks thousands of
    times): the kept answer is the one a fresh parse gives, whichever way the name is asked."""
    fresh = naming._identity.__wrapped__(Path(name).name if "/" in name or name == "." else name)
    assert naming.Identity.of(name) == fresh and naming.Identity.of(name) == fresh


_NAME_PARTS = ["jax_rocm7_plugin", "Jax.Rocm7_Plugin", "a__b"]
_VERSION_PARTS = ["0.9.1.dev20261120", "01.0", "1.0+local.7", "bad!"]
_TAG_PARTS = ["py3-none-any", "py3-none-manylinux_2_28_x86_64", "cp312.cp311-cp312.cp311-any", "PY3-NONE-ANY",
              "3x-none-any", "py3--any", "py3-none"]
_NAMES = [f"{d}-{v}{b}-{t}.whl" for d in _NAME_PARTS for v in _VERSION_PARTS for b in ("", "-1")
          for t in _TAG_PARTS] + ["jax_rocm7_plugin-01.0-py3-none-any.zip"]


def _packaging_reads(name: str) -> tuple:
    """What packaging itself makes of a file name, parsed whole and afresh."""
    from packaging.utils import InvalidWheelFilename
    try:
        dist, version, _build, tags = parse_wheel_filename(name)
    except (InvalidWheelFilename, ValueError) as exc:
        return None, None, frozenset(), str(exc)
    return str(dist), str(version), frozenset(str(t) for t in tags), None


_READS = {name: _packaging_reads(name) for name in _NAMES}


@settings(max_examples=10)  # each example asks every name: 10 orders of 169 names
@given(st.permutations(_NAMES))
def test_every_wheel_name_means_what_packaging_reads_in_any_order_of_asking(names):
    """A name is answered from the parts of names asked before (a season's thousands of wheels
    share a few names and tags): whatever was asked before, in whatever order, each answer is
    packaging's own reading of that whole name, a bad name's error included."""
    naming._identity.cache_clear()  # a process that has asked only these, in this order
    naming._SHAPES.clear()
    naming._VERSIONS.clear()
    for name in names:
        found = naming.Identity.of(name)
        assert (found.dist, found.version, found.tags, found.name_error) == _READS[name], name
        m = naming._DIST.match(found.dist or "")
        assert (found.rocm_major, found.kind) == ((int(m.group(1)), m.group(2)) if m else (None, None))


def _fresh_process() -> None:
    naming._identity.cache_clear()
    naming._SHAPES.clear()
    naming._VERSIONS.clear()


@pytest.mark.parametrize("order", [1, -1])
def test_names_alike_but_for_one_tag_or_its_last_letter_are_each_read_whole(order):
    """Parts are kept by where packaging splits a name (name, version, the three tags), so a name
    that shares an abi tag's text with another's version, or all but a platform's last letter,
    is not answered from the other's parts."""
    _fresh_process()
    names = ["x-1-cp312-cp312-any.whl", "y-2-cp312-abi3-any.whl", "x-1-cp312-abi3-any.whl",
             "x-1-py3-none-any.whl", "x-1-py3-none-anz.whl", "x-2-py3-none-anz.whl"][::order]
    for name in names:
        found = naming.Identity.of(name)
        assert (found.dist, found.version, found.tags, found.name_error) == _packaging_reads(name), name


def test_packaging_reads_a_whole_name_only_when_it_is_not_of_the_simple_shape(monkeypatch):
    """packaging's wheel-name parser (packaging.utils, which loads packaging.tags, logging and
    platform) reads a name only when its name part or tags are outside the simple shape every
    packaging reads alike (ASCII name, lower-case tags, identifier interpreters), or its version
    is invalid (packaging says why); a name with a build tag is always read. A simple name's
    version is read once a process, whatever name carries it."""
    import packaging.utils
    _fresh_process()
    read, versions = [], []
    parse, version = packaging.utils.parse_wheel_filename, naming.Version
    monkeypatch.setattr(packaging.utils, "parse_wheel_filename", lambda name: read.append(name) or parse(name))
    monkeypatch.setattr(naming.versions, "parse", lambda text: versions.append(text) or version(text))
    plat = naming.PLATFORM
    asked = {f"jax_rocm7_plugin-0.9.1-cp312-cp312-{plat}.whl": False,
             f"jax_rocm7_plugin-0.9.2-cp312-cp312-{plat}.whl": False,    # a new version
             f"jax_rocm7_pjrt-0.9.1-py3-none-{plat}.whl": False,         # a new name and tags
             f"Jax.Rocm7_Pjrt-0.9.2-py2.py3-none-{plat}.whl": False,
             f"jax_rocm7_plugin-0.9.1-1-cp313-cp313-{plat}.whl": True,   # a build tag
             f"jax_rocm7_plugin-0.9.2-CP313-cp313-{plat}.whl": True,     # tags packaging lowers
             f"jax__rocm7_plugin-0.9.2-cp313-cp313-{plat}.whl": True,    # a name packaging refuses
             f"jax_rocm7_plugin-0.9.2-3x-cp313-{plat}.whl": True,        # an interpreter that is no identifier
             "_jax-0.9.2-py3-none-any.whl": True,
             "jax-0.9.bad-py3-none-any.whl": True,                       # an invalid version
             "jax-0.9.1-py3-none-any.whl": False}
    for name, whole in asked.items():
        before = len(read)
        found = naming.Identity.of(name)
        assert (len(read) > before) == whole, name
        assert (found.dist, found.version, found.tags, found.name_error) == _packaging_reads(name), name
    assert sorted(versions) == sorted({"0.9.1", "0.9.2", "0.9.bad"}), versions


_NAME_TEXT = st.text(alphabet="aZ9._-é", min_size=0, max_size=6)
_TAG_TEXT = st.text(alphabet="aZ3_.", min_size=0, max_size=5)


@given(st.lists(st.tuples(_NAME_TEXT, st.sampled_from(["1.0", "0.9.1.dev20261120", "01.0", "bad!", ""]),
                          _TAG_TEXT, _TAG_TEXT, _TAG_TEXT), min_size=1, max_size=4))
def test_generated_wheel_names_mean_what_packaging_reads(parts):
    """Whatever the name and tags (the simple shape read without packaging, or any other), in any
    order of asking, each answer is packaging's own reading of the whole name."""
    _fresh_process()
    for dist, version, py, abi, plat in parts:
        name = f"{dist}-{version}-{py}-{abi}-{plat}.whl"
        found = naming.Identity.of(name)
        assert (found.dist, found.version, found.tags, found.name_error) == _packaging_reads(name), name


def test_an_identity_read_from_kept_parts_is_the_record_itself():
    """An Identity answered from kept parts is made without the frozen ``__init__``: the same
    fields in the same order, equal, alike in repr and hash, and frozen."""
    import dataclasses
    _fresh_process()
    assert naming._FIELDS == tuple(f.name for f in dataclasses.fields(naming.Identity))
    for name in (naming.plugin_wheel(7, "0.9.1", "3.12"), naming.pjrt_wheel(10, "0.9.2.dev20261120"),
                 "numpy-2.1.0-cp312-cp312-manylinux_2_28_x86_64.whl"):
        found = naming.Identity.of(name)
        made = naming.Identity(found.dist, found.version, found.tags, found.rocm_major, found.kind, None)
        assert found == made and repr(found) == repr(made) and hash(found) == hash(made)
        assert dataclasses.astuple(found) == dataclasses.astuple(made) == _packaging_reads(name)[:3] + (
            found.rocm_major, found.kind, None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            found.version = "1"  # type: ignore[misc]
