"""The PyPI step's pure rules over generated inputs: what an index page says it holds, where
uploads go and with which credentials (twine's order), the notes section, sizes."""

from __future__ import annotations

import dataclasses
import html
import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release.core.errors import UserError
from release.publish import notes, pypi, pypi_budget
from release.publish.pypi_index import derive_index_url, find_repository, parse_simple_page

SETTINGS = settings(max_examples=60, derandomize=True, deadline=None)

hexes = st.text("0123456789abcdef", min_size=64, max_size=64)
versions = st.from_regex(r"0\.(?:[0-9]|1[0-9])\.[0-9](?:\.post[1-9])?", fullmatch=True)
wheel_names = st.builds(
    lambda project, version, py: f"{project}-{version}-{py}-{'none' if py == 'py3' else py}-manylinux_2_27_x86_64.whl",
    st.sampled_from(["jax_rocm7_pjrt", "jax_rocm7_plugin", "jax_rocm6_plugin"]), versions,
    st.sampled_from(["py3", "cp311", "cp312", "cp313", "cp314"]))
listings = st.dictionaries(wheel_names, st.one_of(st.none(), hexes), max_size=8)


def html_page(files: dict, quote: str, extra: str, upper: bool) -> str:
    rows = []
    for name, digest in files.items():
        href = f"../../packages/{html.escape(name)}" + (f"#sha256={digest.upper() if upper else digest}"
                                                         if digest else "")
        rows.append(f"<a {extra}href={quote}{href}{quote}{' ' + extra if extra else ''}>{html.escape(name)}</a><br/>")
    return "<!DOCTYPE html><html><body><h1>Links</h1>\n" + "\n".join(rows) + "\n</body></html>"


@SETTINGS
@given(listings, st.sampled_from(['"', "'"]), st.sampled_from(["", 'data-requires-python="&gt;=3.11" ',
                                                              'data-dist-info-metadata="sha256=00" ']),
       st.booleans())
def test_an_html_page_reads_as_the_files_and_hashes_it_lists(files, quote, extra, upper):
    assert parse_simple_page("text/html", html_page(files, quote, extra, upper)) == files


@SETTINGS
@given(listings, st.booleans())
def test_a_json_page_reads_as_the_files_and_hashes_it_lists(files, other_hashes):
    page = {"meta": {"api-version": "1.1"}, "name": "x", "files": [
        {"filename": name, "url": f"https://files/{name}",
         "hashes": ({"sha256": digest} if digest else {}) | ({"blake2b_256": "ab"} if other_hashes else {})}
        for name, digest in files.items()]}
    assert parse_simple_page("application/vnd.pypi.simple.v1+json", json.dumps(page)) == files


def test_a_page_that_is_not_an_index_answer_raises():
    with pytest.raises((ValueError, KeyError)):
        parse_simple_page("application/vnd.pypi.simple.v1+json", "{}")


@pytest.mark.parametrize("upload, index", [
    ("https://upload.example.org/legacy/", "https://example.org/simple/"),
    ("https://upload.test.example.org/legacy/", "https://test.example.org/simple/"),
    ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/simple/"),
    ("https://host/root/pypi/legacy/", "https://host/root/pypi/simple/"),
    ("https://user:pw@upload.example.org/legacy/", "https://user:pw@example.org/simple/"),
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080/simple/"),
])
def test_the_simple_api_beside_an_upload_url(upload, index):
    assert derive_index_url(upload) == index


# ---------------------------------------------------------------- twine's conventions


def pypirc(tmp_path, sections: dict) -> object:
    path = tmp_path / ".pypirc"
    path.write_text("".join(f"[{name}]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items()) + "\n"
                            for name, keys in sections.items()))
    return path


def test_the_url_flag_wins_then_the_environment_then_pypirc(tmp_path):
    rc = pypirc(tmp_path, {"pypi": {"repository": "https://rc/legacy/", "password": "rc-password"},
                           "other": {"repository": "https://other/legacy/", "username": "me",
                                     "password": "other-password"}})
    env = {"HOME": str(tmp_path)}
    no_keyring = lambda url, user: None  # noqa: E731
    assert find_repository(env=env, keyring_lookup=no_keyring).upload_url == "https://rc/legacy/"
    assert find_repository(env=env, keyring_lookup=no_keyring).password == "rc-password"
    other = find_repository(env={**env, "TWINE_REPOSITORY": "other"}, keyring_lookup=no_keyring)
    assert (other.upload_url, other.username, other.password) == ("https://other/legacy/", "me", "other-password")
    env_wins = find_repository(env={**env, "TWINE_REPOSITORY": "other", "TWINE_PASSWORD": "p-env",
                                    "TWINE_USERNAME": "u-env"}, keyring_lookup=no_keyring)
    assert (env_wins.username, env_wins.password, env_wins.source) == ("u-env", "p-env", "$TWINE_PASSWORD")
    by_env = find_repository(env={**env, "TWINE_REPOSITORY_URL": "https://env/legacy/"}, keyring_lookup=no_keyring)
    assert by_env.upload_url == "https://env/legacy/" and by_env.password is None  # as twine: no rc creds
    flag = find_repository(url="https://flag/legacy/", config_file=rc,
                           env={**env, "TWINE_REPOSITORY_URL": "https://env/legacy/", "TWINE_PASSWORD": "p-env"},
                           keyring_lookup=no_keyring)
    assert (flag.upload_url, flag.password, flag.source) == ("https://flag/legacy/", "p-env", "$TWINE_PASSWORD")


def test_the_index_asked_is_the_upload_urls_unless_named_and_a_bad_url_names_where_it_came_from(tmp_path):
    env = {"HOME": str(tmp_path), "TWINE_REPOSITORY_URL": "http://127.0.0.1:8080/"}
    no_keyring = lambda url, user: None  # noqa: E731
    assert find_repository(env=env, keyring_lookup=no_keyring).index_url == "http://127.0.0.1:8080/simple/"
    assert find_repository(env=env, index_url="https://mirror/simple/",
                           keyring_lookup=no_keyring).index_url == "https://mirror/simple/"
    with pytest.raises(UserError, match=r"^\$TWINE_REPOSITORY_URL 'ftp://x/'"):
        find_repository(env={**env, "TWINE_REPOSITORY_URL": "ftp://x/"}, keyring_lookup=no_keyring)
    with pytest.raises(UserError, match="^--repository-url 'file:///x'"):
        find_repository(url="file:///x", env=env, keyring_lookup=no_keyring)


def test_keyring_is_asked_only_when_no_password_is_set(tmp_path):
    asked = []

    def keyring(url, user):
        asked.append((url, user))
        return "from-keyring"
    env = {"HOME": str(tmp_path), "TWINE_REPOSITORY_URL": "https://env/legacy/"}
    repo = find_repository(env=env, keyring_lookup=keyring)
    assert (repo.password, repo.source, asked) == ("from-keyring", "keyring", [("https://env/legacy/", "__token__")])
    asked.clear()
    assert find_repository(env={**env, "TWINE_PASSWORD": "p"}, keyring_lookup=keyring).password == "p"
    assert asked == []


@pytest.mark.parametrize("text, problem", [
    ("", "no package index"), ("[pypi]\nusername = x\n", "no repository = URL"),
    ("[pypi]\nrepository = ftp://host/\n", "expected an http"), ("[pypi\n", "not a readable .pypirc"),
])
def test_a_pypirc_that_names_no_usable_index_is_one_line(tmp_path, text, problem):
    (tmp_path / ".pypirc").write_text(text)
    with pytest.raises(UserError, match=problem):
        find_repository(env={"HOME": str(tmp_path)}, keyring_lookup=lambda url, user: None)


# ---------------------------------------------------------------- notes and sizes


bodies = st.text(string.printable, max_size=200).filter(lambda t: "<!--" not in t)
states = st.builds(lambda rows, complete: {"index": "https://example.org/simple/", "complete": complete,
                                           "files": [{"name": n, "sha256": h, "listed": li} for n, h, li in rows]},
                   st.lists(st.tuples(wheel_names, hexes, st.booleans()), min_size=1, max_size=4), st.booleans())


@SETTINGS
@given(bodies, hexes, states, states)
def test_the_notes_hold_one_pypi_section_the_latest_and_keep_the_rest(body, mark, first, second):
    def with_pypi(text: str, section: str) -> str:
        return notes.write(dataclasses.replace(notes.read(text), pypi=section))
    marked = notes.write(notes.Notes(text=body, validated=mark))
    once = with_pypi(marked, pypi.notes_section(first))
    twice = with_pypi(once, pypi.notes_section(second))
    assert twice == with_pypi(marked, pypi.notes_section(second))
    assert with_pypi(twice, pypi.notes_section(second)) == twice
    assert twice.count("<!-- pypi -->") == 1 and notes.read(twice).validated == mark
    assert body.strip() in twice


@given(st.lists(st.tuples(st.sampled_from(["Summary", "Requires-Dist", "Classifier", "Author"]),
                         st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)
                         .map(str.strip).filter(bool)), max_size=6),
       st.text(st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_the_upload_sends_core_metadata_as_the_utf8_text_it_is(fields, body):
    """What twine sends: every field in order, lower case with '_', the long description from
    the body; non-ASCII (an author's name, a summary) as itself, never replaced."""
    from release.publish.pypi_index import metadata_fields

    text = "Metadata-Version: 2.1\nName: jax-rocm7-pjrt\n" + "".join(f"{k}: {v}\n" for k, v in fields)
    sent = metadata_fields((text + "\n" + body).encode("utf-8"))
    expected = [("metadata_version", "2.1"), ("name", "jax-rocm7-pjrt")]
    expected += [(k.lower().replace("-", "_"), v) for k, v in fields]
    assert sent == expected + ([("description", body)] if body.strip() else [])


@SETTINGS
@given(st.integers(1, 10**6), st.sampled_from(list(pypi_budget._UNITS)))
def test_a_size_is_its_number_times_its_unit(number, unit):
    assert pypi.parse_size(f"{number}{unit}") == number * pypi_budget._UNITS[unit.lower()]
    assert pypi.parse_size(f"{number} {unit.upper()}") == number * pypi_budget._UNITS[unit.lower()]


@pytest.mark.parametrize("text", ["0", "-1MiB", "1.5GiB", "MiB", "10 TB", "1e9", ""])
def test_a_size_that_is_not_one_is_refused(text):
    with pytest.raises(UserError, match="expected a size"):
        pypi.parse_size(text)


# ---------------------------------------------------------------- PEP 740 statements


def set_level(wheels: dict[str, str]) -> dict:
    """A set-level provenance statement as the build writes it, over ``wheels``."""
    from release.build import provenance
    from release.core.config import load_deps
    from release.core.revisions import RevisionMap
    from tests.support.publish_dist import REPO_ROOT
    revisions = RevisionMap.from_deps(load_deps(REPO_ROOT / "deps.yaml"), "0.9.1", "1" * 40)
    return provenance.statement(version="0.9.1", wheels=wheels, revisions=revisions, pythons=["3.12"],
                                invocation=provenance.Invocation.from_env({}, host="h"))


wheel_sets = st.dictionaries(wheel_names, hexes, min_size=1, max_size=5)


def attestation_of(stmt: dict) -> dict:
    import base64
    return {"version": 1, "verification_material": {"certificate": base64.b64encode(b"c").decode(),
                                                    "transparency_entries": [{}]},
            "envelope": {"statement": base64.b64encode(json.dumps(stmt).encode()).decode(),
                         "signature": base64.b64encode(b"s").decode()}}


@SETTINGS
@given(wheel_sets, st.data())
def test_each_wheel_statement_has_one_subject_and_the_set_levels_slsa_fields(wheels, data):
    from release.publish import attestations
    prov = set_level(wheels)
    name = data.draw(st.sampled_from(sorted(wheels)))
    stmt = attestations.wheel_statement(prov, name, wheels[name])
    assert stmt["subject"] == [{"name": name, "digest": {"sha256": wheels[name]}}]
    assert stmt["predicate"]["buildDefinition"] == prov["predicate"]["buildDefinition"]
    assert stmt["predicate"]["runDetails"]["builder"] == prov["predicate"]["runDetails"]["builder"]
    assert stmt["predicate"]["runDetails"]["metadata"] == {
        "invocationId": prov["predicate"]["runDetails"]["metadata"]["invocationId"]}
    assert attestations.check_attestation(attestation_of(stmt), "a", name=name, sha256=wheels[name],
                                          provenance=prov)
    with pytest.raises(UserError, match="does not cover"):
        attestations.wheel_statement(prov, name, "f" * 64 if wheels[name] != "f" * 64 else "e" * 64)


@SETTINGS
@given(wheel_sets, st.data(), st.sampled_from([
    "subject name", "subject digest", "second subject", "no subject", "predicate type", "pins",
    "statement type", "version", "certificate", "signature", "entries", "not json"]))
def test_an_attestation_that_does_not_name_exactly_this_wheel_and_these_pins_is_refused(wheels, data, broken):
    import base64

    from release.publish import attestations
    prov = set_level(wheels)
    name = data.draw(st.sampled_from(sorted(wheels)))
    stmt = attestations.wheel_statement(prov, name, wheels[name])
    if broken == "subject name":
        stmt["subject"][0]["name"] = name + ".other"
    elif broken == "subject digest":
        stmt["subject"][0]["digest"]["sha256"] = "0" * 64 if wheels[name] != "0" * 64 else "1" * 64
    elif broken == "second subject":
        stmt["subject"].append({"name": "x.whl", "digest": {"sha256": "2" * 64}})
    elif broken == "no subject":
        stmt["subject"] = []
    elif broken == "predicate type":
        stmt["predicateType"] = "https://example.org/other/v1"
    elif broken == "pins":
        stmt["predicate"]["buildDefinition"]["resolvedDependencies"][0]["digest"]["gitCommit"] = "3" * 40
    elif broken == "statement type":
        stmt["_type"] = "https://in-toto.io/Statement/v0.1"
    obj = attestation_of(stmt)
    if broken == "version":
        obj["version"] = 2
    elif broken == "certificate":
        obj["verification_material"]["certificate"] = "not base64!"
    elif broken == "signature":
        del obj["envelope"]["signature"]
    elif broken == "entries":
        obj["verification_material"]["transparency_entries"] = []
    elif broken == "not json":
        obj["envelope"]["statement"] = base64.b64encode(b"{not json").decode()
    with pytest.raises(UserError):
        attestations.check_attestation(obj, "a", name=name, sha256=wheels[name], provenance=prov)


def test_the_signing_predicate_is_what_sigstore_attest_accepts():
    from sigstore.dsse._predicate import SLSAPredicateV1_0

    from release.publish import attestations
    prov = set_level({"jax_rocm7_pjrt-0.9.1-py3-none-manylinux_2_27_x86_64.whl": "a" * 64})
    SLSAPredicateV1_0.model_validate(attestations.signing_predicate(prov))
    with pytest.raises(ValueError):  # the set-level one, with its extension field, is refused
        SLSAPredicateV1_0.model_validate(prov["predicate"])


class _AskedSession:
    """A requests session that records the URL asked and answers 404 (a project the index lacks)."""

    def __init__(self):
        self.asked: list[str] = []

    def get(self, url, **_):
        import requests
        self.asked.append(url)
        answer = requests.Response()
        answer.status_code, answer.url = 404, url
        return answer


@SETTINGS
@given(st.lists(st.sampled_from(["-", "_", ".", "--", "_."]), min_size=2, max_size=2),
       st.sampled_from(["", "/", "//"]), st.booleans())
def test_every_project_page_is_asked_at_its_pep503_normalized_name(separators, slash, upper):
    """hashes (index_files), sizes (the PyPI budget) and the validated set's files all read a
    project's page at ``<index>/<normalized name>/``, however the name is written."""
    from release.publish.pypi_index import index_files
    name = f"jax{separators[0]}rocm7{separators[1]}plugin"
    name = name.upper() if upper else name
    index = "http://127.0.0.1:9/simple" + slash
    session = _AskedSession()
    assert index_files(index, name, session=session) == {}
    assert pypi_budget.project_files(index, name, session=session) == {}
    assert session.asked == ["http://127.0.0.1:9/simple/jax-rocm7-plugin/"] * 2
