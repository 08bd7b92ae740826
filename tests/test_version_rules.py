"""Version rules the mutation run found unpinned: the CLI's one entry point per kind, the
build-number and padding edges, and that every refusal says what was wrong and what was
expected (one clear line)."""

from __future__ import annotations

import datetime as dt

import pytest

from release.core import versions
from release.core.versions import VersionError

DAY = dt.date(2026, 11, 22)


@pytest.mark.parametrize("kind, kwargs, expected", [
    ("release", {}, "0.9.1"),
    ("rc", {}, "0.9.1rc1"),
    ("rc", {"number": 3}, "0.9.1rc3"),
    ("post", {}, "0.9.1.post1"),
    ("post", {"number": 2}, "0.9.1.post2"),
    ("nightly", {"date": DAY}, "0.9.1.dev20261122"),
    ("nightly", {"date": DAY, "build_number": 7}, "0.9.1.dev20261122007"),
    ("release", {"date": DAY, "number": 4}, "0.9.1"),  # what does not apply is ignored
])
def test_for_kind_makes_each_kind(kind, kwargs, expected):
    assert versions.for_kind(kind, "0.9.1", **kwargs) == expected


def test_for_kind_refusals_say_why():
    with pytest.raises(VersionError, match="^a nightly version needs a date$"):
        versions.for_kind("nightly", "0.9.1")
    with pytest.raises(VersionError) as err:
        versions.for_kind("beta", "0.9.1")
    assert str(err.value) == "kind 'beta' is not one of nightly, rc, release, post"
    with pytest.raises(VersionError, match="rc number 0 is not a whole number >= 1"):
        versions.for_kind("rc", "0.9.1", number=0)


def test_build_number_zero_is_the_first_build_of_a_day():
    assert versions.nightly("0.9.1", DAY, 0) == "0.9.1.dev20261122000"
    assert versions.nightly("0.9.1", DAY, 999) == "0.9.1.dev20261122999"


@pytest.mark.parametrize("call, message", [
    (lambda: versions.release("0.9"), "version '0.9' is not X.Y.Z or X.Y.Z.postN (numbers "
                                      "without leading zeros, N >= 1)"),
    (lambda: versions.next_after("1.2"), "1.2 is not a release or post release X.Y.Z[.postN]"),
    (lambda: versions.next_after("1.2.3+rocm7"),
     "1.2.3+rocm7 is not a release or post release X.Y.Z[.postN]"),
    (lambda: versions.build_request("weekly", "date"),
     "kind 'weekly' is not one of nightly, rc, release, post"),
    (lambda: versions.build_request("nightly", "hourly"),
     "nightly_scheme 'hourly' is not one of date, date-build"),
    (lambda: versions.build_request("rc", "date", build_number=1),
     "--build-number applies to --kind nightly only"),
    (lambda: versions.build_request("release", "date", number=2),
     "--number applies to --kind rc and post only"),
    (lambda: versions.build_request("nightly", "date", build_number=0),
     "version_info.json sets nightly_scheme 'date'; a build number would mix .devYYYYMMDD and "
     ".devYYYYMMDDBBB on one line"),
    (lambda: versions.rc("0.9.1", 0), "rc number 0 is not a whole number >= 1"),
    (lambda: versions.post("0.9.1", -1), "post number -1 is not a whole number >= 1"),
    (lambda: versions.nightly("0.9.1", "2026-11-22"),
     "nightly date '2026-11-22' is not a calendar date (YYYY-MM-DD)"),
    (lambda: versions.nightly("0.9.1", DAY, 1000), "build number 1000 is not a whole number "
                                                   "0..999"),
    (lambda: versions.with_local("0.9.1", "7.x"), "ROCm version '7.x' is not A.B.C"),
    (lambda: versions.with_local("0.9.1+rocm7.0", "7.0"), "version 0.9.1+rocm7.0 already has a "
                                                          "local label"),
    (lambda: versions.require_public("0.9.1+rocm7", "PyPI"),
     "version 0.9.1+rocm7 has a local label, which PyPI refuses; drop the '+...' part"),
    (lambda: versions.next_after("0.9.1rc2"),
     "0.9.1rc2 is not a release or post release X.Y.Z[.postN]"),
    (lambda: versions.rc("0.9.1.post3", 1),
     "0.9.1.post3 is the next post release of the released line 0.9.1; release candidates exist "
     "only before a line's first release"),
    (lambda: versions.parse_next("0.9"),
     "version '0.9' is not X.Y.Z or X.Y.Z.postN (numbers without leading zeros, N >= 1)"),
    (lambda: versions.parse_date("22.11.2026"), "date '22.11.2026' is not YYYY-MM-DD"),
    (lambda: versions.parse_date(None), "date None is not YYYY-MM-DD"),
])
def test_refusals_say_what_and_what_was_expected(call, message):
    with pytest.raises(VersionError) as err:
        call()
    assert str(err.value) == message


def test_line_problem_names_the_pin_only_when_given():
    assert versions.line_problem("0.10.0", "0.9.1") == (
        "version_info.json's version 0.10.0 is on line 0.10.0, but the jax pin is jax 0.9.1 "
        "(jax/version.py); a plugin 0.10.0 installs only beside jax 0.10.0: run `release bump` "
        "(it moves both together) or set version to 0.9.1")


def test_parse_date_reads_iso_dates():
    assert versions.parse_date("2026-11-22") == DAY


@pytest.mark.parametrize("released, expected", [
    ("0.9.1", "0.9.1.post1"),
    ("0.9.1.post2", "0.9.1.post3"),
    ("10.0.0.post99", "10.0.0.post100"),
])
def test_next_after_is_the_lines_next_post(released, expected):
    assert versions.next_after(released) == expected


def test_scheme_check_looks_past_versions_it_cannot_parse():
    with pytest.raises(VersionError) as err:
        versions.check_scheme(["not a version", "0.9.1.dev20261120"], "0.9.1.dev20261121001")
    assert str(err.value) == (
        "nightly 0.9.1.dev20261121001 uses the 'date-build' scheme but 0.9.1.dev20261120 on the "
        "same version line uses 'date'; devN compares as an integer, so the two cannot be mixed")


@pytest.mark.parametrize("next_version, published, expected", [
    ("0.9.1", ["0.9.1"], "0.9.1.post1"),  # the release alone: .post1
    ("0.9.1", ["0.9.1+rocm7.2.0"], "0.9.1.post1"),  # a local label counts as its public part
    ("0.9.1", ["0.9.1.post2", "0.9.1"], "0.9.1.post3"),
    ("0.9.1.post5", ["0.9.1", "0.9.1.post2"], "0.9.1.post5"),  # the file's own number when higher
    ("0.9.1", ["not a version", "0.9.1"], "0.9.1.post1"),  # a text no version is passed over
    ("0.9.1", ["0.9.1.dev20261120", "0.9.1rc2", "0.9.1.post4.dev20261121", "0.9.2", "0.10.0.post3"],
     "0.9.1"),  # nightlies, pre-releases and other lines move nothing
    ("0.9.1", [], "0.9.1"),
])
def test_the_next_official_version_moves_past_what_its_line_published(next_version, published, expected):
    """version_info.json's next version, moved past the line's finals (the highest .postN plus
    one, .post1 after the release alone) unless its own number is higher; in any order."""
    assert versions.next_official(next_version, published) == expected
    assert versions.next_official(next_version, published[::-1]) == expected
