"""Regenerate ``flake8_tensorcopy/analysis/library_api.py`` from torchvision's own sources:
``python3 scripts/generate_library_api.py [TORCHVISION_WHEEL_OR_FOLDER]``.

torchvision is read, never imported (nothing of it runs, and its CUDA build of PyPI does not
load beside the CPU torch that the tests pin): the sources come from the wheel of
:data:`TORCHVISION`, the release made for the pinned torch, downloaded from the package
index into :data:`WHEELS` unless a wheel or an unpacked folder is given.
``tests/test_library_api.py`` regenerates the table and compares.

What is read: the dataset classes that ``torchvision/datasets/__init__.py`` exports, and for
each the attributes its methods and its bases' methods store on ``self`` (``self.data,
self.targets = self._load_data()``), each store judged by the plugin's own module summary,
as it judges a project's code. An attribute holds tensors when some store gives a tensor and
none gives anything else the summary knows (a list, a number): what ``torch.load`` reads
back is unknown, so MNIST's cached-files branch neither adds nor removes. A subclass's
inherited stores are judged as its base's methods compute them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from flake8_tensorcopy.analysis.summary import ModuleSummary
from flake8_tensorcopy.analysis.vocabulary import TensorInfo

TABLE = Path(__file__).resolve().parent.parent / "flake8_tensorcopy" / "analysis" / "library_api.py"
TORCHVISION = "0.28.0"  # the release for torch 2.13.0, which pyproject.toml's test extra pins
WHEELS = Path.home() / ".cache" / "flake8-tensorcopy-tables"


def torchvision_wheel() -> Path:
    """The wheel of :data:`TORCHVISION` (any platform's: only its Python sources are read)."""
    found = sorted(WHEELS.glob(f"torchvision-{TORCHVISION}-*.whl"))
    if not found:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
             "--python-version", "3.11", "--platform", "manylinux_2_28_x86_64",
             "--dest", str(WHEELS), f"torchvision=={TORCHVISION}"],
            check=True,
        )
        found = sorted(WHEELS.glob(f"torchvision-{TORCHVISION}-*.whl"))
    return found[0]


def _datasets_folder(source: Path, scratch: Path) -> Path:
    if source.is_dir():
        return source / "torchvision" / "datasets"
    with zipfile.ZipFile(source) as wheel:
        for name in wheel.namelist():
            if name.startswith("torchvision/datasets/") and name.endswith(".py"):
                wheel.extract(name, scratch)
    return scratch / "torchvision" / "datasets"


class _Package:
    """The modules of ``torchvision.datasets``, summarised as the plugin summarises a file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._summaries: dict[str, ModuleSummary | None] = {}

    def summary(self, module: str) -> ModuleSummary | None:
        if module not in self._summaries:
            path = self.folder / f"{module}.py"
            if path.is_file():
                source = path.read_text(encoding="utf-8")
                self._summaries[module] = ModuleSummary.of(ast.parse(source), source)
            else:
                self._summaries[module] = None
        return self._summaries[module]

    def exported(self) -> dict[str, str]:
        """class name -> the module defining it, from ``from .module import A, B``."""
        tree = ast.parse((self.folder / "__init__.py").read_text(encoding="utf-8"))
        return {
            alias.asname or alias.name: node.module
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
            for alias in node.names
        }

    def lineage(self, module: str, name: str, seen: frozenset[tuple[str, str]] = frozenset()) -> list[tuple[ModuleSummary, str]]:
        """The class and its bases inside the package, each with its module's summary."""
        summary = self.summary(module)
        node = summary.definition(name) if summary is not None else None
        if not isinstance(node, ast.ClassDef) or (module, name) in seen:
            return []
        found = [(summary, name)]
        for base in node.bases:
            if not isinstance(base, ast.Name):
                continue
            if isinstance(summary.definition(base.id), ast.ClassDef):
                found += self.lineage(module, base.id, seen | {(module, name)})
            elif (home := _imported_from(summary.tree, base.id)) is not None:
                found += self.lineage(home, base.id, seen | {(module, name)})
        return found


def _imported_from(tree: ast.Module, name: str) -> str | None:
    """The sibling module that ``from .module import name`` names."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            if any((alias.asname or alias.name) == name for alias in node.names):
                return node.module
    return None


def dataset_tensor_fields(source: Path) -> dict[str, frozenset[str]]:
    with tempfile.TemporaryDirectory() as scratch:
        package = _Package(_datasets_folder(source, Path(scratch)))
        table = {}
        for name, module in sorted(package.exported().items()):
            stores: dict[str, list[object]] = {}
            for summary, cls in package.lineage(module, name):
                for attribute, values in summary.stored_values(cls).items():
                    stores.setdefault(attribute, []).extend(values)
            fields = frozenset(
                attribute for attribute, values in stores.items()
                if any(isinstance(v, TensorInfo) for v in values) and all(v is None or isinstance(v, TensorInfo) for v in values)
            )
            if fields:
                table[f"torchvision.datasets.{name}"] = fields
                table[f"torchvision.datasets.{module}.{name}"] = fields
        return dict(sorted(table.items()))


def render(fields: dict[str, frozenset[str]]) -> str:
    lines = [
        f'"""Generated from the sources of torchvision {TORCHVISION} by',
        "`python3 scripts/generate_library_api.py`: do not edit.",
        "",
        "DATASET_TENSOR_FIELDS: torchvision's dataset classes (qualified both ways) -> the",
        "attributes that hold tensors (``MNIST(...).targets``): some store of the class or its",
        "bases gives a tensor, and none gives anything else that the module summary knows.",
        '"""',
        "",
        "DATASET_TENSOR_FIELDS = {",
    ]
    for name, attributes in fields.items():
        lines.append(f"    {name!r}: frozenset({sorted(attributes)!r}),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate(source: Path | None = None) -> str:
    return render(dataset_tensor_fields(source if source is not None else torchvision_wheel()))


if __name__ == "__main__":
    TABLE.write_text(generate(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
    sys.stdout.write(f"wrote {TABLE}\n")
