"""Byte ranges of release assets, so the index reads a wheel's end without downloading it.

Two ways in: an asset's public download URL (no token and no API request, so none of the rate
limit; a private repository answers 401, 403 or 404 there), or the API's asset URL, which
answers with a redirect to the storage host (which gets no token). Both go through the client's
``transfer``, so they retry as every remote call of ``GitHubClient`` does, within its deadline,
which holds while the bytes come in too (a host that drips them is cut off).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.sources.github import CHUNK, GitHubClient, GitHubRefused

if TYPE_CHECKING:
    import requests


def _ranged_body(stream: requests.Response, start: int, length: int) -> bytes:
    """The range's bytes from an answer: a 206 is the range; a host that ignored Range (200)
    is read only up to the range's end."""
    skip = 0 if stream.status_code == 206 else start
    data = bytearray()
    for chunk in stream.iter_content(CHUNK):
        data += chunk
        if len(data) >= skip + length:
            break
    stream.close()
    return bytes(data[skip:skip + length])


def _range_header(start: int, length: int) -> dict[str, str]:
    return {"Range": f"bytes={start}-{start + length - 1}"}


def _public_range(client: GitHubClient, url: str, start: int, length: int) -> bytes | None:
    import requests
    stream = requests.get(url, stream=True, timeout=client.timeout,
                          headers={"User-Agent": "jax-rocm-release", **_range_header(start, length)})
    if stream.status_code in (401, 403, 404):
        stream.close()
        return None
    if stream.status_code >= 500:
        raise requests.HTTPError(f"download host answered {stream.status_code}")
    if stream.status_code >= 400:
        raise GitHubRefused("GET", "<asset download>", stream.status_code, "range read refused")
    return _ranged_body(stream, start, length)


def read_range(client: GitHubClient, asset_url: str, start: int, length: int) -> bytes:
    """``length`` bytes of an asset from ``start`` (an HTTP Range read at the storage host,
    which gets no token); a host that ignores Range is read only up to the range's end."""
    if length <= 0:
        return b""
    return client.transfer("<asset storage>", "range read", lambda: _ranged_body(
        client.asset_stream(asset_url, _range_header(start, length)), start, length))


def read_public_range(client: GitHubClient, url: str, start: int, length: int) -> bytes | None:
    """The same range from an asset's public download URL, without the token and without an
    API request (none of the rate limit is spent); None when the URL needs credentials (a
    private repository: 401, 403 or 404), so the caller asks the API instead."""
    return client.transfer("<asset download>", "range read",
                           lambda: _public_range(client, url, start, length))
