"""``[tool.flake8-tensorcopy]`` in pyproject.toml: found, checked, and overridden by flags.

Each behaviour runs the real command in a subprocess on real files; the last tests use
``config.load`` directly, the API an editor's language server would call.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from flake8_tensorcopy import config
from test_cli import RISKY  # TCP001 (safe fix) at 6, TCP003 (unsafe) at 7, TCP004 (no fix) at 9, TCP002 at 10

pytestmark = pytest.mark.compat



def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", *args],
        cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300,
    )


def found(result: subprocess.CompletedProcess) -> list[tuple[str, str]]:
    """(path, code) of each finding printed."""
    rows = []
    for line in result.stdout.splitlines():
        path, _, _, rest = line.split(":", 3)
        rows.append((path, rest.split()[0]))
    return rows


def codes(result: subprocess.CompletedProcess) -> set[str]:
    return {code for _, code in found(result)}


def pyproject(folder: Path, body: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(textwrap.dedent(body))
    return path


@pytest.fixture
def project(tmp_path):
    """project/ with the configuration, its src/ and tests/ holding the same risky file."""
    root = tmp_path / "project"
    for folder in ("src/pkg", "tests"):
        (root / folder).mkdir(parents=True)
    (root / "src" / "pkg" / "model.py").write_text(RISKY)
    (root / "tests" / "test_model.py").write_text(RISKY)
    return root


@pytest.mark.slow
def test_the_nearest_table_is_found_from_the_paths(project):
    pyproject(project, """
        [project]
        name = "demo"

        [tool.flake8-tensorcopy]
        select = ["TCP001", "TCP002"]
    """)
    # A pyproject.toml without the table is passed over, like ruff passes one without [tool.ruff].
    pyproject(project / "src", "[project]\nname = 'inner'\n")
    from_root = run("src", cwd=project)
    assert codes(from_root) == {"TCP001", "TCP002"}
    assert codes(run("pkg/model.py", cwd=project / "src")) == {"TCP001", "TCP002"}
    # From elsewhere: the search starts at the paths, not at the current folder.
    assert codes(run(str(project / "src"), cwd=project.parent)) == {"TCP001", "TCP002"}
    # stdin: from the folder of the name it is shown under.
    piped = run("-", "--stdin-display-name", str(project / "src" / "x.py"), cwd=project.parent, stdin=RISKY)
    assert codes(piped) == {"TCP001", "TCP002"}
    assert codes(run("-", cwd=project.parent, stdin=RISKY)) == {"TCP001", "TCP002", "TCP003"}  # the defaults


@pytest.mark.slow
def test_isolated_and_config_choose_the_file(project, tmp_path):
    pyproject(project, "[tool.flake8-tensorcopy]\nselect = ['TCP001']\n")
    assert codes(run(".", cwd=project)) == {"TCP001"}
    assert codes(run("--isolated", ".", cwd=project)) == {"TCP001", "TCP002", "TCP003"}  # the defaults
    # --config: a pyproject.toml elsewhere, or a bare file with the keys at its top level.
    other = tmp_path / "other"
    other.mkdir()
    pyproject(other, "[tool.flake8-tensorcopy]\nselect = ['TCP003']\n")
    assert codes(run("--config", str(other / "pyproject.toml"), ".", cwd=project)) == {"TCP003"}
    (other / "tensorcopy.toml").write_text("select = ['TCP004']\n")
    assert codes(run("--config", "../other/tensorcopy.toml", ".", cwd=project)) == {"TCP004"}
    both = run("--config", str(other / "tensorcopy.toml"), "--isolated", ".", cwd=project)
    assert both.returncode == 2 and "--config and --isolated exclude each other" in both.stderr


@pytest.mark.slow
def test_flags_win_over_the_file_like_ruffs(project):
    """ruff's documented example: --select replaces the file's whole selection (its ignore
    too); --extend-select and --ignore adjust it."""
    pyproject(project, """
        [tool.flake8-tensorcopy]
        select = ["TCP001", "TCP002"]
        ignore = ["TCP002"]
        extend-select = ["TCP004"]
    """)
    assert codes(run("src", cwd=project)) == {"TCP001", "TCP004"}
    assert codes(run("--select", "TCP002", "src", cwd=project)) == {"TCP002"}
    assert codes(run("--extend-select", "TCP003", "src", cwd=project)) == {"TCP001", "TCP003", "TCP004"}
    assert codes(run("--ignore", "TCP00", "src", cwd=project)) == set()
    # Inside one layer the longer prefix wins: the CLI's TCP001 beats its own TCP ignore.
    assert codes(run("--select", "TCP001", "--ignore", "TCP", "src", cwd=project)) == {"TCP001"}


@pytest.mark.slow
def test_per_file_ignores_count_from_the_config_folder(project):
    pyproject(project, """
        [tool.flake8-tensorcopy]
        extend-select = ["TCP004"]

        [tool.flake8-tensorcopy.per-file-ignores]
        "tests/*" = ["TCP001", "TCP00"]
        "model.py" = ["TCP002"]
    """)
    result = run(".", cwd=project)
    assert sorted(found(result)) == [
        ("./src/pkg/model.py", "TCP001"), ("./src/pkg/model.py", "TCP003"), ("./src/pkg/model.py", "TCP004"),
    ]
    # The same from another folder: "tests/*" is anchored at the configuration's folder,
    # a pattern without a slash matches base names anywhere.
    assert sorted(found(run("test_model.py", "../src/pkg/model.py", cwd=project / "tests"))) == [
        ("../src/pkg/model.py", "TCP001"), ("../src/pkg/model.py", "TCP003"), ("../src/pkg/model.py", "TCP004"),
    ]
    # A per-file ignore also stops the fixes of its codes.
    run("--fix", ".", cwd=project)
    assert (project / "tests" / "test_model.py").read_text() == RISKY
    assert "w.detach().clone()" not in (project / "src" / "pkg" / "model.py").read_text()
    assert "with torch.no_grad():" in (project / "src" / "pkg" / "model.py").read_text()


@pytest.mark.slow
def test_exclude_and_extend_exclude(project):
    (project / "src" / "pkg" / "gen_pb2.py").write_text(RISKY)
    pyproject(project, """
        [tool.flake8-tensorcopy]
        exclude = ["tests"]
        extend-exclude = ["*_pb2.py"]
    """)
    paths = lambda result: sorted({path for path, _ in found(result)})  # noqa: E731
    assert paths(run(".", cwd=project)) == ["./src/pkg/model.py"]
    # --exclude replaces the file's exclude (its extend-exclude still applies);
    # a pattern with a slash counts from the current folder.
    assert paths(run("--exclude", "src/pkg/model.py", ".", cwd=project)) == ["./tests/test_model.py"]
    assert paths(run("--extend-exclude", "model.py", ".", cwd=project)) == []
    # A file named on the command line is linted even if excluded.
    assert paths(run("tests/test_model.py", cwd=project)) == ["tests/test_model.py"]


@pytest.mark.slow
def test_unsafe_fixes_key_and_its_flags(project):
    target = project / "src" / "pkg" / "model.py"
    pyproject(project, "[tool.flake8-tensorcopy]\nunsafe-fixes = true\n")
    run("--fix", "--no-unsafe-fixes", str(target), cwd=project)
    assert "copy.deepcopy(t)" in target.read_text()
    run("--fix", str(target), cwd=project)
    assert "x = t.detach().clone()" in target.read_text()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("selcet = ['TCP001']", "[tool.flake8-tensorcopy] selcet: unknown key; did you mean 'select'?"),
        ("colour = 'red'", "[tool.flake8-tensorcopy] colour: unknown key (known: select, extend-select"),
        ("select = 'TCP001'", "[tool.flake8-tensorcopy] select: must be a list of strings, not 'TCP001'"),
        ("ignore = ['TCP!']", "[tool.flake8-tensorcopy] ignore: 'TCP!' is not a code prefix"),
        ("extend-select = ['TCP999']", "extend-select: 'TCP999' matches no rule (the codes are TCP001 to TCP101)"),
        ("select = ['TCP001,TCP002']", "select: one code per string, not comma-separated"),
        ("unsafe-fixes = 'yes'", "[tool.flake8-tensorcopy] unsafe-fixes: must be true or false, not 'yes'"),
        ("respect-gitignore = 1", "respect-gitignore: must be true or false, not 1"),
        ("exclude = [3]", "[tool.flake8-tensorcopy] exclude: must be a list of strings, not [3]"),
        ("per-file-ignores = ['x']", "per-file-ignores: must be a table of pattern = [codes], not ['x']"),
        ("per-file-ignores = {'x.py' = ['E501']}", "per-file-ignores.'x.py': 'E501' matches no rule"),
    ],
)
def test_bad_keys_and_values_are_errors_naming_the_file_and_key(project, body, message):
    path = pyproject(project, f"[tool.flake8-tensorcopy]\n{body}\n")
    result = run(".", cwd=project)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"flake8-tensorcopy: error: {path}: "), result.stderr
    assert message in result.stderr


@pytest.mark.slow
def test_malformed_toml_names_the_file_and_the_line(project):
    path = pyproject(project, "[project]\nname = 'demo'\n\n[tool.flake8-tensorcopy]\nselect = TCP001\nignore = []\n")
    result = run(".", cwd=project)
    assert result.returncode == 2
    assert f"{path}: not valid TOML:" in result.stderr and "line 5" in result.stderr, result.stderr


@pytest.mark.slow
def test_config_file_problems(project, tmp_path):
    missing = run("--config", "nowhere.toml", ".", cwd=project)
    assert missing.returncode == 2
    assert f"{project / 'nowhere.toml'}: cannot read it: No such file or directory" in missing.stderr
    other = pyproject(tmp_path, "[project]\nname = 'x'\n")
    tableless = run("--config", str(other), ".", cwd=project)
    assert tableless.returncode == 2 and f"{other}: has no [tool.flake8-tensorcopy] table" in tableless.stderr
    (tmp_path / "bare.toml").write_text("[tool.flake8-tensorcopy]\nselect = ['TCP001']\n")
    nested = run("--config", str(tmp_path / "bare.toml"), ".", cwd=project)
    assert nested.returncode == 2 and "bare.toml: tool: unknown key" in nested.stderr


def test_load_is_the_api_for_other_front_ends(project):
    pyproject(project, """
        [tool.flake8-tensorcopy]
        extend-select = ["TCP006"]
        ignore = ["TCP004"]
        per-file-ignores = {"tests/*" = ["TCP0", "TCP1"]}
        respect-gitignore = false
    """)
    settings = config.load([str(project / "src")])
    assert settings.source == project / "pyproject.toml"
    assert [rule.code for rule in settings.rules] == [
        "TCP001", "TCP002", "TCP003", "TCP006", "TCP101",
    ]
    assert settings.rules_for(str(project / "tests" / "test_model.py")) == []
    assert settings.rules_for(str(project / "src" / "pkg" / "model.py")) == list(settings.rules)
    assert settings.respect_gitignore is False and settings.unsafe_fixes is False
    assert settings.excluded(str(project / ".git")) and not settings.excluded(str(project / "src"))
    overridden = config.load([str(project)], overrides=config.Overrides(select=("TCP002",), unsafe_fixes=True))
    assert [rule.code for rule in overridden.rules] == ["TCP002"] and overridden.unsafe_fixes
    isolated = config.load([str(project)], isolated=True)
    assert isolated.source is None and "TCP006" not in {rule.code for rule in isolated.rules}
