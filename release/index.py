"""A static PEP 503 "simple" index of the published wheels, with PEP 658 metadata.

``pip install --pre jax-rocm7-plugin --extra-index-url <URL of DIR>`` works against
DIR served by any static file host. The wheels are copied into DIR next to their
project page, because PEP 658 puts the metadata file at the wheel's own URL plus
``.metadata``, which a release asset URL cannot offer. Each link carries the
wheel's ``#sha256=`` fragment, ``data-requires-python`` and
``data-dist-info-metadata``/``data-core-metadata`` (the sha256 of the metadata file).
Re-running is cheap: a wheel already in DIR with the asset's digest is not fetched
again, and files of releases that are gone (GC) are removed.
"""

from __future__ import annotations

import hashlib
import html
import os
import zipfile
from email.parser import HeaderParser
from pathlib import Path
from typing import Callable

from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import Version

from release.errors import UserError
from release.checksums import sha256_file
from release.stores import Store


def wheel_metadata(path: Path) -> bytes:
    """The METADATA file of a wheel, byte for byte."""
    with zipfile.ZipFile(path) as zf:
        names = [n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
        if len(names) != 1:
            raise UserError(f"{path.name}: expected one .dist-info/METADATA, found {len(names)}")
        return zf.read(names[0])


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _page(title: str, links: list[str]) -> bytes:
    body = "\n".join(f"    {link}<br/>" for link in links)
    return (f'<!DOCTYPE html>\n<html>\n  <head>\n    <meta name="pypi:repository-version" '
            f'content="1.0">\n    <title>{html.escape(title)}</title>\n  </head>\n  <body>\n'
            f"    <h1>{html.escape(title)}</h1>\n{body}\n  </body>\n</html>\n").encode()


def build_index(store: Store, out: Path, *, say: Callable[[str], None] = lambda t: None,
                progress=None) -> dict:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    projects: dict[str, list[tuple[Version, str, str]]] = {}  # project -> (version, file, link)
    wanted: set[Path] = set()
    for release in store.list_releases():
        if release.draft:
            continue
        for asset in store.list_assets(release):
            try:
                name, version, _, _ = parse_wheel_filename(asset.name)
            except InvalidWheelFilename:
                continue
            project = canonicalize_name(name)
            folder = out / project
            folder.mkdir(exist_ok=True)
            dest = folder / asset.name
            if not (dest.exists() and asset.digest and sha256_file(dest) == asset.digest):
                say(f"fetch {asset.name} from {release.tag}")
                store.download_asset(release, asset, dest, progress=progress)
            digest = sha256_file(dest)
            if asset.digest and digest != asset.digest:
                raise UserError(f"{asset.name}: downloaded bytes do not match the asset digest")
            metadata = wheel_metadata(dest)
            _write(folder / (asset.name + ".metadata"), metadata)
            requires = HeaderParser().parsestr(metadata.decode("utf-8")).get("Requires-Python")
            meta_hash = hashlib.sha256(metadata).hexdigest()
            attrs = [f'href="{html.escape(asset.name)}#sha256={digest}"']
            if requires:
                attrs.append(f'data-requires-python="{html.escape(requires)}"')
            attrs.append(f'data-dist-info-metadata="sha256={meta_hash}"')
            attrs.append(f'data-core-metadata="sha256={meta_hash}"')
            projects.setdefault(project, []).append(
                (version, asset.name, f"<a {' '.join(attrs)}>{html.escape(asset.name)}</a>"))
            wanted |= {dest, folder / (asset.name + ".metadata")}
    for project, entries in projects.items():
        entries.sort(key=lambda e: (e[0], e[1]))
        _write(out / project / "index.html", _page(f"Links for {project}", [e[2] for e in entries]))
    _write(out / "index.html", _page("Simple index", [f'<a href="{p}/">{p}</a>' for p in sorted(projects)]))
    removed = []
    for folder in out.iterdir():
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            if path.suffix in (".whl", ".metadata") and path not in wanted:
                path.unlink()
                removed.append(path.name)
        if folder.name not in projects and not any(p for p in folder.iterdir() if p.name != "index.html"):
            (folder / "index.html").unlink(missing_ok=True)
            folder.rmdir()
    return {"out": str(out), "store": store.kind, "where": store.where,
            "projects": {p: [e[1] for e in entries] for p, entries in sorted(projects.items())},
            "removed": sorted(removed)}
