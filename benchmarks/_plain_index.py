"""The anchor of ``bench_index``: a plain static PEP 503 + PEP 691 generator.

Handed every fact (a JSON line per file: its channel, project, version, URL, sha256,
Requires-Python, METADATA sha256, upload time, PEP 740 provenance object), it writes what a
static index needs and nothing else: per channel and project ``index.html`` and ``index.json``,
each file's ``.provenance``, and each channel's root pages.
No store is read and no wheel opened, so it is the cost of writing the pages alone; it imports
only the standard library a minimal generator would.

    python benchmarks/_plain_index.py PACKAGES.jsonl OUT
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path


def page(title: str, links: list[str]) -> str:
    body = "".join(f"    {link}<br/>\n" for link in links)
    return (f"<!DOCTYPE html>\n<html>\n  <head>\n    <title>{html.escape(title)}</title>\n  </head>\n"
            f"  <body>\n    <h1>{html.escape(title)}</h1>\n{body}  </body>\n</html>\n")


def main(packages: Path, out: Path) -> None:
    by: dict[str, dict[str, list[dict]]] = {}
    for line in packages.read_text().splitlines():
        item = json.loads(line)
        by.setdefault(item["channel"], {}).setdefault(item["project"], []).append(item)
    for channel, projects in by.items():
        for project, files in projects.items():
            files.sort(key=lambda f: (f["order"], f["filename"]))
            links, rows = [], []
            for f in files:
                attrs = f'href="{html.escape(f["url"])}#sha256={f["sha256"]}"'
                if f["requires_python"]:
                    attrs += f' data-requires-python="{html.escape(f["requires_python"])}"'
                if f["metadata_sha256"]:
                    attrs += f' data-core-metadata="sha256={f["metadata_sha256"]}"'
                row = {"filename": f["filename"], "url": f["url"], "hashes": {"sha256": f["sha256"]},
                       "requires-python": f["requires_python"], "size": f["size"],
                       "upload-time": f["upload_time"], "yanked": False,
                       "core-metadata": {"sha256": f["metadata_sha256"]}}
                if f.get("provenance"):
                    attrs += f' data-provenance="{f["filename"]}.provenance"'
                    row["provenance"] = f["filename"] + ".provenance"
                links.append(f"<a {attrs}>{html.escape(f['filename'])}</a>")
                rows.append(row)
            folder = out / channel / project
            folder.mkdir(parents=True, exist_ok=True)
            for f in files:
                if f.get("provenance"):
                    (folder / (f["filename"] + ".provenance")).write_text(json.dumps(f["provenance"]))
            (folder / "index.html").write_text(page(f"Links for {project}", links))
            (folder / "index.json").write_text(json.dumps({
                "meta": {"api-version": "1.4"}, "name": project, "files": rows,
                "versions": list(dict.fromkeys(f["version"] for f in files))}))
        names = sorted(projects)
        (out / channel / "index.html").write_text(page("Simple index", [f'<a href="{p}/">{p}</a>' for p in names]))
        (out / channel / "index.json").write_text(json.dumps({"meta": {"api-version": "1.4"},
                                                              "projects": [{"name": p} for p in names]}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
