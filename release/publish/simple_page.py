"""The one reader of a simple-API project page: PEP 691 JSON or PEP 503 HTML, as ``PageFile`` entries.

Three callers read pages of a public index, each for its own question: what files (and sha256)
an index holds before an upload (``pypi_index.index_files``), their sizes for the PyPI budget
(``pypi_budget.project_files``), and how the public index describes the files a validated set
was installed with (``check.public_set``). They read through this module and keep their own
checks on top: which fields they need, and what a field that is there but unreadable means.

What is refused: the page's shape. JSON that is not an object with a ``files`` list of objects
each with a ``filename`` string (or nested too deep, ``release.core.bounded``) is a
``PageError``, one line saying what was expected. A field of an entry that is present but not
what the PEPs say (a size that is no non-negative integer, a yanked that is no bool or string)
reads as None and is named in ``PageFile.invalid``, so a caller that needs it can refuse the
page and one that does not still reads the rest. HTML is read leniently, as pip does: each
anchor with an ``href`` is a file, named by its text.

Fields: ``hashes`` (``#<algo>=<digest>`` in HTML; the sha256 lower case), ``requires-python``
(PEP 503 ``data-requires-python``), ``yanked`` (PEP 592: the reason, ``""`` when none was
given, None when not yanked), ``core-metadata`` / ``dist-info-metadata`` (PEP 658/714:
whether a metadata file is served, and its sha256 when named), ``size`` and ``upload-time``
(PEP 700, JSON only), ``provenance`` (PEP 740). URLs are made absolute against the page's URL.
"""

from __future__ import annotations

import dataclasses
import html
import re
import urllib.parse

from release.core import bounded

_ANCHOR = re.compile(r"<a\s([^>]*)>([^<]*)</a>", re.I | re.S)
_ATTR = re.compile(r"""([a-z0-9:_-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_DIGEST = re.compile(r"[0-9a-f]{64}")


class PageError(ValueError):
    """A page that is no simple-API project page; the text is one line saying what was expected."""


@dataclasses.dataclass(frozen=True)
class PageFile:
    """One file a project page lists (see the module docstring for each field)."""

    filename: str
    url: str | None
    hashes: tuple[tuple[str, str], ...] = ()
    requires_python: str | None = None
    yanked: str | None = None
    has_metadata: bool = False
    metadata_sha256: str | None = None
    size: int | None = None
    upload_time: str | None = None
    provenance: str | None = None
    invalid: frozenset[str] = frozenset()  # fields present but unreadable (read as None)

    @property
    def sha256(self) -> str | None:
        return dict(self.hashes).get("sha256")


def read(content_type: str, text: str | bytes, page_url: str = "") -> list[PageFile]:
    """The files of a project page, in the page's order: PEP 691 JSON when ``content_type``
    says JSON, else PEP 503 HTML; ``PageError`` for a JSON answer of another shape."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if "json" in content_type.lower():
        return _json(text, page_url)
    return _html(text, page_url)


def _absolute(page_url: str, url: str | None) -> str | None:
    return urllib.parse.urljoin(page_url, url) if url is not None and page_url else url


def _metadata(value: object) -> tuple[bool, str | None, bool]:
    """(served, its sha256, readable) of a PEP 658 value: JSON bool or ``{"sha256": ...}``,
    HTML ``true`` or ``sha256=<digest>``."""
    if value is None or value is False:
        return False, None, True
    if value is True or value == "true":
        return True, None, True
    if isinstance(value, dict):
        digest = value.get("sha256")
        if digest is None:
            return True, None, all(isinstance(v, str) for v in value.values())
        ok = isinstance(digest, str) and _DIGEST.fullmatch(digest.lower()) is not None
        return True, digest.lower() if ok else None, ok
    if isinstance(value, str):
        algo, _, digest = value.partition("=")
        if algo and digest:
            ok = algo != "sha256" or _DIGEST.fullmatch(digest.lower()) is not None
            return True, digest.lower() if algo == "sha256" and ok else None, ok
    return False, None, False


def _typed(entry: dict, key: str, kinds: tuple[type, ...], bad: set[str]) -> object:
    """``entry[key]`` when absent (None) or of one of ``kinds`` (a bool is no int here); else
    None, and ``key`` is added to ``bad``."""
    value = entry.get(key)
    if value is None or (isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool))):
        return value
    bad.add(key)
    return None


def _json_file(entry: dict, page_url: str) -> PageFile:
    bad: set[str] = set()
    url = _typed(entry, "url", (str,), bad)
    hashes = _typed(entry, "hashes", (dict,), bad) or {}
    assert isinstance(hashes, dict)
    pairs = tuple(sorted((str(k), v.lower()) for k, v in hashes.items() if isinstance(v, str) and v))
    if len(pairs) != len(hashes):
        bad.add("hashes")
    size = _typed(entry, "size", (int,), bad)
    if isinstance(size, int) and size < 0:
        bad.add("size")
        size = None
    yanked = _typed(entry, "yanked", (bool, str), bad)
    meta_key = "core-metadata" if "core-metadata" in entry else "dist-info-metadata"
    served, meta_sha, readable = _metadata(entry.get(meta_key))
    if not readable:
        bad.add(meta_key)
    requires = _typed(entry, "requires-python", (str,), bad)
    uploaded = _typed(entry, "upload-time", (str,), bad)
    provenance = _typed(entry, "provenance", (str,), bad)
    return PageFile(
        filename=entry["filename"], url=_absolute(page_url, url) if isinstance(url, str) else None, hashes=pairs,
        requires_python=requires or None if isinstance(requires, str) else None,
        yanked=None if yanked is None or yanked is False else "" if yanked is True else str(yanked),
        has_metadata=served, metadata_sha256=meta_sha, size=size if isinstance(size, int) else None,
        upload_time=uploaded if isinstance(uploaded, str) else None,
        provenance=_absolute(page_url, provenance) if isinstance(provenance, str) else None,
        invalid=frozenset(bad))


def _json(text: str, page_url: str) -> list[PageFile]:
    try:
        data = bounded.json_loads(text)
    except ValueError as exc:
        raise PageError(f"not a PEP 691 project page: not JSON we can read ({exc})") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        raise PageError("not a PEP 691 project page: expected a JSON object with a list of files")
    out = []
    for i, entry in enumerate(files):
        if not isinstance(entry, dict) or not isinstance(entry.get("filename"), str) or not entry["filename"]:
            raise PageError(f"not a PEP 691 project page: files[{i}] is no object with a filename")
        out.append(_json_file(entry, page_url))
    return out


def _html(text: str, page_url: str) -> list[PageFile]:
    out = []
    for attrs_text, label in _ANCHOR.findall(text):
        attrs: dict[str, str] = {}
        for key, a, b in _ATTR.findall(attrs_text):
            attrs.setdefault(key.lower(), html.unescape(a or b))
        if "href" not in attrs:
            continue
        href, _, fragment = attrs["href"].partition("#")
        algo, _, digest = fragment.partition("=")
        meta_key = "data-core-metadata" if "data-core-metadata" in attrs else "data-dist-info-metadata"
        served, meta_sha, readable = _metadata(attrs.get(meta_key))
        out.append(PageFile(
            filename=html.unescape(label).strip(), url=_absolute(page_url, href),
            hashes=((algo.lower(), digest.lower()),) if algo and digest else (),
            requires_python=attrs.get("data-requires-python") or None, yanked=attrs.get("data-yanked"),
            has_metadata=served, metadata_sha256=meta_sha,
            provenance=_absolute(page_url, attrs["data-provenance"]) if "data-provenance" in attrs else None,
            invalid=frozenset() if readable else frozenset({meta_key})))
    return out
