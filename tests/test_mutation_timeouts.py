"""scripts/mutation reads mutmut's verdicts honestly: a timed-out mutant is neither killed nor
survived, is counted and named apart, and fails the run. Checked on recorded ``mutmut results``
output (the script's parsing and classification), never by running mutmut here."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[1]


def _script():
    loader = importlib.machinery.SourceFileLoader("mutation_script", str(REPO / "scripts" / "mutation"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


mutation = _script()

# What `mutmut results --all true` (3.8.1) prints: four spaces, the mutant, ": ", its status.
RECORDED = """\
    release.check.with_rocm_path.x_requirements__mutmut_1: killed
    release.check.with_rocm_path.x_requirements__mutmut_2: timeout
    release.check.with_rocm_path.x_check_cell__mutmut_112: timeout
    release.check.with_rocm_path.x_check_cell__mutmut_7: survived
    release.check.with_rocm_path.x_check_cell__mutmut_8: no tests
    release.core.versions.x_parse__mutmut_3: killed
    release.core.versions.x_parse__mutmut_4: killed
    release.core.versions.x_parse__mutmut_5: skipped
"""
SURVIVOR = "release.check.with_rocm_path.x_check_cell__mutmut_7"


def test_a_timeout_is_counted_apart_not_as_a_kill():
    status, report = mutation.summarize(mutation.read_results(RECORDED), ["with_rocm_path", "versions"],
                                        {SURVIVOR: "equivalent: the order is not observable"})
    cell = report["modules"]["with_rocm_path"]
    assert (cell["killed"], cell["survived"], cell["timed_out"], cell["not_covered"]) == (1, 1, 2, 1)
    assert cell["timeouts"] == ["release.check.with_rocm_path.x_check_cell__mutmut_112",
                                "release.check.with_rocm_path.x_requirements__mutmut_2"]
    assert report["modules"]["versions"]["timed_out"] == 0
    assert (report["killed"], report["survived"], report["timed_out"]) == (3, 1, 2)
    assert report["score"] == 0.75   # 3 killed of 4 decided: the two timeouts are in neither
    assert status == 1 and report["timeouts"] == cell["timeouts"]


def test_a_run_without_timeouts_and_with_its_survivors_triaged_passes():
    recorded = RECORDED.replace(": timeout", ": killed")
    status, report = mutation.summarize(mutation.read_results(recorded), ["with_rocm_path", "versions"],
                                        {SURVIVOR: "equivalent: the order is not observable"})
    assert status == 0 and report["timeouts"] == [] and report["killed"] == 5


def test_a_timeout_in_a_module_not_asked_for_is_not_this_runs():
    status, report = mutation.summarize(mutation.read_results(RECORDED), ["versions"], {})
    assert status == 0 and report["timed_out"] == 0


def test_a_mutant_the_wall_clock_cut_off_on_its_rerun_is_a_timeout_whatever_mutmut_recorded():
    recorded = "    release.core.versions.x_parse__mutmut_3: not checked\n" \
               "    release.core.versions.x_parse__mutmut_4: killed\n"
    found = mutation.read_results(recorded, ["release.core.versions.x_parse__mutmut_3"])
    status, report = mutation.summarize(found, ["versions"], {})
    assert report["timeouts"] == ["release.core.versions.x_parse__mutmut_3"]
    assert (report["killed"], report["timed_out"], status) == (1, 1, 1)


STATUSES = ["killed", "survived", "timeout", "no tests", "skipped", "suspicious", "segfault",
            "caught by type check", "not checked"]


@given(st.lists(st.sampled_from(STATUSES), max_size=30), st.booleans())
def test_every_verdict_is_counted_once_by_what_mutmut_said(verdicts, indent):
    names = [f"release.core.versions.x_f__mutmut_{i}" for i in range(len(verdicts))]
    out = "".join(f"{'    ' if indent else ''}{n}: {v}\n" for n, v in zip(names, verdicts))
    triaged = {n: "equivalent, checked by hand" for n, v in zip(names, verdicts) if v == "survived"}
    status, report = mutation.summarize(mutation.read_results(out), ["versions"], triaged)
    assert report["killed"] == verdicts.count("killed")
    assert report["survived"] == verdicts.count("survived")
    assert report["timed_out"] == verdicts.count("timeout")
    assert report["timeouts"] == sorted(n for n, v in zip(names, verdicts) if v == "timeout")
    assert status == (1 if "timeout" in verdicts else 0)


def test_the_reruns_verdicts_are_each_re_run_mutants_own():
    recorded = RECORDED.replace("x_requirements__mutmut_2: timeout", "x_requirements__mutmut_2: survived")
    found = mutation.read_results(recorded)
    rerun = ["release.check.with_rocm_path.x_requirements__mutmut_2", "release.core.versions.x_parse__mutmut_4",
             "release.check.with_rocm_path.x_check_cell__mutmut_112", "release.core.versions.x_gone__mutmut_1"]
    assert mutation.verdicts_of(found, rerun) == {
        "release.check.with_rocm_path.x_check_cell__mutmut_112": "timeout",
        "release.check.with_rocm_path.x_requirements__mutmut_2": "survived",
        "release.core.versions.x_gone__mutmut_1": "not checked",
        "release.core.versions.x_parse__mutmut_4": "killed"}
