"""Build provenance: one in-toto v1 Statement with a SLSA provenance v1 predicate per dist.

The revision map inside a wheel says what went in, but anyone can write one. The
provenance file (``dist/<version>/provenance.intoto.json``, a release asset) ties every
wheel's sha256 to the pinned sources, this repository's commit and the run that built
them; in GitHub Actions the workflow also has GitHub attest each wheel (Sigstore-signed,
``gh attestation verify``). The file itself is never signed by this tool, and says so in
``runDetails.metadata.jaxrocm_signing``.

``statement(...)`` makes it, ``write_dist(...)`` writes it next to the wheels, and
``check(...)`` / ``check_files(...)`` compare one with the wheels, ``revisions.json`` and
the wheels' own revision maps: every mismatch is one problem line.
"""

from __future__ import annotations

import dataclasses
import json
import os
import urllib.parse
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from release.build.provenance_schema import PREDICATE_TYPE, SCHEMA, STATEMENT_TYPE
from release.core import bounded, naming, regular, schema_subset, versions
from release.core.checksums import sha256_file
from release.core.redact import display_url

if TYPE_CHECKING:
    from release.core.revisions import RevisionMap

FILE = naming.PROVENANCE_ASSET
# What kind of build this is; it gives externalParameters their meaning (docs/jobs.md).
BUILD_TYPE = "urn:jax-rocm-release:build-type:wheels:v1"
RELEASE_REPO = "jax-rocm-release"   # this repository's entry in resolvedDependencies
SIGNING_FIELD = "jaxrocm_signing"   # a SLSA extension field (<vendor>_<name>)
ATTESTED_ENV = "RELEASE_ATTESTATIONS"  # "github": the workflow attested every wheel
MAX_COMMIT_INFO = 1 << 20  # bytes: a revision map is a few hundred


# ---------------------------------------------------------------------- who built it


@dataclasses.dataclass(frozen=True)
class Invocation:
    """Where a statement is written: a GitHub Actions run, or a host."""

    builder_id: str
    invocation_id: str
    repository: str | None = None   # OWNER/NAME in GitHub Actions
    repository_url: str | None = None
    attested: bool = False          # the workflow had GitHub attest each wheel

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, host: str | None = None) -> "Invocation":
        env = os.environ if env is None else env
        server, repo, run = (env.get(k, "").strip() for k in
                             ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
        if env.get("GITHUB_ACTIONS") == "true" and server and repo and run:
            server = server.rstrip("/")
            attempt = env.get("GITHUB_RUN_ATTEMPT", "").strip() or "1"
            run_url = f"{server}/{repo}/actions/runs/{run}"
            workflow = env.get("GITHUB_WORKFLOW_REF", "").strip()
            return cls(builder_id=f"{server}/{workflow}" if workflow else run_url,
                       invocation_id=f"{run_url}/attempts/{attempt}",
                       repository=repo, repository_url=f"{server}/{repo}",
                       attested=env.get(ATTESTED_ENV, "").strip() == "github")
        host = host or os.uname().nodename or "localhost"  # gethostname(2), without importing socket
        return cls(builder_id=f"urn:jax-rocm-release:host:{urllib.parse.quote(host, safe='.-')}",
                   invocation_id=f"host {host}")

    def signing(self) -> dict:
        """The ``jaxrocm_signing`` field: what, if anything, vouches for the wheels."""
        if self.repository is None:
            return {"statement": "unsigned", "wheels": "unsigned",
                    "note": "built outside GitHub Actions: this statement is unsigned and nothing "
                            "but the machine that wrote it vouches for it"}
        if not self.attested:
            return {"statement": "unsigned", "wheels": "unsigned",
                    "note": "written in GitHub Actions without GitHub attestations of the wheels"}
        return {"statement": "unsigned", "wheels": "github-attestation",
                "repository": self.repository,
                "verify": f"gh attestation verify WHEEL --repo {self.repository}",
                "note": "GitHub signed a build provenance attestation (Sigstore) for each wheel"}


# ---------------------------------------------------------------------- making one


def _git_uri(url: str, branch: str | None) -> str:
    url = display_url(url)
    if "://" not in url and ":" in url and "@" in url.split(":", 1)[0]:  # git@host:o/r
        host, path = url.split("@", 1)[1].split(":", 1)
        url = f"ssh://{host}/{path}"
    elif url.startswith("/"):
        url = "file://" + url
    uri = url if url.startswith("git+") else f"git+{url}"
    return f"{uri}@refs/heads/{branch}" if branch else uri


def dependency_descriptors(deps: Mapping[str, Mapping], release_commit: str | None) -> list[dict]:
    """resolvedDependencies for a revision map given as JSON (``revisions.json``'s ``deps``
    or ``commit_info.revisions``): each pinned repository as git URI (its branch) with a
    ``gitCommit`` digest and, when the map knows them, the patch files applied on top
    (annotations: Bazel labels in the repository that pins it) and the source archive by
    its sha256; then this repository at its commit."""
    out: list[dict] = []
    for name, entry in deps.items():
        annotations: dict = {"branch": entry.get("branch")}
        if entry.get("patches"):
            annotations["patches"] = list(entry["patches"])
        out.append({"name": name, "uri": _git_uri(str(entry["url"]), entry.get("branch")),
                    "digest": {"gitCommit": entry["commit"]}, "annotations": annotations})
        if entry.get("archive_sha256"):
            out.append({"name": f"{name}/archive", "digest": {"sha256": entry["archive_sha256"]},
                        "annotations": {"of": name, "commit": entry["commit"]}})
    if release_commit:
        out.append({"name": RELEASE_REPO, "digest": {"gitCommit": release_commit}})
    return out


def bazel_configs(pythons: Iterable[str]) -> list[str]:
    from release.build import bazel
    return [bazel.BUILD_CONFIG, *(bazel.python_config(p) for p in pythons)]


def statement(*, version: str, wheels: Mapping[str, str], revisions: RevisionMap, pythons: Iterable[str],
              invocation: Invocation, rocm_version: str | None = None,
              extra_parameters: Mapping | None = None) -> dict:
    """The Statement for ``wheels`` (``{file name: sha256 hex}``) built from ``revisions``
    (a ``RevisionMap``)."""
    from release import __version__ as tool_version

    pythons = list(dict.fromkeys(pythons))
    data = revisions.to_json()
    external = {"kind": versions.kind_of(version), "version": version, "pythons": pythons,
                "bazelConfigs": bazel_configs(pythons), **dict(extra_parameters or {})}
    resolved = dependency_descriptors(data["deps"], data.get("release_commit"))
    if invocation.repository_url and resolved and resolved[-1]["name"] == RELEASE_REPO:
        resolved[-1]["uri"] = f"git+{invocation.repository_url}"
    internal = {"tool": f"jax-rocm-release {tool_version}"}
    if rocm_version:
        internal["rocmVersion"] = rocm_version
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": name, "digest": {"sha256": digest}}
                    for name, digest in sorted(wheels.items())],
        "predicateType": PREDICATE_TYPE,
        "predicate": {
            "buildDefinition": {"buildType": BUILD_TYPE, "externalParameters": external,
                                "internalParameters": internal,
                                "resolvedDependencies": resolved},
            "runDetails": {"builder": {"id": invocation.builder_id},
                           "metadata": {"invocationId": invocation.invocation_id,
                                        SIGNING_FIELD: invocation.signing()}},
        },
    }


def dumps(stmt: dict) -> str:
    return json.dumps(stmt, indent=2) + "\n"


def write(directory: Path, stmt: dict) -> Path:
    """Write ``directory/provenance.intoto.json`` atomically."""
    from release.core.atomic import atomic_write

    path = Path(directory) / FILE
    atomic_write(path, dumps(stmt))
    return path


def pythons_of(wheel_names: Iterable[str]) -> list[str]:
    """The Pythons the plugin wheels among ``wheel_names`` are for (``cp312`` -> ``3.12``)."""
    from release.core.naming import Identity
    found = {python for name in wheel_names for python in Identity.of(name).pythons}
    return sorted(found, key=lambda p: int(p.split(".")[1]))


def write_dist(directory: Path, wheels: Mapping[str, str], revisions: RevisionMap, *,
               pythons: Iterable[str] | None = None, rocm_version: str | None = None,
               invocation: Invocation | None = None, extra_parameters: Mapping | None = None) -> Path:
    """The provenance of the wheels in a dist directory, written next to them."""
    stmt = statement(version=revisions.version, wheels=wheels, revisions=revisions,
                     pythons=pythons_of(wheels) if pythons is None else pythons,
                     invocation=invocation or Invocation.from_env(), rocm_version=rocm_version,
                     extra_parameters=extra_parameters)
    return write(directory, stmt)


def write_for_files(directory: Path, wheel_names: Iterable[str], revisions: RevisionMap, *,
                    rocm_version: str | None = None, extra_parameters: Mapping | None = None) -> Path:
    """``write_dist`` for wheels already in ``directory`` (hashing each): a split build's
    finish stage (the draft's wheels from every cell) and a post re-spin."""
    wheels = {name: sha256_file(Path(directory) / name) for name in wheel_names}
    return write_dist(directory, wheels, revisions, rocm_version=rocm_version,
                      extra_parameters=extra_parameters)


# ---------------------------------------------------------------------- reading the facts back


def attestation_commands(stmt: Mapping) -> list[str]:
    """``gh attestation verify`` lines, one per wheel, when GitHub attested them."""
    try:
        signing = stmt["predicate"]["runDetails"]["metadata"][SIGNING_FIELD]
        if signing.get("wheels") != "github-attestation" or not signing.get("repository"):
            return []
        return [f"gh attestation verify {s['name']} --repo {signing['repository']}"
                for s in stmt["subject"]]
    except (KeyError, TypeError, AttributeError):
        return []


def signing_note(stmt: Mapping) -> str:
    """What the statement says vouches for it, in words."""
    try:
        return str(stmt["predicate"]["runDetails"]["metadata"][SIGNING_FIELD]["note"])
    except (KeyError, TypeError):
        return "the statement does not say"


def load(path: Path) -> dict:
    """Parse a provenance file; ``ValueError`` (a problem line) when it is not JSON."""
    try:
        data = bounded.json_loads(regular.read_bytes(path))
    except bounded.Unparseable as exc:  # deep nesting, huge integers: refused before use
        raise ValueError(f"{Path(path).name} is not JSON we can read ({exc.reason})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{Path(path).name} is not a JSON object")
    return data


def wheel_revision_map(path: Path) -> dict | None:
    """``{"deps": ..., "release_commit": ...}`` from a wheel's ``commit_info.py``, or None."""
    from release.core.scan import module_constants

    with zipfile.ZipFile(path) as zf:
        names = sorted(n for n in zf.namelist() if n.endswith("/commit_info.py")
                       and ".dist-info/" not in n)
        if not names or zf.getinfo(names[0]).file_size > MAX_COMMIT_INFO:
            return None  # a hostile wheel's bomb is never inflated here
        try:
            values = module_constants(zf.read(names[0]).decode("utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            return None
    deps = values.get("revisions")
    if not isinstance(deps, dict) or not all(isinstance(v, dict) and "commit" in v and "url" in v
                                             for v in deps.values()):
        return None
    return {"deps": deps, "release_commit": values.get("release_commit")}


# ---------------------------------------------------------------------- checking one


def schema_problems(stmt: object) -> list[str]:
    """Where ``stmt`` breaks the in-toto Statement / SLSA provenance v1 schema. jsonschema (1.4x
    ``python -c pass`` to import) is asked only when the quick reading cannot accept ``stmt``
    (``schema_subset``: it accepts only what jsonschema accepts), for the verdict and its words."""
    if schema_subset.conforms(stmt, SCHEMA):
        return []
    import jsonschema

    validator = jsonschema.Draft202012Validator(SCHEMA)
    problems = []
    for error in sorted(validator.iter_errors(stmt), key=lambda e: list(map(str, e.absolute_path))):
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        problems.append(f"{FILE}: {where}: {error.message[:200]}")
    return problems


def check(stmt: dict, *, wheels: Mapping[str, str], version: str | None = None,
          revisions: RevisionMap | None = None, wheel_maps: Mapping[str, dict | None] | None = None,
          exact: bool = True) -> list[str]:
    """Compare a statement with the wheels (``{file name: sha256}``), the version, the
    ``RevisionMap`` of ``revisions.json`` and each wheel's own revision map. ``exact``: the
    statement's dependencies are exactly ``revisions``' (False for pins from deps.yaml,
    which do not name this repository's commit)."""
    problems = schema_problems(stmt)
    if problems:
        return problems
    pred = stmt["predicate"]
    build = pred["buildDefinition"]
    if build["buildType"] != BUILD_TYPE:
        problems.append(f"{FILE}: buildType {build['buildType']!r}, expected {BUILD_TYPE}")
    problems += _subject_problems(stmt["subject"], wheels)
    params = build["externalParameters"]
    if version is not None:
        if params.get("version") != version:
            problems.append(f"{FILE}: externalParameters.version is {params.get('version')!r}, "
                            f"the wheels are {version}")
        if params.get("kind") != versions.kind_of(version):
            problems.append(f"{FILE}: externalParameters.kind is {params.get('kind')!r}, "
                            f"{version} is a {versions.kind_of(version)} version")
    actual = build.get("resolvedDependencies") or []
    if revisions is not None:
        data = revisions.to_json()
        problems += _dependency_problems(actual, dependency_descriptors(
            data["deps"], data.get("release_commit")), naming.REVISIONS_ASSET if exact
            else "the pins", exact=exact)
    for name, found in sorted((wheel_maps or {}).items()):
        if found is None:
            problems.append(f"{name}: no readable revision map (commit_info.py) to compare "
                            f"with {FILE}")
            continue
        problems += _dependency_problems(actual, dependency_descriptors(
            found["deps"], found.get("release_commit")), f"{name}'s revision map",
            exact=revisions is None or not exact)
    return problems


def _subject_problems(subjects: list, wheels: Mapping[str, str]) -> list[str]:
    problems, seen = [], {}
    for subject in subjects:
        name = subject.get("name")
        if not isinstance(name, str) or not name:
            problems.append(f"{FILE}: a subject has no file name")
            continue
        if name in seen:
            problems.append(f"{FILE}: subject {name} is listed twice")
        seen[name] = subject["digest"].get("sha256")
    for name in sorted(set(seen) - set(wheels)):
        problems.append(f"{FILE}: subject {name} is not one of the wheels")
    for name in sorted(set(wheels) - set(seen)):
        problems.append(f"{name} is not a subject of {FILE}")
    for name in sorted(set(seen) & set(wheels)):
        if seen[name] is None:
            problems.append(f"{FILE}: subject {name} has no sha256 digest")
        elif seen[name] != wheels[name]:
            problems.append(f"{name}: {FILE} says sha256 {seen[name][:12]}..., the file hashes "
                            f"to {wheels[name][:12]}...")
    return problems


def _dependency_problems(actual: list, expected: list[dict], source: str, *, exact: bool) -> list[str]:
    """Every expected dependency must be in the statement as written; with ``exact`` the
    statement may hold nothing else."""
    problems = []
    by_name: dict[str, dict] = {}
    for dep in actual:
        name = dep.get("name")
        if name in by_name:
            problems.append(f"{FILE}: dependency {name} is listed twice")
        by_name[name] = dep
    for want in expected:
        got = by_name.get(want["name"])
        if got is None:
            problems.append(f"{FILE}: no dependency {want['name']}; {source} has "
                            f"{_show(want)}")
            continue
        for key in ("uri", "digest", "annotations"):
            if key in want and got.get(key) != want[key]:
                problems.append(f"{FILE}: dependency {want['name']} {key} is "
                                f"{json.dumps(got.get(key), sort_keys=True)}; {source} has "
                                f"{json.dumps(want[key], sort_keys=True)}")
    if exact:
        for name in sorted(set(by_name) - {w["name"] for w in expected}, key=str):
            problems.append(f"{FILE}: dependency {name} is not in {source}")
    return problems


def _show(dep: dict) -> str:
    digest = dep.get("digest") or {}
    return ", ".join(f"{k} {v}" for k, v in digest.items()) or dep.get("uri", "?")


def check_files(path: Path, wheel_paths: Iterable[Path], *, version: str | None = None,
                revisions: RevisionMap | None = None, exact: bool = True) -> list[str]:
    """``check`` for files on disk: the provenance file and the wheels it should cover."""
    wheel_paths = list(wheel_paths)
    try:
        stmt = load(path)
    except ValueError as exc:
        return [str(exc)]
    digests = {p.name: sha256_file(p) for p in wheel_paths}
    maps = {}
    for p in wheel_paths:
        try:
            maps[p.name] = wheel_revision_map(p)
        except (OSError, zipfile.BadZipFile):
            maps[p.name] = None
    return check(stmt, wheels=digests, version=version, revisions=revisions, wheel_maps=maps,
                 exact=exact)


def check_assets(files: Mapping[str, Path], version: str, revisions: RevisionMap | None) -> list[str]:
    """``release validate``'s check: the release's provenance asset against its wheel assets,
    ``revisions.json`` (a ``RevisionMap``, None when unreadable) and the wheels' own maps."""
    path = files.get(FILE)
    if path is None:
        return [f"no {FILE} asset: the release does not say how its wheels were built"]
    wheels = [p for name, p in sorted(files.items()) if name.endswith(".whl")]
    return check_files(path, wheels, version=version, revisions=revisions)
