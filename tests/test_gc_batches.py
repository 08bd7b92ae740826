"""The index collects garbage in larger batches while it builds (``release.core.gc_batches``):
the first threshold is raised for the duration, never lowered, a collector turned off stays off,
and the thresholds are put back however the block ends."""

from __future__ import annotations

import gc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from release.core.gc_batches import BATCH, larger_batches
from release.publish.index import IndexRefused, build_site
from release.publish.stores import LocalStore


@pytest.fixture
def thresholds():
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


@given(first=st.sampled_from([0, 1, 700, BATCH - 1, BATCH, BATCH + 1, 10**6]),
       older=st.tuples(st.integers(0, 100), st.integers(0, 100)), raises=st.booleans())
def test_the_first_threshold_is_raised_inside_and_every_one_put_back(thresholds, first, older, raises):
    gc.set_threshold(first, *older)
    with pytest.raises(RuntimeError) if raises else _nothing():
        with larger_batches():
            inside = gc.get_threshold()
            if raises:
                raise RuntimeError("the block fails")
    assert gc.get_threshold() == (first, *older)
    if not raises:
        assert inside == ((0 if first == 0 else max(first, BATCH)), *older)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Watched(LocalStore):
    """A store that notes the collector's thresholds when the index lists it."""

    seen: list = []

    def list_releases(self):
        self.seen.append(gc.get_threshold())
        return super().list_releases()


@pytest.mark.parametrize("first", [700, BATCH * 2])
def test_the_index_builds_in_batches_and_leaves_the_thresholds_as_they_were(tmp_path, thresholds, first):
    gc.set_threshold(first, 10, 10)
    store = _Watched(tmp_path / "store")
    store.seen = []
    with pytest.raises(IndexRefused):  # an empty store: refused, the thresholds put back all the same
        build_site(store, tmp_path / "site")
    assert store.seen == [(max(first, BATCH), 10, 10)]
    assert gc.get_threshold() == (first, 10, 10)
