"""The docs site's generated pages: every command and option from the argparse parsers, the
``--json`` shapes from the JSON Schemas (``release/schemas/``, which the tests check every
command's output against), and the module map from the docstrings, so the reference cannot
drift from the code (the MkDocs hook
``docs/hooks/reference.py`` adds them to the site; ``tests/test_docs.py`` checks them)."""

from __future__ import annotations

import argparse
import ast
import html
import importlib
import json
import re
from pathlib import Path

from release.cli import COMMANDS, MODULES, build_parser
from release.core.output import schema_id

PACKAGE = Path(__file__).resolve().parent
# The stages, lowest first (a module imports its own stage or a lower one).
STAGES = ("core", "sources", "build", "publish", "check", "jobs")


def _cell(text: str) -> str:
    """Text for one Markdown table cell: one line, pipes escaped, angle brackets as entities."""
    text = " ".join(text.split()).replace("|", "\\|")
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _default(action: argparse.Action) -> str:
    if action.default in (None, False, argparse.SUPPRESS) or action.option_strings == []:
        return ""
    if isinstance(action.default, (list, tuple)) and not action.default:
        return ""
    return f"`{action.default}`"


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The parser's arguments a person types (help excluded), in the order ``--help`` lists them:
    group by group (the positionals first), as argparse's help walks them."""
    return [a for group in parser._action_groups for a in group._group_actions
            if not isinstance(a, argparse._HelpAction) and a.help != argparse.SUPPRESS]


def _names(action: argparse.Action) -> str:
    """The argument as ``--help`` lists it, each option string in its own code span: its choices
    (``--store {github,local}``), a repeatable value (``--protect VERSION [VERSION ...]``), the
    positional's metavar or choices, all from argparse's own formatter, so the two never differ."""
    formatter = argparse.HelpFormatter("release")
    if not action.option_strings:
        return _code(formatter._format_action_invocation(action))
    takes = "" if action.nargs == 0 else \
        " " + formatter._format_args(action, formatter._get_default_metavar_for_optional(action))
    return ", ".join(_code(f"{o}{takes}") for o in action.option_strings)


WHOLE = 40  # a part longer than this (characters) may still break, rather than run off a phone's screen


def parts(text: str) -> list[str]:
    """``text`` split at its spaces outside brackets: ``[--protect VERSION [VERSION ...]]`` and
    ``[--workspace DIR | --artifacts DIR]`` are one part each, as a reader takes them."""
    found, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char in "[({") - (char in "])}")
        if char == " " and depth == 0:
            found.append(text[start:i])
            start = i + 1
    return [part for part in (*found, text[start:]) if part]


def _whole(text: str) -> str:
    """HTML for ``text`` whose parts a line never breaks inside (``.w``, docs/stylesheets/extra.css):
    a phone wraps a usage line or an argument between its flags, never inside ``--build-number``.
    Markdown's own characters are entities, so Markdown leaves the text as it is."""
    def escaped(part: str) -> str:
        text = html.escape(part, quote=False)
        return "".join(f"&#{ord(c)};" if c in "*_[]`\\" else c for c in text)
    return " ".join(f'<span class="w">{escaped(p)}</span>' if len(p) <= WHOLE else escaped(p) for p in parts(text))


def _code(text: str) -> str:
    return f"<code>{_whole(text)}</code>"


def commands_page() -> str:
    """Markdown: per command its one-line help, usage and every argument with its default."""
    parser = build_parser()
    children = _subparsers(parser)
    lines = ["# Commands and options", "",
             "Generated from the argparse parsers (`release.docs_reference`): every command of "
             "`python -m release` (or `jax-rocm-release`) and every option it takes. "
             "What each command does in more words: [What each command does](commands.md).", "",
             f"`release --help` ends: {_cell(parser.epilog or '')} ([Exit statuses](exit-status.md)).", ""]
    lines += [f"- [`release {name}`](#{anchor(name)}): {_cell(children[name].description or '')}"
              for name in COMMANDS]
    for name in COMMANDS:  # lists, not tables: a phone's narrow column split every flag in two
        child = children[name]
        child.prog = f"release {name}"
        usage = re.sub(r"\s+", " ", child.format_usage().removeprefix("usage: ").strip())
        lines += ["", f"## release {name}", "", _cell(child.description or ""), "",
                  f'<pre class="usage"><code>{_whole(usage)}</code></pre>', ""]
        token = getattr(importlib.import_module(f"release.commands.{MODULES.get(name, name).replace('-', '_')}"),
                        "TOKEN", None)  # what it changes in releases (release.commands._common)
        if token:
            lines += [f"With a GitHub store, `GITHUB_TOKEN` needs `{token[1]}`: {_cell(token[0])}.", ""]
        for action in options(child):
            default = f" (default {_default(action)})" if _default(action) else ""
            lines.append(f"- {_names(action)}{default}: {_cell(action.help or '')}")
    return "\n".join(lines) + "\n"


def anchor(command: str) -> str:
    """The anchor MkDocs gives the heading ``release <command>``."""
    return "release-" + command


def _summary(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return _cell(doc.split("\n\n", 1)[0])


def modules() -> list[tuple[str, Path]]:
    """Every module of the package (commands excepted: they are the commands): the top level's
    first, then stage by stage, lowest first."""
    found = [(".".join(p.relative_to(PACKAGE).with_suffix("").parts), p) for p in PACKAGE.rglob("*.py")
             if not p.stem.startswith("__") and p.parent.name != "commands"]

    def rank(item: tuple[str, Path]) -> tuple[int, str]:
        stage = item[0].split(".")[0]
        return (STAGES.index(stage) + 1 if stage in STAGES and "." in item[0] else 0, item[0])
    return sorted(found, key=rank)


def modules_page() -> str:
    """Markdown: the module map, each module's first docstring paragraph under its stage's."""
    lines = ["# Module map", "",
             "Generated from the docstrings (`release.docs_reference`). The stages, lowest first: a "
             "module imports from its own stage or a lower one, never a higher one "
             "(`tests/test_repo_layout.py`). `python -m release <command>` dispatches to "
             "`release/commands/<command>.py`, which only parses flags and prints.", "",
             "## The top level", ""]
    stage_of = ""
    for name, path in modules():  # lists, not a table: a phone's narrow column split every name
        stage = name.split(".")[0] if "." in name else ""
        if stage and stage != stage_of:
            stage_of = stage
            lines += ["", f"## `{stage}/`", "", _summary(PACKAGE / stage / "__init__.py"), ""]
        lines.append(f"- `{name}`: {_summary(path)}")
    return "\n".join(lines) + "\n"


def results_page() -> str:
    """``benchmarks/RESULTS.md`` of the checkout, the dated measurements, as a page of the site."""
    return (PACKAGE.parent / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")


SCHEMAS = PACKAGE / "schemas"
# Every JSON shape: one per command, and a failure's (whatever the command).
SHAPES = (*COMMANDS, "error")


def schema(name: str) -> dict:
    """The JSON Schema of ``name``'s ``--json`` output (``release/schemas/<name>.json``)."""
    return json.loads((SCHEMAS / f"{name}.json").read_text(encoding="utf-8"))


def _type(prop: dict) -> str:
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    if "enum" in prop:
        return " or ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    kinds = prop.get("type", "any")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    if "array" in kinds and isinstance(prop.get("items"), dict) and "type" in prop["items"]:
        kinds[kinds.index("array")] = f"array of {_type(prop['items'])}"
    if alternatives := prop.get("anyOf") or prop.get("oneOf"):
        kinds = [_type(p) for p in alternatives]
    return " or ".join(kinds)


def json_page() -> str:
    """Markdown: the ``schema`` key, and per command each top-level key of its ``--json`` output
    (type, always there or not, what it is), linked to the whole schema."""
    lines = ["# JSON output", "",
             "Generated from the JSON Schemas in `release/schemas/` (`release.docs_reference`); the "
             "tests check every command's `--json` output they see against its schema.", "",
             "With `--json` a command prints one JSON object on stdout (progress goes to stderr). Its "
             "first key, `schema`, names its shape: `jax-rocm-release/<command>/<N>`, the JSON Schema "
             "(draft 2020-12) `<command>.json` below. N moves when a key is removed or changes type "
             "or meaning; a new key does not move it, so read the keys you need and ignore the rest. "
             "A command that stops with an error line on stderr (exit 2 or 3, and 1 where a job stops "
             f"on a failed check) prints `{schema_id('error')}` instead, whatever the command. "
             "`verify`, `validate` and `smoke` that find a problem print their own shape with `ok` "
             "false (exit 1).", "",
             "Every shape:", ""]
    lines += [f"- {'a failure' if name == 'error' else f'`release {name}`'}: `{schema_id(name)}`, "
              f"[{name}.json](schemas/{name}.json)" for name in SHAPES]
    for name in SHAPES:
        shape = schema(name)
        lines += ["", f"## {'A failure' if name == 'error' else f'release {name}'}", "",
                  _cell(shape.get("description", "")), ""]
        required = set(shape.get("required", ()))
        for key, prop in shape.get("properties", {}).items():
            always = ", always" if key in required else ""
            what = _cell(prop.get("description", ""))
            lines.append(f"- `{key}` ({_cell(_type(prop))}{always})" + (f": {what}" if what else ""))
    return "\n".join(lines) + "\n"


def schema_files() -> dict[str, str]:
    """The schemas as files of the site, by their path under docs/ (``json_page`` links them)."""
    return {f"reference/schemas/{name}.json": (SCHEMAS / f"{name}.json").read_text(encoding="utf-8")
            for name in SHAPES}


# The pages the docs build adds, by their path under docs/.
PAGES = {"reference/cli.md": commands_page, "reference/json.md": json_page,
         "development/modules.md": modules_page, "development/benchmarks.md": results_page}
