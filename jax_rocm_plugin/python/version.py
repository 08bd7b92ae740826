"""Version of this wheel, following jax's version.py contract.

The release tool rewrites ``_version``, ``_release_version`` and ``_git_hash``
when it builds the wheel, so ``__version__`` is the version the wheel was
published as. Run from a source tree (nothing rewritten), it falls back to a
dev version of today, as jax does.
"""

import datetime as _datetime

_version = "0.0.0"
_release_version = None
_git_hash = None


def _get_version_string() -> str:
    if _release_version is not None:
        return _release_version
    stamp = _datetime.datetime.now(_datetime.timezone.utc).strftime("%Y%m%d")
    suffix = f"+{_git_hash[:9]}" if _git_hash else ""
    return f"{_version}.dev{stamp}{suffix}"


__version__ = _get_version_string()
_version_tuple = tuple(int(part) for part in _version.split("."))
