"""bench/instructions.py: flake8 without and with the plugin, counted by callgrind; the
selection and the report in process, the whole script for real under valgrind."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bench_modules import import_bench_modules

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
instructions = import_bench_modules(BENCH, ("instructions",))["instructions"]


def test_every_nth_repository_is_taken_whole(tmp_path):
    for name in ("a", "b", "c", "d", "e"):
        (tmp_path / name / "pkg").mkdir(parents=True)
    (tmp_path / "stray.py").write_text("x = 1\n")  # a file at the top is no repository
    assert [path.name for path in instructions.repositories(tmp_path, 2)] == ["a", "c", "e"]
    assert len(instructions.repositories(tmp_path, 1)) == 5


def test_the_collector_and_the_parser_are_read_from_the_inclusive_listing(tmp_path, monkeypatch):
    listing = (
        "45,935,795,389 (100.0%)  PROGRAM TOTALS\n"
        " 1,598,930,611 ( 3.48%)  /build/Parser/peg_api.c:_PyParser_ASTFromString [/lib/libpython3.11.so]\n"
        " 1,380,459,324 ( 3.01%)  /build/Modules/gcmodule.c:gc_collect_main [/lib/libpython3.11.so]\n"
        "   380,459,324 ( 0.81%)  /build/Modules/gcmodule.c:gc_collect_main'2 [/lib/libpython3.11.so]\n"
    )
    monkeypatch.setattr(instructions.subprocess, "run",
                        lambda *args, **kwargs: subprocess.CompletedProcess(args, 0, listing, ""))
    assert instructions._parts(tmp_path / "x.out") == {"collector": 1_380_459_324, "parser": 1_598_930_611}
    monkeypatch.setattr(instructions.subprocess, "run",
                        lambda *args, **kwargs: subprocess.CompletedProcess(args, 0, "", ""))
    assert instructions._parts(tmp_path / "x.out") == {"collector": None, "parser": None}


def test_the_report_gives_the_ratio_and_what_each_part_added():
    counts = {"without": {"instructions": 1_000_000, "collector": 30_000, "parser": 35_000},
              "with": {"instructions": 1_051_000, "collector": 32_500, "parser": 38_000}}
    lines = instructions.report(counts, 226, 12).splitlines()
    assert lines[0] == "flake8 -j 1 on 12 repositories (226 files), under callgrind, project cache empty"
    assert lines[1] == "  without  1,000,000 instructions, collector 3.00%, parser 3.50%"
    assert lines[3] == "  ratio    1.0510"
    assert lines[4:] == ["    of which the collector: +0.25% of flake8 alone",
                         "    of which the parser: +0.30% of flake8 alone"]


def test_without_valgrind_it_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(instructions.shutil, "which", lambda tool: None)
    assert instructions.main(["--without", str(tmp_path), "--with", str(tmp_path)]) == 2
    assert "needs valgrind and callgrind_annotate" in capsys.readouterr().err


def test_a_flake8_that_crashed_is_no_count(tmp_path):
    """flake8 exits 1 when a plugin raises, as when it reports findings: its stderr tells."""
    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\necho 'Traceback (most recent call last):' >&2\nexit 1\n")
    python.chmod(0o755)
    with pytest.raises(SystemExit, match="flake8 \\(warm-up\\) exited 1:\nTraceback"):
        instructions._run_all({"with": tmp_path / "venv"}, [tmp_path], tmp_path, "warm-up", lambda name: [])


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_a_real_count_of_a_small_corpus(tmp_path):
    """The real thing: this environment's python (flake8 and the plugin) in both places."""
    for name in ("without", "with"):
        (tmp_path / name / "bin").mkdir(parents=True)
        (tmp_path / name / "bin" / "python").symlink_to(sys.executable)
    corpus = tmp_path / "corpus"
    (corpus / "owner+repo").mkdir(parents=True)
    (corpus / "owner+repo" / "train.py").write_text(
        "import copy\nimport torch\n\n\ndef keep(t: torch.Tensor):\n    return copy.deepcopy(t)\n")
    command = [sys.executable, str(BENCH / "instructions.py"), "--without", str(tmp_path / "without"),
               "--with", str(tmp_path / "with"), "--every", "1", "--corpus", str(corpus)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    again = subprocess.run(command, capture_output=True, text=True, timeout=600).stdout.splitlines()
    for first, second in zip(lines[1:3], again[1:3]):  # counted, not timed: all but the same again
        assert int(second.split()[1].replace(",", "")) == pytest.approx(int(first.split()[1].replace(",", "")),
                                                                        rel=0.005)
    assert lines[0] == "flake8 -j 1 on 1 repositories (1 files), under callgrind, project cache empty"
    counted = [int(line.split()[1].replace(",", "")) for line in lines[1:3]]
    assert [line.split()[0] for line in lines[1:4]] == ["without", "with", "ratio"]
    assert all(count > 10_000_000 for count in counted)  # an interpreter's start alone is more
    assert float(lines[3].split()[1]) == pytest.approx(counted[1] / counted[0], abs=1e-4)
