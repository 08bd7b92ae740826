"""Re-version built wheels (nightly or rc to rc, release or post) without rebuilding.

What carries the version in a jax-rocm wheel: the file name, the dist-info
directory, METADATA ``Version`` and the plugin's ``Requires-Dist`` pin on the
PJRT wheel, ``version.py``'s ``_release_version``, ``commit_info.py``'s
``version``, the SBOM's described component (``release.build.sbom``) and
RECORD. Only those small members are rewritten; every other member (the
500 MB ``.so`` among them) is copied as its raw compressed bytes
(``WheelWriter.add_raw``), so nothing is inflated or deflated, its mode (0o755)
and timestamp stay, and its RECORD row is carried over from the source RECORD.
The writer renames a finished ``.part`` file into place, so a crash leaves no
half wheel and a re-run writes the same bytes.
"""

from __future__ import annotations

import calendar
import dataclasses
import re
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from packaging.version import InvalidVersion, Version

from release.build import sbom
from release.core import naming, versions
from release.core.errors import UserError
from release.core.naming import Identity
from release.core.scan import archive_problems, open_wheel
from release.core.wheelfile import WheelWriter, read_record

if TYPE_CHECKING:
    from release.core.revisions import RevisionMap

_TARGET = re.compile(r"^(release|rc([1-9]\d*)|post([1-9]\d*))\Z", re.ASCII)
# ``NAME==VERSION`` as the build writes the plugin's pin: a PEP 508 name, no spaces, extras or markers
_PLAIN_PIN = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)==([^\s;,\[\]()<>=!~*]+)\Z", re.ASCII)
_REWRITTEN_PAYLOAD = ("version.py", "commit_info.py")


@dataclasses.dataclass(frozen=True)
class Promotion:
    """One wheel re-versioned: from where to where, what was copied raw and what rewritten."""

    source: Path
    output: Path
    old_version: str
    new_version: str
    copied: tuple[str, ...]  # members copied as raw compressed bytes
    rewritten: tuple[str, ...]  # members whose content or name changed
    copied_bytes: int

    def to_json(self) -> dict:
        return {
            "source": str(self.source), "output": str(self.output),
            "from": self.old_version, "to": self.new_version,
            "copied": list(self.copied), "rewritten": list(self.rewritten),
            "copied_bytes": self.copied_bytes,
        }


def target_version(current: str, target: str) -> str:
    """The version ``release``, ``rcN`` or ``postN`` of the line ``current`` belongs to."""
    m = _TARGET.match(target or "")
    if not m:
        raise UserError(f"--to {target!r}: expected release, rcN or postN (N >= 1)")
    base = versions.base_of(current)
    if m.group(2):
        new = versions.rc(base, int(m.group(2)))
    elif m.group(3):
        new = versions.post(base, int(m.group(3)))
    else:
        new = versions.release(base)
    if Version(new) < Version(current):
        raise UserError(f"--to {target}: {new} sorts below the wheel's own version {current}; "
                        "promotion only moves a wheel forward")
    return new


def promoted_name(filename: str, new_version: str) -> str:
    """The wheel file name with the version part replaced (tags and build tag kept)."""
    parts = filename[:-len(".whl")].split("-")
    parts[1] = new_version
    return "-".join(parts) + ".whl"


# ---------------------------------------------------------------- text rewrites (pure)


def rewrite_metadata(text: str, new_version: str, pjrt_dist: str | None) -> str:
    """METADATA with ``Version`` and the ``Requires-Dist`` pin on ``pjrt_dist`` moved."""
    head, sep, body = text.partition("\n\n")
    lines = []
    for line in head.split("\n"):
        key, colon, value = line.partition(":")
        if colon and key == "Version":
            line = f"Version: {new_version}"
        elif colon and key == "Requires-Dist" and pjrt_dist:
            line = _moved_pin(value.strip(), pjrt_dist, new_version) or line
        lines.append(line)
    return "\n".join(lines) + sep + body


def _moved_pin(value: str, pjrt_dist: str, new_version: str) -> str | None:
    """The ``Requires-Dist`` line of ``value`` pinned to ``new_version`` when it names ``pjrt_dist``
    (not under an extra), else None. The build's own form, ``NAME==VERSION``, is read here; any
    other through packaging's ``Requirement`` (its tokenizer, markers and through them
    packaging.tags: about a fifth of a small promote's start-up), which reads that form the same."""
    plain = _PLAIN_PIN.match(value)
    if plain and _is_version(plain.group(2)):
        same = naming.normalized_name(plain.group(1)) == naming.normalized_name(pjrt_dist)
        return f"Requires-Dist: {plain.group(1)}=={new_version}" if same else None
    from packaging.requirements import InvalidRequirement, Requirement
    try:
        req = Requirement(value)
    except InvalidRequirement:
        return None
    if naming.normalized_name(req.name) != naming.normalized_name(pjrt_dist) \
            or (req.marker and "extra" in str(req.marker)):
        return None
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    marker = f"; {req.marker}" if req.marker else ""
    return f"Requires-Dist: {req.name}{extras}=={new_version}{marker}"


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


def rewrite_assignment(source: str, name: str, value: str) -> tuple[str, bool]:
    """``source`` with the first top-level ``name = ...`` (annotated or not) set to ``value``."""
    pattern = re.compile(rf"^({re.escape(name)}\s*(?::[^=\n]*)?=\s*)([^\n#]*?)(\s*(?:#[^\n]*)?)$",
                         re.M)
    new, count = pattern.subn(lambda m: m.group(1) + repr(value) + m.group(3), source, count=1)
    return new, bool(count)


# ---------------------------------------------------------------- promotion


def promote_wheel(source: Path, target: str, out_dir: Path | None = None,
                  progress: Callable[[int], None] | None = None) -> Promotion:
    """Write ``source`` re-versioned to ``target`` (release, rcN, postN) into ``out_dir``."""
    source = Path(source)
    ident = Identity.of(source)
    if ident.dist is None or ident.version is None:  # the file name is not a wheel's
        raise UserError(f"{source}: {ident.name_error}")
    old_version = ident.version
    new_version = target_version(old_version, target)
    out_dir = Path(out_dir) if out_dir is not None else source.parent
    output = out_dir / promoted_name(source.name, new_version)
    escaped = naming.normalized_name(ident.dist).replace("-", "_")
    pjrt = naming.pjrt_dist(ident.rocm_major) if ident.kind == "plugin" and ident.rocm_major is not None else None

    with open_wheel(source) as zf, open(source, "rb") as fp:
        problems = archive_problems(zf, fp)
        if problems:  # what verify refuses is never carried into a promoted wheel
            member, problem = problems[0]
            raise UserError(f"{source}: {member + ': ' if member else ''}{problem}; run `release verify` on it")
        infos = [i for i in zf.infolist() if not i.is_dir()]
        dist_infos = {i.filename.split("/", 1)[0] for i in infos
                      if i.filename.split("/", 1)[0].endswith(".dist-info")}
        if len(dist_infos) != 1:
            raise UserError(f"{source}: {len(dist_infos)} .dist-info directories; expected one")
        old_di = dist_infos.pop()
        new_di = f"{escaped}-{new_version}.dist-info"
        record_name = f"{old_di}/RECORD"
        if record_name not in zf.NameToInfo:
            raise UserError(f"{source}: no {record_name}; expected a wheel with a RECORD")
        old_rows = read_record(source)
        payload = [i for i in infos if not i.filename.startswith(old_di + "/")]
        meta = [i for i in infos if i.filename.startswith(old_di + "/") and i.filename != record_name]
        copied, rewritten, copied_bytes = [], [], 0
        with WheelWriter(output, new_di, epoch=_epoch(infos)) as writer:
            for info in payload:
                base = info.filename.rsplit("/", 1)[-1]
                if base in _REWRITTEN_PAYLOAD and info.file_size <= (1 << 20):
                    data = _rewrite_payload(zf.read(info), base, new_version)
                    writer.add_bytes(info.filename, data, mode=_mode(info))
                    rewritten.append(info.filename)
                    continue
                row = old_rows.get(info.filename)
                if row is None or not row[0].startswith("sha256=") or row[1] != info.file_size:
                    raise UserError(f"{source}: RECORD has no sha256 and size {info.file_size} for "
                                    f"{info.filename}; run `release verify` on it")
                try:
                    writer.add_raw(source, info.filename, record=(row[0], info.file_size))
                except ValueError as exc:
                    raise UserError(f"{source}: {exc}") from None
                copied.append(info.filename)
                copied_bytes += info.compress_size
                if progress:
                    progress(info.compress_size)
            for info in meta:
                data = zf.read(info)
                name = new_di + info.filename[len(old_di):]
                if name == f"{new_di}/METADATA":
                    data = rewrite_metadata(data.decode("utf-8"), new_version, pjrt).encode()
                elif sbom.is_member(name):  # PEP 770: the SBOM names the wheel's version too
                    try:
                        data = sbom.reversion(data, new_version)
                    except (ValueError, KeyError, TypeError, AttributeError):
                        raise UserError(f"{source}: {info.filename} is not a CycloneDX SBOM this tool "
                                        "wrote; run `release verify` on it") from None
                writer.add_bytes(name, data, mode=_mode(info))
                rewritten.append(name)
        rewritten.append(f"{new_di}/RECORD")
    return Promotion(source, output, old_version, new_version, tuple(copied), tuple(rewritten),
                     copied_bytes)


def _mode(info: zipfile.ZipInfo) -> int:
    return (info.external_attr >> 16) & 0o777 or 0o644  # never setuid, setgid or sticky


def _epoch(infos: list[zipfile.ZipInfo]) -> int | None:
    """The source's member timestamp (the writer gives every member one), so it is kept."""
    if not infos:
        return None
    return calendar.timegm((*infos[0].date_time, 0, 0, 0))


def _rewrite_payload(data: bytes, base: str, new_version: str) -> bytes:
    text = data.decode("utf-8")
    name = "_release_version" if base == "version.py" else "version"
    text, _found = rewrite_assignment(text, name, new_version)
    return text.encode("utf-8")


def complete_dist(directory: Path, wheel_names: list[str], before: RevisionMap, new_version: str,
                  promoted_from: str) -> list[str]:
    """Make ``directory`` a dist of ``new_version`` that ``release publish`` takes: the promoted
    wheels (already there), each one's core metadata file (PEP 658), ``revisions.json``
    re-versioned from ``before``, the provenance over the wheels (``promotedFrom`` the source
    tag) and ``SHA256SUMS`` over all of them.
    Returns the names written besides the wheels."""
    from release.build.provenance import write_for_files
    from release.core import checksums, core_metadata
    from release.core.atomic import atomic_write

    revisions = dataclasses.replace(before, version=new_version)
    atomic_write(Path(directory) / naming.REVISIONS_ASSET, revisions.dumps())
    sidecars = [core_metadata.write_beside(Path(directory) / name).name for name in wheel_names]
    prov = write_for_files(directory, wheel_names, revisions,
                           extra_parameters={"promotedFrom": promoted_from})
    checksums.write_for(directory, [*wheel_names, *sidecars, naming.REVISIONS_ASSET, prov.name])
    return [*sidecars, naming.REVISIONS_ASSET, prov.name, naming.CHECKSUMS_ASSET]
