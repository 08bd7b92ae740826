"""``release version``: print exactly one version string, for scripts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._common import add_kind_options, project, today_utc
from release.core import output, versions

if TYPE_CHECKING:
    import argparse

    from release.core.output import Output

HELP = "print the version a build of the given kind gets (one line, for scripts)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_kind_options(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    info = project(args).version_info
    build = versions.build_request(args.kind, info.nightly_scheme, number=args.number,
                                   build_number=args.build_number)
    version = versions.for_kind(args.kind, info.version, date=args.date or today_utc(),
                                number=args.number, build_number=build)
    output.github_output({"version": version, "kind": args.kind})
    output.step_summary(f"`release version --kind {args.kind}`: `{version}`")
    out.result({"kind": args.kind, "version": version}, lambda _console: print(version, file=out.stream))
    return 0
