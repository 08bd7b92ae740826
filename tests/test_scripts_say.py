"""``./scripts/test`` says what it installs before each quiet install (issue 33: a first run sat
silent for minutes), naming the thing installed."""

from __future__ import annotations

import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "test"
INSTALLS = re.compile(r"\b(apt-get (install|update)|pip install|npm install)\b")


def test_every_install_is_announced_first():
    lines = SCRIPT.read_text().splitlines()
    installs = [i for i, line in enumerate(lines) if INSTALLS.search(line) and not line.lstrip().startswith("#")
                and "say " not in line and "echo" not in line]
    assert len(installs) >= 4, installs  # apt-get update and install, pip, npm
    for i in installs:
        before = [line for line in lines[max(0, i - 4):i] if line.strip().startswith("say ")]
        assert before, f"scripts/test line {i + 1} installs without saying so first: {lines[i].strip()}"
    said = " ".join(line for line in lines if line.strip().startswith("say "))
    for thing in ("apt-get install", ".venv", "npm", "axe-core"):
        assert thing in said, thing
