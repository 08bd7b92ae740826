"""The index collects garbage in larger batches while it builds (``release.core.gc_batches``):
the first threshold is raised for the duration, never lowered, a collector turned off stays off,
and the thresholds are put back however the block ends."""

from __future__ import annotations

import gc
import weakref

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


class _Node:
    me: object = None


def test_what_the_block_made_goes_old_without_a_walk_and_its_cycles_are_still_collected(thresholds):
    """Past the restored first threshold, the next allocation would walk everything the block
    made (8-12 ms after a season's index): it goes to the oldest generation instead, and a cycle
    made in the block is still collected, by a full collection."""
    gc.set_threshold(700, 10, 10)
    seen: list[int] = []

    def watch(phase, info):
        if phase == "start":
            seen.append(info["generation"])

    with larger_batches():
        made = [[] for _ in range(5000)]  # young containers, far past the first threshold put back
        cycle = _Node()
        cycle.me = cycle
        alive = weakref.ref(cycle)
        del cycle
    gc.callbacks.append(watch)
    try:
        more = [[] for _ in range(100)]  # allocations after the block: no collection of what it made
    finally:
        gc.callbacks.remove(watch)
    assert seen == [] and gc.get_freeze_count() == 0 and len(made) + len(more) == 5100
    assert alive() is not None
    gc.collect()
    assert alive() is None


def test_objects_someone_froze_stay_frozen(thresholds):
    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        with larger_batches():
            _ = [[] for _ in range(100)]
        assert gc.get_freeze_count() > 0  # (not equal: a frozen object freed meanwhile leaves the count)
    finally:
        gc.unfreeze()
