"""The public index as pip sees it: what is published there, and warnings before building
when the version line would lose to it (``status``, ``nightly --dry-run``)."""

from __future__ import annotations

import json
import socket

import pytest

from release.check.resolver import newest_published, version_line_warnings

PROJECTS = ("jax-rocm7-plugin", "jax-rocm7-pjrt")


@pytest.fixture
def published(make_dist, local_index):
    """``published(*versions, json_api=True)``: a local public index holding those releases."""
    def make(*versions, json_api=True):
        wheels = [w for v in versions for w in sorted(make_dist(v).glob("*.whl"))]
        return local_index(wheels, json_api=json_api)
    return make


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/simple/"


@pytest.mark.parametrize("json_api", [True, False], ids=["pep691-json", "pep503-html"])
def test_newest_published_reads_json_and_html(published, json_api):
    index = published("0.9.0", "0.10.2", "0.10.3.dev20261120", json_api=json_api)
    assert newest_published(index.url, "jax-rocm7-plugin").newest == "0.10.3.dev20261120"
    assert newest_published(index.url, "Jax_Rocm7.PJRT").newest == "0.10.3.dev20261120"
    assert newest_published(index.url, "jax-rocm9-plugin").newest is None  # 404: not published
    assert newest_published(index.url, "jax-rocm9-plugin").error is None
    assert any(path == "/simple/jax-rocm7-plugin/" for path in index.log)


@pytest.mark.parametrize("only_in", [7, 10])
def test_every_majors_projects_are_asked(make_dist, local_index, only_in):
    """A line of ROCm 7 and 10: a version either major's projects hold is taken (the next
    ``.postN`` counts it) and beats a planned version of its line, whichever major holds it."""
    from release.check.resolver import check_planned_versions, index_versions, projects_of
    index = local_index(sorted(make_dist("0.9.1.post1", majors=(only_in,)).glob("*.whl")))
    assert projects_of((7, 10)) == ("jax-rocm7-plugin", "jax-rocm7-pjrt", "jax-rocm10-plugin", "jax-rocm10-pjrt")
    assert index_versions((7, 10), index.url) == ("0.9.1.post1",)
    check = check_planned_versions({"post": "0.9.1.post1"}, (7, 10), index.url)
    assert [w.split(" sorts")[0] for w in check["warnings"]] == ["the post version 0.9.1.post1"]
    assert f"jax-rocm{only_in}-" in check["warnings"][0]


def test_an_unreachable_index_is_not_checked_never_a_failure():
    found = newest_published(closed_port_url(), "jax-rocm7-plugin", timeout=5)
    assert found.newest is None and "unreachable" in found.error
    check = version_line_warnings({"nightly": "0.9.1.dev20261122"}, PROJECTS, closed_port_url())
    assert check["checked"] is False and check["warnings"] == []
    assert check["note"].startswith("could not check the public index: ")


def test_only_a_public_version_of_the_same_line_at_or_above_is_warned(published):
    """The line's users pin it (``==X.Y.Z.*``): a newer line on the index leaves a maintenance
    line alone; a version of its own line at or above it beats it."""
    index = published("0.9.1.post2", "0.10.2")
    check = version_line_warnings({"release": "0.9.1", "nightly": "0.9.1.post3.dev20261122",
                                   "behind": "0.9.1.post2.dev20261122", "same": "0.10.2",
                                   "above": "0.10.3.dev20261122", "newest": "0.11.0"},
                                  PROJECTS, index.url)
    assert check["checked"] and check["newest"] == {p: "0.10.2" for p in PROJECTS}
    assert [w.split(" ")[1] for w in check["warnings"]] == ["release", "behind", "same"]
    assert check["warnings"][1] == (
        f"the behind version 0.9.1.post2.dev20261122 sorts at or below jax-rocm7-plugin 0.9.1.post2 "
        f"on {index.url}: `pip install --pre jax-rocm7-plugin==0.9.1.*` (how the line's users "
        "install) would install 0.9.1.post2; move version_info.json's version to 0.9.1.post3 "
        "(the line published 0.9.1.post2)")
    assert check["lines"]["nightly"] == {"line": "0.9.1", "newer_line": "0.10.2"}  # maintenance
    assert check["lines"]["newest"] == {"line": "0.11.0", "newer_line": None}


def test_status_warns_before_anything_is_built(run_cli, project_dir, published):
    # A later nightly of the line published elsewhere: tonight's (and only it) would lose.
    index = published("0.9.1.dev20261130", "0.10.2")
    code, out, err = run_cli("status", "--json", "--date", "2026-11-22", "--root", project_dir,
                             "--public-index", index.url)
    assert code == 0, err
    data = json.loads(out)["public_index"]
    assert data["newest"]["jax-rocm7-plugin"] == "0.10.2"
    assert len(data["warnings"]) == 1 and "the nightly version 0.9.1.dev20261122" in data["warnings"][0]
    code, out, _ = run_cli("status", "--root", project_dir, "--public-index", index.url)
    assert code == 0 and "warning: the nightly version 0.9.1.dev" in out
    # The line's release published there (by hand): the next versions count on past it, no warning.
    index = published("0.9.1", "0.10.2")
    code, out, err = run_cli("status", "--json", "--date", "2026-11-22", "--root", project_dir,
                             "--public-index", index.url)
    data = json.loads(out)
    assert data["public_index"]["warnings"] == [] and data["next"]["release"] == "0.9.1.post1"


def test_status_with_a_correct_version_line_says_what_it_compared(run_cli, project_dir, published):
    index = published("0.9.0")
    code, out, _ = run_cli("status", "--root", project_dir, "--public-index", index.url)
    assert code == 0 and "warning" not in out
    assert f"public index {index.url}: jax-rocm7-plugin 0.9.0, jax-rocm7-pjrt 0.9.0" in out
    index = published("0.9.0", "0.12.0")
    code, out, _ = run_cli("status", "--root", project_dir, "--public-index", index.url)
    assert code == 0 and "warning" not in out and "a maintenance line (newer line 0.12.0 there)" in out


def test_status_offline_says_it_could_not_check(run_cli, project_dir):
    code, out, _ = run_cli("status", "--root", project_dir, "--public-index", closed_port_url())
    assert code == 0 and "could not check the public index" in out


def test_the_nightly_plan_fails_before_building_when_validate_would(run_cli, project_dir, published,
                                                                   monkeypatch):
    """Point 4 of issue 19: tonight's version below what the public index has of its line fails
    the dry run and the plan stage (one line, exit 2), asking pip's own index by default."""
    index = published("0.9.1.dev20261130")  # a later nightly of the line, published elsewhere
    monkeypatch.delenv("RELEASE_PUBLIC_INDEX")
    monkeypatch.setenv("PIP_INDEX_URL", index.url)
    for stage in (["--dry-run"], ["--stage", "plan"]):
        code, out, err = run_cli("nightly", *stage, "--date", "2026-11-22", "--root", project_dir)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert "0.9.1.dev20261122 sorts at or below jax-rocm7-plugin 0.9.1.dev20261130" in err
    assert not (project_dir / ".cache").exists() and not (project_dir / "dist").exists()
    # A newer line alone does not: this is the line's maintenance, pinned by its users.
    monkeypatch.setenv("PIP_INDEX_URL", published("0.10.2").url)
    code, out, err = run_cli("nightly", "--dry-run", "--json", "--date", "2026-11-22",
                             "--root", project_dir)
    assert code == 0, err
    check = json.loads(out)["public_index"]
    assert check["warnings"] == [] and check["lines"]["nightly"]["newer_line"] == "0.10.2"


def test_the_env_none_skips_the_check(run_cli, project_dir):
    code, out, _ = run_cli("nightly", "--dry-run", "--json", "--date", "2026-11-22",
                           "--root", project_dir)
    assert code == 0
    assert json.loads(out)["public_index"]["checked"] is False


@pytest.mark.parametrize("command", [["status"], ["nightly", "--dry-run"],
                                     ["validate", "rocm-jax-v1"]])
def test_a_bad_public_index_is_one_line(run_cli, project_dir, command):
    code, out, err = run_cli(*command, "--root", project_dir, "--public-index", "pypi")
    assert code == 2 and err.count("\n") == 1 and "--public-index" in err
    assert "expected an index URL" in err


@pytest.mark.network
def test_the_real_public_index_knows_the_published_wheels():
    """pip's own index (the default) answers with at least the 0.10.2 pair the registry tests
    download; the version line is compared with that."""
    from packaging.version import Version

    from release.check.resolver import pip_configured_index
    from tests.support.registry import PUBLISHED_VERSION
    index = pip_configured_index()
    for project in PROJECTS:
        found = newest_published(index, project, timeout=30)
        if found.error:
            pytest.skip(f"public index unreachable: {found.error}")
        assert Version(found.newest) >= Version(PUBLISHED_VERSION)
    check = version_line_warnings({"nightly": "0.9.1.dev20261122", "shipped": "0.9.1.post7.dev20261122"},
                                  PROJECTS, index)
    assert check["checked"] and len(check["warnings"]) == 1  # 0.9.1 and its posts are public
    assert check["lines"]["shipped"]["newer_line"] is not None  # a maintenance line


def test_status_offline_asks_no_index(run_cli, project_dir, published):
    index = published("0.10.2")
    code, out, _ = run_cli("status", "--offline", "--root", project_dir, "--public-index", index.url)
    assert code == 0 and "public index not checked (--offline)" in out and "warning" not in out
    assert index.log == []


def test_cut_is_refused_before_tagging_when_the_public_index_has_its_line(run_cli, project_dir,
                                                                         published, monkeypatch,
                                                                         tmp_path):
    """A release 0.9.1 below what the public index has of its line (a post's nightly published
    there) would fail validate after the build: cut stops before tagging, one line, exit 2. A
    release the index has (as PyPI has the real 0.9.1) is counted past instead: 0.9.1.post1."""
    import subprocess

    def git(*args):
        return subprocess.run(["git", *args], cwd=project_dir, check=True, capture_output=True,
                              text=True).stdout
    git("init", "--quiet", "-b", "main")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "init")
    monkeypatch.setenv("RELEASE_PUBLIC_INDEX", published("0.9.1.post1.dev20261120").url)
    for stage in ((), ("--stage", "plan")):
        code, out, err = run_cli("cut", *stage, "--root", project_dir, "--artifacts", tmp_path,
                                 "--store", "local", "--store-dir", tmp_path / "store",
                                 "--dist", tmp_path / "dist")
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
        assert "the release version 0.9.1 sorts at or below jax-rocm7-plugin 0.9.1.post1.dev20261120" in err
        assert git("tag") == "" and not (tmp_path / "dist").exists()
    monkeypatch.setenv("RELEASE_PUBLIC_INDEX", published("0.9.1").url)
    code, out, err = run_cli("cut", "--stage", "plan", "--json", "--root", project_dir, "--store", "local",
                             "--store-dir", tmp_path / "store")
    assert code == 0, err
    assert json.loads(out)["version"] == "0.9.1.post1" and git("tag").split() == ["rocm-jax-v0.9.1.post1"]


def _probe_index(root):
    """A hand-written PEP 503 page (with PEP 658 metadata) for two one-file wheels: ``good-probe``
    listed with its own sha256, ``bad-probe`` with another file's (its metadata is right, so pip
    resolves it and only the download fails)."""
    import hashlib
    import html

    from tests.support.publish_dist import write_wheel
    files = root / "files"
    files.mkdir(parents=True)
    for project in ("good-probe", "bad-probe"):
        module = project.replace("-", "_")
        wheel = write_wheel(files / f"{module}-1.0-py3-none-any.whl", project, "1.0",
                            "py3-none-any", {f"{module}.py": "x = 1\n"}, requires_python=">=3")
        import zipfile
        with zipfile.ZipFile(wheel) as zf:
            meta = zf.read(f"{module}-1.0.dist-info/METADATA")
        (files / f"{wheel.name}.metadata").write_bytes(meta)
        digest = hashlib.sha256(wheel.read_bytes() if project == "good-probe" else b"other").hexdigest()
        meta_digest = hashlib.sha256(meta).hexdigest()
        page = root / "simple" / project
        page.mkdir(parents=True)
        (page / "index.html").write_text(
            f'<a href="../../files/{html.escape(wheel.name)}#sha256={digest}" '
            f'data-dist-info-metadata="sha256={meta_digest}" data-core-metadata="sha256={meta_digest}">'
            f"{html.escape(wheel.name)}</a>\n")


def test_one_pip_run_says_what_it_resolved_and_whether_it_installed(tmp_path):
    """validate resolves each install line once: pip's --report is written after resolving and
    before installing, so a failed real install with a report was resolved (its picks are known,
    "failed to install") and one without could not be ("cannot resolve"); an earlier run's report
    never stands for a later one; a dry run after the install resolves as in an empty venv."""
    import subprocess
    import sys

    from release.check import resolver
    _probe_index(tmp_path / "index")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    work = tmp_path / "work"
    work.mkdir()
    installed = lambda: sorted(p.name for p in venv.glob("lib/python3*/site-packages/*_probe.py"))  # noqa: E731
    with resolver.serve(tmp_path / "index") as base:
        indexes = ["--isolated", "--index-url", f"{base}/simple/"]
        good = resolver.pip_install(python, "good-probe", indexes, work, dry_run=False)
        assert good.ok and good.resolved, good.error
        assert good.picks["good-probe"].version == "1.0"
        assert good.picks["good-probe"].url.startswith(f"{base}/files/good_probe-1.0-")
        assert installed() == ["good_probe.py"]
        # the same line again, as in an empty venv: pip still reports it (not "already satisfied")
        again = resolver.pip_install(python, "good-probe", indexes, work, dry_run=True, fresh=True)
        assert again.ok and again.picks == good.picks
        nothing = resolver.pip_install(python, "good-probe==2.*", indexes, work, dry_run=False)
        assert not nothing.ok and not nothing.resolved and nothing.picks == {}
        assert nothing.error.startswith("ERROR: ") and "\n" not in nothing.error
        broken = resolver.pip_install(python, "bad-probe", indexes, work, dry_run=False)
        assert not broken.ok and broken.resolved and broken.error
        assert broken.picks["bad-probe"].url.startswith(f"{base}/files/bad_probe-1.0-")
        assert installed() == ["good_probe.py"]


@pytest.fixture
def pip_config(tmp_path, monkeypatch):
    """pip's configuration in files of this test's own (``PIP_CONFIG_FILE`` is read last, over
    the machine's), no ``$PIP_INDEX_URL``, the resolver's memory of it empty; returns a function
    that points pip at a file naming ``url`` and a list of the ``pip config`` processes started."""
    import subprocess

    from release.check import resolver
    monkeypatch.delenv("PIP_INDEX_URL", raising=False)
    resolver._pip_config_index.cache_clear()
    started: list[list[str]] = []
    real_run = subprocess.run

    def counting_run(argv, *args, **kwargs):
        if "config" in argv:
            started.append(list(argv))
        return real_run(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counting_run)

    def point_at(url: str) -> None:
        conf = tmp_path / f"pip-{len(list(tmp_path.glob('pip-*')))}.conf"
        conf.write_text(f"[global]\nindex-url = {url}\n")
        monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))

    yield point_at, started
    resolver._pip_config_index.cache_clear()


def test_pips_configured_index_is_asked_once_a_process_and_again_for_another_configuration(pip_config):
    """A validate asks for pip's index per cell and per major: pip starts once for one
    configuration, and a configuration file named elsewhere is never answered from memory."""
    from release.check.resolver import pip_configured_index
    point_at, started = pip_config
    point_at("https://first.example/simple/")
    assert [pip_configured_index() for _ in range(3)] == ["https://first.example/simple/"] * 3
    assert len(started) == 1
    point_at("https://second.example/simple/")
    assert pip_configured_index() == "https://second.example/simple/"
    assert len(started) == 2


def test_pip_config_that_never_answers_is_one_line_naming_the_flag(pip_config, monkeypatch):
    """A stalled ``pip config`` has a deadline, and no index is guessed in its place."""
    import subprocess

    from release.check import resolver
    from release.core.errors import UserError

    def stalled(argv, *args, **kwargs):
        assert kwargs.get("timeout") == resolver.PIP_CONFIG_DEADLINE
        raise subprocess.TimeoutExpired(argv, kwargs["timeout"])

    monkeypatch.setattr(subprocess, "run", stalled)
    with pytest.raises(UserError) as refused:
        resolver.pip_configured_index()
    assert "--public-index URL" in str(refused.value) and "\n" not in str(refused.value)
