"""``jax_rocm_plugin/wheels.json`` read into ``WheelSpec``s: what the shipped one says, a root's
own overriding it, and every broken manifest refused with one line naming the file."""

from __future__ import annotations

import json
import shutil

import pytest

from release.build.wheel_specs import BAZELRC, KINDS, MANIFEST, PLUGIN_DIR, load_specs, plugin_dir
from release.core.errors import UserError


def own_plugin_dir(tmp_path):
    shutil.copytree(plugin_dir(), tmp_path / PLUGIN_DIR)
    return tmp_path / PLUGIN_DIR


def test_the_shipped_manifest_and_a_roots_own(tmp_path):
    shipped = load_specs()
    assert set(shipped) == set(KINDS)
    assert not shipped["pjrt"].per_python and shipped["plugin"].per_python
    assert shipped["pjrt"].so_files == ("xla_rocm_plugin.so",)
    assert all(src.is_file() and src.is_relative_to(plugin_dir()) for spec in shipped.values()
               for src, _ in spec.python_files)
    assert load_specs(tmp_path) == shipped          # no jax_rocm_plugin/ of its own: the shipped one

    own = own_plugin_dir(tmp_path)
    data = json.loads((own / MANIFEST).read_text())
    data["wheels"]["pjrt"]["summary"] = "a summary of this root's own"
    (own / MANIFEST).write_text(json.dumps(data))
    specs = load_specs(tmp_path)
    assert specs["pjrt"].summary == "a summary of this root's own"
    assert all(src.is_relative_to(own.resolve()) for src, _ in specs["plugin"].python_files)
    (own / BAZELRC).unlink()                         # a jax_rocm_plugin/ without configs is not one
    assert load_specs(tmp_path) == shipped


def _break_wheel(data, kind, key, value):
    data["wheels"][kind][key] = value
    return data


@pytest.mark.parametrize("breaking, message", [
    (lambda d: "{not json", "cannot read the wheel manifest"),
    (lambda d: [d], "expected schema 1 with wheels pjrt, plugin"),
    (lambda d: d | {"schema": 2}, "expected schema 1 with wheels pjrt, plugin"),
    (lambda d: d | {"wheels": {"pjrt": d["wheels"]["pjrt"]}}, "expected schema 1 with wheels pjrt, plugin"),
    (lambda d: _break_wheel(d, "plugin", "bazel_files", {"//x:y": {"file": "y.so"}}),
     "wheels.plugin is missing or has a bad 'output'"),
    (lambda d: _break_wheel(d, "pjrt", "python_files", {"python/nowhere.py": "nowhere.py"}),
     "wheels.pjrt.python_files names"),
])
def test_a_broken_manifest_is_one_line_naming_it(tmp_path, breaking, message):
    own = own_plugin_dir(tmp_path)
    path = own / MANIFEST
    broken = breaking(json.loads(path.read_text()))
    path.write_text(broken if isinstance(broken, str) else json.dumps(broken))
    with pytest.raises(UserError) as caught:
        load_specs(tmp_path)
    text = str(caught.value)
    assert text.startswith(f"{path.resolve()}: ") and message in text and "\n" not in text
