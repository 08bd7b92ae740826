"""Garbage collections in larger batches while a command builds objects that all live until it
ends: the index makes hundreds of thousands of them for a season (records, assets, rows, pages),
and CPython's default, a young collection every 700 new containers and every tenth one a walk of
the older generation, spends about 180 collections and 0.1 s CPU of a 365-night run on them
without freeing anything. A young collection walks every container made since the last one,
so even 20,000 a batch cost three walks of about 8 ms each a 365-night run, and the run makes
no cyclic garbage (a collection after it finds none): the batch is larger than a run of 3,650
nightlies makes. Raising the first threshold for the duration still collects every cycle,
later; the thresholds are put back after (what the block made moved to the oldest generation
without a walk), and a collector turned off stays off."""

from __future__ import annotations

import gc

BATCH = 1_000_000  # new containers between young collections: none in a season run of 3,650 nightlies


class larger_batches:  # noqa: N801 (a context manager named as the function it was)
    """The first threshold at least ``first`` inside the block (never lowered; 0, collection
    off, left so); the thresholds as they were after it, however it ends, and what it made in
    the oldest generation (unless someone froze objects: theirs stay frozen). A class, not a
    generator: mutation testing reaches its lines."""

    def __init__(self, first: int = BATCH):
        self.first = first
        self.before: tuple[int, ...] = ()

    def __enter__(self) -> None:
        self.before = gc.get_threshold()
        if self.before[0] != 0 and self.before[0] < self.first:
            gc.set_threshold(self.first, *self.before[1:])

    def __exit__(self, *exc: object) -> None:
        gc.set_threshold(*self.before)
        if gc.get_freeze_count() == 0:  # (never letting go of objects someone else froze)
            # what the block made goes to the oldest generation without a walk: past the restored
            # threshold, the next allocation would start a young collection of all of it (8-12 ms
            # after a season's run); a cycle among it is still collected, by a full collection
            gc.freeze()
            gc.unfreeze()
