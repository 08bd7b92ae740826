"""A listed wheel's Requires-Python (``release.core.core_metadata.requires_python``) is what the
email parser reads from its METADATA, however the header section is laid out: generated texts of
fields, continuation lines, "From " lines, nameless fields, a body with or without a blank line
before it, and each line ending, against ``email.parser.HeaderParser``."""

from __future__ import annotations

from email.parser import HeaderParser

from hypothesis import example, given
from hypothesis import strategies as st

from release.core.core_metadata import requires_python

LINES = st.sampled_from([
    "Requires-Python: >=3.11", "requires-python:>=3.10,<4", "REQUIRES-PYTHON:   ", "Requires-Python:",
    "Requires-Python : >=3.9", "Requires-Pythonic: >=3.8", "Name: jax-rocm7-plugin", "Summary: ü ROCm",
    "  continued", "\tand more", " ", "From someone", ":no name", "no colon here", "", "X-Requires-Python: 2",
    "Description: see\n\nRequires-Python: >=2.7", "Requires-Python: XX", "Requires-Python:X\t",
])


def oracle(text: str) -> str | None:
    found = HeaderParser().parsestr(text).get("Requires-Python")
    return found.strip() if found else None


@given(lines=st.lists(LINES, max_size=8), ending=st.sampled_from(["\n", "\r\n", "\r"]), last=st.booleans())
@example(lines=["Name: a", "Requires-Python: >=3.11", "  ,<4"], ending="\n", last=True)
@example(lines=["Name: a", "", "Requires-Python: >=3.11"], ending="\n", last=True)  # in the description
@example(lines=["Name: a", "no colon here", "Requires-Python: >=3.11"], ending="\n", last=True)
@example(lines=["Requires-Python:", " ", "\tx"], ending="\n", last=False)
@example(lines=["Requires-Python: >=3.11", "\tand more", "Name: a"], ending="\n", last=True)
@example(lines=["requires-python: >=3.10", "Requires-Python: >=3.12"], ending="\n", last=True)  # the first
@example(lines=["", "Requires-Python: >=3.11"], ending="\n", last=True)  # a blank first line ends the header
@example(lines=["Requires-Python: XX"], ending="\n", last=True)  # a value of the letters a strip could take
@example(lines=["Requires-Python:", " "], ending="\n", last=True)  # a blank continuation: "" and not None
def test_requires_python_is_what_the_email_parser_reads(lines, ending, last):
    text = ending.join(lines) + (ending if last else "")
    assert requires_python(text.encode()) == oracle(text)


def test_requires_python_of_a_metadata_file_with_a_long_description():
    body = "".join(f"Line {i}: of the README\n" for i in range(2000))
    text = f"Metadata-Version: 2.1\nName: jaxlib\nVersion: 0.10.0\nRequires-Python: >=3.11\n\n{body}"
    assert requires_python(text.encode()) == ">=3.11" == oracle(text)
    assert requires_python(b"Metadata-Version: 2.1\nName: x\n\nRequires-Python: >=3.11\n") is None
    assert requires_python(b"\xff\xfeRequires-Python: >=3.11\n") is None  # not UTF-8: no field at line one
