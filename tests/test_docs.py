"""The documentation: the README is short and links into the docs site (``docs/``, MkDocs); the
reference is generated from the code and names every command and option; every internal link
and anchor resolves; the set-up checklist is `release doctor`'s checks, in its order; the site
builds with ``mkdocs build --strict`` (skipped where MkDocs is not installed)."""

from __future__ import annotations

import argparse
import functools
import html
import importlib.util
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from release import docs_reference
from release.check import preflight
from release.cli import COMMANDS, build_parser
from release.core.errors import REMOTE_EXIT, USER_EXIT

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
# Pages the build generates from the code (release.docs_reference.PAGES): they exist only in the site.
GENERATED = set(docs_reference.PAGES)


@functools.lru_cache(maxsize=1)
def _pages() -> tuple[tuple[str, str], ...]:
    return tuple(_read_pages().items())


def pages() -> dict[str, str]:
    """Every Markdown page of the site by its path under docs/, generated ones included (read
    once: generating the reference imports every command)."""
    return dict(_pages())


def _read_pages() -> dict[str, str]:
    found = {str(p.relative_to(DOCS)): p.read_text(encoding="utf-8") for p in DOCS.rglob("*.md")
             if "hooks" not in p.relative_to(DOCS).parts}
    found.update({path: render() for path, render in docs_reference.PAGES.items()})
    return found


def section(page: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same level."""
    level = heading.split(" ", 1)[0]
    start = page.index(heading + "\n")
    rest = page[start + len(heading) + 1:]
    end = re.search(rf"^{level} ", rest, re.M)
    return rest[:end.start()] if end else rest


# --- the README ---------------------------------------------------------------------------------

def test_the_readme_is_short_and_links_into_the_docs():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) < 250
    assert "release try" in text
    for page in ("docs/getting-started.md", "docs/setup.md", "docs/reference/index.md", "docs/development.md"):
        assert f"]({page})" in text, page


# --- the reference is the code's -----------------------------------------------------------------

def help_arguments(parser: argparse.ArgumentParser) -> list[str]:
    """Each argument as the command's own ``--help`` lists it (``--store {github,local}``,
    ``--protect VERSION [VERSION ...]``, ``{list,new,base}``), read from the help text itself."""
    found = [m.group(1) for line in parser.format_help().splitlines()
             if (m := re.match(r"  (\S.*?)(?:  |$)", line))]
    return [f for f in found if f != "-h, --help"]


def listed(text: str) -> list[str]:
    """The arguments a section of the reference lists, as a reader reads them (tags and entities
    gone): ``--store {github,local}``."""
    return [", ".join(html.unescape(re.sub(r"<[^>]+>", "", code)) for code in re.findall(r"<code>(.*?)</code>", names))
            for names in re.findall(r"^- ((?:<code>.*?</code>(?:, )?)+)", text, re.M)]


def test_every_command_and_option_is_in_the_generated_reference():
    """Every argument of every command, written as its ``--help`` writes it (its choices, a
    repeatable value), is listed in the command's section, in --help's order."""
    page = docs_reference.commands_page()
    parser = build_parser()
    children = docs_reference._subparsers(parser)
    assert list(children) == list(COMMANDS)
    total = 0
    for name in COMMANDS:
        text = section(page, f"## release {name}")
        arguments = help_arguments(children[name])
        assert {"--root DIR", "--json"} <= set(arguments), name
        assert len(arguments) == len(docs_reference.options(children[name])), name
        assert listed(text) == arguments, f"release {name}: the reference lists other arguments than --help"
        total += len(arguments)
    assert total > 150  # the parsers, not a sample of them
    every = [a for name in COMMANDS for a in listed(section(page, f"## release {name}"))]
    for shown in ("--store {github,local}", "--kind {nightly,rc,release,post}", "{list,new,base}",
                  "--protect VERSION [VERSION ...]"):  # the choices and repeats --help shows
        assert shown in every, shown


def test_a_new_option_reaches_the_reference(monkeypatch):
    """The reference is generated: an option added to a command appears without a hand edit."""
    from release.commands import yank
    original = yank.add_arguments

    def more(parser):
        original(parser)
        parser.add_argument("--brand-new", metavar="WHEN", help="a new <option> | with a pipe")
    monkeypatch.setattr(yank, "add_arguments", more)
    text = section(docs_reference.commands_page(), "## release yank")
    assert "--brand-new WHEN" in listed(text) and "a new &lt;option&gt; \\| with a pipe" in text


def test_a_usage_part_or_flag_is_never_split_and_markdown_leaves_it_as_it_is():
    """Each part of a usage line (``[--protect VERSION [VERSION ...]]``, ``[--workspace DIR |
    --artifacts DIR]``) and each word of an argument is one unbreakable span; Markdown's own
    characters in them are entities, so the page shows them as --help prints them."""
    assert docs_reference.parts("release x [-h] [--a B [B ...]] [--c D | --e F] {g,h} T") == [
        "release", "x", "[-h]", "[--a B [B ...]]", "[--c D | --e F]", "{g,h}", "T"]
    whole = docs_reference._whole("[--a_b C] *d*")
    assert whole == '<span class="w">&#91;--a&#95;b C&#93;</span> <span class="w">&#42;d&#42;</span>'
    assert html.unescape(re.sub(r"<[^>]+>", "", whole)) == "[--a_b C] *d*"
    page = docs_reference.commands_page()
    usage = re.search(r'<pre class="usage"><code>(.*?)</code></pre>', section(page, "## release nightly")).group(1)
    assert '<span class="w">&#91;--workspace DIR | --artifacts DIR&#93;</span>' in usage
    assert '<span class="w">&#91;--protect VERSION &#91;VERSION ...&#93;&#93;</span>' in usage


MISTYPED = {("status", "--ofline")}  # the exit-status page's example of a mistyped flag


def flags_shown(files: dict[str, str]) -> list[tuple[str, str, str]]:
    """(file, command, flag) for each ``release COMMAND ... --flag`` in the code of ``files``
    (code spans and blocks), up to the end of the command (a pipe, ``;``, ``&&``, a comment)."""
    found = []
    for path, text in files.items():
        for span in re.findall(r"```[a-z]*\n.*?```|`[^`\n]+`", text, re.S):
            for line in span.splitlines():
                for cmd, rest in re.findall(r"(?:^|[\s`(])release ([a-z-]+)((?:[^`;&#]|\\\|)*)", line):
                    rest = re.split(r"(?<!\\)\|", rest)[0]  # a table's `\|` is an alternative, a bare | a pipe
                    found += [(path, cmd, flag) for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", rest)]
    return found


def test_every_flag_the_docs_show_a_command_with_is_one_it_takes():
    """A renamed or dropped option leaves no page telling a reader to type it: each ``release
    COMMAND ... --flag`` in the docs' and the README's code is a flag of COMMAND's parser."""
    children = docs_reference._subparsers(build_parser())
    takes = {name: {o for a in child._actions for o in a.option_strings} for name, child in children.items()}
    files = {**pages(), "README.md": (REPO / "README.md").read_text()}
    shown = flags_shown(files)
    assert len({(c, f) for _, c, f in shown}) > 100  # the docs' own commands, not a sample
    unknown = [(path, cmd, flag) for path, cmd, flag in shown
               if cmd in takes and flag not in takes[cmd] and (cmd, flag) not in MISTYPED]
    assert unknown == []
    assert flags_shown({"x.md": "`release yank v1 --reasn x | grep --count`; `release cut --rc 1 \\| --post 1`"}) == [
        ("x.md", "yank", "--reasn"), ("x.md", "cut", "--rc"), ("x.md", "cut", "--post")]


def test_the_hand_written_command_page_names_every_command():
    text = (DOCS / "reference" / "commands.md").read_text()
    for name in COMMANDS:
        assert f"`release {name}" in text, name


def test_the_module_map_names_every_module_of_the_package():
    """Every module of the stage packages has an item ``- `stage.module`: `` from its docstring;
    commands are listed as commands (the reference), not here."""
    text = docs_reference.modules_page()
    package = REPO / "release"
    modules = sorted(".".join(p.relative_to(package).with_suffix("").parts) for p in package.rglob("*.py")
                     if not p.stem.startswith("__") and p.parent.name != "commands")
    assert "core.versions" in modules and "cli" in modules
    missing = [m for m in modules if f"\n- `{m}`: " not in text]
    assert not missing, f"the module map lacks {missing}"
    assert "\n- `core.errors`: Errors that end a command with one line" in text   # from the docstring
    assert "\n## `core/`\n" in text and "\n## `jobs/`\n" in text  # each stage its heading


def test_every_exit_status_is_documented():
    text = (DOCS / "reference" / "exit-status.md").read_text()
    for status in (0, 1, USER_EXIT, REMOTE_EXIT, 130):
        assert re.search(rf"^\| {status} \|", text, re.M), status


# --- the set-up checklist is doctor's -----------------------------------------------------------

def checklist() -> list[str]:
    text = section((DOCS / "setup.md").read_text(), "## The checklist")
    return re.findall(r"^\d+\. \*\*`([^`]+)`\*\*", text, re.M)


def test_the_setup_checklist_is_doctors_checks_in_its_order(github_env, run_cli):
    """Every line `release doctor` can print, in the order it prints them, is one item of the
    checklist (the variables are one item, ``variable NAME``), and the item names each variable."""
    from tests.test_doctor import doctor, ready
    ready(github_env)
    github_env.settings.variables = {"BUMP_AUTO_MERGE": "true", "RELEASE_KEEP": "14"}
    _, found, _ = doctor(run_cli)
    order: list[str] = []
    for check in found:
        item = "variable NAME" if check.startswith("variable ") else check
        if item not in order:
            order.append(item)
    assert {"auto-merge-token", "auto-merge-checks"} <= set(order)
    assert checklist() == order
    item = section((DOCS / "setup.md").read_text(), "## The checklist").split("**`variable NAME`**")[1]
    item = re.split(r"\n\d+\. ", item)[0]  # this item only: the next numbered one ends it
    for name in preflight.workflow_variables(REPO):
        assert f"`{name}`" in item, name


# --- links ----------------------------------------------------------------------------------------

def slug(heading: str) -> str:
    """The anchor MkDocs' toc gives a heading (Python-Markdown's default slugify)."""
    text = re.sub(r"`|\*\*|\[|\]\([^)]*\)", "", heading)
    text = re.sub(r"&[a-z]+;", "", text)
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(text: str) -> set[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


LINK = re.compile(r"\]\(([^)\s]+)\)")


def broken_links(files: dict[str, str], base: Path) -> list[str]:
    """Relative links (and their anchors) of ``files`` (path -> text) that resolve to nothing."""
    broken = []
    for path, text in files.items():
        for target in LINK.findall(re.sub(r"```.*?```", "", text, flags=re.S)):
            if re.match(r"[a-z]+:", target):
                continue  # an address outside: not ours to check offline
            file, _, anchor = target.partition("#")
            resolved = (base / path).parent / file if file else base / path
            key = str(resolved.resolve().relative_to(base.resolve())) if resolved.resolve().is_relative_to(
                base.resolve()) else None
            exists = resolved.exists() or key in files
            if not exists:
                broken.append(f"{path}: {target}")
            elif anchor and key in files and anchor not in anchors(files[key]):
                broken.append(f"{path}: {target} (no such heading)")
    return broken


def site_files() -> dict[str, str]:
    """Every page and the files the build adds beside them (the JSON Schemas), by path under docs/."""
    return {**pages(), **docs_reference.schema_files()}


def test_every_internal_link_of_the_docs_resolves():
    assert broken_links(site_files(), DOCS) == []


def test_every_link_of_the_readme_resolves():
    readme = {"README.md": (REPO / "README.md").read_text()}
    docs = {f"docs/{p}": t for p, t in site_files().items()}
    assert broken_links({**readme, **docs}, REPO) == []
    assert not any(target.startswith(("docs/reference/cli", "docs/development/modules"))
                   for target in LINK.findall(readme["README.md"])), "a generated page exists only in the site"


def test_a_broken_link_or_anchor_is_found(tmp_path):
    files = {"a.md": "# A\n\n## Two words\n\n[ok](b.md#the-b) [ok](#two-words) [x](c.md) [y](b.md#nope)\n",
             "b.md": "# The `B`\n"}
    assert broken_links(files, tmp_path) == ["a.md: c.md", "a.md: b.md#nope (no such heading)"]


# --- the site builds ------------------------------------------------------------------------------

def have_mkdocs() -> bool:
    return importlib.util.find_spec("mkdocs") is not None and importlib.util.find_spec("material") is not None


@pytest.fixture(scope="module")
def built_site(tmp_path_factory) -> Path:
    if not have_mkdocs():
        pytest.skip("mkdocs and mkdocs-material are not installed (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("docs-site")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--config-file", str(REPO / "mkdocs.yml"), "--site-dir", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def test_the_site_builds_strict_with_the_generated_reference(built_site):
    cli = (built_site / "reference" / "cli" / "index.html").read_text()
    assert "release pypi-upload" in cli and "--notes-only" in cli
    assert (built_site / "development" / "modules" / "index.html").exists()
    shapes = (built_site / "reference" / "json" / "index.html").read_text()
    assert 'href="../schemas/verify.json"' in shapes
    assert json.loads((built_site / "reference" / "schemas" / "verify.json").read_text())["title"] == \
        "release verify --json"
    assert (built_site / "setup" / "index.html").exists()
    assert not (built_site / "hooks").exists()


# --- published with the Pages site ----------------------------------------------------------------

def test_the_nightly_publishes_the_docs_under_docs_of_the_pages_site():
    """The index job builds the docs (strict, as here) into SITE/docs after `release index` wrote
    SITE (index swaps the whole directory in, so a docs build before it would be dropped), and
    Pages uploads SITE: the docs are served at <pages>/docs/."""
    import yaml
    job = yaml.safe_load((REPO / ".github" / "workflows" / "nightly.yml").read_text())["jobs"]["index"]
    runs = [s.get("run", "") for s in job["steps"]]
    (index,) = [i for i, run in enumerate(runs) if "scripts/index.sh" in run]
    (docs,) = [i for i, run in enumerate(runs) if "scripts/docs-site.sh" in run]
    (upload,) = [i for i, s in enumerate(job["steps"])
                 if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    site = job["steps"][upload]["with"]["path"]
    assert index < docs < upload
    assert runs[index].split()[1] == site
    assert runs[docs].split()[1] == site
    script = (REPO / "scripts" / "docs-site.sh").read_text()
    assert "--strict" in script and '--site-dir "$site/docs"' in script and "'.[docs]'" in script
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras["docs"]) <= set(extras["test"])  # the tests build with what the job installs


# --- examples are what the tool accepts -------------------------------------------------------------

def yaml_examples(name: str) -> list[str]:
    """The YAML blocks of the docs that say they are ``name`` (their first line ``# name...``)."""
    found = []
    for text in pages().values():
        for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
            if block.startswith(f"# {name}"):
                found.append(block)
    return found


def test_every_roller_yaml_example_is_accepted_by_the_tool():
    from release.core.roller import parse_roller
    examples = yaml_examples("roller.yaml")
    assert examples
    for block in examples:
        roller = parse_roller(Path("roller.yaml"), block.encode())
        assert roller.mode in ("running", "dry-run", "stopped")


def test_every_deps_yaml_and_version_info_example_is_accepted_by_the_tool():
    from release.core.config import parse_deps, parse_version_info
    examples = yaml_examples("deps.yaml")
    assert examples
    for block in examples:
        deps = parse_deps(Path("deps.yaml"), block)
        assert [d.name for d in deps.items] == ["plugin", "jax", "xla"]
    text = (DOCS / "reference" / "files.md").read_text()
    blocks = re.findall(r"```json\n(\{\"version\".*?)```", text, re.S)
    assert blocks
    for block in blocks:  # the shipped file's, and a two-major line's (rocm_versions, pythons)
        info = parse_version_info(Path("version_info.json"), block)
        assert (info.version, info.rocm_majors) in (("0.9.1.post7", (7,)), ("0.11.1", (7, 10)))


# --- as a reader gets it: served, followed, rendered ---------------------------------------------

@pytest.fixture(scope="module")
def served_site(built_site):
    """The built site served on 127.0.0.1, as Pages serves it (a directory answers its index.html)."""
    import functools
    import http.server
    import threading
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(built_site))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_every_internal_link_of_the_served_site_is_followed_and_lands(served_site):
    """From the home page, every link to the site itself is followed over HTTP: each answers 200
    and each ``#anchor`` names an element of the page it points at."""
    import html
    import urllib.error
    import urllib.parse
    import urllib.request
    seen: dict[str, str] = {}
    queue, broken = [served_site], []
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        try:
            with urllib.request.urlopen(url, timeout=30) as answer:
                seen[url] = answer.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            seen[url] = ""
            broken.append(f"{url}: {exc.code}")
            continue
        if not url.endswith("/") and not url.endswith(".html"):
            continue
        for href in re.findall(r'href="([^"]+)"', seen[url]):
            target = urllib.parse.urljoin(url, html.unescape(href))
            if target.startswith(served_site):
                queue.append(target.split("#")[0])
                if "#" in target and target.split("#", 1)[1]:
                    page, anchor = target.split("#", 1)
                    queue.append(page)
                    seen.setdefault(f"anchor {target} (from {url})", "")
    for key in [k for k in seen if k.startswith("anchor ")]:
        target = key.split()[1]
        page, anchor = target.split("#", 1)
        if f'id="{urllib.parse.unquote(anchor)}"' not in seen.get(page, ""):
            broken.append(key)
    pages_read = [u for u in seen if u.endswith("/")]
    assert len(pages_read) >= 25, pages_read
    assert broken == []


# The hand-written pages whose tables split the most code words at 390 px before their tables
# were laid out for a phone (docs/hooks/phone.py): reference/commands 165, jobs 147,
# development/benchmarks 59, reference/environment 44, setup 24.
PHONE_PAGES = ("reference/commands", "jobs", "development/benchmarks", "reference/environment", "setup")


def test_the_docs_pass_axe_at_phone_and_desktop_width(built_site, tmp_path):
    """axe-core (WCAG 2.1 A/AA and best practices) finds nothing on the set-up page (every part a
    page is made of: navigation, headings, a numbered checklist, code, inline code, a wide table of
    four columns, links in text), and it needs no sideways scrolling, at 390 px (a phone) and at
    1280 px; and the generated reference on a phone, whose flags and usage parts are drawn whole
    (issue 33: a table's narrow column split `release status` and `--build-number` in pieces). One
    page of each kind, since every page is built from the same parts and each run costs seconds;
    all in one Chromium.
    (The navigation drawer's icons sit left of a phone's screen until it is opened: by design,
    not cut.)"""
    from tests.test_site import probe_pages
    targets = [("setup", 390), ("setup", 1280), ("reference/cli", 390)]
    for (page, width), found in zip(targets, probe_pages(tmp_path, [(built_site / p / "index.html", w)
                                                                     for p, w in targets])):
        assert found["width"] <= width, page
        assert found["violations"] == [], (page, width, found["violations"])
        assert [c for c in found["cut"] if not c.startswith("svg:")] == [], (page, width, found["cut"])
        assert found["broken"] == [], (page, width, found["broken"])
        assert found["wrapped"] == [], (page, width, found["wrapped"])


@pytest.mark.parametrize("width, pages", [(390, PHONE_PAGES), (768, ("jobs", "development/benchmarks"))])
def test_no_code_word_is_split_and_no_page_scrolls_sideways_on_a_phone(built_site, tmp_path, width, pages):
    """The hand-written pages whose tables split code words at 390 px (squeezed columns) or, once
    words were kept whole, pushed the page sideways: on a phone a table's rows are blocks, so no
    code word is drawn on two lines and nothing is wider than the screen; at 768 px (a tablet) the
    widest tables are blocks too. A code block keeps its lines as written (the jobs page's diagram
    was mangled at 390 px): none of its lines is drawn on two, and a line wider than the screen
    scrolls sideways inside its own box, never the page. Layout only (axe runs on the page of each
    kind above)."""
    from tests.test_site import probe_pages
    found = probe_pages(tmp_path, [(built_site / p / "index.html", width) for p in pages], axe=False)
    for page, layout in zip(pages, found):
        assert layout["width"] <= width, page
        assert [c for c in layout["cut"] if not c.startswith("svg:")] == [], (page, layout["cut"])
        assert layout["broken"] == [], (page, layout["broken"])
        assert layout["wrapped"] == [], (page, layout["wrapped"])
    assert sum(layout["scrolls"] for layout in found) > 0  # a line wider than the screen is among them


def test_every_inline_code_word_of_the_docs_is_drawn_whole(built_site):
    """On every page, each word of inline code (outside code blocks) that fits a phone's line is a
    ``.w`` span, which a line never breaks inside (what the Chromium probe checks on the pages
    above holds on every page); and a table's cells carry their column's header for the phone
    layout, where the header row is not drawn."""
    import html
    import sys
    sys.path.insert(0, str(DOCS / "hooks"))
    from phone import WHOLE
    pages = sorted(built_site.rglob("index.html"))
    assert len(pages) >= 25
    for page in pages:
        text = re.sub(r"<pre\b.*?</pre>", "", page.read_text(), flags=re.S)
        for code in re.findall(r"<code>(.*?)</code>", text, re.S):
            bare = [w for w in re.sub(r'<span class="w">[^<]*</span>', " ", code).split()
                    if "<" not in w and len(html.unescape(w)) <= WHOLE]
            assert bare == [], (page.relative_to(built_site), code)
        for table in re.findall(r"<table>.*?</table>", text, re.S):
            heads = re.findall(r"<th\b[^>]*>(.*?)</th>", table, re.S)
            for row in re.findall(r"<tbody>.*?</tbody>", table, re.S):
                labels = re.findall(r'<td data-label="([^"]*)"', row)
                assert labels and set(labels) <= {html.escape(re.sub("<[^>]+>", "", h).strip()) for h in heads} | {""}
                assert row.count("<td") == len(labels), (page.relative_to(built_site), row[:200])


def lists_glued_to_a_paragraph(text: str) -> list[str]:
    """List items right under a paragraph line: GitHub renders them as a list, MkDocs
    (Python-Markdown) as more words of the paragraph."""
    item = re.compile(r"([-*]|\d+\.) ")
    found, fence, prev = [], False, ""
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        elif not fence and item.match(line) and prev and not item.match(prev) and not prev.startswith(("#", "|", " ")):
            found.append(line)
        prev = "" if fence or not line.strip() else line
    return found


def test_every_list_of_the_docs_renders_as_a_list():
    assert {path: glued for path, text in pages().items() if (glued := lists_glued_to_a_paragraph(text))} == {}
    assert lists_glued_to_a_paragraph("It shows:\n- one\n- two\n\nAnd:\n\n1. three\n") == ["- one"]
