"""MkDocs hook: add the pages generated from the code (``release.docs_reference.PAGES``) to the
site, so the reference is rebuilt from the parsers and docstrings on every build."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from release.docs_reference import PAGES  # noqa: E402


def on_files(files, config):  # noqa: ANN001, ANN201 - MkDocs' hook signature
    for path, render in PAGES.items():
        files.append(File.generated(config, path, content=render()))
    return files
