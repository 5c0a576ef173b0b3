"""The generated table of library conventions (``analysis/library_api.py``) matches
torchvision's own sources, read by the plugin's module summary; the generator's reading is
checked on a small package of its shape; the rules use the table."""

import pytest
from generators import load_generator

from flake8_tensorcopy.analysis import library_api
from flake8_tensorcopy.analysis.cache import decode, encode
from flake8_tensorcopy.analysis.values import LibraryObject
from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.rules import ALL_RULES

def _generator():
    return load_generator("generate_library_api")


@pytest.mark.slow
def test_the_table_is_generated_from_the_pinned_torchvision():
    """The wheel comes from the package index (CI reaches it) and is kept under ~/.cache."""
    generator = _generator()
    assert generator.TABLE.read_text() == generator.generate(), "stale: run `python3 scripts/generate_library_api.py`"


def test_the_table_knows_the_mnist_family_and_not_what_holds_lists():
    fields = library_api.DATASET_TENSOR_FIELDS
    for name in ("MNIST", "FashionMNIST", "KMNIST", "EMNIST", "QMNIST"):
        assert fields[f"torchvision.datasets.{name}"] == {"data", "targets"}
        assert fields[f"torchvision.datasets.mnist.{name}"] == {"data", "targets"}
    # CIFAR's data is a numpy array and its targets a list; ImageFolder's targets a list.
    assert not {"torchvision.datasets.CIFAR10", "torchvision.datasets.ImageFolder"} & fields.keys()


PACKAGE = {
    "__init__.py": "from .base import Base\nfrom .sets import Tensors, Mixed, Loaded, Child\n",
    "base.py": "import torch\n\nclass Base:\n    def __init__(self):\n        self.weights = torch.ones(3)\n",
    "sets.py": (
        "import torch\nfrom .base import Base\n\n"
        "def read(path) -> torch.Tensor:\n    return decode(path)\n\n"
        "class Tensors(Base):\n    def __init__(self, path):\n        self.data, self.targets = self._load(path)\n"
        "    def _load(self, path):\n        return read(path), read(path).long()\n\n"
        "class Mixed:\n    def __init__(self, fast):\n        self.data = torch.zeros(1)\n"
        "        if fast:\n            self.data = []\n\n"
        "class Loaded:\n    def __init__(self, cached, path):\n        if cached:\n"
        "            self.data = torch.load(path)\n            return\n        self.data = read(path)\n\n"
        "class Child(Tensors):\n    pass\n"
    ),
}


def test_the_generator_reads_stores_through_bases_and_unpacking(tmp_path):
    datasets = tmp_path / "torchvision" / "datasets"
    datasets.mkdir(parents=True)
    for name, text in PACKAGE.items():
        (datasets / name).write_text(text)
    fields = _generator().dataset_tensor_fields(tmp_path)
    assert fields["torchvision.datasets.Tensors"] == {"data", "targets", "weights"}  # weights: its base's
    assert fields["torchvision.datasets.sets.Child"] == {"data", "targets", "weights"}
    assert fields["torchvision.datasets.Loaded"] == {"data"}  # torch.load's result is unknown, not other
    assert fields["torchvision.datasets.Base"] == {"weights"}
    assert "torchvision.datasets.Mixed" not in fields  # a list in one branch


def test_a_tabled_instance_is_kept_in_the_disk_cache():
    assert decode(encode(LibraryObject("torchvision.datasets.MNIST"))) == LibraryObject("torchvision.datasets.MNIST")


def test_the_rules_read_the_fields_of_a_tabled_dataset():
    source = (
        "import torch\nfrom torchvision import datasets\n\n"
        "train_set = datasets.MNIST('data', download=True)\n\n\n"
        "def balance(root):\n"
        "    labels = torch.tensor(train_set.targets)\n"
        "    cifar = datasets.CIFAR10(root)\n"
        "    return labels, torch.tensor(cifar.targets), torch.tensor(train_set.classes)\n"
    )
    assert [(f.line, f.code) for f in lint_source(source, rules=ALL_RULES)] == [(8, "TCP005")]
