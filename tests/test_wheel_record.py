"""What the index lists of each wheel is worked out once, when publish makes the draft, and
kept in the release's notes (``release.publish.wheel_record``): the index then reads records,
not wheels, and writes exactly the site reading the wheels writes. A row is used only for the
bytes it was worked out from; a release without rows (published before them) is indexed by
reading its wheels; a value the table cannot hold exactly gets no row."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from release.core.core_metadata import requires_python
from release.publish import notes, wheel_record
from release.publish.index import build_site
from release.publish.stores import LocalStore
from release.publish.wheel_facts import wheel_metadata
from release.publish.wheel_record import Facts
from tests.support.publish_dist import build_dist, release_dist, without_index_facts, write_wheel

PLUGIN = "jax-rocm7-plugin"
_HEX = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
_NAMES = st.sampled_from(["jax_rocm7_plugin-0.9.1-cp312-cp312-manylinux_2_28_x86_64.whl",
                          "jax_rocm7_pjrt-0.9.1.dev20261121-py3-none-manylinux_2_28_x86_64.whl",
                          "a-1-py3-none-any.whl", "a b-1-py3-none-any.whl", "a|b-1-py3-none-any.whl",
                          "a-1.tar.gz", "`a`-1-py3-none-any.whl"])
_REQUIRES = st.none() | st.sampled_from([">=3.11", ">=3.10,<3.15", "  >=3.9 ", ">=3.11,!=3.12.*", "`x`", "a|b",
                                         "<!-- smoke -->", ">=3.11\n  ,<4", "", "-", "<3.13"]) | st.text(max_size=12)


@given(st.lists(st.builds(Facts, _NAMES, _HEX, _REQUIRES, _HEX), max_size=6))
@example([Facts("a-1-py3-none-any.whl", "a" * 64, "`x`", "b" * 64)])
@example([Facts("a-1-py3-none-any.whl", "a" * 64, "-", "b" * 64)])
@example([Facts("a-1-py3-none-any.whl", "a" * 64, ">=3.11\x1e", "b" * 64)])  # a line end to splitlines
def test_a_row_reads_back_as_exactly_its_facts_or_is_not_written(facts):
    text = wheel_record.to_text(facts)
    found = wheel_record.from_text(text)
    written = {f.filename: f for f in {f.filename: f for f in facts}.values() if f.row() is not None}
    assert found == {name: f for name, f in written.items() if name.endswith(".whl")}
    for f in facts:
        assert f.row() is None or wheel_record.from_text(f.row()) in ({f.filename: f}, {})
    assert (text is None) == (not written)  # no rows, no section
    if text is not None:  # a title, a blank line, the table: what GitHub renders as a table
        assert text.split("\n")[:4] == [wheel_record.TITLE, "", *wheel_record.HEAD.split("\n")]
    if text is not None:  # the notes keep it as it is: a record, not text to cut or misread
        record = notes.read(notes.write(notes.Notes(text="## notes", ours=True, index_facts=text)))
        assert record.index_facts == text and wheel_record.from_text(record.index_facts) == found


@given(st.sampled_from(["jax_rocm7_plugin-0.9.1-cp312-cp312-manylinux_2_28_x86_64.whl", "a-1-py3-none-any.whl"]),
       _HEX, st.none() | st.sampled_from([">=3.11", ">=3.10,<3.15", "~=3.12", "<4"]), _HEX)
def test_a_plain_wheel_with_or_without_requires_python_gets_its_row(name, sha256, requires, meta):
    facts = Facts(name, sha256, requires, meta)
    assert facts.row() is not None and wheel_record.from_text(wheel_record.to_text([facts])) == {name: facts}


@given(st.sampled_from([">=3.11", ">=3.10,<3.15", "~=3.12", ">=3.11, <4 ", "`3`", "a|b", "<!--x", "x\n  y"]))
def test_the_recorded_facts_are_what_reading_the_wheel_gives(tmp_path_factory, value):
    path = write_wheel(tmp_path_factory.mktemp("w") / "a-1-py3-none-any.whl", "a", "1", "py3-none-any",
                       {"a/__init__.py": ""}, requires_python=value)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    facts = wheel_record.of_wheel(path, digest)
    meta = wheel_metadata(path)
    assert (facts.requires_python, facts.metadata_sha256) == (requires_python(meta), hashlib.sha256(meta).hexdigest())
    row = wheel_record.recorded(wheel_record.to_text([facts]), path.name, digest)
    assert row in (facts, None) and (row is not None or facts.row() is None)


def _site(store: LocalStore, out: Path) -> tuple[dict, dict[str, bytes]]:
    result = build_site(store, out, site_url="https://example.invalid/jax")
    files = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
             if p.is_file() and p.name != ".index-state.json"}
    return result, files


def test_the_index_reads_the_notes_rows_not_the_wheels_and_writes_the_same_site(tmp_path):
    store = LocalStore(tmp_path / "store")
    dists = [release_dist(store, build_dist(tmp_path / "dist", v)) for v in ("0.9.1.dev20261121", "0.9.1")]
    for dist in dists:  # publish recorded each wheel's facts, as reading it gives them
        rows = wheel_record.from_text(notes.of(store.published_for(dist.tag)).index_facts)
        assert rows == {w.name: wheel_record.of_wheel(w.path, w.digest) for w in dist.wheels}
    recorded, site = _site(store, tmp_path / "site")
    assert recorded["range_reads"] == 0
    without_index_facts(store, dists[0].tag)  # an older release: its wheels are read, the rest not
    mixed, same = _site(store, tmp_path / "site2")
    assert mixed["range_reads"] == len(dists[0].wheels) and same == site  # one read of each small wheel's end
    without_index_facts(store, dists[1].tag)
    read, again = _site(store, tmp_path / "site3")
    assert read["range_reads"] == sum(len(d.wheels) for d in dists) and again == site


def _listed_requires(site: Path) -> dict[str, str | None]:
    files = json.loads((site / "nightly" / PLUGIN / "index.json").read_text())["files"]
    return {f["filename"]: f["requires-python"] for f in files}


def test_a_row_is_used_only_for_the_bytes_whose_sha256_it_names(tmp_path):
    """A wheel replaced since its row was written (or a row edited by hand to name other bytes)
    is read: the store's digest of the asset decides, never the row's name alone."""
    store = LocalStore(tmp_path / "store")
    dist = release_dist(store, build_dist(tmp_path / "dist", "0.9.1.dev20261121"))
    release = store.published_for(dist.tag)
    plugin = next(w for w in dist.wheels if w.name.startswith("jax_rocm7_plugin"))
    truth = wheel_record.of_wheel(plugin.path, plugin.digest)
    for sha256, listed, reads in ((plugin.digest, "<9", 0), ("f" * 64, truth.requires_python, 1)):
        rows = wheel_record.from_text(notes.of(release).index_facts)
        rows[plugin.name] = Facts(plugin.name, sha256, "<9", truth.metadata_sha256)
        release = store.update_release(release, body=notes.changed(
            release, index_facts=wheel_record.to_text(rows.values())))
        result = build_site(store, tmp_path / f"site-{reads}")
        assert _listed_requires(tmp_path / f"site-{reads}")[plugin.name] == listed
        assert result["range_reads"] == reads


@given(st.builds(Facts, _NAMES, _HEX, _REQUIRES, _HEX, st.none() | _HEX, st.none() | _HEX))
def test_a_row_read_is_the_facts_record_itself(facts):
    """A row's Facts are made without the frozen ``__init__``: the same fields in the same order
    (what ``dataclasses.fields`` lists), equal, alike in repr and hash, and frozen."""
    import dataclasses
    assert wheel_record._FIELDS == tuple(f.name for f in dataclasses.fields(Facts))
    row = facts.row()
    if row is None:
        return
    found = wheel_record._read_row(row)
    assert found == facts and repr(found) == repr(facts) and hash(found) == hash(facts)
    assert dataclasses.astuple(found) == dataclasses.astuple(facts)
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.sha256 = "0" * 64  # type: ignore[misc]
