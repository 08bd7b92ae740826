"""What a season checks after every day it publishes, for the CI season and the real replay alike.

``tests/test_season.py`` (a generated season on the GitHub stand-in) and ``benchmarks/season.py``
(the real histories, a local store) hold the same rules with these helpers:

- ``Ledger``: nothing published is lost. Every tag ever seen published is still published, or
  is a nightly that ``keep`` newer nightlies (PEP 440 order) outrank: gc's rule, stated anew;
  and each new version sorts above what its line published before (a nightly may sit below an
  rc).
- ``listing_problems``: the site lists every release, rc and post release the store has, and
  exactly the newest ``keep`` nightlies.
- ``expected_picks`` / ``resolver_problems``: what pip and uv take from the served site equals
  the newest version by ``packaging.version`` for each channel, unpinned and per line pinned
  (``==X.Y.Z.*``): the newest of each channel wins, a pinned line installs its newest.
- ``site_bytes``: the bytes a Pages deployment of the site would carry (1 GB limit).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterable

from packaging.version import InvalidVersion, Version

PAGES_LIMIT = 1_000_000_000  # GitHub Pages: a published site is at most 1 GB
TAG_PREFIX = "rocm-jax-v"


def kind_of(version: Version) -> str:
    """``nightly``, ``rc``, ``release`` or ``post``: the channel a version belongs to."""
    if version.is_devrelease:
        return "nightly"
    if version.pre:
        return "rc"
    return "post" if version.is_postrelease else "release"


def channel_of(version: Version) -> str:
    return "nightly" if kind_of(version) == "nightly" else "stable"


def published_versions(tags: Iterable[str]) -> dict[str, Version]:
    """``{tag: version}`` of this tool's tags among ``tags`` (those of the published releases)."""
    out = {}
    for tag in tags:
        if not tag.startswith(TAG_PREFIX):
            continue
        try:
            out[tag] = Version(tag.removeprefix(TAG_PREFIX))
        except InvalidVersion:
            continue
    return out


class Ledger:
    """Every tag ever seen published, with its version; ``lost`` names what went missing unlawfully."""

    def __init__(self) -> None:
        self.seen: dict[str, Version] = {}

    def sorts_below(self, now: dict[str, Version]) -> list[str]:
        """Tags new in ``now`` that sort at or below a version their line published before (a
        nightly may sit below an rc: nightlies go on under a published rc). Call before ``lost``."""
        problems = []
        for tag, version in sorted(now.items()):
            if tag in self.seen:
                continue
            under = [p for p in self.seen.values() if p.base_version == version.base_version and p >= version
                     and not (kind_of(version) == "nightly" and kind_of(p) == "rc")]
            if under:
                problems.append(f"{version} published at or below {max(under)} of its line")
        return problems

    def lost(self, now: dict[str, Version], keep: int) -> list[str]:
        """Tags seen before and gone now that gc's rule (the newest ``keep`` nightlies of each line
        ``X.Y`` stay, nothing else is ever collected) did not let go; then ``now`` joins the ledger."""
        nightlies = [v for v in now.values() if kind_of(v) == "nightly"]
        gone = []
        for tag, version in sorted(self.seen.items()):
            if tag in now:
                continue
            newer = sum(1 for v in nightlies if v > version and xy(v) == xy(version))
            if kind_of(version) != "nightly" or newer < keep:
                gone.append(tag)
        self.seen.update(now)
        return gone


def xy(version: Version) -> tuple[int, int]:
    """A version's line ``X.Y``: gc and the index keep the newest nightlies of each line apart."""
    return version.release[0], (*version.release, 0)[1]


def expected_collected(nightlies: list[Version], keep: int) -> int:
    """How many of these nightlies the per-line rule lets go."""
    return sum(1 for v in nightlies if sum(1 for n in nightlies if n > v and xy(n) == xy(v)) >= keep)


def site_bytes(site: Path) -> int:
    return sum(p.stat().st_size for p in Path(site).rglob("*") if p.is_file())


def listed(site: Path, project: str) -> dict[str, list[Version]]:
    """``{channel: [versions]}`` the site's PEP 691 pages list for ``project``."""
    out = {}
    for channel in ("nightly", "stable"):
        page = Path(site) / channel / project / "index.json"
        out[channel] = [Version(v) for v in json.loads(page.read_text())["versions"]] if page.is_file() else []
    return out


def listing_problems(site_listed: dict[str, list[Version]], published: dict[str, Version], keep: int) -> list[str]:
    """The site lists all of stable and the newest ``keep`` nightlies of each line ``X.Y``, and
    nothing else."""
    nightlies = sorted((v for v in published.values() if kind_of(v) == "nightly"), reverse=True)
    want = {"nightly": {v for v in nightlies if sum(1 for n in nightlies if n > v and xy(n) == xy(v)) < keep},
            "stable": {v for v in published.values() if kind_of(v) != "nightly"}}
    problems = []
    for channel, versions in want.items():
        got = set(site_listed.get(channel, []))
        if got != versions:
            extra = sorted(map(str, got - versions))
            missing = sorted(map(str, versions - got))
            problems.append(f"{channel}/ lists {extra} it should not and lacks {missing}")
    return problems


def expected_picks(site_listed: dict[str, list[Version]]) -> dict[tuple[str, str, bool], Version | None]:
    """``{(channel, specifier, pre): version}`` a resolver must pick, by ``packaging`` order alone."""
    out: dict[tuple[str, str, bool], Version | None] = {}
    nightly, stable = site_listed.get("nightly", []), site_listed.get("stable", [])
    finals = [v for v in stable if not v.is_prerelease]
    if nightly:
        out[("nightly", "", True)] = max(nightly)
        for line in sorted({v.base_version for v in nightly}):
            out[("nightly", f"=={line}.*", True)] = max(v for v in nightly if v.base_version == line)
    if stable:
        out[("stable", "", True)] = max(stable)
        out[("stable", "", False)] = max(finals) if finals else None
        for line in sorted({v.base_version for v in finals}):
            out[("stable", f"=={line}.*", False)] = max(v for v in finals if v.base_version == line)
    return out


# pip's own command line, once per ask, in one interpreter: pip is imported once, not per ask.
_PIP_ASKS = r"""
import json, sys
from pip._internal.cli.main import main
print(json.dumps([main(argv) for argv in json.load(sys.stdin)]))
"""


def pip_picks(asks: list[tuple[str, str, bool]]) -> list[str | None]:
    """For each ``(index_url, requirement, pre)``: the version of the requirement's project that
    ``pip install --dry-run`` would install (None where pip fails)."""
    with tempfile.TemporaryDirectory(prefix="pip-asks-") as work:
        return _pip_picks(asks, Path(work))


def _pip_picks(asks: list[tuple[str, str, bool]], work: Path) -> list[str | None]:
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    argvs, reports = [], []
    for n, (index_url, requirement, pre) in enumerate(asks):
        reports.append(work / f"pip-ask-{n}.json")
        argvs.append(["install", "--dry-run", "--ignore-installed", "--quiet", "--report", str(reports[-1]),
                      "--no-cache-dir", "--disable-pip-version-check", "--index-url", index_url,
                      *(["--pre"] if pre else []), requirement])
    proc = subprocess.run([sys.executable, "-c", _PIP_ASKS], input=json.dumps(argvs), capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    picks: list[str | None] = []
    for code, report, (_, requirement, _) in zip(json.loads(proc.stdout.splitlines()[-1]), reports, asks):
        name = requirement.split("=")[0].split("<")[0].split(">")[0].strip().lower()
        got = [item["metadata"]["version"] for item in json.loads(report.read_text())["install"]
               if item["metadata"]["name"].lower() == name] if code == 0 else []
        picks.append(got[0] if got else None)
    return picks


def uv_pick(uv: str, index_url: str, requirement: str, pre: bool, cache: Path) -> str | None:
    """The version ``uv pip compile`` pins the requirement's project to, for this interpreter."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_"))}
    env.update(UV_NO_CONFIG="1", UV_CACHE_DIR=str(cache), UV_PYTHON_DOWNLOADS="never")
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    proc = subprocess.run([uv, "pip", "compile", "-", "--quiet", "--no-header", "--no-annotate", "--index-url",
                           index_url, "--python-version", py, *(["--prerelease", "allow"] if pre else [])],
                          input=requirement + "\n", capture_output=True, text=True, env=env, timeout=300)
    if proc.returncode:
        return None
    name = requirement.split("=")[0].split("<")[0].split(">")[0].strip().lower()
    for line in proc.stdout.splitlines():
        got, _, version = line.strip().partition("==")
        if got.lower() == name:
            return version.strip()
    return None


def resolver_problems(base_url: str, project: str, picks: dict[tuple[str, str, bool], Version | None],
                      uv: str | None, cache: Path) -> list[str]:
    """Each install line, asked of pip (and of uv when given), against ``base_url/<channel>/``."""
    problems = []
    asked = sorted(picks.items(), key=str)
    urls = [f"{base_url.rstrip('/')}/{channel}/" for (channel, _, _), _ in asked]
    by_pip = pip_picks([(url, project + spec, pre) for url, ((_, spec, pre), _) in zip(urls, asked)])
    for url, ((channel, spec, pre), want), pip_got in zip(urls, asked, by_pip):
        answers = [("pip", pip_got)]
        if uv:
            answers.append(("uv", uv_pick(uv, url, project + spec, pre, cache)))
        for who, got in answers:
            if (Version(got) if got else None) != want:
                line = f"{project}{spec}{' --pre' if pre else ''} from {channel}/"
                problems.append(f"{who} takes {got} for {line}, the newest is {want}")
    return problems
