"""Yanking a published release (PEP 592) instead of deleting it: the record lives in its notes.

A yanked release stays published and its wheels stay at their URLs, so a pin on its exact
version still installs; the index marks its files yanked (``data-yanked`` in HTML, ``yanked`` in
JSON), which pip and uv skip for every other request. The record is ``Notes.yanked`` in the
release's notes (``release.publish.notes``; a published release's assets and tag are immutable,
its notes are not), so the index, rebuilt from empty each night, finds every yank in the store
it reads.
"""

from __future__ import annotations

from release.core import naming
from release.core.errors import UserError
from release.publish import notes
from release.publish.stores import Release, Store

MAX_REASON = 200


def check_reason(reason: str) -> str:
    """One printable line without the marker's end, at most ``MAX_REASON`` characters."""
    text = reason.strip()
    if "\n" in text or "\r" in text or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise UserError("--reason: expected one line of text without control characters")
    if "-->" in text or "--" in text:
        raise UserError("--reason: may not contain '--' (it would end the record in the notes)")
    if len(text) > MAX_REASON:
        raise UserError(f"--reason: {len(text)} characters; expected at most {MAX_REASON}")
    return text


def find_published(store: Store, tag_or_version: str) -> Release:
    tag = naming.tag_of(tag_or_version)
    found = store.published_for(tag)
    if found is None:
        raise UserError(f"{tag}: no published release with this tag in {store.where} "
                        "(only a published release can be yanked)")
    return found


def yank(store: Store, tag_or_version: str, reason: str = "", *, undo: bool = False) -> dict:
    """Record (or, with ``undo``, remove) the yank of a published release; a re-run changes nothing."""
    release = find_published(store, tag_or_version)
    was = notes.of(release).yanked
    if not undo:
        reason = check_reason(reason)
    body = notes.changed(release, yanked=None if undo else reason)
    changed = body != release.body
    if changed:
        store.update_release(release, body=body)
    return {"tag": release.tag, "yanked": not undo, "reason": None if undo else reason,
            "was": was, "changed": changed, "store": store.kind, "where": store.where}
