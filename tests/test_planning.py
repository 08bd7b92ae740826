"""The plan stage's runner and the plan steps every job shares, called directly (fast: no git,
no network): a plan runs its declared decisions in order, stops at the first that finds
nothing to do, reads the store once, and asks the public index the flag names."""

from __future__ import annotations

import dataclasses
import types
from pathlib import Path

import pytest

from release.core.output import Output
from release.jobs import planning
from release.jobs.runner import (
    PUBLIC_INDEX_FROM_ENV,
    JobOptions,
    JobRequest,
    OptionsView,
    PlanDecl,
    Planned,
    run_plan,
)


def request(**more) -> JobRequest:
    project = types.SimpleNamespace(root=Path("/nowhere"),
                                    version_info=types.SimpleNamespace(rocm_major=7, rocm_majors=(7, 10)))
    return JobRequest(project, Output(), **{"dist_root": Path("dist"), **more})


def noting(seen: list[str], name: str, **change) -> PlanDecl:
    def run(_request, _opts, planned):
        seen.append(name)
        return dataclasses.replace(planned, **change)
    return PlanDecl(name, name, run)


def test_a_plan_runs_its_steps_in_order_skips_the_unwanted_and_stops_when_done():
    seen: list[str] = []
    steps = [noting(seen, "a", version="1"),
             dataclasses.replace(noting(seen, "b"), when=lambda _r, p: p.version == "2"),
             noting(seen, "c", done="nothing to do"), noting(seen, "d", version="3")]
    planned = run_plan(steps, request(), JobOptions())
    assert seen == ["a", "c"] and planned == Planned(version="1", done="nothing to do")
    assert run_plan([], request(), JobOptions(), planned) is planned


def test_a_plan_step_reads_only_the_options_it_declares():
    def nosy(_request, opts, planned):
        return dataclasses.replace(planned, commit=opts.release_branch)
    with pytest.raises(AttributeError, match="'release_branch' but does not declare"):
        run_plan([PlanDecl("n", "n", nosy)], request(), JobOptions())
    assert run_plan([PlanDecl("n", "n", nosy, takes=("release_branch",))], request(),
                    JobOptions(release_branch="rel")).commit == "rel"
    with pytest.raises(ValueError, match="unknown options"):
        PlanDecl("n", "n", nosy, takes=("release-branch",))


class CountingStore:
    """A store whose listing counts its reads (each is a GitHub request on the github store)."""

    def __init__(self, versions=()):
        self.reads = 0
        self.where = "test store"
        self._versions = list(versions)

    def published(self):
        self.reads += 1
        return types.SimpleNamespace(versions=lambda: list(self._versions))


def test_the_store_is_opened_only_when_named_and_its_listing_read_once():
    store = CountingStore(["0.9.1rc1"])
    planned = planning.open_store(request(open_store=lambda: store), None, Planned(public=("0.9.0",)))
    assert planned.store is store and store.reads == 1
    assert planned.published() == ("0.9.1rc1", "0.9.0")   # the store's, then the public index's
    assert Planned().published() == ()
    assert planning.names_a_store(request(open_store=lambda: store), Planned())
    assert not planning.names_a_store(request(), Planned())
    assert planning.has_a_store(request(), planned) and not planning.has_a_store(request(), Planned())
    with pytest.raises(ValueError):
        planning.open_store(request(), None, Planned())


@pytest.mark.parametrize("given, asked", [("none", "none"), ("https://i.example/simple", "https://i.example/simple"),
                                          (PUBLIC_INDEX_FROM_ENV, "from the environment")])
def test_the_public_index_asked_is_the_one_the_flag_names_else_the_environments(monkeypatch, given, asked):
    from release.check import resolver
    calls: list[tuple] = []
    monkeypatch.setattr(resolver, "public_index_default", lambda: "from the environment")
    monkeypatch.setattr(resolver, "index_versions", lambda majors, index: calls.append((majors, index)) or ("1",))
    opts = OptionsView(JobOptions(public_index=given), ("public_index",), "public")
    assert planning.public_versions(request(), opts, Planned()).public == ("1",)
    plan = types.SimpleNamespace(kind="rc", version="0.9.1rc2", rocm_major=6,
                                 majors=[types.SimpleNamespace(major=6), types.SimpleNamespace(major=10)])
    monkeypatch.setattr(resolver, "refuse_losing_versions",
                        lambda versions, majors, index: calls.append((versions, majors, index)) or {"warnings": ["w"]})
    assert planning.refuse_losing(request(), opts, Planned(plan=plan)).public_check == {"warnings": ["w"]}
    assert calls == [((7, 10), asked), ({"rc": "0.9.1rc2"}, [6, 10], asked)]  # every major of the line
    with pytest.raises(ValueError):
        planning.refuse_losing(request(), opts, Planned())


def test_publishable_asks_once_with_the_listing_the_plan_read(monkeypatch):
    from release.jobs import shared
    calls: list[tuple] = []
    monkeypatch.setattr(shared, "check_publishable", lambda *a: calls.append(a))
    store, listing, revisions = CountingStore(), object(), object()
    planned = Planned(store=store, listing=listing, version="0.9.1", revisions=revisions)
    assert planning.publishable(request(), None, planned) is planned
    assert calls == [(store, "0.9.1", revisions, listing)] and store.reads == 0
    for missing in ("store", "version", "revisions"):
        with pytest.raises(ValueError):
            planning.publishable(request(), None, dataclasses.replace(planned, **{missing: None}))


def test_the_steps_run_on_what_the_plan_chose(tmp_path):
    plan, source, store = object(), object(), CountingStore()
    now, progress = object(), object()
    asked = request(dist_root=tmp_path / "d", now=now, progress=progress)
    run = planning.job_run(asked, Planned(store=store, version="0.9.1", plan=plan, commit="c0ffee",
                                          source=source))
    assert (run.version, run.store, run.plan, run.commit, run.source, run.now) == \
        ("0.9.1", store, plan, "c0ffee", source, now)
    # who hears: the request's project, output, its line printer, progress and console
    assert run.project is asked.project and run.out is asked.out and run.progress is progress
    assert run.say == asked.out.line and run.console is asked.out.progress_console()
    assert run.directory == (tmp_path / "d").resolve() / "0.9.1"
    for missing in ("store", "version"):
        with pytest.raises(ValueError):
            planning.job_run(request(), dataclasses.replace(Planned(store=store, version="1"),
                                                            **{missing: None}))
