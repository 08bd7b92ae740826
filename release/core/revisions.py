"""The revision map: which xla, jax and plugin commits went into a build.

One object, rendered three ways from the same data so they cannot disagree:
``revisions.json`` (a release asset), ``commit_info.py`` (inside both wheels)
and a Markdown table (in the release notes).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping  # isinstance through typing's alias costs a detour a check
from typing import TYPE_CHECKING

from release.core import sanitize
from release.core.redact import display_url

if TYPE_CHECKING:  # not imported at run time: verify needs no YAML parser
    from release.core.config import Deps

SCHEMA = 1
# rocm-jax's historical commit_info.py keys, kept so existing readers keep working.
LEGACY_KEYS = {"xla": "ROCm/xla", "plugin": "ROCm/rocm-jax", "jax": "jax"}


REQUIRED_KEYS = ("url", "branch", "commit")
# What the plugin's workspace file says on top of the commit (a via dep): part of what was built.
OPTIONAL_KEYS = ("archive_sha256", "patches")


@dataclasses.dataclass(frozen=True)
class Revision:
    """What one dep was built from: its URL (no credentials), branch, commit, archive and patches."""

    url: str
    branch: str
    commit: str
    archive_sha256: str | None = None
    patches: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """url, branch, commit; the optional keys only when the source file pins them."""
        data: dict[str, str | list[str]] = {"url": self.url, "branch": self.branch, "commit": self.commit}
        if self.archive_sha256:
            data["archive_sha256"] = self.archive_sha256
        if self.patches:
            data["patches"] = list(self.patches)
        return data

    def commit_url(self) -> str | None:
        base = github_base(self.url)
        return f"{base}/commit/{self.commit}" if base else None


@dataclasses.dataclass(frozen=True)
class RevisionMap:
    """The sources a version was built from, as wheels, notes and revisions.json carry them."""

    version: str
    revisions: tuple[tuple[str, Revision], ...]
    release_commit: str | None = None  # this repository's commit, when known

    @classmethod
    def from_deps(cls, deps: Deps, version: str, release_commit: str | None = None) -> "RevisionMap":
        # URLs without credentials: the map goes into wheels, release notes and revisions.json.
        return cls(version, tuple((d.name, Revision(display_url(d.url), d.branch, d.commit,
                                                    d.archive_sha256, d.patches))
                                  for d in deps), release_commit)

    def __getitem__(self, name: str) -> Revision:
        return dict(self.revisions)[name]

    @property
    def commits(self) -> dict[str, str]:
        """``{dep name: sha}``."""
        return {name: rev.commit for name, rev in self.revisions}

    def legacy_commits(self) -> dict[str, str]:
        """The map keyed as rocm-jax's ``commit_info.commits`` was."""
        return {LEGACY_KEYS.get(name, name): rev.commit for name, rev in self.revisions}

    def to_json(self) -> dict:
        return {
            "schema": SCHEMA,
            "version": self.version,
            "deps": {n: r.to_json() for n, r in self.revisions},
            "commits": self.legacy_commits(),
            "release_commit": self.release_commit,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=False) + "\n"

    @classmethod
    def from_json(cls, data: Mapping) -> "RevisionMap":
        if not isinstance(data, Mapping) or data.get("schema") != SCHEMA:
            raise ValueError(f"not a schema-{SCHEMA} revision map")
        deps = data.get("deps")
        if not isinstance(deps, Mapping) or not deps:
            raise ValueError("revision map has no deps")
        revs = []
        for name, rev in deps.items():
            if not is_revision(rev):
                raise ValueError(f"revision map entry {name!r} is not {{url, branch, commit"
                                 f"[, {', '.join(OPTIONAL_KEYS)}]}}")
            if not re.fullmatch(r"[0-9a-f]{40}", str(rev["commit"])):
                raise ValueError(f"revision map entry {name!r} has commit {rev['commit']!r}")
            revs.append((name, Revision(rev["url"], rev["branch"], rev["commit"], rev.get("archive_sha256"),
                                        tuple(rev.get("patches") or ()))))
        result = cls(str(data.get("version")), tuple(revs), data.get("release_commit"))
        if data.get("commits") != result.legacy_commits():
            raise ValueError("revision map 'commits' disagrees with 'deps'")
        return result

    @classmethod
    def loads(cls, text: str) -> "RevisionMap":
        return cls.from_json(json.loads(text))

    def same_sources(self, other: "RevisionMap") -> bool:
        """True when both maps pin the same commits and come from the same release commit."""
        return self.commits == other.commits and self.release_commit == other.release_commit

    def commit_info_py(self) -> str:
        """Source of ``commit_info.py`` as shipped in both wheels."""
        full = {n: r.to_json() for n, r in self.revisions}
        return (
            '"""Revisions this wheel was built from (written by the release tool)."""\n\n'
            f"version = {self.version!r}\n"
            f"commits = {self.legacy_commits()!r}\n"
            f"revisions = {full!r}\n"
            f"release_commit = {self.release_commit!r}\n"
        )

    def markdown(self) -> str:
        lines = ["| repository | branch | commit | archive sha256, patches |", "|---|---|---|---|"]
        for name, rev in self.revisions:
            url = rev.commit_url()
            sha = f"[`{rev.commit[:12]}`]({url})" if url else f"`{rev.commit[:12]}`"
            extra = ([f"`{sanitize.code(rev.archive_sha256[:12], in_table=True)}`"] if rev.archive_sha256
                     else []) + [f"`{sanitize.code(p.rsplit(':', 1)[-1], in_table=True)}`" for p in rev.patches]
            lines.append(f"| {sanitize.markdown(name)} ({sanitize.markdown(rev.url)}) | "
                         f"`{sanitize.code(rev.branch, in_table=True)}` | {sha} | {', '.join(extra) or '-'} |")
        return "\n".join(lines) + "\n"


def is_revision(rev: object) -> bool:
    """Whether ``rev`` is one entry of a revision map (older maps lack the optional keys)."""
    if not isinstance(rev, Mapping) or not set(REQUIRED_KEYS) <= set(rev) <= set(REQUIRED_KEYS + OPTIONAL_KEYS):
        return False
    patches = rev.get("patches", [])
    return (rev.get("archive_sha256") is None or isinstance(rev["archive_sha256"], str)) and \
        isinstance(patches, list) and all(isinstance(p, str) for p in patches)


def github_base(url: str) -> str | None:
    """``https://github.com/o/r`` for a GitHub remote URL, else None."""
    m = re.match(r"^(?:https://|git@|ssh://git@)github\.com[/:]([^/]+)/([^/]+?)(?:\.git)?/?$",
                 display_url(url))
    return f"https://github.com/{m.group(1)}/{m.group(2)}" if m else None
