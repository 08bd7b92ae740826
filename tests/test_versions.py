"""PEP 440 versions: the strings, and the order pip sees."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from release.core import versions
from release.core.versions import VersionError

D = dt.date(2026, 11, 22)


def test_strings():
    assert versions.release("0.9.1") == "0.9.1"
    assert versions.rc("0.9.1", 2) == "0.9.1rc2"
    assert versions.post("0.9.1", 1) == "0.9.1.post1"
    assert versions.nightly("0.9.1", D) == "0.9.1.dev20261122"
    assert versions.nightly("0.9.1", D, 7) == "0.9.1.dev20261122007"
    assert versions.with_local("0.9.1", "7.2.0") == "0.9.1+rocm7.2.0"


def test_every_string_is_canonical_pep440():
    for v in ("0.9.1", "0.9.1rc2", "0.9.1.post1", "0.9.1.dev20261122", "0.9.1.dev20261122007",
              "0.9.1+rocm7.2.0"):
        assert str(Version(v)) == v


def test_pip_order_nightly_rc_release_post():
    chain = [versions.nightly("0.9.1", D), versions.rc("0.9.1", 1), versions.rc("0.9.1", 2),
             versions.release("0.9.1"), versions.post("0.9.1", 1), versions.post("0.9.1", 2)]
    assert sorted(chain, key=Version) == chain


def test_after_a_release_the_line_goes_on_as_its_next_post_and_nightlies_sort_above_it():
    assert versions.next_after("0.9.1") == "0.9.1.post1"
    assert versions.next_after("0.9.1.post6") == "0.9.1.post7"
    nxt = versions.next_after("0.9.1.post6")
    earliest = versions.nightly(nxt, dt.date(1970, 1, 1))
    assert earliest == "0.9.1.post7.dev19700101"
    for older in ("0.9.1", "0.9.1.post6", versions.with_local("0.9.1.post6", "7.2.0")):
        assert Version(earliest) > Version(older)
    assert Version(earliest) < Version(versions.release(nxt)) == Version("0.9.1.post7")


def test_build_numbers_sort_within_a_day_and_mixing_is_refused():
    a, b = versions.nightly("0.9.1", D, 1), versions.nightly("0.9.1", D, 2)
    assert Version(a) < Version(b)
    # The trap: devN is an integer, so the BBB form of one day beats the plain form of the next.
    assert Version(a) > Version(versions.nightly("0.9.1", D + dt.timedelta(days=1)))
    with pytest.raises(VersionError, match="cannot be mixed"):
        versions.check_scheme([versions.nightly("0.9.1", D)], a)
    with pytest.raises(VersionError, match="cannot be mixed"):
        versions.check_scheme([a], versions.nightly("0.9.1", D))
    # another version line, or releases, do not matter
    versions.check_scheme([versions.nightly("0.9.0", D), "0.9.1rc1", "0.9.1"], a)
    versions.check_scheme([versions.nightly("0.9.1", D - dt.timedelta(days=1))], versions.nightly("0.9.1", D))


def test_kind_and_base_of():
    assert versions.kind_of("0.9.1.dev20261122") == "nightly"
    assert versions.kind_of("0.9.1rc3") == "rc"
    assert versions.kind_of("0.9.1") == "release"
    assert versions.kind_of("0.9.1.post2") == "post"
    assert versions.base_of("0.9.1rc3") == "0.9.1"
    assert versions.nightly_scheme_of("0.9.1.dev20261122") == "date"
    assert versions.nightly_scheme_of("0.9.1.dev20261122001") == "date-build"
    assert versions.nightly_scheme_of("0.9.1") is None


@pytest.mark.parametrize("call", [
    lambda: versions.release("0.9"),
    lambda: versions.release("v0.9.1"),
    lambda: versions.release("0.09.1"),
    lambda: versions.rc("0.9.1", 0),
    lambda: versions.post("0.9.1", -1),
    lambda: versions.post("0.9.1", True),
    lambda: versions.nightly("0.9.1", D, 1000),
    lambda: versions.nightly("0.9.1", dt.datetime(2026, 11, 22, 1, 0)),
    lambda: versions.nightly("0.9.1", "2026-11-22"),
    lambda: versions.with_local("0.9.1", "seven"),
    lambda: versions.with_local("0.9.1+rocm7", "7.2.0"),
    lambda: versions.for_kind("weekly", "0.9.1"),
    lambda: versions.for_kind("nightly", "0.9.1"),
    lambda: versions.next_after("0.9.1rc1"),
    lambda: versions.next_after("0.9.1.dev20261122"),
    lambda: versions.rc("0.9.1.post2", 1),
    lambda: versions.release("0.9.1.post0"),
    lambda: versions.nightly("0.9.1.post01", D),
    lambda: versions.parse_date("2026-13-01"),
])
def test_bad_inputs_raise_user_errors(call):
    with pytest.raises(VersionError):
        call()


def test_public_index_refuses_local_label():
    local = versions.with_local("0.9.1", "7.2.0")
    with pytest.raises(VersionError, match="PyPI refuses"):
        versions.require_public(local, "PyPI")
    assert versions.require_public("0.9.1", "PyPI") == "0.9.1"


@pytest.mark.parametrize("kind, scheme, number, build, expected", [
    ("nightly", "date", None, None, None),
    ("nightly", "date-build", None, None, 0),       # the date-build default
    ("nightly", "date-build", None, 7, 7),
    ("rc", "date-build", 2, None, None),
    ("post", "date", 1, None, None),
    ("release", "date-build", None, None, None),
])
def test_build_request_gives_the_build_number(kind, scheme, number, build, expected):
    assert versions.build_request(kind, scheme, number=number, build_number=build) == expected


@pytest.mark.parametrize("kind, scheme, number, build, message", [
    ("nightly", "date", None, 0, "would mix"),       # two nightly shapes on one line
    ("rc", "date-build", 1, 3, "--build-number applies to --kind nightly only"),
    ("release", "date", None, 0, "--build-number applies to --kind nightly only"),
    ("release", "date", 2, None, "--number applies to --kind rc and post only"),
    ("nightly", "date-build", 2, None, "--number applies to --kind rc and post only"),
    ("weekly", "date", None, None, "kind 'weekly'"),
    ("nightly", "hourly", None, None, "nightly_scheme 'hourly'"),
])
def test_build_request_refuses_what_does_not_fit(kind, scheme, number, build, message):
    with pytest.raises(VersionError, match=message):
        versions.build_request(kind, scheme, number=number, build_number=build)


def test_prerelease_and_latest_by_kind():
    assert [k for k in versions.KINDS if versions.is_prerelease(k)] == ["nightly", "rc"]
    assert [k for k in versions.KINDS if versions.is_latest(k)] == ["release", "post"]


def test_a_cut_from_a_pushed_tag_is_an_rc_or_release_of_the_line():
    from release.build.plan import cut_from_tag

    assert cut_from_tag("rocm-jax-v0.9.1rc3", "0.9.1") == ("rc", 3)
    assert cut_from_tag("rocm-jax-v0.9.1", "0.9.1") == ("release", None)
    with pytest.raises(VersionError, match="version_info.json says the next version is 0.9.2"):
        cut_from_tag("rocm-jax-v0.9.1rc1", "0.9.2")
    with pytest.raises(VersionError, match="expected a release tag"):
        cut_from_tag("rocm-jax-v0.9.1.dev20261122", "0.9.1")


_TEXTS = ["1.0", "1.0+a", "1.0+b", "01.0", "1.0.0", "1.0RC1", "1.0rc1", "v1.0", "1.0.dev20261120",
          "1.0.dev20261120+rocm7", " 1.0", "1.0 ", "bad!", "1.0+"]


@pytest.mark.parametrize("texts", [_TEXTS, _TEXTS[::-1]])
def test_versions_alike_but_for_a_local_part_or_spelling_are_each_read_from_their_own_text(texts):
    test_a_version_parsed_once_a_process_is_what_packaging_reads_in_that_exact_text.hypothesis.inner_test(texts)


@settings(max_examples=30)
@given(st.lists(st.sampled_from(_TEXTS) | st.text(alphabet="01.+abcdevrp", max_size=8), max_size=12))
def test_a_version_parsed_once_a_process_is_what_packaging_reads_in_that_exact_text(texts):
    """``versions.parse`` keeps each text's Version for the process: whatever was asked before and
    in whatever order, the answer is packaging's reading of that exact text (its local part, its
    spelling, its whitespace), and a text packaging refuses is refused on every asking."""
    from packaging.version import InvalidVersion
    versions._PARSED.clear()
    for text in texts + texts:
        try:
            fresh = Version(text)
        except InvalidVersion:
            with pytest.raises(InvalidVersion):
                versions.parse(text)
            continue
        found = versions.parse(text)
        assert (str(found), found) == (str(fresh), fresh), text
        assert found.local == fresh.local and found.public == fresh.public


def test_a_version_text_is_parsed_once_and_the_keeping_stops_at_its_bound(monkeypatch):
    """``versions.parse`` keeps each text's Version (asked again, the same object: the index asks
    about ten times a release), and keeps at most 65,536 texts a process: a long-lived process
    fed new texts without end holds a bounded map, the texts past it parsed on every asking."""
    monkeypatch.setattr(versions, "_PARSED", {})
    first = versions.parse("0.9.1rc2")
    assert versions.parse("0.9.1rc2") is first
    assert versions.parse("0.9.1rc2+rocm7") is not first

    almost = dict.fromkeys((f"filler{n}" for n in range((1 << 16) - 1)), first)
    monkeypatch.setattr(versions, "_PARSED", almost)
    last = versions.parse("0.9.2")  # the 65,536th text: kept
    assert versions.parse("0.9.2") is last and len(versions._PARSED) == 1 << 16
    past = versions.parse("0.9.3")  # one past the bound: parsed, the same answer, not kept
    assert past == Version("0.9.3") and versions.parse("0.9.3") is not past
    assert len(versions._PARSED) == 1 << 16 and "0.9.3" not in versions._PARSED
