"""Starting a maintained line and reading every line's state (docs/lines.md).

``release line new X.Y`` is one reviewable change: the line's branch ``release/X.Y`` holds this
checkout's tree with the line's two files (the plugin on its working branch, the pins rolled
from that branch's tip by the same roll code a bump runs, the next version counted from what is
published), and one pull request into the default branch adds ``release/X.Y`` to
``.github/lines.json``. Nothing runs the line before that PR is merged: the scheduled jobs read
the list. Every step is idempotent: a line's branch already there is kept as it is (a person may
have edited it), the PR already open is kept, and a line already listed is said and left.

``rows`` reads each listed line's two files at its branch's tip (no checkout) for ``release
status``: one row a line.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from release.core import sanitize, versions
from release.core.config import (
    LINE_DEP,
    Project,
    RollSame,
    is_branch_name,
    parse_deps,
    parse_version_info,
    render_deps,
    render_version_info,
)
from release.core.errors import UserError
from release.core.lines import LINE_PREFIX, LINES_FILE, branch_of, parse_lines, render_lines, with_line
from release.core.redact import display_url
from release.sources.repo import LINE_PR_PREFIX as PR_PREFIX  # the PR's branch: one of the tool's own

if TYPE_CHECKING:
    from release.sources.github import GitHubClient
    from release.sources.repo import ReleaseRepo

WORKING_BRANCH = "rocm-jaxlib-v{xy}.x"  # where ROCm/jax keeps a line's work (docs/lines.md)


@dataclasses.dataclass(frozen=True)
class NewLine:
    """What ``release line new`` writes: the line, its branch, its two files' texts, and the
    pins and version they hold."""

    xy: str
    branch: str
    plugin_branch: str
    deps_text: str
    info_text: str
    pins: dict[str, dict[str, Any]]
    version: str
    jax_line: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.xy, "branch": self.branch, "plugin_branch": self.plugin_branch,
                "version": self.version, "jax_line": self.jax_line, "pins": self.pins}


def plan_new_line(project: Project, deps_text: str, info_text: str, xy: str, plugin_branch: str, cache: Path,
                  published: Callable[[str], Iterable[str]], say: Callable[[str], None] = lambda _: None) -> NewLine:
    """The new line's two files, from this checkout's (``deps_text``, ``info_text``, as
    committed): the plugin (and a dep in its tree, ``{same: plugin}``) on ``plugin_branch``,
    every pin rolled to that branch's tip, jax's line read there and checked to be ``xy``, the
    version that line's next one given ``published(line)``."""
    from release.sources.roll import roll
    deps = project.deps
    plugin = deps["plugin"]
    moved = {"plugin": {"branch": plugin_branch}}
    for dep in deps:
        if isinstance(dep.roll, RollSame) and dep.roll.same == "plugin":
            moved[dep.name] = {"branch": plugin_branch}
    start = deps.with_pins(moved)
    from release.sources.git import Remote
    from release.sources.refs import ls_remote_branches
    if not is_branch_name(plugin_branch):
        raise UserError(f"--plugin-branch {plugin_branch!r}: expected a branch name (letters, digits, . _ / -)")
    if plugin_branch not in ls_remote_branches(Remote("plugin", plugin.url), plugin_branch):
        raise UserError(f"line {xy}: {display_url(plugin.url)} has no branch {plugin_branch}; expected the "
                        "line's working branch there (--plugin-branch names another)")
    result = roll(start, cache, allow_rewind=True, say=say)
    jax = result.new[LINE_DEP]
    if jax.line is None or not re.fullmatch(re.escape(xy) + r"\.[0-9]+", jax.line):
        raise UserError(f"line {xy}: jax/version.py at {plugin_branch} ({jax.short}) is "
                        f"{jax.line or 'not read'}; expected a {xy}.N version (is {plugin_branch} that line's branch?)")
    version = versions.next_official(jax.line, published(jax.line))
    new_deps = render_deps(result.new, deps_text)
    info = dataclasses.replace(project.version_info, version=version)
    pins = {d.name: {"url": display_url(d.url), "branch": d.branch, "commit": d.commit,
                     **({"archive_sha256": d.archive_sha256} if d.archive_sha256 else {})} for d in result.new}
    return NewLine(xy, branch_of(xy), plugin_branch, new_deps, render_version_info(info, info_text), pins,
                   version, jax.line)


def listed_lines(repo: ReleaseRepo, base: str) -> tuple[str, ...]:
    """The lines the default branch lists now (its remote tip: a list merged meanwhile counts);
    without the file, the default branch alone."""
    text = repo.text_at_remote_tip(base, repo.top / LINES_FILE)
    return (base,) if text is None else parse_lines(f"{base}:{LINES_FILE}", text)


def deliver_new_line(repo: ReleaseRepo, line: NewLine, *, base: str, push: bool,
                     pull: tuple[GitHubClient, str, str] | None) -> dict[str, Any]:
    """Commit the line's branch and the list's change; with ``push`` push both (the line's branch
    only when absent: never over anyone's), with ``pull`` open or keep the one PR."""
    done: dict[str, Any] = {}
    lines = listed_lines(repo, base) if push else ()
    if line.branch in lines and repo.remote_tip(line.branch) is not None:
        return {"action": "exists", "reason": f"{line.branch} is a maintained line already ({base}:{LINES_FILE})"}
    root = repo.top
    tip = repo.remote_tip(line.branch) if push else None
    message = (f"Start line {line.xy}: {line.version}, the plugin on {line.plugin_branch}\n\n"
               f"The files of the maintained line {line.xy} (docs/lines.md).")
    if tip is None:
        tip = repo.commit_files(f"{PR_PREFIX}{line.xy}-files", {root / "deps.yaml": line.deps_text,
                                                                root / "version_info.json": line.info_text}, message)
        if push:
            repo.create_branch(tip, line.branch)
        done["branch_action"] = "created" if push else "committed"
    else:
        done["branch_action"] = "kept"
    done["commit"] = tip
    listed = with_line(lines or _local_lines(repo, base), line.branch)
    pr_branch = f"{PR_PREFIX}{line.xy}"
    title = f"Maintain line {line.xy} ({line.branch}: {line.version})"
    body = _pr_body(line, tip)
    sha = repo.commit_files(pr_branch, {root / LINES_FILE: render_lines(listed)}, f"{title}\n\n{body}")
    done |= {"lines": list(listed), "pr_branch": pr_branch, "pr_commit": sha, "title": title}
    if pull is None:
        if push:
            repo.push(sha, pr_branch)
        done["action"] = "pushed" if push else "committed"
        return done
    from release.sources.pull_requests import create_or_withdraw, keep_for_person
    client, owner, name = pull
    open_ = client.list_pulls(owner, name, state="open", head=f"{owner}:{pr_branch}")
    if open_:
        who = repo.person_pushed(pr_branch)
        if who is not None:
            pr = keep_for_person(client, owner, name, open_[0], who)
            return done | {"action": "kept", "pull_request": pr.to_json()}
        if repo.unchanged_tip(pr_branch, sha) is None:
            repo.push(sha, pr_branch)
        got = client.update_pull(owner, name, open_[0]["number"], title=title, body=body)
        return done | {"action": "updated", "pull_request": {"number": got["number"], "url": got.get("html_url")}}
    repo.push(sha, pr_branch)
    got = create_or_withdraw(client, repo, owner=owner, name=name, title=title, branch=pr_branch, base=base,
                             body=body)
    return done | {"action": "opened", "pull_request": {"number": got["number"], "url": got.get("html_url")}}


def _local_lines(repo: ReleaseRepo, base: str) -> tuple[str, ...]:
    text = repo.committed(repo.top / LINES_FILE)
    return (base,) if text is None else parse_lines(LINES_FILE, text)


def _pr_body(line: NewLine, tip: str) -> str:
    # A dep's name and commit are checked when deps.yaml is read: nothing in them to escape.
    pins = "\n".join(f"| {n} | `{sanitize.code(p['branch'], in_table=True)}` | `{p['commit'][:12]}` | "
                     f"{sanitize.markdown(p['url'])} |" for n, p in line.pins.items())
    return (f"Starts the maintained line **{line.xy}**: jax {line.jax_line}, next version "
            f"`{line.version}`, the plugin on `{sanitize.code(line.plugin_branch)}`.\n\n"
            f"Its files are on `{line.branch}` ({tip[:12]}):\n\n| dep | branch | commit | url |\n|---|---|---|---|\n"
            f"{pins}\n\nMerging this adds `{line.branch}` to `{LINES_FILE}`: the nightly and bump "
            "workflows run it from their next schedule. To change the line's pins or version first, "
            f"open a pull request into `{line.branch}`; to drop the line, close this and delete the branch.\n")


# ------------------------------------------------------------------ every line's state


def status_rows(project: Project, published: list[str], date: _dt.date, *, offline: bool,
                current: str) -> list[dict[str, Any]] | None:
    """``release status``'s rows, one a maintained line; None when ``.github/lines.json`` is not
    there (one line: status shows it already). ``offline``: only the checked-out line is read."""
    from release.core.lines import read_lines
    from release.sources.repo import ReleaseRepo
    path = project.root / LINES_FILE
    if not path.exists():
        return None
    lines = read_lines(project.root, current)
    try:
        repo = None if offline else ReleaseRepo(project.root)
    except UserError:
        repo = None
    return rows(repo, project, current, lines, published, date, offline=offline)


def rows(repo: ReleaseRepo | None, project: Project, current: str, lines: tuple[str, ...],
         published: list[str], date: _dt.date, *, offline: bool = False) -> list[dict[str, Any]]:
    """One row a line: its branch, next versions, last nightly and pins, read from the two files at
    the branch's tip (this checkout's own files for ``current``); a line whose files cannot be read
    says why in its row and the others still show."""
    from release.build.next_version import next_versions
    out = []
    for branch in lines:
        row: dict[str, Any] = {"branch": branch}
        try:
            if offline and branch != current:
                raise UserError(f"{branch}: not read (--offline)")
            proj = project if branch == current else _project_at(repo, project.root, branch)
        except UserError as exc:
            out.append(row | {"problem": str(exc)})
            continue
        nxt = next_versions(proj, published, date)
        line = versions.line_of(proj.version_info.version)
        nightlies = [v for v in published if versions.kind_of(v) == "nightly" and versions.base_of(v) == line]
        out.append(row | {"version": proj.version_info.version, "jax_line": proj.jax_line,
                          "next_nightly": nxt["nightly"]["version"], "next_release": nxt["release"]["version"],
                          "last_nightly": max(nightlies, key=versions.parse, default=None),
                          "plugin": {"branch": proj.deps["plugin"].branch, "commit": proj.deps["plugin"].commit},
                          "problem": proj.line_problem()})
    return out


def _project_at(repo: ReleaseRepo | None, root: Path, branch: str) -> Project:
    if repo is None:
        raise UserError(f"{branch}: not read (not a git checkout)")
    texts = {}
    for name in ("deps.yaml", "version_info.json"):
        text = repo.text_at_remote_tip(branch, root / name)
        if text is None:
            raise UserError(f"{branch}: no {name} at its tip (or no such branch on origin)")
        texts[name] = text
    return Project(root, parse_deps(Path(f"{branch}:deps.yaml"), texts["deps.yaml"]),
                   parse_version_info(Path(f"{branch}:version_info.json"), texts["version_info.json"]))


def next_version_base(repo: ReleaseRepo, tag: str, default: str) -> str:
    """The branch a pushed tag's next-version PR goes to: its line's ``release/X.Y`` when that
    branch is on origin and holds the tag's commit (a maintenance line's own rc, release or
    post), else ``default`` (the repository's default branch, the newest line)."""
    from release.core import naming
    from release.core.lines import line_key
    version = naming.version_of_tag(tag, ("rc", "release", "post"), flag="TAG")
    commit = repo.tag_commit(tag)
    if commit is None:
        raise UserError(f"TAG {tag}: no such tag in this checkout; fetch it (CI: actions/checkout with fetch-depth: 0)")
    major, minor = line_key(version) or (0, 0)
    branch = branch_of(f"{major}.{minor}")
    return branch if branch != default and repo.branch_holds(branch, commit) else default


def current_branch(root: Path) -> str:
    """The line this checkout is: ``$GITHUB_REF_NAME`` on a branch's run, else the branch checked
    out (``main`` when detached)."""
    import os
    import subprocess
    name = os.environ.get("GITHUB_REF_NAME", "").strip()
    if name and not os.environ.get("GITHUB_HEAD_REF"):
        return name
    got = subprocess.run(["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=root, capture_output=True, text=True)
    branch = got.stdout.strip()
    return branch if got.returncode == 0 and branch and branch != "HEAD" else "main"


@dataclasses.dataclass(frozen=True)
class LineNewOptions:
    """What ``release line new`` was asked: the line ``X.Y`` and where its work goes."""

    xy: str
    plugin_branch: str = ""      # empty: WORKING_BRANCH of the line
    push: bool = False
    open_pr: bool = False        # implies push
    dry_run: bool = False

    def __post_init__(self) -> None:
        if self.dry_run and (self.push or self.open_pr):
            raise UserError("--dry-run writes nothing; it cannot be combined with --push or --open-pr")


def run_line_new(project: Project, options: LineNewOptions, *, console: Any = None,
                 say: Callable[[str], None] = lambda _text: None) -> tuple[NewLine, dict[str, Any]]:
    """Start the line ``options.xy`` from this checkout's committed files: plan it, then (unless
    a dry run) commit, push and open its PR as asked. Returns the plan and the result's JSON data;
    a user's or a remote's error is raised before anything is written."""
    from release.check.resolver import index_versions, public_index_default
    from release.sources.checkout import cache_dir
    from release.sources.repo import ReleaseRepo, committed_deps
    repo = ReleaseRepo(project.root)
    deps = committed_deps(repo, project.deps)  # the files as committed: what the line's branch starts from
    deps_text = repo.committed(project.deps.path) or ""
    info_text = repo.committed(project.version_info.path)
    if info_text is None:
        raise UserError(f"{project.version_info.path}: not committed at HEAD; line new starts from the committed files")
    info = parse_version_info(project.version_info.path, info_text)
    base = repo.current_branch()
    pull = None
    if options.open_pr:  # a missing token or repository before anything is fetched or pushed
        from release.sources.github import PULL_REQUEST, GitHubClient
        from release.sources.pull_requests import repository_from_env
        owner, name = repository_from_env()
        pull = (GitHubClient.from_env(console=console, needs=PULL_REQUEST), owner, name)

    def published(line: str) -> tuple[str, ...]:
        return tuple(v for v in index_versions(info.rocm_majors, public_index_default()) if v.startswith(line))
    plan = plan_new_line(dataclasses.replace(project, deps=deps, version_info=info), deps_text, info_text,
                         options.xy, options.plugin_branch or WORKING_BRANCH.format(xy=options.xy),
                         cache_dir(project.root), published, say=say)
    data = plan.to_json() | {"dry_run": options.dry_run}
    if options.dry_run:
        return plan, data | {"action": "planned"}
    return plan, data | deliver_new_line(repo, plan, base=base, push=options.push or options.open_pr, pull=pull)


def line_base(root: Path, tag: str, default: str) -> str:
    """``next_version_base`` of the checkout at ``root``; ``default`` (empty: main) is checked
    as a branch name first (``release line base --default``)."""
    from release.sources.repo import ReleaseRepo
    branch = default.strip() or "main"
    if not is_branch_name(branch):
        raise UserError(f"line base --default {default!r}: expected a branch name, such as main")
    return next_version_base(ReleaseRepo(root), tag, branch)


# ------------------------------------------------------------------ what gc and the index keep


def kept_lines(lines: tuple[str, ...], default_version: str) -> frozenset[tuple[int, int]]:
    """The lines (X, Y) whose newest nightlies stay (``retention.Retention.lines``): each
    ``release/X.Y`` listed, and the default branch's own line (its ``version``)."""
    from release.core.lines import line_key
    keys = {line_key(b[len(LINE_PREFIX):]) for b in lines if b.startswith(LINE_PREFIX)}
    return frozenset(k for k in (*keys, line_key(default_version)) if k is not None)


def maintained(root: Path | None) -> frozenset[tuple[int, int]] | None:
    """``kept_lines`` of the default branch as it is on origin now: its ``lines.json`` and
    ``version_info.json`` at its tip (the nightly's finish job runs on any line's commit, and a
    ``release/X.Y`` branch's copy of the list is not the one kept up to date); the default branch
    is the checkout's list's first entry that is no ``release/X.Y``. None (every line keeps its
    newest, as with one line) without the list in the checkout, or when the default branch's
    files cannot be read: a retired line is never collected on a guess."""
    from release.core.errors import ReleaseError
    from release.core.lines import read_lines
    from release.sources.repo import ReleaseRepo
    if root is None or not (root / LINES_FILE).is_file():
        return None
    try:
        default = next((b for b in read_lines(root, "") if not b.startswith(LINE_PREFIX)), None)
        if default is None:
            return None
        repo = ReleaseRepo(root)
        text = repo.text_at_remote_tip(default, repo.top / LINES_FILE)
        info = repo.text_at_remote_tip(default, repo.top / "version_info.json")
        if text is None or info is None:
            return None
        version = parse_version_info(Path(f"{default}:version_info.json"), info).version
        return kept_lines(parse_lines(f"{default}:{LINES_FILE}", text), version)
    except (ReleaseError, OSError):
        return None
