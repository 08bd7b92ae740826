"""bump rewrites deps.yaml in place, and every YAML style the reader accepts survives it: flow
and block mappings, flow and block lists (indented or not), plain and quoted scalars, 2 or 4
spaces, comments between keys, after values and among a list's items, with or without a final
newline. Generated: the rewritten text reads back as exactly the pins bump meant, the file's
comments are all there in their order, and a save that moves nothing changes no byte."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from release.core.config import PIN_KEYS, is_branch_name, parse_deps, render_deps

SHAS = ["4006f866f9f094bf1beff2e1bad4f845480a8ea6", "7f75782ad5ea6cd97e6346dcae9317ac31babef8",
        "b32df5f07315567cc1940388ef766b87c6e8b9e3", "a" * 39 + "b", "c0ffee" + "e" * 34]
SHA256 = ["0" * 63 + "a", "ab" * 32]
PATCHES = ["//third_party/jax:0008-Expose-rocm-plugin-targets.patch",
           "//third_party/xla:0001-Add-clang-resource-dir-include-path.patch", "//third_party/x:a.patch"]
BRANCHES = ["rocm-jaxlib-v0.9.1", "rocm-jaxlib-v0.10.0", "master", "release/x_1.2"]
PATH = Path("deps.yaml")


def _scalar(draw, value: str) -> str:
    style = draw(st.sampled_from(["plain", "single", "double"]))
    if style == "plain" and not re.fullmatch(r"[0-9.]+", value):  # digits alone would read as a number
        return value
    return f"'{value}'" if style == "single" else f'"{value}"'


class _Doc:
    """The text being written, and every comment in it in order."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.comments: list[str] = []

    def comment(self, draw, indent: str) -> None:
        if draw(st.integers(0, 3)) == 0:
            text = f"# note {len(self.comments)}: keep me"
            self.comments.append(text)
            self.lines.append(indent + text)

    def trailing(self, draw) -> str:
        if draw(st.integers(0, 3)) == 0:
            text = f"# after {len(self.comments)}"
            self.comments.append(text)
            return "  " + text
        return ""


@st.composite
def documents(draw):
    """(deps.yaml text, its comments in order): a valid file in a drawn mix of styles."""
    unit = " " * draw(st.sampled_from([2, 4]))
    doc = _Doc()
    doc.comment(draw, "")
    doc.lines.append("deps:" + doc.trailing(draw))
    for name in draw(st.permutations(["plugin", "jax", "xla"])):
        values: dict[str, object] = {
            "url": _scalar(draw, f"https://github.com/ROCm/{name}"),
            "branch": _scalar(draw, draw(st.sampled_from(BRANCHES))),
            "commit": _scalar(draw, draw(st.sampled_from(SHAS))),
        }
        if name == "plugin":
            values["roll"] = _scalar(draw, "head")
        else:
            values["roll"] = ("via", name)
        if name != "plugin" and draw(st.booleans()):
            values["archive_sha256"] = _scalar(draw, draw(st.sampled_from(SHA256)))
        if draw(st.booleans()):
            values["patches"] = [_scalar(draw, p) for p in draw(st.lists(st.sampled_from(PATCHES),
                                                                         max_size=3))]
        if name == "jax" and draw(st.booleans()):
            values["line"] = _scalar(draw, draw(st.sampled_from(["0.9.1", "0.10.0"])))
        keys = draw(st.permutations(list(values)))
        doc.comment(draw, unit)
        if draw(st.integers(0, 3)) == 0:  # the whole dep as one flow mapping
            parts = []
            for key in keys:
                value = values[key]
                if isinstance(value, tuple):
                    value = f"{{via: plugin, file: jax_rocm_plugin/third_party/{value[1]}/workspace.bzl}}"
                elif isinstance(value, list):
                    value = "[" + ", ".join(value) + "]"
                parts.append(f"{key}: {value}")
            doc.lines.append(f"{unit}{name}: {{{', '.join(parts)}}}" + doc.trailing(draw))
            continue
        doc.lines.append(f"{unit}{name}:" + doc.trailing(draw))
        inner = unit * 2
        for key in keys:
            doc.comment(draw, inner)
            value = values[key]
            pin = key in PIN_KEYS  # a pin's own line is replaced whole: no trailing comment there
            if isinstance(value, tuple):
                file = f"jax_rocm_plugin/third_party/{value[1]}/workspace.bzl"
                if draw(st.booleans()):
                    doc.lines.append(f"{inner}roll: {{via: plugin, file: {file}}}" + doc.trailing(draw))
                else:
                    doc.lines.append(f"{inner}roll:" + doc.trailing(draw))
                    doc.lines.append(f"{inner}{unit}via: plugin" + doc.trailing(draw))
                    doc.lines.append(f"{inner}{unit}file: {file}" + doc.trailing(draw))
            elif isinstance(value, list):
                if not value or draw(st.booleans()):
                    doc.lines.append(f"{inner}{key}: [" + ", ".join(value) + "]")
                else:
                    doc.lines.append(f"{inner}{key}:")
                    dash = inner + draw(st.sampled_from(["", unit]))  # "- " at the key's column or under it
                    for item in value:
                        doc.comment(draw, dash)
                        doc.lines.append(f"{dash}- {item}")
            else:
                doc.lines.append(f"{inner}{key}: {value}" + ("" if pin else doc.trailing(draw)))
    doc.comment(draw, "")
    text = "\n".join(doc.lines) + draw(st.sampled_from(["\n", ""]))
    return text, doc.comments


@st.composite
def moves(draw, deps):
    """What a bump may write: new commits, branches and pins, any of them per dep."""
    pins: dict[str, dict[str, object]] = {}
    for dep in deps:
        fields: dict[str, object] = {}
        if draw(st.booleans()):
            fields["commit"] = draw(st.sampled_from(SHAS))
        if dep.name != "plugin" and draw(st.booleans()):
            fields["branch"] = draw(st.sampled_from(BRANCHES))
        if dep.name != "plugin" and draw(st.booleans()):
            fields["archive_sha256"] = draw(st.none() | st.sampled_from(SHA256))
        if draw(st.booleans()):
            fields["patches"] = tuple(draw(st.lists(st.sampled_from(PATCHES), max_size=3)))
        if dep.name == "jax" and draw(st.booleans()):
            fields["line"] = draw(st.none() | st.sampled_from(["0.9.1", "0.10.0", "0.11.2"]))
        pins[dep.name] = fields
    return deps.with_pins(pins)


def _in_order(needles: list[str], text: str) -> bool:
    at = 0
    for needle in needles:
        at = text.find(needle, at)
        if at < 0:
            return False
        at += len(needle)
    return True


@settings(phases=[Phase.explicit, Phase.reuse, Phase.generate])  # a failure shows its whole file as
@given(document=documents(), data=st.data())                      # it is; shrinking one took minutes
def test_every_style_the_reader_takes_survives_a_bump_rewrite(document, data):
    text, comments = document
    old = parse_deps(PATH, text)
    assert render_deps(old, text) == text  # nothing moved: not one byte changes
    new = data.draw(moves(old))
    written = render_deps(new, text)
    assert parse_deps(PATH, written) == new, written
    assert _in_order(comments, written), (text, written)
    assert all(is_branch_name(d.branch) for d in new)


def test_the_block_list_people_write_is_rewritten(tmp_path):
    """The file of issue 35: ``patches:`` as a block list, the style PyYAML writes."""
    text = ("deps:\n"
            "  plugin:\n    url: https://github.com/ROCm/rocm-jax\n    branch: master\n"
            f"    commit: {SHAS[0]}\n    roll: head\n"
            "  jax:\n    url: https://github.com/ROCm/jax\n    branch: rocm-jaxlib-v0.9.1\n"
            f"    commit: {SHAS[1]}\n    patches:\n    - {PATCHES[0]}\n    # why this one\n    - {PATCHES[2]}\n"
            "    roll: {via: plugin, file: jax_rocm_plugin/third_party/jax/workspace.bzl}\n"
            "  xla:\n    url: https://github.com/ROCm/xla\n    branch: rocm-jaxlib-v0.9.1\n"
            f"    commit: {SHAS[2]}\n    roll: {{via: plugin, file: jax_rocm_plugin/third_party/xla/workspace.bzl}}\n")
    old = parse_deps(PATH, text)
    new = old.with_pins({"jax": {"commit": SHAS[3], "patches": (PATCHES[1],)}})
    written = render_deps(new, text)
    assert parse_deps(PATH, written) == new and "# why this one" in written
    assert written.count("\n") == text.count("\n") - 2  # key and two items: one flow line
