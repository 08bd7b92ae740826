"""Rules one plausible line of the last round's code could break while the whole suite passed
(issue 35), each tested from the rule and varied where it matters: two of each thing, both
orders, numbers of two digits. ``tests/plausible_bugs/`` plants each such line."""

from __future__ import annotations

import datetime as _dt
import hashlib
import subprocess
import types
from pathlib import Path

import pytest

from release.publish.stores import LocalStore
from release.sources.pull_requests import free_branch, sync_pull
from tests.support.bumping import bump
from tests.support.hostile_server import hostile_servers  # noqa: F401 (fixture)

SHA = "a" * 40


class Repo:
    """Stands for ReleaseRepo: ``taken`` branches carry a person's commits; pushes are recorded."""

    def __init__(self, taken=()):
        self.taken, self.pushed = set(taken), []

    def push(self, sha, branch):
        self.pushed.append((sha, branch))

    def person_pushed(self, branch):
        return "a person pushed to it" if branch in self.taken else None

    def unchanged_tip(self, branch, sha):
        return None

    def delete_remote_branch(self, branch):
        return True


# ------------------------------------------------------------------ the one bump PR


@pytest.mark.parametrize("heads", [("bump/2026-11-20-xla", "bump/2026-11-21-xla"),
                                   ("bump/2026-11-21-xla", "bump/2026-11-20-xla")],
                         ids=["names-in-order", "names-reversed"])
def test_of_two_open_bump_prs_the_newest_is_kept_and_the_other_closed(github_client, fake_github, heads):
    owner, name = fake_github.repo.split("/")
    older, newer = (github_client.create_pull(owner, name, title=f"Bump from {h}", head=f"{owner}:{h}",
                                              base="main", body="b")["number"] for h in heads)
    repo = Repo()
    result = sync_pull(github_client, repo, owner=owner, name=name, base="main", sha=SHA,
                       branch="bump/2026-11-22-xla", title="Bump xla", body="the changelog")
    assert (result.action, result.number, result.closed) == ("updated", newer, (older,))
    assert repo.pushed == [(SHA, heads[1])]  # the newest PR's branch, whatever its name sorts as
    state = {p["number"]: (p["state"], p["title"]) for p in fake_github.pulls()}
    assert state[newer] == ("open", "Bump xla") and state[older][0] == "closed"


@pytest.mark.parametrize("taken", [1, 2, 3, 11])
def test_the_next_roll_never_lands_on_any_of_a_persons_branches(github_client, fake_github, taken):
    """A person's commits on ``bump/<date>-<deps>`` and on ``-2``, ``-3`` ... (up to two digits):
    the new PR opens on the first free name, and nothing is pushed to theirs."""
    base = "bump/2026-11-22-plugin-xla"
    names = [base] + [f"{base}-{n}" for n in range(2, taken + 1)]
    assert free_branch(Repo(names), base) == f"{base}-{taken + 1}"
    assert free_branch(Repo(names[1:]), base) == base  # the plain name is free: it is used
    owner, name = fake_github.repo.split("/")
    repo = Repo(names)
    result = sync_pull(github_client, repo, owner=owner, name=name, base="main", sha=SHA, branch=base,
                       title="Bump plugin, xla", body="the changelog")
    assert result.action == "opened" and result.branch == f"{base}-{taken + 1}"
    assert [b for _, b in repo.pushed] == [f"{base}-{taken + 1}"] and not set(names) & {b for _, b in repo.pushed}


# ------------------------------------------------------------------ the dashboard's nights


@pytest.mark.parametrize("order", ["oldest first", "newest first"])
def test_the_nights_row_shows_that_days_newest_nightly(tmp_path, order):
    """Two nightlies of one day (build numbers 009 and 010: two digits), published in either
    order, and one of the day before: each night's row names its day's newest."""
    from release.jobs.report import versions_by_day
    from release.sources.dashboard import runs_shown
    store = LocalStore(tmp_path / "store")
    made = ["0.9.1.dev20261121001", "0.9.1.dev20261122009", "0.9.1.dev20261122010"]
    for version in made if order == "oldest first" else reversed(made):
        draft = store.create_draft(f"rocm-jax-v{version}", name="n", body="", prerelease=True)
        store.publish(draft, prerelease=True, make_latest=False)
    days = versions_by_day(store, [])
    assert days == {"2026-11-21": "0.9.1.dev20261121001", "2026-11-22": "0.9.1.dev20261122010"}
    runs = [types.SimpleNamespace(run_number=n, outcome="success", html_url=f"https://example.test/{n}",
                                  conclusion="success", created_at=_dt.datetime(2026, 11, day, 3, 23,
                                                                                tzinfo=_dt.timezone.utc))
            for n, day in ((41, 22), (40, 21))]
    assert [r.version for r in runs_shown(runs, days)] == ["0.9.1.dev20261122010", "0.9.1.dev20261121001"]


# ------------------------------------------------------------------ GLIBC, either order


def _needs_both(base: Path, old_symbol: str) -> Path:
    """An object needing GLIBC_2.17 and GLIBC_2.34 of a library built here; which symbol holds
    the older version decides the order the linker lists them in (``old_symbol``: a_fn or b_fn)."""
    from tests.support.elf import cc
    new_symbol = "b_fn" if old_symbol == "a_fn" else "a_fn"
    base.mkdir(parents=True, exist_ok=True)
    (base / "v.map").write_text(f"GLIBC_2.17 {{ global: {old_symbol}; }};\nGLIBC_2.34 {{ global: {new_symbol}; }};\n")
    (base / "lib.c").write_text("int a_fn(void) { return 1; }\nint b_fn(void) { return 2; }\n")
    (base / "user.c").write_text("int a_fn(void); int b_fn(void);\nint use(void) { return a_fn() + b_fn(); }\n")
    run = dict(check=True, capture_output=True, cwd=base)
    subprocess.run([cc(), "-shared", "-fPIC", "-o", "libversioned.so", "lib.c", "-Wl,--version-script=v.map",
                    "-Wl,-soname,libversioned.so"], **run)
    subprocess.run([cc(), "-shared", "-fPIC", "-o", "user.so", "user.c", "-L.", "-lversioned"], **run)
    return base / "user.so"


def _listed_order(path: Path) -> list[str]:
    from elftools.elf.elffile import ELFFile
    from elftools.elf.gnuversions import GNUVerNeedSection
    with open(path, "rb") as fh:
        section = next(s for s in ELFFile(fh).iter_sections() if isinstance(s, GNUVerNeedSection))
        return [aux.name for _, auxes in section.iter_versions() for aux in auxes]


def test_the_newest_glibc_decides_whatever_order_the_elf_lists_them(tmp_path):
    """gcc lists the newest version first; the suite's hand-made objects list the oldest first.
    Objects compiled both ways here (the order checked with pyelftools) need GLIBC 2.34."""
    from release.core.elffacts import facts_or_error, file_reader
    orders = {}
    for old_symbol in ("a_fn", "b_fn"):
        path = _needs_both(tmp_path / old_symbol, old_symbol)
        orders[old_symbol] = _listed_order(path)
        with open(path, "rb") as fh:
            assert facts_or_error(file_reader(fh), path.stat().st_size).glibc == (2, 34)
    assert sorted(orders.values()) == [["GLIBC_2.17", "GLIBC_2.34"], ["GLIBC_2.34", "GLIBC_2.17"]]


# ------------------------------------------------------------------ an upload redirected


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_an_upload_the_index_redirects_is_refused_and_nothing_goes_elsewhere(hostile_servers, tmp_path, status):
    from release.publish.pypi_index import IndexRefused, Repository, upload
    from tests.support.hostile_server import answer, redirect_to
    elsewhere = hostile_servers().route("/", answer({"ok": True}))
    index = hostile_servers().route("/", redirect_to(elsewhere.url, status))
    wheel = tmp_path / "jax_rocm7_pjrt-0.9.1-py3-none-manylinux_2_28_x86_64.whl"
    wheel.write_bytes(b"validated bytes")
    repo = Repository(f"{index.url}/legacy/", f"{index.url}/simple/", password="pypi-secret-upload-token")
    with pytest.raises(IndexRefused, match="redirects the upload") as caught:
        upload(repo, wheel, [("name", "jax-rocm7-pjrt"), ("version", "0.9.1")])
    assert "\n" not in str(caught.value) and "pypi-secret-upload-token" not in str(caught.value)
    assert [s.method for s in index.seen] == ["POST"] and elsewhere.seen == []  # sent once, to the index only


# ------------------------------------------------------------------ collect


def test_collect_replaces_local_files_whose_bytes_differ(tmp_path, make_dist):
    """The finish stage brings the draft's wheels and revisions.json home: a file of that name
    already in dist/<version>/ with other bytes (two of them: a wheel and revisions.json) is
    replaced; one with the draft's bytes is kept as it is."""
    from release.core import naming
    from release.core.output import Output
    from release.jobs import steps
    from release.jobs.runner import JobOptions, JobRun, OptionsView
    from release.publish.drafts import publish_draft, read_dist
    version = "0.9.1.dev20261122"
    dist = read_dist(make_dist(version))
    store = LocalStore(tmp_path / "store")
    publish_draft(store, dist)
    home = tmp_path / "dist" / version
    home.mkdir(parents=True)
    wheels = sorted((a for a in dist.assets if a.name.endswith(".whl")), key=lambda a: a.name)
    wrong = [wheels[0].name, naming.REVISIONS_ASSET]
    for name in wrong:
        (home / name).write_bytes(b"bytes of an earlier run")
    kept = home / wheels[1].name
    kept.write_bytes(wheels[1].path.read_bytes())
    said: list[str] = []
    project = types.SimpleNamespace(root=tmp_path, deps=(),
                                    version_info=types.SimpleNamespace(rocm_version="7.1.0", rocms=("7.1.0",)))
    run = JobRun(project, version, tmp_path / "dist", store=store, out=Output(), say=said.append)
    steps.collect(run, OptionsView(JobOptions(), (), "collect"), {})
    for asset in dist.assets:
        if asset.name.endswith(".whl") or asset.name == naming.REVISIONS_ASSET:
            assert hashlib.sha256((home / asset.name).read_bytes()).hexdigest() == asset.digest, asset.name
    assert sorted(s.removeprefix("download ") for s in said if s.startswith("download ")) == sorted(
        wrong + [w.name for w in wheels[2:]])


# ------------------------------------------------------------------ the newest final of a line


@pytest.mark.parametrize("published", [["0.9.1", "0.9.1.post9", "0.9.1.post10"],
                                       ["0.9.1.post10", "0.9.1.post9", "0.9.1", "0.9.1rc3"]])
def test_the_newest_final_of_a_line_is_chosen_by_version_order(published):
    """post10 comes after post9 (a string sort says otherwise): the next version of the line is
    post11, whether the store or the public index holds them, in either order."""
    from release.build.plan import move_on
    from release.check.resolver import move_past
    assert move_on("0.9.1", published).endswith("to 0.9.1.post11")
    assert move_on("0.9.1.post9", published).endswith("to 0.9.1.post11")
    assert move_past("0.9.1.post10", published) == (
        "move version_info.json's version to 0.9.1.post11 (the line published 0.9.1.post10)")


# ------------------------------------------------------------------ a dry run


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("deps", [("plugin",), ()], ids=["one-dep", "every-dep"])
def test_a_bump_dry_run_writes_nothing_its_changelog_included(bump_project, git_remotes, tmp_path,
                                                              monkeypatch, existing, deps):
    """The changelog file is the bump PR's notes: a dry run neither writes a new one nor
    replaces one already there, and leaves every file of the checkout as it was."""
    monkeypatch.setenv("JAX_ROCM_RELEASE_CACHE", str(tmp_path / "cache"))
    root = bump_project()
    changelog, earlier = tmp_path / "CHANGES.md", "# the notes of an earlier bump\n"
    if existing:
        changelog.write_text(earlier)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
    shown = bump(root, dry_run=True, deps=deps, changelog=changelog)
    assert shown.dry_run and shown.changed and shown.title.startswith("Bump plugin")  # a roll to write about
    assert changelog.exists() == existing and (not existing or changelog.read_text() == earlier)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts} == before
