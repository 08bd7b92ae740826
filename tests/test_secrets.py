"""No secret leaves the process: a token in every place a person might put one, then every
output, file, wheel member, commit message, mirror config, release note and PR body the tool
wrote is searched for it.

Places: ``GITHUB_TOKEN`` (with the trailing newline ``$(cat file)`` habits leave), tokens in
the deps.yaml URLs (``https://x-access-token:TOKEN@host/...``, served by a git server that
demands them), the Bazel remote-cache header (``BAZEL_REMOTE_HEADER``) and cache URL (a
real Bazel run's argv and log with them: tests/test_bazel.py).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import zipfile

from tests.support import warm_start
from tests.support.gitrepos import GitHttpServer, deps_yaml, git
from tests.test_jobs_e2e import PY, artifacts, commit_all, world  # noqa: F401 (fixtures)

DEPS_TOKEN = "dEpStOkEn-7f3a9c1e5b"
BAZEL_TOKEN = "bAzElToKeN-2c8e4a6f0d"
CACHE_PASSWORD = "cAcHePaSs-91b7d3f5a1"


def test_no_token_reaches_any_output_file_commit_note_or_pull_request(world, artifacts, tmp_path):
    fake, root = world.fake, world.root
    server = GitHttpServer(world.remotes.root, token=DEPS_TOKEN).start()
    try:
        urls = {n: server.url(f"{n}.git", user="x-access-token", password=DEPS_TOKEN)
                for n in ("plugin", "jax", "xla")}
        (root / "deps.yaml").write_text(deps_yaml(world.remotes, urls=urls))
        commit_all(root, "Pins from the private mirror")
        env = {**os.environ, "GITHUB_TOKEN": fake.token + "\n",  # as `$(cat token-file)` may leave it
               "BAZEL_REMOTE_CACHE": f"https://cache:{CACHE_PASSWORD}@cache.example/ci",
               "BAZEL_REMOTE_HEADER": f"Authorization=Bearer {BAZEL_TOKEN}",
               "GITHUB_OUTPUT": str(tmp_path / "gh_output"),
               "GITHUB_STEP_SUMMARY": str(tmp_path / "gh_summary"),
               "JAX_ROCM_RELEASE_CACHE": str(root / ".cache" / "git"),
               "RELEASE_NOW": "2026-11-20T03:00:00Z"}
        said = []

        def release(*argv, ok=True):
            proc = subprocess.run([warm_start.python(), "-m", "release", *map(str, argv)], cwd=root,
                                  env=env, capture_output=True, text=True)
            said.append(f"$ release {' '.join(map(str, argv))}\n{proc.stdout}\n{proc.stderr}")
            assert (proc.returncode == 0) == ok, proc.stderr[-3000:]
            return proc

        bump = release("bump", "--open-pr", "--changelog", tmp_path / "CHANGELOG.md")
        assert "x-access-token" not in bump.stdout and urls["xla"].split("@")[1] in bump.stdout
        release("bump", "--dry-run", "--json")
        branch = json.loads(release("bump", "--open-pr", "--json").stdout)["branch"]
        git("checkout", "--quiet", "--", "deps.yaml", cwd=root)
        git("merge", "--quiet", "--ff-only", branch, cwd=root)
        release("status")
        release("status", "--json")
        release("nightly", "--dry-run", "--date", "2026-11-20")
        release("nightly", "--dry-run", "--json", "--date", "2026-11-20")
        release("fetch-sources", "--workspace", tmp_path / "ws")
        release("nightly", "--date", "2026-11-20", "--artifacts", artifacts, "--python", PY)
        release("publish", "dist/0.9.1.dev20261120", "--json")
        release("index", "--out", tmp_path / "site")
        # Failures carry URLs and tokens too: a wrong deps token and a token GitHub refuses.
        good = (root / "deps.yaml").read_text()
        (root / "deps.yaml").write_text(good.replace(DEPS_TOKEN, DEPS_TOKEN[::-1]))
        release("bump", "--dry-run", ok=False)
        release("bump", "--dry-run", "--json", ok=False)
        (root / "deps.yaml").write_text(good)
        env["GITHUB_TOKEN"] = "x" + fake.token
        release("status", "--json", ok=False)
        env["GITHUB_TOKEN"] = fake.token + " trailing-junk"
        release("status", ok=False)
    finally:
        server.stop()

    secrets = {"deps token": DEPS_TOKEN, "reversed deps token": DEPS_TOKEN[::-1],
               "GitHub token": fake.token, "Bazel header token": BAZEL_TOKEN,
               "cache password": CACHE_PASSWORD,
               "deps basic auth": base64.b64encode(f"x-access-token:{DEPS_TOKEN}".encode()).decode()}
    places = {"terminal": "\n".join(said)}
    deps_file = root / "deps.yaml"  # the person's own file: the token is where they put it
    for path in [*tmp_path.rglob("*"), *(world.tmp / "origin.git").rglob("*")]:
        if not path.is_file() or path == deps_file or "/upstream/" in str(path) \
                or "/objects/" in str(path):
            continue
        data = path.read_bytes()
        places[str(path)] = data.decode("utf-8", "replace")
        if path.suffix == ".whl":
            with zipfile.ZipFile(path) as whl:
                for member in whl.namelist():
                    places[f"{path}!{member}"] = whl.read(member).decode("utf-8", "replace")
    for repo in (root, world.origin):
        places[f"commit messages of {repo}"] = git("log", "--all", "--format=%B", cwd=repo)
    for rel in fake.releases():
        places[f"release {rel['tag_name']}"] = json.dumps({k: rel[k] for k in ("name", "body")})
        for asset in rel["assets"]:
            places[f"asset {asset['name']}"] = fake.asset_bytes(asset["id"]).decode("utf-8", "replace")
            if asset["name"].endswith(".whl"):
                whl = tmp_path / "from-release.whl"
                whl.write_bytes(fake.asset_bytes(asset["id"]))
                with zipfile.ZipFile(whl) as z:
                    for member in z.namelist():
                        places[f"asset {asset['name']}!{member}"] = z.read(member).decode("utf-8", "replace")
    for pull in fake.pulls():
        places[f"pull request #{pull['number']}"] = json.dumps({k: pull[k] for k in ("title", "body")})

    leaks = [f"{what} in {where}" for where, text in places.items()
             for what, secret in secrets.items() if secret in text]
    assert not leaks, leaks
    # The searched places are the real ones: the things that would carry a leak are there.
    mirrors = list((root / ".cache" / "git").glob("*.git/config"))
    assert len(mirrors) == 3 and all(f"url = http://127.0.0.1:{server.httpd.server_address[1]}/"
                                     in m.read_text() for m in mirrors)
    assert any("!jax_plugins/xla_rocm7/commit_info.py" in p for p in places)
    assert any(p.startswith("pull request #") and "127.0.0.1" in t for p, t in places.items())
    assert "127.0.0.1" in (tmp_path / "CHANGELOG.md").read_text()
    assert "GITHUB_TOKEN holds a space" in places["terminal"]  # the failures did run
    assert (tmp_path / "gh_output").read_text() and (tmp_path / "gh_summary").read_text()
