"""Names and tags, checked against packaging's own parsers (what pip and the index read)."""

from __future__ import annotations

import pytest
from packaging.tags import Tag
from packaging.utils import parse_wheel_filename
from packaging.version import Version

from release import naming


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
