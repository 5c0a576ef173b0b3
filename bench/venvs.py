"""Create the isolated virtual environments the benchmark compares."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from process_stats import clean_environment

SPEC_FILE = ".bench-spec.json"

# Never copied into the build snapshot of the package under test.
SNAPSHOT_IGNORE = shutil.ignore_patterns(
    ".venvs", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
    ".mypy_cache", ".ruff_cache", ".tox", ".nox", "results*.json",
)


@dataclass(frozen=True)
class Venv:
    name: str
    path: Path

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    @property
    def flake8(self) -> Path:
        return self.path / "bin" / "flake8"

    def run_python(self, code: str) -> str:
        return _check_output([str(self.python), "-I", "-c", code])

    def versions(self, *distributions: str) -> dict[str, str | None]:
        code = (
            "import importlib.metadata as m, json, sys\n"
            "def v(name):\n"
            "    try: return m.version(name)\n"
            "    except m.PackageNotFoundError: return None\n"
            "print(json.dumps({n: v(n) for n in sys.argv[1:]}))"
        )
        output = _check_output([str(self.python), "-I", "-c", code,
                                *distributions])
        return json.loads(output)

    def flake8_plugins(self) -> list[tuple[str, str]]:
        """(entry point name, distribution name) of every flake8.extension
        entry point installed in this venv."""
        code = (
            "import importlib.metadata as m, json\n"
            "eps = m.entry_points(group='flake8.extension')\n"
            "print(json.dumps(sorted((e.name, e.dist.name) for e in eps)))"
        )
        return [tuple(pair) for pair in json.loads(self.run_python(code))]

    def flake8_version_text(self) -> str:
        return _check_output([str(self.flake8), "--version"]).strip()


def reusable_venv(root: Path, name: str, requirements: list[str]) -> Venv:
    """A venv that is kept between runs while its requirements and python
    stay the same."""
    venv = Venv(name, root / name)
    wanted = _spec(venv, requirements)
    if _recorded_spec(venv) == wanted and venv.flake8.exists():
        print(f"  reusing venv {venv.path}", flush=True)
        return venv
    _create(venv, requirements)
    (venv.path / SPEC_FILE).write_text(json.dumps(wanted, indent=2))
    return venv


def fresh_venv_with_package(root: Path, name: str, package: Path,
                            flake8_pin: str) -> Venv:
    """Always rebuilt: the package under test changes between runs.

    pip builds a local directory in place, and setuptools would leave
    build/ and *.egg-info in the checkout others are editing, so the
    package is built from a snapshot copy instead (non-editable, so what
    is measured is the installed wheel).
    """
    venv = Venv(name, root / name)
    with tempfile.TemporaryDirectory(prefix="tcp-bench-src-") as scratch:
        snapshot = Path(scratch) / "src"
        shutil.copytree(package, snapshot, ignore=SNAPSHOT_IGNORE,
                        symlinks=True)
        _create(venv, [flake8_pin, str(snapshot)])
    return venv


def _create(venv: Venv, requirements: list[str]) -> None:
    print(f"  creating venv {venv.path}: {' '.join(requirements)}",
          flush=True)
    shutil.rmtree(venv.path, ignore_errors=True)
    venv.path.parent.mkdir(parents=True, exist_ok=True)
    _check_output([sys.executable, "-I", "-m", "venv", str(venv.path)])
    _check_output([str(venv.python), "-I", "-m", "pip", "install",
                   "--disable-pip-version-check", "--quiet", *requirements])


def _spec(venv: Venv, requirements: list[str]) -> dict:
    # The path too: a moved venv's scripts still point at the old one.
    return {"python": sys.version, "executable": sys.executable,
            "path": str(venv.path.resolve()), "requirements": requirements}


def _recorded_spec(venv: Venv) -> dict | None:
    try:
        return json.loads((venv.path / SPEC_FILE).read_text())
    except (OSError, ValueError):
        return None


def _check_output(argv: list[str]) -> str:
    """Run a helper command; callers pass python -I, and the cwd is an
    empty directory, because a checkout in the cwd (its *.egg-info from an
    editable install) would otherwise look installed in every venv."""
    with tempfile.TemporaryDirectory(prefix="tcp-bench-cwd-") as empty:
        result = subprocess.run(argv, capture_output=True, text=True,
                                env=clean_environment(), cwd=empty)
    if result.returncode != 0:
        raise VenvError(f"command failed ({result.returncode}): "
                        f"{' '.join(argv)}\n{result.stdout}{result.stderr}")
    return result.stdout


class VenvError(RuntimeError):
    """A venv could not be created or queried."""
