"""SHA256SUMS as the tool writes and reads it, checked against coreutils' own ``sha256sum``."""

from __future__ import annotations

import hashlib
import shutil
import subprocess

import pytest

from release.core import checksums
from release.core.errors import UserError

needs_sha256sum = pytest.mark.skipif(shutil.which("sha256sum") is None, reason="no sha256sum")


def files(tmp_path) -> dict[str, bytes]:
    made = {"b.whl": b"wheel bytes\n" * 1000, "a b.json": b"{}", "empty": b"",
            "big.bin": bytes(range(256)) * 9000}  # > 1 MiB: more than one read block
    for name, data in made.items():
        (tmp_path / name).write_bytes(data)
    return made


def test_sha256_file_matches_hashlib_across_block_boundaries(tmp_path):
    for name, data in files(tmp_path).items():
        assert checksums.sha256_file(tmp_path / name) == hashlib.sha256(data).hexdigest()


@needs_sha256sum
def test_written_file_passes_sha256sum_check(tmp_path):
    names = sorted(files(tmp_path))
    path = checksums.write_for(tmp_path, names)
    assert path == tmp_path / "SHA256SUMS"
    lines = path.read_text().splitlines()
    assert [line.split("  ", 1)[1] for line in lines] == sorted(names)  # sorted by name
    proc = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (tmp_path / "b.whl").write_bytes(b"tampered")
    assert subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=tmp_path,
                          capture_output=True).returncode == 1


@needs_sha256sum
@pytest.mark.parametrize("mode", ["-t", "-b"])
def test_parse_reads_what_sha256sum_writes(tmp_path, mode):
    made = files(tmp_path)
    out = subprocess.run(["sha256sum", mode, *sorted(made)], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout
    assert checksums.parse(out, "SHA256SUMS") == {
        name: hashlib.sha256(data).hexdigest() for name, data in made.items()}


def test_parse_round_trips_render_and_normalises_case():
    rows = {"x.whl": "ab" * 32, "y z": "0f" * 32}
    assert checksums.parse(checksums.render(rows), "here") == rows
    upper = checksums.render({"x.whl": "AB" * 32})
    assert checksums.parse("\n" + upper + "\n  \n", "here") == {"x.whl": "ab" * 32}


@pytest.mark.parametrize("line", ["ab" * 32 + " x.whl", "ab" * 31 + "  x.whl", "ab" * 32 + "  ",
                                  "zz" * 32 + "  x.whl", "x.whl  " + "ab" * 32])
def test_a_malformed_line_is_one_clear_error(line):
    text = checksums.render({"ok": "cd" * 32}) + line + "\n"
    with pytest.raises(UserError) as err:
        checksums.parse(text, "dist/SHA256SUMS")
    message = str(err.value)
    assert message.startswith("dist/SHA256SUMS: line 2 is ") and repr(line) in message
    assert "expected '<sha256>  <file name>'" in message and "\n" not in message


def test_hashing_a_file_larger_than_the_memory_it_may_use_streams_it(tmp_path):
    """The 500 MB pjrt object is hashed in blocks, never read whole: hashing a 600 MiB (sparse)
    file in a process limited to 384 MiB of address space works and gives hashlib's answer."""
    import sys
    from pathlib import Path
    big = tmp_path / "big.so"
    with open(big, "wb") as fh:
        fh.truncate(600 << 20)
    probe = ("import resource, sys\n"
             "resource.setrlimit(resource.RLIMIT_AS, (384 << 20, 384 << 20))\n"
             "from release.core.checksums import sha256_file\n"
             "print(sha256_file(sys.argv[1]))\n")
    proc = subprocess.run([sys.executable, "-c", probe, str(big)], capture_output=True, text=True,
                          cwd=Path(checksums.__file__).parents[2], timeout=120)
    assert proc.returncode == 0, proc.stderr[-500:]
    zeros = hashlib.sha256()
    block = bytes(1 << 20)
    for _ in range(600):
        zeros.update(block)
    assert proc.stdout.strip() == zeros.hexdigest()
