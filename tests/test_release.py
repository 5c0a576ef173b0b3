"""What a release needs, in one place each: the license, the version, the repository URL.
`bash .ci/release.sh` builds and installs the artefacts; this checks the sources agree."""

import ast
import json
import re
import sys
import tomllib
from pathlib import Path

from doc_blocks import PAGES

from flake8_tensorcopy import __version__
from flake8_tensorcopy.metadata import repository_url

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
URL = PYPROJECT["project"]["urls"]["Repository"]
MANIFEST = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text(encoding="utf-8"))
# Every file that names the repository, besides pyproject.toml.
NAMING_FILES = [*PAGES, ROOT / "editors" / "vscode" / "README.md", ROOT / "editors" / "vscode" / "package.json",
                ROOT / "action.yml"]


def test_the_license_is_mit_in_every_place_that_says_so():
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert PYPROJECT["project"]["license"] == "MIT" and PYPROJECT["project"]["license-files"] == ["LICENSE"]
    assert MANIFEST["license"] == "MIT"
    # vsce packages the extension's folder alone, and warns when it finds no LICENSE there.
    assert (ROOT / "editors" / "vscode" / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()


def test_the_version_is_written_once_and_the_changelog_names_it():
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "flake8_tensorcopy.__version__"}
    assert MANIFEST["version"] == __version__
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.findall(r"^## (\S+)", changelog, re.MULTILINE)[0] == __version__


def test_every_snippet_names_the_repository_of_pyproject():
    owner_and_name = URL.removeprefix("https://github.com/")
    assert re.fullmatch(r"[\w.-]+/flake8-tensorcopy", owner_and_name), URL
    for path in NAMING_FILES:
        text = path.read_text(encoding="utf-8")
        for named in re.findall(r"https://github\.com/[\w.-]+/flake8-tensorcopy\b", text):
            assert named == URL, f"{path.relative_to(ROOT)} names {named}, not pyproject's {URL}"
        for used in re.findall(r"uses: ([\w.-]+/flake8-tensorcopy)@", text):
            assert used == owner_and_name, f"{path.relative_to(ROOT)} uses {used}, not {owner_and_name}"
    assert MANIFEST["repository"]["url"] == URL


def test_the_package_knows_its_repository_from_its_metadata():
    assert repository_url() == URL


def test_every_import_of_the_fixtures_is_declared_in_the_test_extra():
    """A fixture runs on real tensors: what it imports beyond the standard library (numpy
    for TCP010) must come with the test extra, on the Pythons that install torch."""
    extra = PYPROJECT["project"]["optional-dependencies"]["test"]
    declared = {re.match(r"[\w-]+", requirement)[0].lower() for requirement in extra}
    for fixture in sorted((ROOT / "fixtures").glob("*.py")):
        tree = ast.parse(fixture.read_text(encoding="utf-8"))
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module and not node.level}
        third_party = {name for name in imported if name not in sys.stdlib_module_names and name != "_harness"}
        assert third_party <= declared, f"{fixture.name} imports {sorted(third_party - declared)}, not in the test extra"
