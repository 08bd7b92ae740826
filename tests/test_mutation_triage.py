"""tests/mutation_survivors.txt, the triaged mutmut survivors (scripts/mutation), stays readable:
every line names a mutant of a module that exists and says why it is equivalent or harmless."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MUTANT = re.compile(r"release\.(?P<stage>[a-z_]+)\.(?P<module>[a-z_]+)\.\S+")


def test_every_triaged_survivor_names_a_module_and_a_reason():
    for number, line in enumerate((REPO / "tests" / "mutation_survivors.txt").read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        name, sep, reason = line.partition("#")
        where = f"mutation_survivors.txt:{number}"
        assert sep and len(reason.strip()) >= 10, f"{where}: say why the mutant is equivalent or harmless"
        m = MUTANT.fullmatch(name.strip())
        assert m, f"{where}: {name.strip()!r} is not a mutmut mutant name (release.<stage>.<module>.<mutant>)"
        assert (REPO / "release" / m["stage"] / f"{m['module']}.py").is_file(), f"{where}: no such module"
