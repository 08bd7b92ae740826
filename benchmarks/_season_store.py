"""A local store holding a season of releases, written fast enough for 3,650 nightlies.

Going through the tool for each release (draft, validated mark, undraft) lists the whole store
at every step, so a season of N releases costs N^2; here one release goes through the tool and
the rest are written in the same layout (``<dir>/<id>/release.json`` and its assets), each with
its own version in its wheels, names, body and revisions. Not a test of publishing: the input of
``bench_index``.

The season: one nightly a day; every ``LINE_DAYS`` days the line's rc and release (stable
channel), a post release on every other line, then the next line; from half way, a second ROCm
major beside the first (its own two projects), as a store that moved majors holds. Each release
carries what issue 32 adds: validate's record of the public files it was installed with (jax and
jaxlib of its line, one jaxlib a Python) in its notes, and an attestation bundle beside each
wheel (``<wheel>.jsonl``), so the index lists the public files and serves PEP 740 provenance;
with ``facts``, as publish now leaves it, each bundle's provenance object beside it
(``<wheel>.provenance``, ``release.publish.stored_provenance``) and bound in the wheel's row.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import hashlib
import json
import shutil
from pathlib import Path

from release.core import core_metadata, naming
from release.core.config import load_deps
from release.core.revisions import RevisionMap
from release.publish import notes, public_files, stored_provenance, wheel_record
from release.publish.stores import LocalStore
from tests.support.publish_dist import REPO_ROOT, build_dist, release_dist, write_wheel

PYTHONS = ("3.11", "3.12", "3.13", "3.14")
LINE_DAYS = 60
START = _dt.datetime(2025, 11, 1, 4, tzinfo=_dt.timezone.utc)


def season(nightlies: int) -> list[tuple[str, _dt.datetime, tuple[int, ...]]]:
    """(version, publishing time, ROCm majors) of every release, oldest first."""
    out = []
    minor, patch = 9, 1
    for day in range(nightlies):
        when = START + _dt.timedelta(days=day)
        majors = (7, 8) if day >= nightlies // 2 else (7,)
        line = f"0.{minor}.{patch}"
        out.append((f"{line}.dev{when:%Y%m%d}", when, majors))
        if day % LINE_DAYS == LINE_DAYS - 1:
            out.append((f"{line}rc1", when + _dt.timedelta(hours=6), majors))
            out.append((line, when + _dt.timedelta(hours=12), majors))
            if (day // LINE_DAYS) % 2:
                out.append((f"{line}.post1", when + _dt.timedelta(hours=18), majors))
            minor, patch = (minor + 1, 0) if patch >= 2 else (minor, patch + 1)
    return out


def _wheels(folder: Path, version: str, majors: tuple[int, ...], commit_info: str) -> list[Path]:
    made = []
    for major in majors:
        pjrt_pkg, plugin_pkg = naming.pjrt_package(major), naming.plugin_package(major)
        made.append(write_wheel(folder / naming.pjrt_wheel(major, version), naming.pjrt_dist(major),
                                version, naming.wheel_tag(None),
                                {f"{pjrt_pkg}/__init__.py": "", f"{pjrt_pkg}/commit_info.py": commit_info}))
        for python in PYTHONS:
            made.append(write_wheel(folder / naming.plugin_wheel(major, version, python),
                                    naming.plugin_dist(major), version, naming.wheel_tag(python),
                                    {f"{plugin_pkg}/__init__.py": "", f"{plugin_pkg}/commit_info.py": commit_info},
                                    requires=[f"{naming.pjrt_dist(major)}=={version}"]))
    return made


def validated_with(version: str) -> str:
    """The notes' record of the public files a release of ``version``'s line was validated with."""
    line = version.split(".dev")[0].split("rc")[0].split(".post")[0]
    names = [f"jax-{line}-py3-none-any.whl"] + [
        f"jaxlib-{line}-cp3{p[2:]}-cp3{p[2:]}-manylinux_2_27_x86_64.whl" for p in PYTHONS]
    return public_files.to_text(
        public_files.PublicFile(n, f"https://files.example/packages/{hashlib.sha256(n.encode()).hexdigest()[:8]}/{n}",
                                hashlib.sha256(n.encode()).hexdigest(), 1000 + len(n), ">=3.11",
                                hashlib.sha256(n.encode() + b"m").hexdigest()) for n in names)


def bundle(name: str, sha256: str) -> str:
    """A one-line ``.jsonl`` of a Sigstore bundle whose statement names ``name`` (unsigned: the
    index converts bundles, it verifies no signature)."""
    statement = {"_type": "https://in-toto.io/Statement/v1", "subject": [{"name": name, "digest": {"sha256": sha256}}],
                 "predicateType": "https://slsa.dev/provenance/v1",
                 "predicate": {"buildDefinition": {"externalParameters": {"workflow": {
                     "repository": "https://github.com/example/jax-rocm-release",
                     "path": ".github/workflows/nightly.yml"}}}}}
    return json.dumps({"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
                       "verificationMaterial": {"certificate": {"rawBytes": base64.b64encode(b"c" * 700).decode()},
                                                "tlogEntries": [{"logIndex": "1", "kindVersion": {"kind": "dsse"}}]},
                       "dsseEnvelope": {"payload": base64.b64encode(json.dumps(statement).encode()).decode(),
                                        "payloadType": "application/vnd.in-toto+json",
                                        "signatures": [{"sig": base64.b64encode(b"s" * 70).decode()}]}}) + "\n"


def _additions(folder: Path, wheels: list[Path], facts: bool) -> list[Path]:
    """Each wheel's bundle and (``facts``: as publish now makes it) its stored PEP 740 object."""
    made = []
    for wheel in wheels:
        path = folder / (wheel.name + ".jsonl")
        sha256 = hashlib.sha256(wheel.read_bytes()).hexdigest()
        path.write_text(bundle(wheel.name, sha256))
        made.append(path)
        stored = stored_provenance.encode(path.read_bytes(), wheel.name, sha256) if facts else None
        if stored is not None:
            made.append(folder / stored_provenance.file_name(wheel.name))
            made[-1].write_bytes(stored)
    return made


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def _record_body(body: str, version: str, wheels: list[Path], facts: bool, first_version: str) -> str:
    """The notes publish and validate leave: the first release's text for ``version``, the
    public files it was validated with, and (``facts``) what the index lists of each wheel
    (``release.publish.wheel_record``, with its bundle's and stored object's sha256; a store
    published before that record has none)."""
    base = notes.read(body)
    return notes.write(dataclasses.replace(
        base, text=base.text.replace(first_version, version), validated_with=validated_with(version),
        index_facts=wheel_record.to_text(wheel_record.of_wheel(
            w, hashlib.sha256(w.read_bytes()).hexdigest(), _digest(w.with_name(w.name + ".jsonl")),
            _digest(w.with_name(stored_provenance.file_name(w.name)))) for w in wheels) if facts else None))


def make_store(root: Path, nightlies: int, facts: bool = True) -> Path:
    """The store of ``season(nightlies)`` under ``root``; its directory. ``facts``: each
    release's notes record its wheels' index facts, as publish now writes them."""
    directory = root / f"store-{nightlies}{'' if facts else '-old'}"
    releases = season(nightlies)
    first_version, first_time, _ = releases[0]
    store = LocalStore(directory, clock=lambda: first_time)
    dist = build_dist(root / "dists", first_version, pythons=PYTHONS)
    release_dist(store, dist)  # one release the tool wrote: the layout every other one copies
    shutil.rmtree(dist)
    template = json.loads((directory / "1" / "release.json").read_text())
    first_wheels = sorted((directory / "1" / "assets").glob("*.whl"))
    for path in _additions(directory / "1" / "assets", first_wheels, facts):
        data = path.read_bytes()
        template["assets"].append({**template["assets"][-1], "digest": hashlib.sha256(data).hexdigest(),
                                   "id": 10**9 + len(template["assets"]), "name": path.name, "size": len(data)})
    template["body"] = _record_body(template["body"], first_version, first_wheels, facts, first_version)
    (directory / "1" / "release.json").write_text(json.dumps(template, indent=2, sort_keys=True) + "\n")
    state = json.loads((directory / "store.json").read_text())
    deps = load_deps(REPO_ROOT / "deps.yaml")
    next_id = state["next_id"]
    for version, when, majors in releases[1:]:
        rid, next_id = next_id, next_id + 1
        folder = directory / str(rid) / "assets"
        folder.mkdir(parents=True)
        revisions = RevisionMap.from_deps(deps, version, "0" * 40)
        wheels = _wheels(folder, version, majors, revisions.commit_info_py())
        files = [*wheels, *(core_metadata.write_beside(w) for w in wheels), *_additions(folder, wheels, facts)]
        (folder / naming.REVISIONS_ASSET).write_text(revisions.dumps())
        files.append(folder / naming.REVISIONS_ASSET)
        assets = []
        for path in files:
            data = path.read_bytes()
            assets.append({"digest": hashlib.sha256(data).hexdigest(), "id": next_id, "name": path.name,
                           "size": len(data)})
            next_id += 1
        stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
        record = {**template, "id": rid, "tag": naming.release_tag(version), "name": f"jax-rocm {version}",
                  "body": _record_body(template["body"], version, wheels, facts, first_version), "assets": assets,
                  "created_at": stamp, "published_at": stamp,
                  "prerelease": ".dev" in version or "rc" in version}
        (directory / str(rid) / "release.json").write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    state["next_id"] = next_id
    (directory / "store.json").write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    return directory
