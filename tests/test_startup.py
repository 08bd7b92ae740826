"""Start-up a person does not notice: a command imports what it uses, when it runs.

Counted, not timed (a loaded machine times anything): the modules a run leaves in
``sys.modules``, in a fresh interpreter.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import pytest

from release import cli
from tests.support.startup import PROBE, run_probe

HEAVY = ("rich", "requests", "urllib3", "yaml", "git", "packaging", "http", "filelock")


def modules_after(*argv: str, cwd=None, env=None) -> set[str]:
    return run_probe(*argv, cwd=cwd, env=env)[1]


@functools.cache
def bare_interpreter() -> set[str]:
    proc = subprocess.run([sys.executable, "-c", "import sys, json; print(json.dumps(list(sys.modules)))"],
                          capture_output=True, text=True, check=True)
    return set(json.loads(proc.stdout))


def heavy(modules: set[str]) -> list[str]:
    return sorted({m.split(".")[0] for m in modules} & set(HEAVY))


def test_help_lists_the_commands_without_importing_any_of_their_work():
    """514 modules (0.33 s) before: every command's flags and everything they import."""
    modules = modules_after("--help")
    assert not heavy(modules), heavy(modules)
    assert len(modules - bare_interpreter()) <= 80, len(modules - bare_interpreter())


def test_status_json_draws_no_table(project_dir):
    """status --json printed JSON but imported rich's tables."""
    modules = modules_after("status", "--offline", "--json", cwd=project_dir)
    assert "release.commands.status" in modules
    assert not {m for m in modules if m.split(".")[0] == "rich"}


# The HTTP stack, the PyPI client and the lock library: loaded by the commands that use them,
# when they do (issue 36: status --offline loaded 445 modules, ssl and http.server among them).
REMOTE = ("ssl", "http", "requests", "urllib3", "release.publish.pypi", "release.publish.pypi_index")


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if n in modules or any(m.startswith(n + ".") for m in modules))


# What no command's --help needs (issue 36): the HTTP stack and the PyPI client (pypi-upload --help
# loaded them to print one constant), rich, YAML and the project's config, git (bump --help loaded
# the changelog's git stack for its default), processes, zip files, and the jobs' own modules
# (nightly --help and cut --help imported every step of every job through the catalog).
NOT_FOR_HELP = (*REMOTE, "filelock", "rich", "yaml", "git", "gitdb", "email", "zipfile", "subprocess",
                "socket", "difflib", "release.core.config", "release.sources", "release.publish.stores",
                "release.build.plan", "release.build.bazel", "release.jobs.steps", "release.jobs.cut",
                "release.jobs.post", "release.jobs.nightly", "release.jobs.planning",
                "release.jobs.pipeline", "release.jobs.workflows")
HELP_MODULES = 80  # beyond the bare interpreter's; the most any command's --help loads is 65


@pytest.mark.parametrize("command", cli.COMMANDS)
def test_every_commands_help_loads_its_flags_and_none_of_its_work(command):
    modules = modules_after(command, "--help")
    assert not loaded(modules, NOT_FOR_HELP), loaded(modules, NOT_FOR_HELP)
    assert len(modules - bare_interpreter()) <= HELP_MODULES, len(modules - bare_interpreter())


def test_bump_help_says_the_changelogs_default():
    """bump's --help names the changelog's default without importing the changelog."""
    from release.commands import bump
    from release.sources import changelog
    assert bump.DEFAULT_MAX_LOG_LINES == changelog.DEFAULT_MAX_LINES


@pytest.mark.parametrize("argv", [("status", "--offline"), ("status", "--offline", "--json"),
                                  ("nightly", "--dry-run", "--public-index", "none")])
def test_a_command_that_asks_nothing_loads_no_http_stack(argv, project_dir):
    """status --offline asks no store, index or PyPI; nightly --dry-run against no public index
    asks nothing either: neither loads what talking to one needs (nor takes a lock)."""
    modules = modules_after(*argv, cwd=project_dir)
    assert f"release.commands.{argv[0]}" in modules
    assert not loaded(modules, (*REMOTE, "filelock")), loaded(modules, (*REMOTE, "filelock"))


def test_the_probe_sees_the_http_stack_when_it_is_loaded():
    """The other side of the rule: the module lists above would also pass for a blind probe."""
    probe = PROBE.replace("from release.cli import main", "import release.publish.pypi\nfrom release.cli import main")
    assert loaded(run_probe("--help", probe=probe)[1], REMOTE) == sorted(REMOTE)


def test_pypi_upload_help_names_the_clients_file_limit_variable():
    """The help names the variable the PyPI client reads, without loading the client."""
    from release.commands import pypi_upload
    from release.publish import pypi
    assert pypi_upload.FILE_LIMIT_ENV == pypi.FILE_LIMIT_ENV


def test_the_index_of_a_local_store_loads_no_project_yaml_or_http_stack(make_dist, tmp_path):
    """``release index --store-dir`` reads JSON records and wheels' ends: it loaded deps.yaml's
    reader (PyYAML, the project config) to find a root it was not asked for, rich's progress
    bars where nothing draws them (a pipe), and rich itself for a console only GitHub's client
    prints on and for lines of text (a twentieth of a run at a year of nightlies)."""
    from release.publish.stores import LocalStore
    from tests.support.publish_dist import release_dist

    store = LocalStore(tmp_path / "store")
    release_dist(store, make_dist("0.9.1.dev20261121"))
    modules = modules_after("index", "--out", str(tmp_path / "site"), "--store", "local",
                            "--store-dir", str(store.directory), cwd=tmp_path)
    assert "release.commands.index" in modules and (tmp_path / "site" / "nightly").is_dir()
    unwanted = loaded(modules, (*REMOTE, "yaml", "release.core.config", "rich", "email",
                                # GitHub's client (sockets, threads, deadlines) and packaging's tags
                                # (platform, logging): a local store's names are read without them
                                "release.sources.github", "release.sources.asset_ranges", "socket",
                                "threading", "packaging.tags", "packaging.utils", "logging", "subprocess"))
    assert not unwanted, unwanted


# What a command that asks nothing does not need either (issue 36 item 2): GitPython to read
# roller.yaml at HEAD (two git processes do), difflib before a word is mistyped, socket before a
# job takes its lock, packaging.tags (platform, logging, sysconfig) to name a wheel, and the
# drafts' and stores' stack before a store is opened.
UNUSED = ("git", "gitdb", "difflib", "socket", "packaging.tags", "release.publish.drafts",
          "release.publish.stores")


@pytest.mark.parametrize("argv", [("status", "--offline"), ("nightly", "--dry-run", "--public-index", "none")])
def test_a_command_that_asks_nothing_loads_none_of_what_it_does_not_use(argv, project_dir):
    """In a committed checkout, as people and CI run them (status reads roller.yaml at HEAD)."""
    from tests.support.gitrepos import git
    git("init", "--quiet", "-b", "main", cwd=project_dir)
    git("add", "-A", cwd=project_dir)
    git("-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "c", cwd=project_dir)
    modules = modules_after(*argv, cwd=project_dir)
    assert f"release.commands.{argv[0]}" in modules
    assert not loaded(modules, UNUSED), loaded(modules, UNUSED)


# What status --offline shows needs none of these (issue 36 item 2): the resolver (it offers
# --public-index; only an online status asks the index), the build plan's wheels and Bazel steps (the
# next versions are ``release.build.next_version``'s), jax's own build, the checkouts, GitHub's runs,
# pull requests and throttle (the report offline says they were not asked), a file writer, zip files;
# and, in a log or a pipe (as here), rich: its tables are plain text there (release.core.plain).
NOT_FOR_AN_OFFLINE_STATUS = ("rich", "release.check.resolver", "release.build.plan", "release.build.jax_tree",
                             "release.sources.checkout", "release.sources.nightly_runs",
                             "release.sources.pull_requests", "release.sources.throttle", "release.core.atomic",
                             "tempfile", "zipfile")
# Modules beyond the bare interpreter's, as reached (2026-11-28: 187 -> 171, --json 132 -> 112, the dry
# run 177 -> 174; then, piped, without rich: 171 -> 111, --json 109, the dry run 174 -> 117): a command
# that starts loading more than this has taken on something it may not need.
BUDGET = {("status", "--offline"): 114, ("status", "--offline", "--json"): 112,
          ("nightly", "--dry-run", "--public-index", "none"): 120}


@pytest.mark.parametrize("argv", [("status", "--offline"), ("status", "--offline", "--json")])
def test_an_offline_status_loads_what_it_shows_and_no_more(argv, project_dir):
    modules = modules_after(*argv, cwd=project_dir)
    assert {"release.commands.status", "release.build.next_version", "release.core.roller_report"} <= modules
    assert not loaded(modules, NOT_FOR_AN_OFFLINE_STATUS), loaded(modules, NOT_FOR_AN_OFFLINE_STATUS)
    assert len(modules - bare_interpreter()) <= BUDGET[argv], len(modules - bare_interpreter())


def test_an_offline_status_without_a_git_cache_hashes_nothing(project_dir):
    """The pins' commit times come from the git cache's mirrors, each named by a hash of its URL:
    with no cache there is no mirror to name, and no hash library to load."""
    import os
    env = {k: v for k, v in os.environ.items() if k != "JAX_ROCM_RELEASE_CACHE"}
    modules = modules_after("status", "--offline", "--json", cwd=project_dir, env=env)
    assert "release.commands.status" in modules and "hashlib" not in modules


def test_a_nightly_dry_run_stays_within_its_module_budget(project_dir):
    argv = ("nightly", "--dry-run", "--public-index", "none")
    modules = modules_after(*argv, cwd=project_dir)
    # jax's own build, and zip files (a plan names wheels); rich, in a log or a pipe (the plan is plain text)
    unneeded = ("release.build.jax_tree", "zipfile", "rich")
    assert not loaded(modules, unneeded), loaded(modules, unneeded)
    assert len(modules - bare_interpreter()) <= BUDGET[argv], len(modules - bare_interpreter())


# A dry run declares every job but runs only the nightly's plan steps: it loads none of the
# other jobs' modules, nor the steps', the pipeline's (manifest, lock) or the checkout's.
NOT_FOR_A_DRY_RUN = ("release.jobs.steps", "release.jobs.cut", "release.jobs.post", "release.jobs.shared",
                     "release.jobs.pipeline", "release.sources.checkout", "release.core.manifest")


def test_a_nightly_dry_run_loads_only_the_nightlys_plan(project_dir):
    modules = modules_after("nightly", "--dry-run", "--public-index", "none", cwd=project_dir)
    assert {"release.jobs.catalog", "release.jobs.nightly", "release.jobs.planning"} <= modules
    assert not loaded(modules, NOT_FOR_A_DRY_RUN), loaded(modules, NOT_FOR_A_DRY_RUN)


def test_python_m_release_checks_a_provenance_without_compiling_format_grammars(make_dist, tmp_path):
    """jsonschema imports rfc3987-syntax where its format-nongpl extra is installed (here, beside
    cyclonedx-python-lib), and that compiles 38 grammars at import: about 3 s of CPU in every
    nightly, cut, publish and bisect probe that checks a provenance statement. No validator of this
    tool checks formats, so ``python -m release`` never imports it; the statement's shape is still
    held to the schema (one without predicateType is refused)."""
    from release.core import naming
    dist = make_dist("0.9.1.dev20261121")
    statement = json.loads((dist / naming.PROVENANCE_ASSET).read_text())
    del statement["predicateType"]
    (dist / naming.PROVENANCE_ASSET).write_text(json.dumps(statement))
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "release", "verify",
                           *sorted(map(str, dist.glob("*.whl"))), "--provenance",
                           str(dist / naming.PROVENANCE_ASSET), "--json"],
                          capture_output=True, text=True, cwd=tmp_path)
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:")}
    grammars = {m for m in imported if m.split(".")[0] == "lark" or m.startswith("rfc3987_syntax.")}
    assert "jsonschema" in imported and not grammars, grammars  # (the refused import is listed, nothing of it)
    # nor any other format checker's module, nor what they bring (arrow and dateutil, through isoduration)
    # (a refused module is listed too, with nothing below it: a package's submodules say it was loaded)
    checkers = {m for m in imported if m.split(".")[0] in ("arrow", "dateutil")
                or m.split(".")[0] in ("webcolors", "isoduration", "rfc3987_syntax", "uri_template") and "." in m}
    assert not checkers, checkers
    problems = json.loads(proc.stdout)["provenance"]["problems"]
    assert proc.returncode == 1 and any("predicateType" in p for p in problems), problems


# A dataclass without a docstring gets one made from its signature when it is defined
# (``inspect.signature``: 0.3-0.5 ms a class on Python 3.11, paid by every run that imports it).
UNDOCUMENTED = """
import dataclasses, sys
from release.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
made = sorted(f"{name}.{v.__qualname__}" for name, mod in list(sys.modules.items()) if name.startswith("release.")
              for v in vars(mod).values() if isinstance(v, type) and dataclasses.is_dataclass(v)
              and v.__module__ == name and (v.__doc__ or "").startswith(v.__name__ + "("))
print(json.dumps(made), file=sys.__stderr__)
"""


@pytest.mark.parametrize("argv", [("status", "--offline"), ("nightly", "--dry-run", "--public-index", "none")])
def test_the_dataclasses_a_command_defines_say_why_themselves(argv, project_dir):
    proc = subprocess.run([sys.executable, "-c", "import json\n" + UNDOCUMENTED, *argv], cwd=project_dir,
                          capture_output=True, text=True)
    assert json.loads(proc.stderr.strip().splitlines()[-1]) == []


# promote of a small dist (issue 36 item 2: 250 modules, 6.6x ``python -c pass``): in a log or a pipe
# its table is plain text and rich is not imported (release.core.plain); 2026-11-28: 250 -> 195.
PROMOTE_BUDGET = 200


def test_a_promote_in_a_pipe_loads_no_rich_and_stays_within_its_module_budget(make_dist, tmp_path):
    dist = make_dist("0.9.1rc1")
    proc, modules = run_probe("promote", *sorted(map(str, dist.glob("*.whl"))), "--to", "release",
                              "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert "release.build.promote" in modules and len(list((tmp_path / "out").glob("*.whl"))) == 2, proc.stderr
    assert "promoted to 0.9.1" in proc.stdout
    assert not loaded(modules, ("rich", *REMOTE)), loaded(modules, ("rich", *REMOTE))
    # the plugin's pin on the PJRT wheel, as the build writes it, is read without packaging's
    # requirement parser (about 30 ms: its tokenizer, markers and specifiers)
    assert not loaded(modules, ("packaging.requirements", "packaging.markers")), modules
    assert len(modules - bare_interpreter()) <= PROMOTE_BUDGET, len(modules - bare_interpreter())


# On a terminal (issue 36 item 2): the tables are boxed by ``release.core.boxes``, lines written
# as they are, and a small wheel's bar is never drawn, so rich's console and table (about 57 modules,
# 1.3 ``python -c pass`` of CPU) are not imported either. ``TTY_COMPATIBLE=1`` makes the probe's
# pipe a terminal, as it does for rich. Modules beyond the bare interpreter's, as reached
# (2026-11-29): status 112, the dry run 118, verify (with --provenance) 125, promote 125; drawn by
# rich they were about 57 more (and rich's progress bars for verify and promote).
TERMINAL_BUDGET = {"status": 114, "nightly": 120, "verify": 130, "promote": 130}


def on_a_terminal(*argv: str, cwd, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = {**(env or os.environ), "TTY_COMPATIBLE": "1", "COLUMNS": "100", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    return run_probe(*argv, cwd=cwd, env=env)


@pytest.mark.parametrize("argv", [("status", "--offline"), ("nightly", "--dry-run", "--public-index", "none")])
def test_a_command_on_a_terminal_boxes_its_tables_without_rich(argv, project_dir):
    proc, modules = on_a_terminal(*argv, cwd=project_dir)
    assert proc.returncode == 0 and "┌" in proc.stdout and "\x1b[1m" in proc.stdout, proc.stdout + proc.stderr
    assert not loaded(modules, ("rich", *REMOTE)), loaded(modules, ("rich", *REMOTE))
    assert len(modules - bare_interpreter()) <= TERMINAL_BUDGET[argv[0]], len(modules - bare_interpreter())


def test_verify_and_promote_of_a_small_dist_on_a_terminal_load_no_rich(make_dist, tmp_path):
    """Their lines and table are ours; a bar for a few KB would never be seen, so none is drawn."""
    from release.core import naming
    dist = make_dist("0.9.1rc1")
    wheels = sorted(map(str, dist.glob("*.whl")))
    for argv, said in ((("verify", *wheels, "--provenance", str(dist / naming.PROVENANCE_ASSET)), ": ok"),
                       (("promote", *wheels, "--to", "release", "--out", str(tmp_path / "out")), "promoted to 0.9.1")):
        proc, modules = on_a_terminal(*argv, cwd=tmp_path)
        assert proc.returncode == 0 and said in proc.stdout and "\x1b[" in proc.stdout, proc.stdout + proc.stderr
        assert not loaded(modules, ("rich", *REMOTE)), (argv[0], loaded(modules, ("rich", *REMOTE)))
        count = len(modules - bare_interpreter())
        assert count <= TERMINAL_BUDGET[argv[0]], (argv[0], count)


# ``python -m release`` with an atexit hook that reports what the interpreter's last collection
# would walk: the objects not frozen (a season's index leaves hundreds of thousands, 0.05 s of CPU).
AT_EXIT = """
import atexit, gc, runpy, sys
atexit.register(lambda: print("frozen", gc.get_freeze_count(), "tracked", len(gc.get_objects()), file=sys.__stderr__))
sys.argv = ["release", *sys.argv[1:]]
runpy.run_module("release", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("argv, status", [(("version", "--kind", "nightly"), 0), (("no-such-command",), 2)])
def test_python_m_release_leaves_its_heap_frozen_for_the_exit_and_its_status(argv, status, project_dir):
    """The process's end collects nothing it made (the heap is frozen, the tracked objects left
    are the few made after), and the command's exit status is still the process's."""
    proc = subprocess.run([sys.executable, "-c", AT_EXIT, *argv], capture_output=True, text=True, cwd=project_dir)
    assert proc.returncode == status, proc.stderr
    words = proc.stderr.strip().splitlines()[-1].split()
    assert words[0] == "frozen" and int(words[1]) > 10_000 and int(words[3]) < 1_000, words


@pytest.mark.parametrize("terminal", [False, True])
def test_a_bump_prints_what_moved_without_rich(terminal, bump_project, git_remotes, tmp_path):
    """A bump's result is its title and changelog: lines, written by our consoles (importing
    rich for them was the last ~50 ms of a cold bump's wall, issue 36 item 4). Piped, the title
    is plain text and rich is never loaded; on a terminal (where rich draws the progress), bold."""
    root = bump_project()
    env = {**os.environ, "JAX_ROCM_RELEASE_CACHE": str(tmp_path / "cache")}
    argv = ("bump", "--root", str(root), "--dry-run")
    proc, modules = on_a_terminal(*argv, cwd=root, env=env) if terminal else run_probe(*argv, cwd=root, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    title = next(line for line in proc.stdout.splitlines() if "(dry run: nothing written)" in line)
    assert "Bump plugin" in title, proc.stdout
    if terminal:
        assert "\x1b[1mBump plugin" in title, title
    else:
        assert title.startswith("Bump plugin") and "\x1b" not in proc.stdout, proc.stdout
        assert not loaded(modules, ("rich",)), loaded(modules, ("rich",))


# ``python -m release bump`` up to its first git process (roller.yaml at HEAD): the flags, deps.yaml
# and version_info.json read (YAML, the project's config), the gates. Every module loaded by then is
# CPU on a cold bump's path to its first fetch (issue 36 item 4), so what is used later loads there:
# packaging's Version (a bump parses none unless jax's line moves back), the mirrors, hashlib, the
# HTTP stack. Modules beyond the bare interpreter's, as reached (2026-11-29): 94 -> 92 (packaging).
AT_FIRST_GIT = """
import json, sys
seen = []
def hook(event, args):
    if event == "subprocess.Popen" and not seen:
        seen.append(sorted(sys.modules))
sys.addaudithook(hook)
from release.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps([seen[0] if seen else [], sorted(sys.modules)]), file=sys.__stderr__)
"""
BUMP_BEFORE_GIT = 94
NOT_BEFORE_THE_FIRST_GIT = ("packaging", "rich", "hashlib", "release.sources.mirror", "release.sources.roll",
                            *REMOTE)


def test_a_cold_bump_loads_before_its_first_git_process_only_what_reading_the_pins_needs(
        bump_project, git_remotes, tmp_path):
    root = bump_project()
    env = {**os.environ, "JAX_ROCM_RELEASE_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", AT_FIRST_GIT, "bump", "--root", str(root), "--dry-run"],
                          cwd=root, env=env, capture_output=True, text=True)
    assert proc.returncode == 0 and "Bump plugin" in proc.stdout, proc.stdout + proc.stderr
    first, done = (set(names) for names in json.loads(proc.stderr.strip().splitlines()[-1]))
    assert {"release.jobs.bump_gates", "release.core.config", "yaml"} <= first, sorted(first)
    assert not loaded(first, NOT_BEFORE_THE_FIRST_GIT), loaded(first, NOT_BEFORE_THE_FIRST_GIT)
    assert len(first - bare_interpreter()) <= BUMP_BEFORE_GIT, len(first - bare_interpreter())
    # the fixture's pins move within one jax line: no version is parsed in the whole run
    assert {"release.sources.roll", "release.sources.line"} <= done and not loaded(done, ("packaging",)), \
        loaded(done, ("packaging",))
