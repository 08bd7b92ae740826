"""The state a release keeps in its notes is one record with one reader and one writer: any
record written and read back is the same record, and notes a person edited on GitHub are read
exactly or refused in one line, never misread (``release.publish.notes``)."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from release.core import bodies
from release.publish import notes
from release.publish.notes import MARKER, Notes, NotesError

# Text as people and the steps write it: Markdown, HTML comments, CRLF, marks' look-alikes.
_PIECES = ["\n", "\r\n", " ", "-", "--", "<!--", "-->", "<!-- note -->", "**Yanked** (PEP 592): x\n",
           "## jax-rocm 0.9.1\n", "`sha`", "é", "😀", "<!-- smoke -->", "<!-- /pypi -->",
           "<!-- validated: sha256=" + "a" * 64 + " -->", MARKER, "<!--smoke-->",
           "<!-- jax-rocm-release yanked: r -->\n", "<!-- validated: sha256=abc -->", "<!-- /validated-with -->",
           "<!-- with-rocm -->", "<!-- /with-rocm -->", "<!-- index-facts -->", "<!-- /index-facts -->"]
_TEXT = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=12)), max_size=12).map("".join)
_DIGEST = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
_REASON = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)


class _Scanned(str):
    """Text that fails a search past ``limit``: a scan that goes back over what it passed (and
    would never end) fails here instead of hanging."""

    def find(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.finds = getattr(self, "finds", 0) + 1
        assert self.finds <= self.limit, "the text is searched again from before where it was"
        return super().find(*args, **kwargs)


def _scanned(text: str, opener: str) -> _Scanned:
    found = _Scanned(text)
    found.limit = 2 * text.count(opener) + 1  # one search an opening and one for its closing, then the last
    return found


@pytest.fixture(autouse=True, scope="module")
def _notes_read_front_to_back():
    """Every test here reads its notes' sections searched once each (a rescan fails, never hangs)."""
    sections = notes._sections
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(notes, "_sections", lambda text, opener, closer: sections(_scanned(text, opener), opener, closer))
        yield


def _records() -> st.SearchStrategy[Notes | None]:
    """Records from any fields: the ones ``Notes`` refuses (NotesError) come back as None."""
    def build(**fields: object) -> Notes | None:
        try:
            return Notes(**fields)  # type: ignore[arg-type]
        except NotesError:
            return None
    return st.builds(build, text=_TEXT, ours=st.booleans(), smoke=st.none() | _TEXT,
                     validated=st.none() | _DIGEST | st.text(max_size=70), pypi=st.none() | _TEXT,
                     yanked=st.none() | _REASON, validated_with=st.none() | _TEXT, with_rocm=st.none() | _TEXT,
                     index_facts=st.none() | _TEXT)


@given(_records())
def test_a_record_written_then_read_is_the_same_record(record):
    if record is None:
        return
    body = notes.write(record)
    assert bodies.units(body) <= bodies.BODY_LIMIT
    assert notes.read(body) == record
    assert notes.write(notes.read(body)) == body  # writing what was read changes nothing


@given(_records(), st.sampled_from(["\r\n", "\n"]))
def test_notes_a_host_gives_back_with_crlf_line_ends_keep_every_record(record, newline):
    if record is None:
        return
    again = notes.read(re.sub(r"(?<!\r)\n", newline, notes.write(record)))  # as a host converts LF
    assert _records_only(again) == _records_only(record) and again.smoke_verdict == record.smoke_verdict


def _records_only(record: Notes) -> Notes:
    """The record without its text, its sections' line ends as LF."""
    def lf(section: str | None) -> str | None:
        return None if section is None else section.replace("\r\n", "\n")
    return dataclasses.replace(record, text="", smoke=lf(record.smoke), pypi=lf(record.pypi),
                               validated_with=lf(record.validated_with), with_rocm=lf(record.with_rocm),
                               index_facts=lf(record.index_facts))


@given(st.one_of(_TEXT, st.lists(st.sampled_from(_PIECES + ["<!-- /smoke -->", "<!-- pypi -->", "x"]),
                                 max_size=10).map("".join)))
def test_hand_edited_notes_are_read_whole_or_refused_in_one_line(body):
    """Whatever a person leaves in the notes: either one line naming the notes, or a record
    whose text holds nothing that looks like a record and whose every record was in the notes."""
    try:
        found = notes.read(body, "rocm-jax-v0.9.1's notes")
    except NotesError as exc:
        assert str(exc).startswith("rocm-jax-v0.9.1's notes: ") and "\n" not in str(exc)
        assert exc.exit_code == 2
        return
    assert notes.read(notes.write(found)) == found
    assert found.ours == (MARKER in body)
    assert (found.validated is None) or f"sha256={found.validated}" in body


def test_the_steps_records_keep_their_places_and_a_persons_text_is_kept():
    text = "## jax-rocm 0.9.1\n\nnotes a person wrote  \n"
    body = notes.write(Notes(text=text, ours=True, smoke="**ROCm smoke test**: passed",
                             validated="b" * 64, pypi="### PyPI\n\nboth", yanked="segfaults"))
    assert body == ("<!-- jax-rocm-release yanked: segfaults -->\n**Yanked** (PEP 592): segfaults\n"
                    "## jax-rocm 0.9.1\n\nnotes a person wrote  \n\n" + MARKER + "\n\n<!-- smoke -->\n"
                    "**ROCm smoke test**: passed\n<!-- /smoke -->\n<!-- validated: sha256=" + "b" * 64
                    + " -->\n\n<!-- pypi -->\n### PyPI\n\nboth\n<!-- /pypi -->\n")
    assert notes.write(Notes(text=text)) == text  # no record: the text exactly as it was
    assert notes.write(Notes(text=text, yanked="")).startswith(
        "<!-- jax-rocm-release yanked:  -->\n**Yanked** (PEP 592): no reason given\n## jax")


def test_a_record_a_person_moved_is_still_read():
    moved = "<!-- validated: sha256=" + "c" * 64 + " -->\n## notes\n" + MARKER + "\nmore\n"
    assert notes.read(moved) == Notes(text="## notes\nmore", ours=True, validated="c" * 64)


@pytest.mark.parametrize(("body", "said"), [
    ("<!-- validated: sha256=" + "a" * 64 + " -->\n<!-- validated: sha256=" + "b" * 64 + " -->",
     "2 validated marks that disagree"),
    ("<!-- validated: sha256=ABC -->", "looks like one of this tool's records"),
    ("<!-- smoke -->\npassed, and never closed", "looks like one of this tool's records"),
    ("<!-- pypi -->\n<!-- validated: sha256=" + "a" * 64 + " -->\n<!-- /pypi -->", "the PyPI section holds"),
    ("<!-- jax-rocm-release yanked: a -- b -->", "expected one line without control characters or '--'"),
    ("see <!-- jax-rocm-release yanked: moved -->", "looks like one of this tool's records"),
])
def test_notes_that_cannot_be_read_exactly_are_refused_naming_the_release(body, said):
    with pytest.raises(NotesError, match="^rocm-jax-v0.9.1's notes: ") as caught:
        notes.read(body, "rocm-jax-v0.9.1's notes")
    assert said in str(caught.value)


def test_identical_copies_of_a_record_read_as_one():
    twice = f"{MARKER}\ntext\n{MARKER}\n<!-- validated: sha256={'d' * 64} -->\n" * 2
    assert notes.read(twice) == Notes(text="text\ntext", ours=True, validated="d" * 64)


def test_notes_over_githubs_limit_lose_text_never_a_record():
    record = Notes(text="\n".join(f"line {i} " + "z" * 90 for i in range(2000)), ours=True,
                   validated="e" * 64, pypi="### PyPI\n\nboth wheels", yanked="bad")
    body = notes.write(record)
    assert bodies.units(body) <= bodies.BODY_LIMIT and bodies.CUT_NOTE in body
    again = notes.read(body)
    assert dataclasses.replace(again, text="") == dataclasses.replace(record, text="")
    assert notes.write(again) == body  # cutting again cuts nothing more


def test_the_smoke_verdict_is_the_sections_first_line():
    assert Notes().smoke_verdict is None
    assert Notes(smoke="**ROCm smoke test** (0.9.1, Python 3.12): FAILED\n- passed").smoke_verdict == "FAILED"
    assert Notes(smoke="**ROCm smoke test** (0.9.1): passed\n- x: FAILED").smoke_verdict == "passed"


def test_same_text_ignores_the_gates_and_a_hosts_whitespace_only():
    body = "## notes\n\nmore\n\n" + MARKER + "\n"
    gated = notes.write(dataclasses.replace(notes.read(body), smoke="passed", validated="f" * 64,
                                            validated_with="| [jax-0.9.1-py3-none-any.whl](https://x/j) |"))
    assert notes.same_text(gated.replace("\n", "\r\n"), body)
    assert notes.same_text("\n" + body + "\n\n", body) and notes.same_text("a  \nb", "a\nb")
    assert not notes.same_text(body.replace("more", "less"), body)
    assert not notes.same_text("a\n  b", "a\nb")  # indentation is content
    assert not notes.same_text(body.replace(MARKER, ""), body)


def test_same_text_compares_the_index_facts_up_to_a_hosts_whitespace_and_not_the_with_rocm_lines():
    """The index facts are what publish wrote with the text (they stay with it); the with-rocm
    lines are validate's, kept with the draft like the smoke section."""
    body = notes.write(Notes(text="t", ours=True, index_facts="| a.whl | 1 |\n| b.whl | 2 |"))
    assert notes.same_text(body.replace("\n", "\r\n").replace("1 |", "1 |  "), body)
    assert not notes.same_text(body.replace("2 |", "3 |"), body)
    assert not notes.same_text(notes.write(Notes(text="t", ours=True)), body)
    assert notes.same_text(notes.write(dataclasses.replace(notes.read(body), with_rocm="cell: passed")), body)


@pytest.mark.parametrize("record", [{"ours": True}, {"smoke": "s"}, {"validated": "a" * 64}, {"pypi": "p"},
                                    {"validated_with": "v"}, {"with_rocm": "w"}, {"index_facts": "f"}])
def test_any_one_record_after_the_text_takes_the_texts_trailing_newlines(record):
    made = Notes(text="x\n\r\n", **record)
    assert made.text == "x" and notes.read(notes.write(made)) == made
    assert Notes(text="x\n", yanked="r").text == "x\n"  # the yank goes on top: the text stays whole


@pytest.mark.parametrize(("fields", "said"), [
    ({"validated": "zz"}, "validated mark 'zz': expected 64 lowercase hex digits"),
    ({"yanked": "a\tb"}, "yank reason 'a\\tb': expected one line without control characters or '--'"),
    ({"smoke": "x <!-- pypi -->"}, "'x <!-- pypi -->' in the smoke: it would read as one of this tool's records"),
])
def test_a_record_that_cannot_be_written_says_which_field_and_why(fields, said):
    with pytest.raises(NotesError) as caught:
        Notes(**fields)
    assert str(caught.value) == said


_STRAY_TAIL = ("looks like one of this tool's records but is not one it wrote (a hand edit or an unclosed "
               "section); remove it or restore the record")


@pytest.mark.parametrize(("body", "shown"), [
    # two lines before and after: the one line holding it, stripped
    ("first\nsecond\n  see <!-- smoke for this  \nfourth\nfifth", "see <!-- smoke for this"),
    ("\n<!--pypi here\nlast", "<!--pypi here"),
    ("first\nsecond\nlast <!-- /smoke", "last <!-- /smoke"),  # no newline after it
    ("a\nb\n<!-- validated: " + "v" * 90 + "\nc\nd", ("<!-- validated: " + "v" * 90)[:70]),  # 70 at most
])
def test_a_refusal_shows_the_one_line_holding_the_look_alike(body, shown):
    with pytest.raises(NotesError) as caught:
        notes.read(body)  # and the notes are named as "the release notes" when no name is given
    assert str(caught.value) == f"the release notes: {shown!r} {_STRAY_TAIL}"


@pytest.mark.parametrize(("tag", "kind"), [("smoke", "smoke section"), ("pypi", "PyPI section"),
                                         ("validated-with", "validated-with section"),
                                         ("with-rocm", "with-rocm section"), ("index-facts", "wheel facts section")])
def test_a_refusal_names_the_section_holding_a_record_and_the_line_it_is_on(tag, kind):
    body = f"<!-- {tag} -->\nline one\n  see <!-- validated: sha256=abc -->  \nlast\n<!-- /{tag} -->\n"
    with pytest.raises(NotesError) as caught:
        notes.read(body, "v's notes")
    assert str(caught.value) == (f"v's notes: the {kind} holds 'see <!-- validated: sha256=abc -->'; "
                                 "expected no record inside another")


def test_records_that_disagree_are_each_shown_by_their_first_40_characters():
    body = f"<!-- validated: sha256={'b' * 64} -->\ntext\n<!-- validated: sha256={'a' * 64} -->\n"
    with pytest.raises(NotesError) as caught:
        notes.read(body)
    assert str(caught.value) == (f"the release notes: 2 validated marks that disagree ({'a' * 40!r}, "
                                 f"{'b' * 40!r}); keep one")


@pytest.mark.parametrize(("stored", "wanted", "where", "said"), [
    ("<!-- smoke -->\nnever closed", "x", None, "the release notes: "),
    ("<!-- smoke -->\nnever closed", "x", "rocm-jax-v0.9.1's notes", "rocm-jax-v0.9.1's notes: "),
    ("x", "<!-- smoke -->\nnever closed", "rocm-jax-v0.9.1's notes", "the notes written: "),
])
def test_comparing_notes_that_cannot_be_read_names_which_ones(stored, wanted, where, said):
    with pytest.raises(NotesError) as caught:
        notes.same_text(stored, wanted) if where is None else notes.same_text(stored, wanted, where)
    assert str(caught.value).startswith(said + "'<!-- smoke -->' looks like one of this tool's records")


@pytest.mark.parametrize(("fields", "said"), [
    ({"text": "first\nsecond\n  x <!-- pypi  \nlast"}, "'x <!-- pypi' in the text: it would read as one "
                                                       "of this tool's records"),
    ({"validated": "z" * 90}, f"validated mark {'z' * 70!r}: expected 64 lowercase hex digits"),
    ({"yanked": "r" * 90 + "--"},
     f"yank reason {'r' * 70!r}: expected one line without control characters or '--'"),
    ({"yanked": "bad\x7f"}, "yank reason 'bad\\x7f': expected one line without control characters or '--'"),
    ({"yanked": "bad\x01end"}, "yank reason 'bad\\x01end': expected one line without control characters or '--'"),
])
def test_a_record_that_cannot_be_written_is_shown_as_at_most_70_characters(fields, said):
    with pytest.raises(NotesError) as caught:
        Notes(**fields)
    assert str(caught.value) == said


def test_a_yank_reason_of_words_and_a_text_ending_in_letters_are_kept_as_they_are():
    assert Notes(yanked="segfaults on gfx90a, use 0.9.2").yanked == "segfaults on gfx90a, use 0.9.2"
    assert Notes(text="fixes X", ours=True).text == "fixes X"  # only line ends go before a record
    assert Notes(text="ends in rn\r\n", validated="a" * 64).text == "ends in rn"


@dataclasses.dataclass(frozen=True)
class _Release:
    tag: str
    body: str


def test_a_releases_record_is_read_naming_its_tag_and_changed_field_by_field():
    release = _Release("rocm-jax-v0.9.1", "## notes\n" + MARKER + "\n")
    assert notes.of(release) == Notes(text="## notes", ours=True)
    assert notes.changed(release, validated="a" * 64, yanked="r") == notes.write(
        Notes(text="## notes", ours=True, validated="a" * 64, yanked="r"))
    assert notes.changed(release) == notes.write(Notes(text="## notes", ours=True))
    with pytest.raises(NotesError, match=r"^rocm-jax-v0\.9\.1's notes: '<!-- smoke -->' looks like"):
        notes.of(_Release("rocm-jax-v0.9.1", "<!-- smoke -->\nnever closed"))


@pytest.mark.parametrize(("body", "ours"), [
    (None, False), ("", False), (MARKER, True), ("text\n" + MARKER + "\nmore", True),
    ("<!-- jax-rocm-release  draft -->", False), ("<!-- jax-rocm-release yanked: r -->", False),
])
def test_only_notes_carrying_the_draft_mark_are_ours(body, ours):
    assert notes.is_ours(body) is ours


_SECTION_PIECES = ["\n", "\r\n", "\r", "x", " ", "<!-- smoke -->", "<!-- /smoke -->", "<!-- pypi -->", "<!-- /pypi -->",
                   "<!-- index-facts -->", "<!-- /index-facts -->", "<!-- index-facts --", "<!-- /index-facts-->",
                   "<!-- validated-with -->", "<!-- /validated-with -->", "<!-- with-rocm -->", "<!-- /with-rocm -->"]



@settings(max_examples=300)  # cheap: a few microseconds an example
@example("<!-- smoke -->\r\nok\r\n<!-- /smoke -->\r\nrest", "smoke section")
@example("<!-- /smoke --><!-- smoke -->\nx<!-- /smoke -->\n", "smoke section")  # a closing before
@example("<!-- pypi -->\nA<!-- /pypi -->\n<!-- pypi -->\nA\n<!-- /pypi -->", "PyPI section")  # two, in order
@example("<!-- pypi -->\rx\n<!-- pypi -->\n1<!-- /pypi -->\n<!-- /pypi -->", "PyPI section")
@given(st.lists(st.sampled_from(_SECTION_PIECES), max_size=16).map("".join),
       st.sampled_from(sorted(notes._SECTIONS)))
def test_a_section_is_found_where_its_pattern_matches(text, kind):
    """Sections are found without their regular expression (``str.find``): the same matches,
    spans and values as ``finditer`` of the pattern, for any order of openings, closings and
    line ends, unclosed and nested ones included; each opening searched for once, and its
    closing once (the notes are read once, front to back)."""
    expected = [(m.start(), m.end(), m.group("value")) for m in notes._READ[kind].finditer(text)]
    assert notes._sections(text, *notes._SECTIONS[kind]) == expected  # searched once each (the fixture)
    assert notes._SECTIONS[kind][0] == notes._OPENS[kind]


_MARK_PIECES = ["\n", "\r\n", "\r", "x", " ", "<!-- ", notes.MARKER, "<!-- jax-rocm-release yanked: ", "r -->", " -->",
                "**Yanked** (PEP 592): r", "<!-- validated: sha256=", "a" * 64, "A" * 64, "a" * 63]


@settings(max_examples=300)  # cheap: a few microseconds an example
@example("x\n<!-- jax-rocm-release yanked: r -->\n<!-- jax-rocm-release yanked: r -->", "yank")  # ^ after a match
@example("x<!-- jax-rocm-release yanked: r -->\n<!-- jax-rocm-release yanked: q -->", "yank")  # not at a line start
@example("<!-- validated: sha256=<!-- validated: sha256=" + "a" * 64 + " -->", "validated mark")
@example(notes.MARKER + notes.MARKER + "\r\n" + notes.MARKER, "draft mark")
@given(st.lists(st.sampled_from(_MARK_PIECES), max_size=14).map("".join),
       st.sampled_from([kind for kind in notes._READ if kind not in notes._SECTIONS]))
def test_a_mark_is_found_where_its_pattern_matches(text, kind):
    """The yank, the validated mark and the draft mark are tried only where their opening text is
    (``str.find``): the same matches, spans and values as ``finditer`` of the pattern, a yank at
    a line start or not, marks back to back, openings without their mark."""
    expected = [(m.start(), m.end(), m.group("value")) for m in notes._READ[kind].finditer(text)]
    assert notes._marks(text, notes._READ[kind], notes._OPENS[kind]) == expected
