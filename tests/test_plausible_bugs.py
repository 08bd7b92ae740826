"""The plausible-bug catalogue (tests/plausible_bugs/, one file per module) stays true as the code moves: every
entry names its rule and tests, and its line is in its file exactly once, so
`scripts/plausible-bugs` plants exactly the bug it describes. (Planting them all takes minutes,
so CI checks the catalogue; a person runs the script before resolving an issue.)"""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CATALOGUE = REPO / "tests" / "plausible_bugs"
FILES = {path.name: tomllib.loads(path.read_text(encoding="utf-8")).get("bug", [])
         for path in sorted(CATALOGUE.glob("*.toml"))}
BUGS = [bug for bugs in FILES.values() for bug in bugs]


def test_ids_are_unique():
    ids = [b["id"] for b in BUGS]
    assert len(ids) == len(set(ids))


def test_each_bug_is_in_the_file_of_its_module():
    """release/check/smoke.py's bugs are in release.check.smoke.toml: two people adding bugs to two
    modules never append to one file (appends to one file's tail lost [[bug]] headers in merges)."""
    assert BUGS, "the catalogue is empty"
    misplaced = [(name, b["id"]) for name, bugs in FILES.items() for b in bugs
                 if name != b["file"].removesuffix(".py").replace("/", ".") + ".toml"]
    assert not misplaced


@pytest.mark.parametrize("bug", BUGS, ids=[b["id"] for b in BUGS])
def test_every_planted_bug_is_exactly_the_one_described(bug):
    assert bug["rule"].strip() and bug["tests"], "an entry names the rule it breaks and its tests"
    for test in bug["tests"]:
        assert (REPO / test.split("::")[0]).is_file(), f"{test} does not exist"
    source = (REPO / bug["file"]).read_text(encoding="utf-8")
    assert source.count(bug["find"]) == 1, f"{bug['file']} no longer has this line exactly once"
    assert bug["replace"] != bug["find"]
    planted = source.replace(bug["find"], bug["replace"], 1)
    if bug["file"].endswith(".toml"):  # pyproject.toml's pytest options
        tomllib.loads(planted)  # still TOML
    elif bug["file"].endswith(".css"):  # the docs' stylesheet: still one declaration, braces balanced
        assert bug["replace"].rstrip().endswith(";") and planted.count("{") == planted.count("}")
    elif source.startswith("#!") and "bash" in source.splitlines()[0]:  # scripts/test
        assert subprocess.run(["bash", "-n"], input=planted, text=True).returncode == 0  # still bash
    else:
        compile(planted, bug["file"], "exec")  # still Python
