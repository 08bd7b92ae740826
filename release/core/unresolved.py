"""A host name that does not resolve, told apart from the other ways a connection fails.

A reset connection or a 5xx may pass in seconds and earns retries with backoff; a name the
resolver says does not exist (a mistyped ``GITHUB_API_URL``, a runner without DNS) will not
exist 30 s later either, so its one line should come at once, and a "temporary failure" after
one short retry. Nothing was sent, so no write is left uncertain. requests wraps the resolver's
``socket.gaierror`` a few levels down (``ConnectionError`` -> ``MaxRetryError`` ->
``NameResolutionError`` -> ``gaierror``); ``lookup_error`` finds it without importing urllib3.
"""

from __future__ import annotations

import socket

# The resolver's "there is no such name" answers (the others, EAI_AGAIN above all, may pass).
_NO_SUCH_NAME = frozenset(getattr(socket, name) for name in ("EAI_NONAME", "EAI_NODATA", "EAI_ADDRFAMILY")
                          if hasattr(socket, name))


def lookup_error(exc: object, _seen: frozenset[int] = frozenset()) -> socket.gaierror | None:
    """The resolver's error somewhere inside ``exc`` (its causes, contexts, arguments and a
    urllib3 ``reason``), or None when the connection failed for another reason. Depth first; an
    exception met again on the way down (a cycle of contexts) is not followed twice."""
    if not isinstance(exc, BaseException) or id(exc) in _seen:
        return None
    if isinstance(exc, socket.gaierror):
        return exc
    seen = _seen | {id(exc)}
    for inner in (exc.__cause__, exc.__context__, getattr(exc, "reason", None), *exc.args):
        found = lookup_error(inner, seen)
        if found is not None:
            return found
    return None


def no_such_name(error: socket.gaierror) -> bool:
    """The resolver said the name does not exist: asking again will not change its answer."""
    return error.errno in _NO_SUCH_NAME


def said(error: socket.gaierror) -> str:
    """The resolver's words ("Name or service not known"), without the errno."""
    return error.strerror or str(error)
