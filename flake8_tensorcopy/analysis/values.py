"""The values the analysis answers with: what a name, an attribute or a call holds.

A tensor's facts are ``vocabulary.TensorInfo``; the rest are here, apart from the module
summary that works them out, so that the disk cache (which stores them) and the summary
need not import each other.
"""

from __future__ import annotations

import enum

from ..runtime.frozen import Frozen
from .library_api import DATASET_TENSOR_FIELDS
from .torch_api import TENSOR_OR_TUPLE_FUNCTIONS, TENSOR_OR_TUPLE_METHODS, TENSOR_TUPLE_FUNCTIONS, TENSOR_TUPLE_METHODS
from .vocabulary import FRESH, TENSOR, TensorInfo


class Holds(enum.Enum):
    """Values that are not tensors but that the rules care about."""

    STATE_DICT = "a state_dict"  # its values share memory with the live weights
    LOADER = "a DataLoader"  # iterating it gives batches of tensors
    TENSORS = "a list of tensors"  # a list or tuple whose every element is a tensor
    TENSOR_OR_TENSORS = "a tensor or a tuple of tensors"  # torch.max(x, ...): each element a tensor
    BATCH = "a batch of a DataLoader"  # unpacking it gives tensors (with the default collate)
    LOSS = "a torch.nn loss module"  # calling it gives a tensor (nn.CrossEntropyLoss())
    TENSOR_TRANSFORM = "a torchvision transform that ends in a tensor"  # Compose([..., ToTensor()])
    PARAM_GROUPS = "an optimizer's param_groups"  # dicts whose "params" are lists of parameters
    PARAM_GROUP = "one of an optimizer's param_groups"
    DISTRIBUTION = "a torch.distributions distribution"  # its samples and log_probs are tensors
    BATCH_STREAM = "a generator of DataLoader batches"  # iterating it gives batches
    TENSOR_STREAM = "a generator of tensors"  # iterating it gives tensors


class Instance(Frozen):
    """An instance of a class defined in this file (``self`` in its methods), or in another
    module of the project."""

    __slots__ = ("cls", "module")
    cls: str  # the class's qualified name in its module: "Trainer", "Outer.Inner"
    module: str  # the path of the module that defines it; "" for the module asked

    def __init__(self, cls: str, module: str = "") -> None:
        self._set(cls=cls, module=module)


class ClassObject(Frozen):
    """A class of the project itself, not an instance of it: a name bound to the class
    (``loader_class = MetaLoader``), handed on (``Builder(data=loader_class)``), and called
    where it arrives (``self.data = data(args)``: an instance of it)."""

    __slots__ = ("cls", "module")
    cls: str  # the class's name at its module's top level
    module: str  # the path of the module that defines it; "" for the module asked

    def __init__(self, cls: str, module: str = "") -> None:
        self._set(cls=cls, module=module)


class LibraryObject(Frozen):
    """An instance of a library's class that a generated table describes: a torchvision
    dataset (``datasets.MNIST(...)``), whose ``data`` and ``targets`` are tensors."""

    __slots__ = ("qualified",)
    qualified: str

    def __init__(self, qualified: str) -> None:
        self._set(qualified=qualified)

    @classmethod
    def made_by(cls, qualified: str) -> LibraryObject | None:
        """What calling the callable ``qualified`` makes, when a table describes it."""
        return cls(qualified) if qualified in DATASET_TENSOR_FIELDS else None

    def attribute(self, name: str) -> Value:
        return TENSOR if name in DATASET_TENSOR_FIELDS.get(self.qualified, ()) else None


# What calling a value of these kinds gives: a loss module a new 0-d tensor, a transform a tensor.
CALLED_FOR_TENSORS: dict[Holds, TensorInfo] = {Holds.LOSS: FRESH, Holds.TENSOR_TRANSFORM: TENSOR}

# A tuple stands for a function's ``return a, b``: what each position holds.
Value = TensorInfo | Holds | Instance | ClassObject | LibraryObject | tuple | None


def torch_tuple_value(qualified: str) -> Value:
    """``torch.topk(...)``: a tuple of tensors; ``torch.max(...)``: a tensor or a tuple of them."""
    name = qualified.removeprefix("torch.")
    if name == qualified or "." in name:
        return None
    return Holds.TENSORS if name in TENSOR_TUPLE_FUNCTIONS else \
        Holds.TENSOR_OR_TENSORS if name in TENSOR_OR_TUPLE_FUNCTIONS else None


def tensor_tuple_value(method: str) -> Value:
    """``t.chunk(2)``: a tuple of tensors; ``t.max(1)``: a tensor or a tuple of them."""
    return Holds.TENSORS if method in TENSOR_TUPLE_METHODS else \
        Holds.TENSOR_OR_TENSORS if method in TENSOR_OR_TUPLE_METHODS else None


def join(values: list[Value]) -> Value:
    """What every one of ``values`` agrees on (None when they disagree or are none)."""
    if not values or any(value is None for value in values):
        return None
    first = values[0]
    if all(value == first for value in values):
        return first
    if all(isinstance(value, TensorInfo) for value in values):
        return TENSOR
    return None
