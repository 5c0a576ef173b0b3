"""The performance benchmark's own logic (bench/run.py, report.py, corpus_files.py).

Nothing here times flake8, builds a venv or reads the corpus mirrors: the corpora are small
fake trees in tmp_path, the application corpus's export is a fake function (or, once,
corpus.py pointed at an empty mirrors folder), and the report is fed runs made up here.

The bench modules are imported once (tests/bench_modules.py) and used under aliases.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bench_modules import import_bench_modules

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
BENCH_MODULES = ("corpus_files", "flake8_runs", "process_stats", "report", "results_page", "run")


_BENCH = import_bench_modules(BENCH, BENCH_MODULES)
bench_corpus = _BENCH["corpus_files"]
bench_runs = _BENCH["flake8_runs"]
bench_stats = _BENCH["process_stats"]
bench_report = _BENCH["report"]
bench_results_page = _BENCH["results_page"]
bench_run = _BENCH["run"]

TORCH_LIKE = (
    "__init__.py",
    "_inductor/lowering.py",
    "autograd/__init__.py",
    "autograd/grad_mode.py",
    "nn/__init__.py",
    "nn/__pycache__/functional.cpython-311.py",
    "nn/functional.py",
    "nn/modules/module.py",
    "optim/sgd.py",
    "utils/data/dataloader.py",
    "utils/hooks.py",
)
IN_SUBSET = (
    "autograd/__init__.py",
    "autograd/grad_mode.py",
    "nn/__init__.py",
    "nn/functional.py",
    "nn/modules/module.py",
    "optim/sgd.py",
    "utils/data/dataloader.py",
)


def make_tree(root: Path, paths, text: str = "x = 1\n") -> Path:
    for relative in paths:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def torch_like(tmp_path) -> Path:
    return make_tree(tmp_path / "torch", TORCH_LIKE)


@pytest.fixture
def app_like(tmp_path) -> Path:
    return make_tree(tmp_path / "export", [f"owner+repo{n}/train.py" for n in range(6)], "a = 1\nb = 2\n")


# --- arguments and the corpora they select -----------------------------------------------


def test_by_default_both_corpora_are_measured_application_first():
    args = bench_run.parse_args([])
    assert bench_run.corpus_names(args) == ["application", "torch"]
    assert (args.pairs, args.limit, args.app_corpus, args.torch_corpus) == (3, None, None, None)


@pytest.mark.parametrize("only", ["application", "torch"])
def test_only_measures_one_corpus(only):
    assert bench_run.corpus_names(bench_run.parse_args(["--only", only])) == [only]


def test_only_accepts_nothing_but_the_two_corpora(capsys):
    with pytest.raises(SystemExit):
        bench_run.parse_args(["--only", "custom"])
    assert "invalid choice" in capsys.readouterr().err


def test_the_project_analysis_is_measured_as_by_default_unless_turned_off():
    assert bench_run.parse_args([]).project == "default"
    assert bench_run.parse_args(["--project", "off"]).project == "off"


def test_the_results_page_says_whether_the_project_analysis_ran(app_like, torch_like):
    results = fake_results(app_like, torch_like)
    results.update(command="python3 bench/run.py", started_at="2026-11-28T05:00:00+0000", project_cache="cold")
    assert "the project analysis on, its disk cache empty at each 'with' run." in bench_results_page.section(results)
    results.update(project="off", project_cache="warm")
    assert "the project analysis off, its disk cache filled first." in bench_results_page.section(results)


def test_corpus_replaces_both_defaults():
    assert bench_run.corpus_names(bench_run.parse_args(["--corpus", "/some/dir"])) == ["custom"]


@pytest.mark.parametrize("extra", [["--only", "torch"], ["--app-corpus", "/a"], ["--torch-corpus", "/t"]])
def test_corpus_takes_no_option_of_the_two_corpora(extra, capsys):
    with pytest.raises(SystemExit):
        bench_run.parse_args(["--corpus", "/some/dir", *extra])
    assert "--corpus replaces both corpora" in capsys.readouterr().err


def test_given_directories_are_the_corpora_and_limit_applies_to_each(app_like, torch_like, tmp_path):
    cache = tmp_path / "cache"
    args = bench_run.parse_args(["--app-corpus", str(app_like), "--torch-corpus", str(torch_like),
                                 "--limit", "3"])
    corpora = bench_run.load_corpora(args, cache_root=cache)
    assert list(corpora) == ["application", "torch"]
    assert corpora["application"].root == app_like.resolve()
    assert corpora["application"].label == "--app-corpus"
    # --torch-corpus is a whole tree: every .py file outside flake8's default excludes.
    assert len(corpora["torch"].all_files) == len(TORCH_LIKE) - 1
    assert [len(corpus.files) for corpus in corpora.values()] == [3, 3]
    assert not cache.exists()  # a given export is used as is, nothing is built


def test_custom_corpus_is_the_one_corpus(torch_like, tmp_path):
    corpora = bench_run.load_corpora(bench_run.parse_args(["--corpus", str(torch_like)]),
                                     cache_root=tmp_path / "cache")
    assert list(corpora) == ["custom"]
    assert corpora["custom"].label == "custom"
    assert corpora["custom"].flake8_targets() == [str(torch_like.resolve())]


# --- the application corpus: built once into the cache, then reused ----------------------


class FakeExport:
    """Stands in for `corpus.py export DIR`: writes one repository's file, counts calls."""

    def __init__(self) -> None:
        self.destinations: list[Path] = []

    def __call__(self, destination: Path) -> None:
        self.destinations.append(destination)
        make_tree(destination, ["owner+name/train.py"])


def fake_repos_csv(tmp_path: Path, commit: str = "a" * 40) -> Path:
    path = tmp_path / "repos.csv"
    path.write_text(f"repo,commit,category,py_files,py_lines\nowner/name,{commit},misc,1,1\n")
    return path


def test_app_corpus_is_named_after_the_hash_of_repos_csv(tmp_path):
    repos = fake_repos_csv(tmp_path)
    built = bench_corpus.app_corpus_dir(tmp_path / "cache", repos, FakeExport())
    digest = hashlib.sha256(repos.read_bytes()).hexdigest()[:12]
    assert built == tmp_path / "cache" / f"app-corpus-{bench_corpus.EXPORT_FORMAT}-{digest}"
    assert (built / "owner+name" / "train.py").is_file()
    assert [path.name for path in (tmp_path / "cache").iterdir()] == [built.name]  # no scratch left


def test_app_corpus_is_exported_beside_its_place_and_then_reused(tmp_path):
    repos, export = fake_repos_csv(tmp_path), FakeExport()
    first = bench_corpus.app_corpus_dir(tmp_path / "cache", repos, export)
    again = bench_corpus.app_corpus_dir(tmp_path / "cache", repos, export)
    assert again == first
    assert len(export.destinations) == 1
    # The export went to a sibling that was then renamed into place.
    assert export.destinations[0].parent == first.parent
    assert export.destinations[0] != first


def test_a_changed_repos_csv_gets_a_new_export(tmp_path):
    export = FakeExport()
    first = bench_corpus.app_corpus_dir(tmp_path / "cache", fake_repos_csv(tmp_path), export)
    second = bench_corpus.app_corpus_dir(tmp_path / "cache", fake_repos_csv(tmp_path, "b" * 40), export)
    assert first != second
    assert len(export.destinations) == 2


def test_a_failed_export_leaves_nothing_that_looks_built(tmp_path):
    def failing(destination: Path) -> None:
        make_tree(destination, ["owner+name/half.py"])
        raise SystemExit("mirrors missing")

    with pytest.raises(SystemExit, match="mirrors missing"):
        bench_corpus.app_corpus_dir(tmp_path / "cache", fake_repos_csv(tmp_path), failing)
    assert list((tmp_path / "cache").iterdir()) == []


def test_an_export_finished_first_by_a_concurrent_run_is_kept(tmp_path):
    repos = fake_repos_csv(tmp_path)
    final = tmp_path / "cache" / f"app-corpus-{bench_corpus.EXPORT_FORMAT}-{hashlib.sha256(repos.read_bytes()).hexdigest()[:12]}"

    def raced(destination: Path) -> None:
        make_tree(destination, ["owner+name/ours.py"])
        make_tree(final, ["owner+name/theirs.py"])

    assert bench_corpus.app_corpus_dir(tmp_path / "cache", repos, raced) == final
    assert [path.name for path in (final / "owner+name").iterdir()] == ["theirs.py"]
    assert [path.name for path in (tmp_path / "cache").iterdir()] == [final.name]


def test_load_corpora_reuses_the_cached_application_corpus(tmp_path):
    export = FakeExport()
    built = bench_corpus.app_corpus_dir(tmp_path / "cache", export=export)  # the real repos.csv's name
    corpora = bench_run.load_corpora(bench_run.parse_args(["--only", "application"]),
                                     cache_root=tmp_path / "cache")
    assert list(corpora) == ["application"]
    assert corpora["application"].root == built.resolve()
    assert len(export.destinations) == 1


def test_missing_mirrors_stop_the_run_with_what_is_missing_and_the_ways_round(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORCOPY_MIRRORS", str(tmp_path / "no-mirrors"))
    with pytest.raises(SystemExit) as stopped:
        bench_corpus.export_accuracy_corpus(tmp_path / "out")
    message = str(stopped.value)
    first_repo = bench_corpus.ACCURACY_REPOS.read_text().splitlines()[1].split(",")[0]
    assert "corpus repositories are missing" in message  # corpus.py's own list
    assert first_repo in message
    assert "fetch" in message.lower()
    assert "--app-corpus DIR" in message


# --- the torch corpus: four subpackages of the installed package -------------------------


def test_torch_subset_is_the_four_subpackages(torch_like):
    corpus = bench_corpus.load_corpus(torch_like, "torch", None, bench_corpus.TORCH_SUBPACKAGES)
    assert [path.relative_to(torch_like).as_posix() for path in corpus.files] == list(IN_SUBSET)
    assert corpus.is_whole_tree
    assert corpus.flake8_targets() == [str(torch_like / subdir) for subdir in bench_corpus.TORCH_SUBPACKAGES]
    assert bench_corpus.TORCH_SUBPACKAGES == ("nn", "optim", "autograd", "utils/data")


def test_a_limited_torch_subset_names_its_files(torch_like):
    corpus = bench_corpus.load_corpus(torch_like, "torch", 3, bench_corpus.TORCH_SUBPACKAGES)
    assert len(corpus.files) == 3 and not corpus.is_whole_tree
    assert corpus.flake8_targets() == [str(path) for path in corpus.files]
    assert corpus.subset(None).files == corpus.all_files  # a subset keeps the subpackages


def test_a_torch_without_a_subpackage_is_refused(torch_like):
    with pytest.raises(SystemExit, match="corpus directory not found: .*/torch/missing"):
        bench_corpus.load_corpus(torch_like, "torch", None, ("nn", "missing"))


def test_default_torch_corpus_is_the_installed_packages_subset(torch_like, monkeypatch):
    monkeypatch.setattr(bench_corpus, "torch_package", lambda: (torch_like, "torch 9.9"))
    corpora = bench_run.load_corpora(bench_run.parse_args(["--only", "torch"]))
    assert corpora["torch"].label == "torch 9.9: nn, optim, autograd, utils/data"
    assert len(corpora["torch"].files) == len(IN_SUBSET)


def test_editor_latency_file_is_torchs_module_py_wherever_torch_is(app_like, torch_like):
    args = bench_run.parse_args([])
    app = bench_corpus.load_corpus(app_like, "app", None)
    torch = bench_corpus.load_corpus(torch_like, "torch", None, bench_corpus.TORCH_SUBPACKAGES)
    assert bench_run.pick_latency_file(args, [app, torch]) == torch_like.resolve() / "nn/modules/module.py"
    (app_like / "owner+repo3" / "train.py").write_text("x = 1\n" * 50)
    assert bench_run.pick_latency_file(args, [app]) == app_like.resolve() / "owner+repo3" / "train.py"


# --- summaries and the table -------------------------------------------------------------


def fake_runs(without: list[float], with_: list[float], rss_mib: tuple[float, float]) -> list:
    """Alternating pairs, as measure_whole_tree records them; 'with' adds 2 TCP findings."""
    runs = []
    for pair, (before, after) in enumerate(zip(without, with_), 1):
        timed = {"without": (before, rss_mib[0], {"E": 5}), "with": (after, rss_mib[1], {"E": 5, "TCP": 2})}
        for env in bench_run._pair_order(pair):
            wall, rss, found = timed[env]
            stats = bench_stats.ProcessStats(wall_s=wall, cpu_s=wall * 0.98, peak_rss_kib=int(rss * 1024),
                                             returncode=1)
            plugin_cpu = wall * 0.98 / 11 if env == "with" else None  # a tenth of the rest of the run
            runs.append(bench_runs.Flake8Run(env, stats, sum(found.values()), found, load_after=0.5,
                                             plugin_cpu_s=plugin_cpu))
    return runs


def test_a_busy_machine_is_noted_not_the_runs_that_fill_its_cores(monkeypatch):
    monkeypatch.setattr(bench_run.os, "sched_getaffinity", lambda pid: {0, 1})
    stats = bench_stats.ProcessStats(wall_s=1.0, cpu_s=1.0, peak_rss_kib=1024, returncode=1)

    def notes_at(load: float) -> list[str]:
        notes: list[str] = []
        bench_run.note_busy_machine([bench_runs.Flake8Run("with", stats, 0, load_after=load)], notes)
        return notes

    assert notes_at(1.0) == [] and notes_at(2.05) == []  # two runs side by side on two cores
    assert notes_at(2.6)[0].startswith("machine busy: 1-min load up to 2.6 on 2 cores")


def fake_results(app_like: Path, torch_like: Path) -> dict:
    """A results dict as benchmark() builds it: application code misses both of its
    targets, torch meets both, the editor latency misses its own."""
    app = bench_corpus.load_corpus(app_like, "app", None)
    torch = bench_corpus.load_corpus(torch_like, "torch 9.9", None, bench_corpus.TORCH_SUBPACKAGES)
    notes: list[str] = []
    latency_file = torch_like / "nn/modules/module.py"
    results = {
        "machine": bench_run.describe_machine(0.5),
        "environments": {
            "without": {"flake8": "7.5.0", "libcst": None},
            "with": {"flake8": "7.5.0", "libcst": "1.9.0", "plugin_distribution": "flake8-tensorcopy",
                     "plugin_version": "0.9.0"},
        },
        "corpora": {
            "application": bench_run.summarise_corpus(
                "application", app, fake_runs([72.0, 70.0, 75.0], [88.0, 86.0, 90.0], (66.8, 87.1)), notes),
            "torch": bench_run.summarise_corpus(
                "torch", torch, fake_runs([20.0, 20.0, 20.0], [21.0, 21.5, 20.5], (100.0, 110.0)), notes),
        },
        "editor_latency": bench_run.summarise_latency(
            fake_runs([0.7, 0.7, 0.7], [1.2, 1.3, 1.25], (60.0, 80.0)), latency_file, 0.38, notes),
        "peer": {"skipped": "--skip-peer given"},
        "notes": notes,
    }
    results["targets_passed"] = not bench_report.failed_targets(results)
    return results


def test_each_corpus_has_its_own_summary_and_targets(app_like, torch_like):
    results = fake_results(app_like, torch_like)
    app, torch = results["corpora"]["application"], results["corpora"]["torch"]
    assert app["title"] == "application code" and torch["title"] == "torch"
    assert app["corpus"]["files"] == 6 and torch["corpus"]["files"] == len(IN_SUBSET)
    assert torch["corpus"]["subdirs"] == ["nn", "optim", "autograd", "utils/data"]
    assert app["whole_tree"]["pairs"] == 3
    assert app["whole_tree"]["ratio"] == pytest.approx(88.0 / 72.0)  # median of the pair ratios
    assert app["whole_tree"]["tcp_findings"] == 2
    in_run = app["whole_tree"]["in_run"]
    assert in_run["ratio"] == pytest.approx(1.1) and in_run["runs"] == 3
    assert in_run["cpu_s"]["with"] == pytest.approx(88.0 * 0.98)
    assert in_run["cpu_s"]["without"] == pytest.approx(88.0 * 0.98 * 10 / 11)
    assert (app["whole_tree"]["pass"], app["memory"]["pass"]) == (False, False)
    assert (torch["whole_tree"]["pass"], torch["memory"]["pass"]) == (True, True)
    root = torch["corpus"]["root"]
    assert torch["whole_tree"]["command"] == f"flake8 -j 1 {root}/nn {root}/optim {root}/autograd {root}/utils/data"
    assert results["notes"] == []  # same non-TCP findings with and without
    assert bench_report.failed_targets(results) == ["application whole tree", "application memory",
                                                    "editor latency"]
    assert results["targets_passed"] is False


def test_report_prints_a_group_of_rows_per_corpus(app_like, torch_like, capsys):
    bench_report.print_report(fake_results(app_like, torch_like))
    out = capsys.readouterr().out
    lines = out.splitlines()
    corpus_lines = [line for line in lines if line.startswith("corpus  : ")]
    assert len(corpus_lines) == 2
    assert corpus_lines[0].startswith("corpus  : application code: ") and "6 of 6 files, 12 lines" in corpus_lines[0]
    assert corpus_lines[1].startswith("corpus  : torch: ")
    assert f"(torch 9.9): {len(IN_SUBSET)} of {len(IN_SUBSET)} files" in corpus_lines[1]
    app_at, torch_at = lines.index("application code"), lines.index("torch")
    app_rows, torch_rows = lines[app_at + 1:torch_at], lines[torch_at + 1:torch_at + 6]
    assert app_rows[0].startswith("  whole tree, median of 3 pairs")
    assert "1.222" in app_rows[0] and app_rows[0].endswith("<= 1.10  FAIL")
    assert app_rows[1].startswith("    throughput (files/s)")
    assert app_rows[2].startswith("    CPU user+sys, median") and app_rows[2].endswith("(info)")
    assert app_rows[3].startswith("    CPU inside 'with': plugin's") and app_rows[3].endswith("1.100    (info)")
    assert app_rows[4].startswith("  peak RSS (whole tree), median") and "1.304" in app_rows[4]
    assert app_rows[4].endswith("<= 1.20  FAIL")
    assert "1.050" in torch_rows[0] and torch_rows[0].endswith("<= 1.10  PASS")
    assert "1.100" in torch_rows[4] and torch_rows[4].endswith("<= 1.20  PASS")
    assert any(line.startswith("editor latency, median of 3") and line.endswith("<= 1.15  FAIL")
               for line in lines)
    assert lines[-1] == "verdict : FAIL: application whole tree, application memory, editor latency"


def test_report_says_all_pass_when_every_corpus_meets_its_targets(app_like, torch_like, capsys):
    results = fake_results(app_like, torch_like)
    for measure in [*(corpus[name] for corpus in results["corpora"].values() for name in ("whole_tree", "memory")),
                    results["editor_latency"]]:
        measure["pass"] = True
    bench_report.print_report(results)
    assert capsys.readouterr().out.splitlines()[-1] == "verdict : all targets PASS"


def test_report_reprints_a_saved_run(app_like, torch_like, tmp_path, capsys):
    results = fake_results(app_like, torch_like)
    saved = tmp_path / "results.json"
    saved.write_text(json.dumps(results))
    bench_report.print_report(json.loads(saved.read_text()))
    printed = capsys.readouterr().out
    again = subprocess.run([sys.executable, str(BENCH / "report.py"), str(saved)], capture_output=True,
                           text=True, check=True)
    assert again.stdout == printed


def test_a_saved_run_without_the_in_run_share_still_prints(app_like, torch_like, capsys):
    results = fake_results(app_like, torch_like)
    for corpus in results["corpora"].values():
        del corpus["whole_tree"]["in_run"]
    bench_report.print_report(results)
    assert "CPU inside 'with'" not in capsys.readouterr().out


def test_a_run_rewrites_only_its_section_of_the_results_page(app_like, torch_like, tmp_path):
    results = fake_results(app_like, torch_like)
    results.update(command="python3 bench/run.py --pairs 3", started_at="2026-11-28T05:00:00+0000")
    page = tmp_path / "RESULTS.md"
    other = "## bench/server_soak.py\n\n| file | median |\n|---|---|\n| a | 26 ms |\n"
    page.write_text(f"# Results\n\n{bench_results_page.SECTION_START}\nold\n{bench_results_page.SECTION_END}\n\n{other}")
    bench_results_page.write(results, page)
    text = page.read_text()
    assert text.startswith("# Results\n\n" + bench_results_page.SECTION_START) and text.endswith(other)
    assert "old" not in text and "Run 2026-11-28T05:00:00+0000: `python3 bench/run.py --pairs 3`." in text
    rows = [line for line in text.splitlines() if line.startswith("| application code")]
    assert rows[0] == "| application code: whole tree, median of 3 pairs | 72.0 s | 88.0 s | 1.222 | <= 1.10: not met |"
    assert rows[-1].endswith("| <= 1.20: not met |")
    assert bench_results_page.section(results) in text


def test_the_results_page_shows_the_cpu_pairs_the_method_and_the_control(app_like, torch_like):
    results = fake_results(app_like, torch_like)
    results.update(command="python3 bench/run.py --side-by-side --control 2", started_at="2026-11-29T05:00:00+0000")
    pairing = bench_run.Pairing(True, app_like)
    app = bench_corpus.load_corpus(app_like, "app", None)
    results["corpora"]["application"] = bench_run.summarise_corpus(
        "application", app, fake_runs([72.0, 70.0, 75.0], [88.0, 86.0, 90.0], (66.8, 87.1)), [], pairing,
        fake_runs([70.0, 72.0], [71.4, 72.0], (66.8, 66.8)))
    rows = [line for line in bench_results_page.section(results).splitlines() if line.startswith("| application")]
    assert rows[0].startswith("| application code: whole tree, median of 3 pairs (side by side, one core each, "
                              "the cores swapped every pair) |")
    assert rows[1] == "| application code: the same pairs in CPU time, median of their ratios | 70.6 s | 86.2 s " \
                      "| 1.222 | (info) |"
    assert rows[2] == "| application code: control, 'without' against itself, 2 pair(s) timed alike, CPU | 69.6 s " \
                      "| 70.3 s | 1.010 | (info) |"


def test_side_by_side_needs_two_cores_and_a_control_is_never_negative(monkeypatch, capsys):
    assert bench_run.parse_args(["--control", "2"]).control == 2
    with pytest.raises(SystemExit):
        bench_run.parse_args(["--control", "-1"])
    monkeypatch.setattr(bench_run.os, "sched_getaffinity", lambda pid: {0})
    with pytest.raises(SystemExit):
        bench_run.parse_args(["--side-by-side"])
    assert "--side-by-side needs two usable cores" in capsys.readouterr().err


def _venv_telling_its_cores(root: Path, name: str, seconds: float):
    """A venv stand-in whose flake8 names, on stderr, the cores it may run on."""
    import stat

    script = root / name / "bin" / "flake8"
    script.parent.mkdir(parents=True)
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import os, sys, time; time.sleep({seconds}); "
                      f"print(sorted(os.sched_getaffinity(0)), file=sys.stderr)'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return bench_run.Venv(name, root / name)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="side by side runs on two cores")
def test_pairs_side_by_side_run_at_once_on_two_cores_swapped_every_pair(tmp_path):
    venvs = {"without": _venv_telling_its_cores(tmp_path, "without", 0.8),
             "with": _venv_telling_its_cores(tmp_path, "with", 0.1)}
    pairing = bench_run.Pairing(True, tmp_path)
    first, second = pairing.cores
    pair_one, pair_two = pairing.pair(1, venvs, [], share=False), pairing.pair(2, venvs, [], share=False)
    assert [(run.env, run.stderr_first_line) for run in pair_one] == [("without", f"[{first}]"),
                                                                       ("with", f"[{second}]")]
    assert [(run.env, run.stderr_first_line) for run in pair_two] == [("with", f"[{first}]"),
                                                                       ("without", f"[{second}]")]
    for runs in (pair_one, pair_two):  # each timed to its own exit, though started together
        by_place = {run.env: run.stats.wall_s for run in runs}
        assert by_place["with"] < 0.6 <= by_place["without"]


def test_a_control_pair_is_one_venv_in_both_places(tmp_path):
    venv = _venv_telling_its_cores(tmp_path, "without", 0.0)
    app = bench_corpus.load_corpus(make_tree(tmp_path / "export", ["o+r/train.py"]), "app", None)
    runs = bench_run.Pairing(False, tmp_path).control(venv, app, 2)
    assert [run.env for run in runs] == ["without", "with", "with", "without"]  # places, alternating
    control = bench_run.summarise_control(runs)
    assert control["pairs"] == 2 and len(control["cpu_pair_ratios"]) == 2
    assert bench_run.Pairing(False, tmp_path).control(venv, app, 0) == []


def test_the_committed_results_page_has_the_runs_section():
    text = bench_results_page.RESULTS_PAGE.read_text(encoding="utf-8")
    assert text.count(bench_results_page.SECTION_START) == 1 and text.count(bench_results_page.SECTION_END) == 1


@pytest.mark.slow
def test_flake8_share_runs_flake8_and_counts_the_plugins_seconds(tmp_path):
    """The real thing: this environment's flake8 and plugin, through the wrapper."""
    source = tmp_path / "train.py"
    source.write_text("import copy\nimport torch\n\ndef keep(t: torch.Tensor):\n    return copy.deepcopy(t)\n"
                      "x = 1 \n")
    report = tmp_path / "share.json"
    done = subprocess.run([sys.executable, "-I", str(BENCH / "flake8_share.py"), str(report), "-j", "1",
                           "--select", "TCP,W", str(source)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    found = [line.split(" ")[:2] for line in done.stdout.splitlines()]
    assert found == [[f"{source}:5:12:", "TCP003"], [f"{source}:6:6:", "W291"]]
    counted = json.loads(report.read_text())
    assert counted["checks"] == 1 and 0 < counted["plugin_cpu_s"] and 0 < counted["plugin_wall_s"]
    plain = subprocess.run([sys.executable, "-m", "flake8", "-j", "1", "--select", "TCP,W", str(source)],
                           capture_output=True, text=True, cwd=tmp_path)
    assert plain.stdout == done.stdout  # the wrapper changes nothing flake8 reports


def test_flake8_share_without_arguments_says_how_to_call_it(tmp_path):
    done = subprocess.run([sys.executable, "-I", str(BENCH / "flake8_share.py")], capture_output=True, text=True)
    assert done.returncode == 2 and "REPORT.json FLAKE8-ARGUMENTS" in done.stderr


@pytest.mark.slow
def test_few_files_prints_both_sides_and_their_ratios(tmp_path):
    """bench/few_files.py: a pre-commit or editor lint, without and with the plugin."""
    import stat

    venvs = []
    for name in ("without", "with"):
        script = tmp_path / name / "bin" / "flake8"
        script.parent.mkdir(parents=True)
        script.write_text(f"#!/bin/sh\nexec {sys.executable} -m flake8 \"$@\"\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        venvs.append(tmp_path / name)
    source = tmp_path / "train.py"
    source.write_text("import torch\n\n\ndef f(x: torch.Tensor):\n    return x.clone().detach()\n")
    for mode in ([], ["--stdin"]):
        result = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "few_files.py"), "--without", str(venvs[0]), "--with", str(venvs[1]),
             "--pairs", "2", *mode, str(source)],
            capture_output=True, text=True, timeout=300,
        )
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert lines[0].startswith("flake8 - on train.py" if mode else "flake8 on 1 file(s)")
        assert [line.split()[0] for line in lines[1:]] == ["without", "with", "ratio"]
