"""The project analysis's cache: what the project's modules answered, kept in memory for the
run and on disk for the next one (``analysis/cache.py``, ``Project.ask``).

A warm run parses none of the imported modules and finds the same; an entry that is
corrupt, truncated, of another version, hostile or being written by several processes at
once is ignored or rebuilt, never a crash; a module that changes, a module an answer was
worked out from, or a new module that an import now finds, invalidates what depends on it;
an answer cut short by the analysis's bounds is never kept; the switches turn it off.
"""

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
from pathlib import Path

import every_rule
import pytest
from test_project import write
from test_project_hostile import opened  # noqa: F401 (a fixture)

from flake8_tensorcopy.rules import ALL_RULES
from flake8_tensorcopy import engine
from flake8_tensorcopy.analysis import cache, project

HELPERS = """\
import torch


def make_batch(n):
    return torch.randn(n, 4)
"""

NET = """\
import torch


class Net:
    def __init__(self):
        self.memory = torch.zeros(4)

    def state(self):
        return self.memory
"""

TRAIN = """\
import torch

from pkg.helpers import make_batch
from pkg.models import Net

batch = make_batch(8)
kept = torch.tensor(batch)  # TCP005: helpers.make_batch returns a tensor
net = Net()
state = torch.tensor(net.state())  # TCP005: through models/__init__.py to net.py
"""


ON = "[tool.flake8-tensorcopy]\nproject = true\n" + every_rule.TABLE_KEYS


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    write(tmp_path, {
        "pyproject.toml": ON,
        "pkg/__init__.py": "",
        "pkg/helpers.py": HELPERS,
        "pkg/models/__init__.py": "from .net import Net\n",
        "pkg/models/net.py": NET,
        "pkg/train.py": TRAIN,
    })
    return tmp_path


def a_new_process() -> None:
    """Forget what this process knows (as a new flake8 run would), writing it out first."""
    project.save_cache()
    for known in (project._SUMMARIES, project._ANSWERS):
        known.clear()
    project._DIGESTS.clear()
    project._PROJECTS.clear()
    project._ROOTS.clear()


@pytest.fixture()
def loads(monkeypatch) -> list[str]:
    """The modules parsed from here on."""
    parsed: list[str] = []
    real = project.Project._load

    def counted(self, path, summarise):
        parsed.append(os.path.basename(path))
        return real(self, path, summarise)

    monkeypatch.setattr(project.Project, "_load", counted)
    return parsed


def found(path: Path) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in engine.lint_source(path.read_text(), path=str(path), rules=ALL_RULES))


def entries(root: Path) -> list[Path]:
    return sorted((root / cache.FOLDER_NAME).glob("*.json"))


def entry_data(entry: Path) -> dict:
    """An entry's JSON, behind the line of its signature."""
    raw = entry.read_bytes()
    return json.loads(raw if raw.startswith(b"{") else raw.partition(b"\n")[2])


def plant(entry: Path, body: bytes, signed: bool = True) -> None:
    """Write ``body`` as the entry, signed with this user's key as a run of ours would
    (``signed``), or as a repository or another user could."""
    signature = getattr(cache, "signature", None)
    entry.write_bytes(signature(body).encode() + b"\n" + body if signed and signature else body)


EXPECTED = [(7, "TCP005"), (9, "TCP005")]


def test_a_warm_run_parses_no_module_and_finds_the_same(tree: Path, loads: list[str]) -> None:
    a_new_process()
    assert found(tree / "pkg/train.py") == EXPECTED
    assert sorted(loads) == ["__init__.py", "helpers.py", "net.py"]
    a_new_process()
    loads.clear()
    assert found(tree / "pkg/train.py") == EXPECTED
    assert loads == []
    folder = tree / cache.FOLDER_NAME
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"  # git ignores it
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert len(entries(tree)) == 3


@pytest.mark.slow
def test_flake8_cold_and_warm_agree_and_leave_valid_entries(tree: Path) -> None:
    def flake8() -> str:
        result = subprocess.run([sys.executable, "-m", "flake8", "--select", "TC", "pkg/train.py"], cwd=tree,
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 1, result.stderr
        return result.stdout

    cold = flake8()
    assert [line.split()[1] for line in cold.splitlines()] == ["TCP005", "TCP005"]
    assert entries(tree), "flake8's process wrote what it learnt at its exit"
    for entry in entries(tree):
        data = entry_data(entry)
        assert data["version"] == cache._version() and data["answers"]
    assert flake8() == cold


HOSTILE_ENTRIES = {
    "empty": b"",
    "truncated": None,  # the real entry cut in half
    "not json": b"\xff\xfe\x00garbage",
    "another version": None,  # the real entry, its version changed
    "a list": b"[1, 2, 3]",
    "values of another kind": None,  # the real entry, each answer's value replaced
    "nested too deep": b"[" * 200_000 + b"]" * 200_000,
    "too large": b" " * (cache.MAX_ENTRY_BYTES + 10),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_ENTRIES))
def test_a_corrupt_entry_is_ignored_and_rebuilt(tree: Path, kind: str) -> None:
    a_new_process()
    assert found(tree / "pkg/train.py") == EXPECTED
    a_new_process()
    for entry in entries(tree):
        real = entry.read_bytes()
        data = entry_data(entry)
        if kind == "truncated":
            planted = real[: len(real) // 2]
        elif kind == "another version":
            planted = json.dumps({**data, "version": "0" * 32}).encode()
        elif kind == "values of another kind":
            data["answers"] = [[question, {"tensor": ["yes", 2, None]}, depends] for question, _, depends in data["answers"]]
            planted = json.dumps(data).encode()
        else:
            planted = HOSTILE_ENTRIES[kind]
        if kind in ("another version", "values of another kind"):
            plant(entry, planted)  # signed: only what it holds is wrong
        else:
            entry.write_bytes(planted)
    assert found(tree / "pkg/train.py") == EXPECTED
    a_new_process()  # writes the answers again, over what was planted
    for entry in entries(tree):
        assert entry_data(entry)["version"] == cache._version()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_what_is_not_a_plain_file_is_never_read(tree: Path) -> None:
    """A pipe would block a reader, a link to a device would never end: neither is opened."""
    a_new_process()
    found(tree / "pkg/train.py")
    a_new_process()
    first, second, third = entries(tree)
    for entry in (first, second, third):
        entry.unlink()
    os.mkfifo(first)
    second.symlink_to("/dev/zero")
    third.mkdir()
    assert found(tree / "pkg/train.py") == EXPECTED
    a_new_process()  # saving over them fails or replaces them: no exception either way


def _save_many(folder: str, worker: int) -> None:
    disk = cache.DiskCache(folder)
    for round_ in range(40):
        disk.save("/project/module.py", "d" * 32, {("exported_call", f"f{worker}_{round_}"): (None, {"/a.py": "e" * 32})})


def test_concurrent_writers_never_corrupt_an_entry(tmp_path: Path) -> None:
    folder = str(tmp_path / "cache")
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    workers = [context.Process(target=_save_many, args=(folder, worker)) for worker in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    answers = cache.DiskCache(folder).load("/project/module.py", "d" * 32)
    assert answers and all(value == (None, {"/a.py": "e" * 32}) for value in answers.values())
    # each process's last answer survives at least in its own last write
    assert [name for name in os.listdir(folder) if name.endswith(".tmp")] == []


@pytest.mark.slow
def test_flake8_workers_share_the_cache(tree: Path) -> None:
    for number in range(6):
        write(tree, {f"pkg/user{number}.py": TRAIN})

    def run(*options: str) -> list[str]:
        result = subprocess.run([sys.executable, "-m", "flake8", "--select", "TC", *options, "pkg"], cwd=tree,
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 1, result.stderr
        return sorted(result.stdout.splitlines())

    cold = run("-j", "4")
    assert len(cold) == 14
    assert run("-j", "1") == cold == run("-j", "4")
    for entry in entries(tree):
        assert entry_data(entry)["answers"]


def test_a_module_that_changes_invalidates_its_answers(tree: Path) -> None:
    a_new_process()
    assert found(tree / "pkg/train.py") == EXPECTED
    a_new_process()
    (tree / "pkg/helpers.py").write_text(HELPERS.replace("torch.randn(n, 4)", "[0.0] * n"))
    assert found(tree / "pkg/train.py") == [(9, "TCP005")]


API = """\
from helpers import make_batch


def batch(n):
    return make_batch(n)
"""
USER = """\
import torch

from lib.api import batch

kept = torch.tensor(batch(8))  # TCP005: api.batch returns what helpers.make_batch does
"""


def test_a_module_an_answer_came_from_invalidates_it(tree: Path) -> None:
    """What ``api.batch`` returns is worked out from ``helpers.py``: the cached answer of
    ``api.py``, which does not change, must not outlive a change of ``helpers.py``."""
    write(tree, {"helpers.py": HELPERS, "lib/api.py": API, "pkg/user.py": USER})
    a_new_process()
    assert found(tree / "pkg/user.py") == [(5, "TCP005")]
    a_new_process()
    (tree / "helpers.py").write_text(HELPERS.replace("torch.randn(n, 4)", "[0.0] * n"))
    assert found(tree / "pkg/user.py") == []


STOPPER = """\
class EarlyStopping:
    def __init__(self):
        self.best_loss = float("inf")
        self.best_state = None

    def step(self, loss, model):
        if loss < self.best_loss:
            self.best_loss = loss
            self.best_state = model.state_dict()  # TCP008 while train.py loads it back
"""
RESTORING = """\
from pkg.stopper import EarlyStopping


def train(model, opt, loader, evaluate):
    stopper = EarlyStopping()
    for x in loader:
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
        stopper.step(evaluate(model), model)
    model.load_state_dict(stopper.best_state)
"""


def test_an_importer_that_stops_restoring_an_attribute_invalidates_it(tree: Path) -> None:
    """An early-stopping helper's kept state_dict is a hazard because the module that imports
    the helper loads it back: once that module stops doing so, the next run says nothing."""
    write(tree, {"pkg/stopper.py": STOPPER, "pkg/restoring.py": RESTORING})
    a_new_process()
    assert found(tree / "pkg/stopper.py") == [(9, "TCP008")]
    a_new_process()
    assert found(tree / "pkg/stopper.py") == [(9, "TCP008")]  # from the disk cache
    a_new_process()
    (tree / "pkg/restoring.py").write_text(RESTORING.replace("model.load_state_dict(stopper.best_state)",
                                                             "return stopper.best_loss"))
    assert found(tree / "pkg/stopper.py") == []


CPU_STOPPER = STOPPER.replace("model.state_dict()  # TCP008 while train.py loads it back",
                              "{k: v.cpu() for k, v in model.state_dict().items()}")
RUNNING = """\
import argparse

from pkg.restoring import train

parser = argparse.ArgumentParser()
parser.add_argument("--cpu", action="store_true")
device = "cpu" if parser.parse_args().cpu else "cuda"
"""


def test_a_script_that_stops_picking_the_cpu_invalidates_a_cpu_snapshot(tree: Path) -> None:
    """``{k: v.cpu() ...}`` aliases only on a CPU run: the helper is flagged while the script
    that runs the training code using it (two imports up) can pick the CPU, and no longer
    once that script only ever picks CUDA, though neither the helper nor its importer changed."""
    write(tree, {"pkg/stopper.py": CPU_STOPPER, "pkg/restoring.py": RESTORING, "run.py": RUNNING})
    a_new_process()
    assert found(tree / "pkg/stopper.py") == [(9, "TCP008")]
    a_new_process()
    assert found(tree / "pkg/stopper.py") == [(9, "TCP008")]  # from the disk cache
    a_new_process()
    (tree / "run.py").write_text("from pkg.restoring import train\n\ndevice = \"cuda\"\n")
    assert found(tree / "pkg/stopper.py") == []


def test_a_new_module_that_an_import_now_finds_invalidates_it(tree: Path) -> None:
    """A module imports its siblings first: a ``helpers.py`` added beside ``api.py`` changes
    what its ``from helpers import make_batch`` finds, though no module read has changed."""
    write(tree, {"helpers.py": HELPERS, "lib/api.py": API, "pkg/user.py": USER})
    a_new_process()
    assert found(tree / "pkg/user.py") == [(5, "TCP005")]
    a_new_process()
    write(tree, {"lib/helpers.py": "def make_batch(n):\n    return [0.0] * n\n"})
    assert found(tree / "pkg/user.py") == []


def test_answers_cut_short_are_not_kept(tmp_path: Path) -> None:
    """A chain longer than a question may follow: asked from its far end, the middle module's
    answer is cut short; kept, it would make the near end's answer depend on which file was
    linted first. Both orders give each file's own answer."""
    depth = project.MAX_HOPS + 3
    for level in range(depth):
        body = f"from m{level + 1} import chain\n" if level + 1 < depth else "import torch\n\n\n"
        body += "def chain():\n    return " + ("chain()\n" if level + 1 < depth else "torch.ones(1)\n")
        write(tmp_path, {f"m{level}.py": body})
    near = depth - project.MAX_HOPS  # its chain is as long as a question may follow
    write(tmp_path, {
        "pyproject.toml": ON,
        "far.py": "import torch\n\nfrom m0 import chain\n\nv = torch.tensor(chain())\n",
        "near.py": f"import torch\n\nfrom m{near} import chain\n\nv = torch.tensor(chain())\n",
    })
    a_new_process()
    alone = found(tmp_path / "near.py")
    assert alone == [(5, "TCP005")]
    a_new_process()
    for entry in entries(tmp_path):
        entry.unlink()
    assert found(tmp_path / "far.py") == []
    assert found(tmp_path / "near.py") == alone
    a_new_process()
    assert found(tmp_path / "near.py") == alone


@pytest.mark.slow
@pytest.mark.parametrize("switch", ["environment", "configuration", "cli", "flake8"])
def test_the_cache_can_be_turned_off(tree: Path, switch: str) -> None:
    environment = {**os.environ}
    command = [sys.executable, "-m", "flake8", "--select", "TC", "pkg/train.py"]
    if switch == "environment":
        environment[project.NO_CACHE_VARIABLE] = "1"
    elif switch == "configuration":
        (tree / "pyproject.toml").write_text(ON + "cache = false\n")
    elif switch == "cli":
        command = [sys.executable, "-m", "flake8_tensorcopy", "--no-cache", "pkg/train.py"]
    else:
        command.append("--tensorcopy-no-cache")
    result = subprocess.run(command, cwd=tree, env=environment, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.count("TCP005") == 2
    assert not (tree / cache.FOLDER_NAME).exists()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["environment", "cli"])
def test_the_user_can_choose_the_cache_folder(tree: Path, tmp_path_factory, how: str) -> None:
    elsewhere = tmp_path_factory.mktemp("caches")
    environment, command = {**os.environ}, [sys.executable, "-m", "flake8_tensorcopy", "pkg/train.py"]
    if how == "environment":
        environment[project.CACHE_DIR_VARIABLE] = str(elsewhere)
    else:
        command[3:3] = ["--cache-dir", str(elsewhere)]
    result = subprocess.run(command, cwd=tree, env=environment, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    assert not (tree / cache.FOLDER_NAME).exists()
    (own,) = elsewhere.iterdir()  # one folder of its own per project
    assert list(own.glob("*.json"))


def test_a_repository_cannot_choose_the_cache_folder(tree: Path, tmp_path_factory, capsys) -> None:
    """A cloned repository's ``cache-dir`` would have every run write, and read back, where
    the repository says (a shared folder another user fills): refused, with a warning."""
    elsewhere = tmp_path_factory.mktemp("caches")
    (tree / "pyproject.toml").write_text(ON + f"cache-dir = {str(elsewhere)!r}\n")
    a_new_process()
    assert found(tree / "pkg/train.py") == EXPECTED
    a_new_process()
    assert list(elsewhere.iterdir()) == []
    assert len(entries(tree)) == 3  # kept in the root's own folder instead
    assert "cache-dir is not honoured" in capsys.readouterr().err


@pytest.mark.slow
def test_a_cache_dir_of_the_wrong_kind_is_a_configuration_error(tree: Path) -> None:
    (tree / "pyproject.toml").write_text(ON + "cache-dir = 3\n")
    result = subprocess.run([sys.executable, "-m", "flake8_tensorcopy", "pkg/train.py"], cwd=tree,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and "cache-dir: must be a folder's path" in result.stderr


def test_a_cache_folder_that_is_a_link_is_refused(tree: Path, tmp_path_factory, capsys) -> None:
    """A committed ``.tensorcopy_cache`` link sends the entries wherever the repository likes."""
    elsewhere = tmp_path_factory.mktemp("linked")
    (tree / cache.FOLDER_NAME).symlink_to(elsewhere, target_is_directory=True)
    a_new_process()
    assert found(tree / "pkg/train.py") == EXPECTED
    a_new_process()
    assert list(elsewhere.iterdir()) == []
    assert "is a link" in capsys.readouterr().err


def test_a_missing_gitignore_and_tag_are_written_again(tree: Path) -> None:
    """A full disk may stop them the first time: the folder existing must not stop them
    being written on a later run."""
    a_new_process()
    found(tree / "pkg/train.py")
    a_new_process()
    folder = tree / cache.FOLDER_NAME
    (folder / ".gitignore").unlink()
    (folder / "CACHEDIR.TAG").write_text("")  # cut short
    for entry in entries(tree):
        entry.unlink()
    found(tree / "pkg/train.py")
    a_new_process()
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")


def _poison(entry: Path, signed: bool) -> None:
    """What an attacker would change: ``make_batch`` returns nothing known."""
    data = entry_data(entry)
    for row in data["answers"]:
        if row[0] == ["exported_call", "make_batch"]:
            row[1] = None
    plant(entry, json.dumps(data).encode(), signed)


def test_an_entry_this_user_did_not_write_is_not_trusted(tree: Path) -> None:
    """A cache committed to the repository, or planted in a shared folder, changes no
    finding: its entries are not signed with this user's key. It is rewritten, never merged."""
    a_new_process()
    assert found(tree / "pkg/train.py") == EXPECTED
    a_new_process()
    helpers = [entry for entry in entries(tree) if entry_data(entry)["module"].endswith("helpers.py")]
    assert len(helpers) == 1
    _poison(helpers[0], signed=False)
    assert found(tree / "pkg/train.py") == EXPECTED
    a_new_process()
    rows = {tuple(row[0]): row[1] for row in entry_data(helpers[0])["answers"]}
    assert rows[("exported_call", "make_batch")] is not None  # the poison was not merged back


def test_another_users_key_signs_nothing_of_ours(tree: Path, tmp_path_factory, monkeypatch) -> None:
    a_new_process()
    monkeypatch.setenv("FLAKE8_TENSORCOPY_KEY_DIR", str(tmp_path_factory.mktemp("their-key")))
    found(tree / "pkg/train.py")
    a_new_process()
    helpers = [entry for entry in entries(tree) if entry_data(entry)["module"].endswith("helpers.py")]
    _poison(helpers[0], signed=True)  # signed with their key
    monkeypatch.undo()
    assert found(tree / "pkg/train.py") == EXPECTED


@pytest.mark.parametrize("where", ["depends", "instance", "import look-up"])
def test_an_entry_naming_a_file_outside_the_project_is_invalid(
        tree: Path, tmp_path_factory, opened: list[str], where: str) -> None:  # noqa: F811
    """A path inside an entry (what an answer depends on, the module of an instance) is
    opened by the next run: one that is not a project's module makes the entry invalid,
    even signed, and nothing outside the root is read."""
    outside = tmp_path_factory.mktemp("outside")
    secret = outside / "secret.py"
    secret.write_text("class Secret:\n    pass\n")
    a_new_process()
    assert found(tree / "pkg/train.py") == EXPECTED
    a_new_process()
    (helpers,) = [entry for entry in entries(tree) if entry_data(entry)["module"].endswith("helpers.py")]
    data = entry_data(helpers)
    for row in data["answers"]:
        if where == "depends":
            row[2][str(secret)] = "0" * 32
        elif where == "instance":
            row[1], row[2] = {"instance": ["Secret", str(secret)]}, {}
        else:
            row[2][f"import\0{secret}\0secret\0" + "1"] = ""
    plant(helpers, json.dumps(data).encode())
    opened.clear()
    assert found(tree / "pkg/train.py") == EXPECTED
    assert [path for path in opened if path.startswith(str(outside))] == []
    a_new_process()
    assert str(secret) not in helpers.read_text()  # rewritten without it


def test_what_an_entry_may_name(tmp_path: Path) -> None:
    root = project.Project(str(tmp_path))
    module, hashed = str(Path(root.root) / "pkg/a.py"), "0" * 32

    def sound(value: object = None, **depends: str) -> bool:
        return root.names_only_modules({("exported_call", "f"): (value, dict(depends))})

    from flake8_tensorcopy.analysis.values import Instance

    assert sound(Instance("Net", module), **{module: hashed, f"import\0{module}\0.b.c\0" + "0": f"{module}\0f",
                                             f"importers\0{module}": "?"})
    assert sound((Instance("Net", ""), None))
    for path in ("/etc/passwd", "/dev/zero", str(Path(root.root) / "data.bin"), "pkg/a.py",
                 str(Path(root.root) / "pkg/../../elsewhere.py"), root.root + "x/a.py"):
        assert not sound(**{path: hashed}), path
        assert not sound((None, Instance("X", path))), path
        assert not sound(**{f"importers\0{path}": "?"}), path
        assert not sound(**{f"import\0{path}\0b\0" + "1": ""}), path
        assert not sound(**{f"import\0{module}\0b\0" + "1": f"{path}\0f"}), path
    assert not sound(**{f"import\0{module}\0/etc/passwd\0" + "1": ""})  # a look-up that names a path
    assert not sound(**{f"import\0{module}\0b\0" + "2": ""})
    assert not sound(**{f"import\0{module}\0b": ""})


def test_the_key_is_the_users_own(tmp_path: Path, monkeypatch) -> None:
    from flake8_tensorcopy.analysis import signing

    folder = tmp_path / "keys"
    monkeypatch.setenv(signing.KEY_DIR_VARIABLE, str(folder))
    monkeypatch.setattr(signing, "_KEYS", {})
    signed = signing.signature(b"entry")
    assert signed is not None and signing.signed_by_us(b"entry", signed.encode())
    assert not signing.signed_by_us(b"entry!", signed.encode())
    assert oct((folder / "key").stat().st_mode & 0o777) == oct(0o600)
    monkeypatch.setattr(signing, "_KEYS", {})
    assert signing.signature(b"entry") == signed  # the next process reads the same key
    (folder / "key").chmod(0o644)  # others could read it, and sign what they like
    monkeypatch.setattr(signing, "_KEYS", {})
    assert signing.signature(b"entry") is None


def test_without_a_key_no_disk_cache_is_kept(tree: Path, tmp_path: Path, monkeypatch) -> None:
    from flake8_tensorcopy.analysis import signing

    (tmp_path / "a file").write_text("")
    monkeypatch.setenv(signing.KEY_DIR_VARIABLE, str(tmp_path / "a file" / "keys"))  # cannot be made
    monkeypatch.setattr(signing, "_KEYS", {})
    a_new_process()
    assert found(tree / "pkg/train.py") == EXPECTED
    a_new_process()
    assert entries(tree) == []


# --- what each module imports, kept by its file's stamp ---------------------------------
CALLED = """\
import torch


def scale(t):
    return torch.tensor(t)  # TCP005: every caller, in the modules that import this one, passes a tensor
"""
CALLER = "import torch\n\nfrom pkg.called import scale\n\nscale(torch.ones(2))\n"


@pytest.fixture()
def callers(tmp_path: Path) -> Path:
    write(tmp_path, {"pyproject.toml": ON, "pkg/__init__.py": "", "pkg/called.py": CALLED,
                     "pkg/caller.py": CALLER, "pkg/other.py": "import os\n"})
    return tmp_path


@pytest.fixture()
def scanned(monkeypatch) -> list[str]:
    """The modules read for their imports from here on."""
    read: list[str] = []
    real = project.Project._code

    def counted(self, path):
        read.append(os.path.basename(path))
        return real(self, path)

    monkeypatch.setattr(project.Project, "_code", counted)
    return read


def test_a_warm_run_reads_no_module_for_its_imports(callers: Path, scanned: list[str]) -> None:
    called = callers / "pkg/called.py"
    assert found(called) == [(5, "TCP005")]
    assert sorted(scanned) == ["__init__.py", "called.py", "caller.py", "other.py"]
    assert (callers / cache.FOLDER_NAME / cache.INDEX_NAME).is_file()
    a_new_process()
    scanned.clear()
    assert found(called) == [(5, "TCP005")]
    assert scanned == []  # every stamp unchanged: the index answers
    a_new_process()
    (callers / "pkg/caller.py").write_text(CALLER.replace("torch.ones(2)", "[1.0, 2.0]"))
    assert found(called) == []  # a caller that now passes a list: read again, its calls too
    assert scanned == ["caller.py"]


@pytest.mark.parametrize("planted", ["unsigned", "outside", "not a name"])
def test_an_index_not_to_be_trusted_is_ignored(callers: Path, scanned: list[str], planted: str) -> None:
    called = callers / "pkg/called.py"
    assert found(called) == [(5, "TCP005")]
    index = callers / cache.FOLDER_NAME / cache.INDEX_NAME
    body = index.read_bytes().partition(b"\n")[2]
    data = json.loads(body)
    caller = next(module for module in data["modules"] if module[0].endswith("caller.py"))
    if planted == "outside":  # a module the index claims outside the root: all of it refused
        data["modules"].append(["/etc/passwd", caller[1], []])
    elif planted == "not a name":
        caller[2] = [["os; rm -rf /", []]]
    else:
        caller[2] = []  # the caller's import removed, and the index not signed by us
    plant(index, json.dumps(data).encode(), signed=planted != "unsigned")
    a_new_process()
    scanned.clear()
    assert found(called) == [(5, "TCP005")]
    assert "caller.py" in scanned  # the index was not used: every module read again


def test_nothing_is_written_beside_loose_files(tmp_path: Path, monkeypatch) -> None:
    """A file in no project (no pyproject.toml, setup.cfg, setup.py or .git above it) reads
    its folder as its project, but writes no cache there: a download folder, an installed
    library. A cache folder the user chose still serves it."""
    loose = tmp_path / "downloads"
    write(loose, {"helpers.py": HELPERS, "use.py": "import torch\n\nfrom helpers import make_batch\n\n"
                                                   "kept = torch.tensor(make_batch(2))  # TCP005\n"})
    monkeypatch.setattr(project, "find_root", lambda path: str(loose.resolve()))  # no marker above tmp_path
    assert found(loose / "use.py") == [(5, "TCP005")]
    project.save_cache()
    assert not (loose / cache.FOLDER_NAME).exists()
    chosen = tmp_path / "chosen"
    monkeypatch.setenv(project.CACHE_DIR_VARIABLE, str(chosen))
    a_new_process()
    assert found(loose / "use.py") == [(5, "TCP005")]
    project.save_cache()
    assert list(chosen.glob("*/*.json"))



def test_the_version_changes_with_any_source_of_the_analysis(tmp_path):
    """Stamped by each file's name, size and time of change: an edit that keeps the size
    still changes the version, and so does a file touched alone."""
    package = tmp_path / "flake8_tensorcopy"
    shutil.copytree(Path(cache.__file__).resolve().parents[1], package, ignore=shutil.ignore_patterns("__pycache__"))

    def version() -> str:
        probe = "from flake8_tensorcopy.analysis import cache; print(cache.__file__); print(cache._version())"
        result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                                timeout=60, check=True)
        where, stamp = result.stdout.split()
        assert Path(where).resolve().is_relative_to(package.resolve())  # the copy, not the install
        return stamp

    first = version()
    assert version() == first
    rule = package / "rules" / "tcp005_tensor_from_tensor.py"
    text = rule.read_text(encoding="utf-8")
    rule.write_text(text.replace("tensor", "Tensor", 1), encoding="utf-8")  # the same size, another text
    edited = version()
    assert edited != first
    server = package / "server" / "protocol.py"
    os.utime(server, ns=(server.stat().st_atime_ns, server.stat().st_mtime_ns + 10**9))
    assert version() == edited  # the language server's own code is not the analysis
    os.utime(rule, ns=(rule.stat().st_atime_ns, rule.stat().st_mtime_ns + 10**9))
    assert version() != edited
