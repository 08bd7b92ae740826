"""``release version``: print exactly one version string, for scripts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from release.commands._common import project, today_utc
from release.commands._version_arguments import add_kind_options
from release.core import output

if TYPE_CHECKING:
    import argparse

    from release.core.output import Output

HELP = "print the version a build of the given kind gets (one line, for scripts)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_kind_options(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    from release.build.next_version import candidate_versions
    from release.core import versions
    proj = project(args)
    info = proj.version_info
    versions.build_request(args.kind, info.nightly_scheme, number=args.number,
                           build_number=args.build_number)
    problem = proj.line_problem()
    if problem is not None:
        raise versions.VersionError(problem)
    # The rule status shows too (one function); an rc without --number is rc1 here, since
    # this reads the two files only (status also reads the store's published rcs).
    version = candidate_versions(proj, (), args.date or today_utc(), args.build_number,
                                 args.number)[args.kind]
    if version is None:
        raise versions.VersionError(f"--kind rc: version_info.json's {info.version} is the next "
                                    f"post release of the released line {info.line}; rcs come "
                                    "before a line's first release")
    output.github_output({"version": version, "kind": args.kind})
    output.step_summary(f"`release version --kind {args.kind}`: `{version}`")
    out.result({"kind": args.kind, "version": version}, lambda _console: print(version, file=out.stream))
    return 0
