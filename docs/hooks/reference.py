"""MkDocs hook: add the pages generated from the code (``release.docs_reference.PAGES``) and the
``--json`` shapes' JSON Schemas to the site, so the reference is rebuilt from the parsers,
schemas and docstrings on every build."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from release.docs_reference import PAGES, schema_files  # noqa: E402


def on_files(files, config):  # noqa: ANN001, ANN201 - MkDocs' hook signature
    for path, render in PAGES.items():
        files.append(File.generated(config, path, content=render()))
    for path, text in schema_files().items():
        files.append(File.generated(config, path, content=text))
    return files
