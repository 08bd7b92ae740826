"""Byte ranges of release assets, so the index reads a wheel's end without downloading it.

Two ways in: an asset's public download URL (no token and no API request, so none of the rate
limit; a private repository answers 401, 403 or 404 there), or the API's asset URL, which
answers with a redirect to the storage host (which gets no token). Both retry as every remote
call of ``GitHubClient`` does, within its deadline; the deadline holds while the bytes come in
too (a host that drips them is cut off).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Callable

from release.core.deadline import DeadlineExceeded, wall_clock_limit
from release.sources.github import (
    BINARY_MEDIA,
    CHUNK,
    MIN_LEFT,
    GitHubClient,
    GitHubRefused,
    GitHubUnavailable,
    MalformedAnswer,
    _path_of,
)

if TYPE_CHECKING:
    import requests


def _in_time(client: GitHubClient, began: float, where: str, read: Callable[[], bytes | None]) -> bytes | None:
    """``read()`` within what is left of the client's deadline, else ``GitHubUnavailable``."""
    try:
        with wall_clock_limit(max(client.deadline - (client.clock() - began), MIN_LEFT)):
            return read()
    except DeadlineExceeded:
        raise GitHubUnavailable("GET", where, None, "range read not complete within the "
                                f"{client.deadline:.0f} s deadline") from None


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


def _storage_range(client: GitHubClient, response: requests.Response, start: int, length: int) -> bytes:
    stream = (client._storage_get(response.headers["Location"], {"Range": f"bytes={start}-{start + length - 1}"})
              if response.is_redirect else response)
    return _ranged_body(stream, start, length)


def _public_range(client: GitHubClient, url: str, start: int, length: int) -> bytes | None:
    import requests
    stream = requests.get(url, stream=True, timeout=client.timeout,
                          headers={"User-Agent": "jax-rocm-release", "Range": f"bytes={start}-{start + length - 1}"})
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
    import requests
    if length <= 0:
        return b""
    attempt, backoff, began = 0, 1.0, client.clock()
    while True:
        attempt += 1
        response = client.send("GET", asset_url, headers={"Accept": BINARY_MEDIA}, allow_redirects=False)
        try:
            if response.is_redirect and not response.headers.get("Location"):
                raise MalformedAnswer(f"GET {_path_of(asset_url)}", "a redirect without a Location",
                                      response.status_code)
            return _in_time(client, began, "<asset storage>",
                            functools.partial(_storage_range, client, response, start, length)) or b""
        except requests.RequestException as exc:
            client._retry_or_raise("GET", "<asset storage>", None,
                                   f"range read interrupted ({type(exc).__name__})", attempt, began, backoff)
            backoff *= 2


def read_public_range(client: GitHubClient, url: str, start: int, length: int) -> bytes | None:
    """The same range from an asset's public download URL, without the token and without an
    API request (none of the rate limit is spent); None when the URL needs credentials (a
    private repository: 401, 403 or 404), so the caller asks the API instead."""
    import requests
    attempt, backoff, began = 0, 1.0, client.clock()
    while True:
        attempt += 1
        try:
            return _in_time(client, began, "<asset download>",
                            functools.partial(_public_range, client, url, start, length))
        except requests.RequestException as exc:
            client._retry_or_raise("GET", "<asset download>", None,
                                   f"range read interrupted ({type(exc).__name__})", attempt, began, backoff)
            backoff *= 2
