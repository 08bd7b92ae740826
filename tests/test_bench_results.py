"""The benchmarks write their measurements into ``benchmarks/RESULTS.md`` themselves
(``benchmarks/_results.py``): one dated section per benchmark, with the machine's load and what
it printed, replaced by its next run; everything else in the file is kept; ``--no-record`` and a
failed run leave the file alone. Run here against a copy in a temp directory, never the real file."""

from __future__ import annotations

import datetime as dt
import re
import sys

import pytest

from benchmarks import _results

HAND = "# Benchmark results\n\nDated measurements.\n\n## bump: `benchmarks/bench_bump.py`\n\nMeasured by hand.\n"


def sections(text: str) -> list[str]:
    return re.findall(r"^### `([^`]+)`", text, re.M)


def test_a_run_adds_its_section_and_keeps_what_was_there(tmp_path):
    path = tmp_path / "RESULTS.md"
    path.write_text(HAND)
    _results.write("bench_verify", "verify 1.20s\nanchor 1.00s\n", path=path, day=dt.date(2026, 11, 28),
                   load_said="load 3.5 on 2 cores", argv=["--runs", "3"])
    text = path.read_text()
    assert text.startswith(HAND.rstrip("\n"))
    assert text.index("## Latest runs") > text.index("Measured by hand.")
    assert "### `bench_verify`: 2026-11-28, load 3.5 on 2 cores" in text
    assert "`python benchmarks/bench_verify.py --runs 3`" in text
    assert "```text\nverify 1.20s\nanchor 1.00s\n```" in text


def test_a_second_run_replaces_only_its_own_section(tmp_path):
    path = tmp_path / "RESULTS.md"
    path.write_text(HAND)
    for name, out in (("bench_pack", "pack old"), ("bench_index", "index old"), ("bench_pack", "pack new")):
        _results.write(name, out, path=path, day=dt.date(2026, 11, 28), load_said="load 1.0 on 2 cores")
    text = path.read_text()
    assert sections(text) == ["bench_pack", "bench_index"]  # in the order first recorded
    assert "pack new" in text and "pack old" not in text and "index old" in text
    assert text.count("## Latest runs") == 1 and "Measured by hand." in text


def test_a_goal_not_met_is_recorded_with_its_status(tmp_path, monkeypatch, capsys):
    path = tmp_path / "RESULTS.md"
    monkeypatch.setattr(sys, "argv", ["benchmarks/bench_demo.py"])
    assert _results.record_run(_bench("switch bump <= 1/10: NOT met", 1), path=path) == 1
    text = path.read_text()
    assert re.search(r"^### `bench_demo`: \d{4}-\d\d-\d\d, .*, exit 1$", text, re.M)
    assert "NOT met" in text


def test_output_holding_a_fence_stays_inside_its_block(tmp_path):
    path = tmp_path / "RESULTS.md"
    _results.write("bench_x", "a\n```\nb", path=path, day=dt.date(2026, 1, 2), load_said="load 0.1 on 1 cores")
    assert "````text\na\n```\nb\n````" in path.read_text()


def _bench(printed: str, status: int | None):
    def main():
        print(printed)
        print("argv", sys.argv[1:])
        return status
    return main


def test_record_run_records_what_the_benchmark_printed(tmp_path, monkeypatch, capsys):
    path = tmp_path / "RESULTS.md"
    path.write_text(HAND)
    monkeypatch.setattr(sys, "argv", ["benchmarks/bench_demo.py", "--runs", "2"])
    assert _results.record_run(_bench("ratio 0.5x", None), path=path) == 0
    shown = capsys.readouterr().out
    assert "ratio 0.5x" in shown  # as it came, on the terminal too
    text = path.read_text()
    assert "### `bench_demo`: " in text and "ratio 0.5x\nargv ['--runs', '2']" in text
    assert re.search(r"load (\d+\.\d|not known)", text)


@pytest.mark.parametrize("argv,status", [(["--no-record"], 0), (["--runs", "2", "--no-record"], 1), ([], None)])
def test_no_record_or_a_crash_leaves_the_file_alone(tmp_path, monkeypatch, capsys, argv, status):
    path = tmp_path / "RESULTS.md"
    path.write_text(HAND)
    monkeypatch.setattr(sys, "argv", ["benchmarks/bench_demo.py", *argv])
    if status is None:  # the benchmark crashed: nothing measured
        def crash():
            print("half a table")
            raise RuntimeError("boom")
        with pytest.raises(RuntimeError):
            _results.record_run(crash, path=path)
        assert not isinstance(sys.stdout, _results._Tee) and "half a table" in capsys.readouterr().out
    else:
        assert _results.record_run(_bench("x", status), path=path) == status
    assert path.read_text() == HAND
    assert "--no-record" not in capsys.readouterr().out  # the benchmark's parser never sees it
    assert not list(tmp_path.glob("*.partial"))


def test_every_benchmark_records_its_run():
    """Each ``benchmarks/bench_*.py`` and ``season.py`` ends by handing its main to record_run."""
    from pathlib import Path
    for path in sorted(Path(_results.__file__).parent.glob("*.py")):
        if path.name.startswith("_"):
            continue
        text = path.read_text()
        assert "record_run(main" in text, f"{path.name} does not record its run (benchmarks/_results.py)"


def test_no_absolute_path_of_the_measuring_machine_reaches_the_file(tmp_path):
    path = tmp_path / "RESULTS.md"
    _results.write("bench_x", "ok\n", path=path, day=dt.date(2026, 11, 28), load_said="load 1.0 on 2 cores",
                   argv=["--cold", "/srv/mirrors/jax.git", "--tmp=/dev/shm/x", "main", "rel/ative"])
    text = path.read_text()
    assert "`python benchmarks/bench_x.py --cold PATH --tmp=PATH main rel/ative`" in text
    assert "/srv" not in text and "/dev/shm" not in text


def test_a_mode_recorded_apart_keeps_its_own_section_and_names_its_script(tmp_path, monkeypatch, capsys):
    """bench_bump on generated and on real histories: two sections, neither replacing the
    other, each showing the command that ran."""
    path = tmp_path / "RESULTS.md"
    path.write_text(HAND)
    monkeypatch.setattr(sys, "argv", ["benchmarks/bench_bump.py", "--real", "/a", "/b"])
    _results.record_run(_bench("real 0.9x", None), path=path)
    monkeypatch.setattr(sys, "argv", ["benchmarks/bench_bump.py", "--repeat", "2"])
    _results.record_run(_bench("generated 2.5x", None), "bench_bump generated", path=path)
    capsys.readouterr()
    text = path.read_text()
    assert sections(text) == ["bench_bump", "bench_bump generated"]
    assert "`python benchmarks/bench_bump.py --real PATH PATH`" in text and "real 0.9x" in text
    assert "`python benchmarks/bench_bump.py --repeat 2`" in text and "generated 2.5x" in text
