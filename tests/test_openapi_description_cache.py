"""The GitHub stand-in's parsed description, kept under .cache/ between processes, is always the
description file's current content: a changed file is parsed again, a damaged entry is not trusted."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tests.support.fake_github import read_description, schema_instance

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12)
DESCRIPTION = st.dictionaries(st.text(max_size=8), JSON, max_size=4)


@given(first=DESCRIPTION, second=DESCRIPTION)
def test_a_changed_description_file_is_read_again(tmp_path_factory, first, second):
    work = tmp_path_factory.mktemp("d")
    path, cache = work / "api.json", work / "cache"
    path.write_text(json.dumps(first))
    assert read_description(path, cache) == first
    assert read_description(path, cache) == first  # from the entry the first read wrote
    assert len(list(cache.iterdir())) == 1
    path.write_text(json.dumps(second))
    assert read_description(path, cache) == second
    path.write_text(json.dumps(first))
    assert read_description(path, cache) == first


def test_the_entry_is_what_later_reads_load(tmp_path):
    import marshal
    path, cache = tmp_path / "api.json", tmp_path / "cache"
    path.write_text(json.dumps({"paths": {"/a": {}}}))
    read_description(path, cache)
    (entry,) = cache.iterdir()
    entry.write_bytes(marshal.dumps({"paths": {"/from-the-entry": {}}}))
    assert read_description(path, cache) == {"paths": {"/from-the-entry": {}}}


def test_a_damaged_or_foreign_entry_is_parsed_again_and_replaced(tmp_path):
    import marshal
    path, cache = tmp_path / "api.json", tmp_path / "cache"
    description = {"openapi": "3.0.3", "paths": {"/r/{id}": {"get": {}}}}
    path.write_text(json.dumps(description))
    read_description(path, cache)
    (entry,) = cache.iterdir()
    good = entry.read_bytes()
    for damaged in (good[: len(good) // 2], b"", b"\xff\x00junk", marshal.dumps(["not", "a", "dict"])):
        entry.write_bytes(damaged)
        assert read_description(path, cache) == description
        assert entry.read_bytes() == good
    assert [p.name for p in cache.iterdir()] == [entry.name]  # no partial file left behind


def test_an_unwritable_cache_still_reads_the_file(tmp_path):
    path = tmp_path / "api.json"
    path.write_text(json.dumps({"paths": {}}))
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache directory would be")
    assert read_description(path, blocker) == {"paths": {}}


@given(names=st.lists(st.sampled_from(["pull-request", "release", "issue", "workflow-run", "job"]),
                      min_size=1, max_size=6))
def test_each_filled_schema_instance_is_the_callers_own(names):
    """schema_instance's objects are worked out once per process, yet each call returns a fresh
    one: what a caller (a stand-in keeping a pull request) changes never reaches the next."""
    from tests.support.fake_github import _fill

    for name in names:
        first = schema_instance(name)
        assert first == _fill({"$ref": f"#/components/schemas/{name}"})
        fresh = json.loads(json.dumps(first))
        _scribble(first)
        assert schema_instance(name) == fresh


def _scribble(value) -> None:
    """Change every dict and list inside ``value`` in place."""
    if isinstance(value, dict):
        for item in list(value.values()):
            _scribble(item)
        value["scribbled"] = True
    elif isinstance(value, list):
        for item in value:
            _scribble(item)
        value.append("scribbled")
