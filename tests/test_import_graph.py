"""Which modules import which, read from their text: where a function's callers can be."""

import os
from pathlib import Path

import pytest

from flake8_tensorcopy.analysis import import_graph
from flake8_tensorcopy.analysis.import_graph import imported_names
from flake8_tensorcopy.analysis import project as project_module
from flake8_tensorcopy.analysis.project import Project


def test_every_import_form_is_read() -> None:
    text = b"""\
import os, a.b as c
from . import sibling
from ..pkg.mod import (
    first,
    second as s,  # a comment
)
from .plots import *
    from utils import one_hot; import later
x = "import in_a_string"
"""
    assert imported_names(text) == (
        ("os", ()), ("a.b", ()), (".", (".sibling",)), ("..pkg.mod", ("..pkg.mod.first", "..pkg.mod.second")),
        (".plots", ()), ("utils", ("utils.one_hot",)),
    )



def test_the_word_import_elsewhere_on_a_line_or_inside_a_statement() -> None:
    # Lines are tried where the word is spelled: in a longer name, twice on a line, or on
    # the later lines of a statement already read, it reads nothing more.
    text = b"""\
from important import (
    import_helpers,
    reimport)
import_count = 1
from x import y  # import z
import a; from b import c
print("import"); import d
"""
    assert imported_names(text) == (
        ("important", ("important.import_helpers", "important.reimport")), ("x", ("x.y",)), ("a", ()),
    )


def _project(root: Path, files: dict[str, str]) -> Project:
    (root / ".git").mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return Project(str(root))


def test_importers_by_every_route(tmp_path: Path) -> None:
    project = _project(tmp_path, {
        "pkg/__init__.py": "from .plots import save\n",
        "pkg/plots.py": "def save(x):\n    return x\n",
        "pkg/detect.py": "from .plots import save\n",
        "pkg/common.py": "from pkg import plots\n",
        "scripts/run.py": "import pkg.plots as p\n",
        "scripts/unrelated.py": "import numpy\nfrom pkg import detect\n",
        ".venv/lib/pkg/plots.py": "from pkg import plots\n",  # hidden folders are not the project's
        "node_modules/x.py": "from pkg import plots\n",
    })
    plots = os.path.realpath(tmp_path / "pkg/plots.py")
    assert project.importers(plots) == {
        os.path.realpath(tmp_path / name) for name in ("pkg/__init__.py", "pkg/detect.py", "pkg/common.py", "scripts/run.py")
    }
    assert project.importers(os.path.realpath(tmp_path / "scripts/run.py")) == frozenset()


def test_links_and_unreadable_modules_are_no_loop_and_no_crash(tmp_path: Path) -> None:
    project = _project(tmp_path, {"a.py": "import b\n", "b.py": "def f(x):\n    return x\n"})
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)  # a folder linked to its parent
    (tmp_path / "binary.py").write_bytes(b"\xff\xfe\nimport b\n\x00")  # not Python: an importer too many, harmless
    (tmp_path / "dangling.py").symlink_to(tmp_path / "missing.py")
    assert project.importers(os.path.realpath(tmp_path / "b.py")) == {
        os.path.realpath(tmp_path / "a.py"), os.path.realpath(tmp_path / "binary.py")
    }


def test_a_project_too_large_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(import_graph, "MAX_MODULES", 3)
    project = _project(tmp_path, {f"m{i}.py": "import m0\n" for i in range(4)})
    assert project.importers(os.path.realpath(tmp_path / "m0.py")) is None


def test_a_folder_of_data_too_large_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(import_graph, "MAX_ENTRIES", 10)
    project = _project(tmp_path, {"a.py": "import b\n", "b.py": "", **{f"images/{i}.png": "" for i in range(10)}})
    assert project.importers(os.path.realpath(tmp_path / "b.py")) is None


SPELLERS = {
    "model.py": "class Net:\n    def run_iter(self, batch):\n        return batch\n\n    def reset(self):\n        pass\n",
    "train.py": "def go(net, batch):\n    net.run_iter(batch)\n    net.reset()\n    net.evaluate()\n    net.rerun_iter(batch)\n",
    "other.py": "class Other:\n    def reset(self):\n        reset = 0\n",
    "notes.py": "# run_iter_count is a longer word\nrun_iter_count = 0\n",
}


@pytest.mark.parametrize("scans", [0, project_module.SCANS_BEFORE_INDEX])
def test_method_spellings_by_scan_and_by_index_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scans: int) -> None:
    """The first names asked are read by scanning each module for the one word, the later
    ones from an index of every module's words: the same answers either way."""
    monkeypatch.setattr(project_module, "SCANS_BEFORE_INDEX", scans)
    project = _project(tmp_path, SPELLERS)
    model, train = (os.path.realpath(tmp_path / name) for name in ("model.py", "train.py"))
    assert project.method_spellings("run_iter") == ({model}, {train})
    assert project.method_spellings("reset") is None  # ``reset = 0``: the name may be called unseen
    assert project.method_spellings("evaluate") == (frozenset(), frozenset())  # no module defines it
    assert project.method_spellings("rerun_iter") == (frozenset(), frozenset())


def test_an_edited_buffer_changes_the_spellings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(project_module, "SCANS_BEFORE_INDEX", 0)  # the index, which an edit must drop
    project = _project(tmp_path, SPELLERS)
    model, other = (os.path.realpath(tmp_path / name) for name in ("model.py", "other.py"))
    assert project.method_spellings("run_iter") == ({model}, {os.path.realpath(tmp_path / "train.py")})
    project.overlay(other, "def step(net, batch):\n    return net.run_iter(batch)\n")
    assert project.method_spellings("run_iter")[1] == {os.path.realpath(tmp_path / "train.py"), other}
