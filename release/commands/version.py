"""``release version``: print exactly one version string, for scripts."""

from __future__ import annotations

from release import output, versions
from release.commands._common import add_kind_options, project, today_utc

HELP = "print the version a build of the given kind gets (one line, for scripts)"


def add_arguments(parser) -> None:
    add_kind_options(parser)


def run(args, out) -> int:
    info = project(args).version_info
    build = args.build_number
    if args.kind == "nightly":
        if info.nightly_scheme == "date-build" and build is None:
            build = 0
        if info.nightly_scheme == "date" and build is not None:
            raise versions.VersionError("version_info.json sets nightly_scheme 'date'; "
                                        "--build-number would mix two nightly schemes")
    elif build is not None:
        raise versions.VersionError("--build-number applies to --kind nightly only")
    if args.kind in ("nightly", "release") and args.number is not None:
        raise versions.VersionError("--number applies to --kind rc and post only")
    version = versions.for_kind(args.kind, info.version, date=args.date or today_utc(),
                                number=args.number, build_number=build)
    output.github_output({"version": version, "kind": args.kind})
    output.step_summary(f"`release version --kind {args.kind}`: `{version}`")
    out.result({"kind": args.kind, "version": version}, lambda console: print(version, file=out.stream))
    return 0
