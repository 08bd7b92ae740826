"""What goes into a wheel: nothing from outside the plugin's source tree and no symbolic link,
whatever the tree or its manifest (wheels.json) says; and verify refuses a wheel that carries a
secret-shaped string in a text member, naming the member and never the secret."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.build.wheel_specs import MANIFEST, PLUGIN_DIR, load_specs, plugin_dir
from release.build.wheels import artifact_files
from release.check.verify import ERROR, verify_wheel
from release.core import secret_shapes
from release.core.errors import UserError
from release.core.wheelfile import WheelWriter
from tests.support.crafted import build_pair, craft


def own_tree(base: Path) -> Path:
    shutil.copytree(plugin_dir(), base / PLUGIN_DIR)
    return base / PLUGIN_DIR


def _manifest(tree: Path, edit) -> None:
    data = json.loads((tree / MANIFEST).read_text())
    edit(data["wheels"]["pjrt"])
    (tree / MANIFEST).write_text(json.dumps(data))


# ---------------------------------------------------------------- build: what the tree holds


@pytest.mark.parametrize("where", ["the file", "its directory", "the plugin directory"])
def test_a_symbolic_link_in_the_plugin_tree_is_refused_before_a_wheel_is_written(tmp_path, where):
    tree = own_tree(tmp_path / "root")
    outside = tmp_path / "outside"
    if where == "the file":
        (tree / "python" / "version.py").unlink()
        (tree / "python" / "version.py").symlink_to("/proc/self/environ")
    elif where == "its directory":
        shutil.move(tree / "python", outside)
        (tree / "python").symlink_to(outside)
    else:
        shutil.move(tree, outside)
        tree.symlink_to(outside)
    with pytest.raises(UserError) as caught:
        load_specs(tmp_path / "root")
    text = str(caught.value)
    assert "symbolic link" in text and "\n" not in text, text


@pytest.mark.parametrize("source", ["/proc/self/environ", "../../../../proc/self/environ",
                                    "python/../../outside.py", "python//version.py", "./python/version.py",
                                    "", "python\\version.py"])
def test_a_manifest_source_outside_the_tree_is_refused(tmp_path, source):
    tree = own_tree(tmp_path)
    (tmp_path / "outside.py").write_text("SECRET = 1\n")
    _manifest(tree, lambda w: w["python_files"].update({source: "extra.py"}))
    with pytest.raises(UserError, match="python_files names .*expected a relative path inside"):
        load_specs(tmp_path)


@pytest.mark.parametrize("key, name", [("python_files", "../evil.py"), ("python_files", "/etc/evil.py"),
                                       ("python_files", "a\\b.py"), ("python_files", ""),
                                       ("python_files", "sub/../../x.py"), ("bazel_files", "../x.so"),
                                       ("bazel_files", "sub/x.so"), ("bazel_files", "..")])
def test_a_manifest_name_outside_the_package_is_refused(tmp_path, key, name):
    tree = own_tree(tmp_path)

    def edit(wheel):
        if key == "python_files":
            wheel["python_files"]["python/version.py"] = name
        else:
            next(iter(wheel["bazel_files"].values()))["file"] = name
    _manifest(tree, edit)
    with pytest.raises(UserError, match=f"wheels.pjrt.{key} names .* as a file in the wheel"):
        load_specs(tmp_path)


_PART = st.sampled_from(["python", "pjrt", "version.py", "__init__.py", "..", ".", "", "/", "link",
                         "outside.py"])


@given(parts=st.lists(_PART, min_size=1, max_size=6))
def test_every_source_a_manifest_names_is_a_regular_file_inside_the_tree(tmp_path_factory, parts):
    base = tmp_path_factory.mktemp("gen")
    tree = own_tree(base)
    (base / "outside.py").write_text("OUT = 1\n")
    (tree / "python" / "link").symlink_to(base)
    source = "/".join(parts)
    _manifest(tree, lambda w: w["python_files"].update({source: "extra.py"}))
    try:
        specs = load_specs(base)
    except UserError as exc:
        assert "\n" not in str(exc)
        return
    for spec in specs.values():
        for src, _ in spec.python_files:
            assert src.resolve().is_relative_to(tree.resolve()) and src.is_file()
            assert not any(p.is_symlink() for p in [src, *src.parents] if p.is_relative_to(tree))


def test_the_writer_takes_regular_files_only(tmp_path):
    real = tmp_path / "real.so"
    real.write_bytes(b"\x7fELF" + b"\0" * 60)
    link = tmp_path / "link.so"
    link.symlink_to(real)
    fifo = tmp_path / "fifo.so"
    os.mkfifo(fifo)
    target = tmp_path / "jax_rocm7_pjrt-0.9.1-py3-none-manylinux_2_28_x86_64.whl"
    for bad, why in ((link, "symbolic link"), (fifo, "not a regular file")):
        with pytest.raises(ValueError, match=why):
            with WheelWriter(target, "jax_rocm7_pjrt-0.9.1.dist-info") as writer:
                writer.add_file("jax_plugins/xla_rocm7/x.so", bad)
        assert not target.exists() and sorted(p.name for p in tmp_path.iterdir()) == \
            ["fifo.so", "link.so", "real.so"]


def test_a_linked_artifact_is_refused(tmp_path, wheel_artifacts):
    specs = load_specs()
    artifacts = tmp_path / "artifacts"
    shutil.copytree(wheel_artifacts["good"], artifacts)
    name = specs["pjrt"].so_files[0]
    (artifacts / name).unlink()
    (artifacts / name).symlink_to(wheel_artifacts["good"] / name)
    with pytest.raises(UserError, match="symbolic link"):
        artifact_files(artifacts, specs["pjrt"], "3.12")


def test_wheels_built_from_the_shipped_tree_hold_no_link_and_pass(tmp_path, wheel_artifacts):
    wheels = build_pair(tmp_path, wheel_artifacts["good"])
    for wheel in wheels.values():
        with zipfile.ZipFile(wheel) as zf:
            assert all((i.external_attr >> 16) & 0o170000 in (0, 0o100000) for i in zf.infolist())
        assert verify_wheel(wheel).ok


# ---------------------------------------------------------------- verify: secrets in a wheel

_ALNUM = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", min_size=1)
_SECRETS = {
    "a GitHub token": st.builds(lambda p, s: f"gh{p}_{s}", st.sampled_from("pousr"),
                                st.text("abcXYZ0129", min_size=36, max_size=40)),
    "a GitHub fine-grained token": st.builds(lambda s: f"github_pat_{s}",
                                             st.text("abcXYZ0129_", min_size=82, max_size=82)),
    "a PyPI token": st.builds(lambda s: f"pypi-AgEIcHlwaS5vcmc{s}", st.text("abcXYZ0129_-", min_size=60,
                                                                            max_size=120)),
    "an AWS access key id": st.builds(lambda p, s: f"{p}{s}", st.sampled_from(["AKIA", "ASIA"]),
                                      st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", min_size=16, max_size=16)),
    "a private key": st.sampled_from(["-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----",
                                      "-----BEGIN OPENSSH PRIVATE KEY-----",
                                      "-----BEGIN EC PRIVATE KEY-----"]),
}


_PADDING = "".join(hashlib.sha256(str(i).encode()).hexdigest() for i in range(64))


@st.composite
def _secret(draw):
    kind = draw(st.sampled_from(sorted(_SECRETS)))
    return kind, draw(_SECRETS[kind])


@given(secret=_secret(),
       member=st.sampled_from(["jax_plugins/xla_rocm7/environ.txt", "jax_plugins/xla_rocm7/version.py",
                               "jax_rocm7_pjrt-0.9.1.dev20261122.dist-info/METADATA"]),
       before=st.sampled_from([0, 7, 300]),
       surround=st.sampled_from(["GITHUB_TOKEN={}\0HOME=/root\0", "token = '{}'\n", "{}"]))
def test_verify_refuses_a_wheel_with_a_secret_and_never_shows_it(tmp_path_factory, good_wheels, secret,
                                                                 member, before, surround):
    kind, value = secret
    text = (_PADDING[:before - 1] + "\n" if before else "") + surround.format(value)  # a token starts a word
    base = tmp_path_factory.mktemp("secret")
    src = good_wheels["pjrt"]
    replace = {member: (lambda old: old + text)} if not member.endswith(".txt") else {}
    wheel = craft(src, base / src.name, replace=replace, add={} if replace else {member: text})
    report = verify_wheel(wheel)
    found = [f for f in report.findings if f.check == "secrets"]
    assert [(f.severity, f.member) for f in found] == [(ERROR, member)]
    assert kind in found[0].message and value not in json.dumps(report.to_json())


@given(secret=_secret(), cuts=st.lists(st.integers(0, 400), max_size=6), before=st.integers(0, 300))
def test_a_secret_cut_by_the_stream_s_chunks_is_still_found(secret, cuts, before):
    """The scan feeds a member in chunks (1 MiB in a wheel); wherever they cut the token, it is seen."""
    kind, value = secret
    data = (_PADDING[:before] + "\nTOKEN=" + value + "\n").encode()
    finder = secret_shapes.Finder()
    points = sorted({0, len(data), *(min(c, len(data)) for c in cuts)})
    for start, end in zip(points, points[1:]):
        finder.feed(data[start:end])
    assert finder.found == kind


@pytest.mark.parametrize("text", ["ghp_short", "see ghp_ tokens in the docs", "pypi-upload --repository x",
                                  "AKIA" + "0" * 15, "xAKIA" + "A" * 16, "BEGIN PRIVATE KEY",
                                  "-----BEGIN PUBLIC KEY-----", "github_pat_" + "a" * 20,
                                  "pypi-" + "a" * 49])
def test_verify_takes_no_near_miss_for_a_secret(tmp_path, good_wheels, text):
    src = good_wheels["pjrt"]
    wheel = craft(src, tmp_path / src.name, add={"jax_plugins/xla_rocm7/notes.txt": text})
    assert not [f for f in verify_wheel(wheel).findings if f.check == "secrets"]
    assert secret_shapes.find(text.encode()) is None


def test_verify_cli_names_the_member_and_exits_1_without_printing_the_secret(run_cli, good_wheels, tmp_path):
    token = "ghs_" + "Q" * 36
    src = good_wheels["plugin"]
    wheel = craft(src, tmp_path / src.name, add={"jax_rocm7_plugin/environ": f"GITHUB_TOKEN={token}\n"})
    code, out, err = run_cli("verify", wheel, "--json")
    assert code == 1 and token not in out + err
    findings = [f for w in json.loads(out)["wheels"] for f in w["findings"] if f["check"] == "secrets"]
    assert [f["member"] for f in findings] == ["jax_rocm7_plugin/environ"]
