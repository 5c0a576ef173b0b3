"""What torch's names mean for aliasing, shared by the ``ast`` summary, the gates and
the LibCST inference (no LibCST here: the prefilter path must not import it).

The hand-kept sets say what a type stub cannot: whether a result is newly allocated,
a view, or an index. ``torch_api`` (generated from torch's stubs) says what returns a
tensor at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..runtime.frozen import Frozen


class TensorInfo(Frozen):
    """What is known about a tensor-valued expression."""

    __slots__ = ("parameter", "fresh", "index")
    parameter: bool  # an nn.Parameter (or a loop variable over .parameters())
    fresh: bool  # newly allocated: nothing else can see its memory
    index: bool  # a bool/long tensor: indexing with it is advanced indexing

    def __init__(self, parameter: bool = False, fresh: bool = False, index: bool = False) -> None:
        self._set(parameter=parameter, fresh=fresh, index=index)


TENSOR = TensorInfo()
FRESH = TensorInfo(fresh=True)
FRESH_INDEX = TensorInfo(fresh=True, index=True)
PARAMETER = TensorInfo(parameter=True)

# Attributes of a tensor that are tensors themselves (``x.T``, ``x.data``).
TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data"})
# Attributes that conventionally hold an nn.Parameter (or a normalisation layer's buffer).
PARAMETER_ATTRIBUTES = frozenset(
    {"weight", "bias", "weight_ih", "weight_hh", "bias_ih", "bias_hh", "in_proj_weight", "running_mean", "running_var"}
    # nn.RNN/LSTM/GRU name their parameters per layer and direction: weight_ih_l0_reverse.
    | {f"{kind}_{gate}_l{layer}{direction}" for kind in ("weight", "bias") for gate in ("ih", "hh")
       for layer in range(8) for direction in ("", "_reverse")}
)
# Loops over these bind parameters: ``for p in model.parameters()``.
PARAMETER_ITERATORS = frozenset({"parameters", "buffers"})
NAMED_PARAMETER_ITERATORS = frozenset({"named_parameters", "named_buffers"})

# torch functions that return a newly allocated tensor.
FRESH_FUNCTIONS = frozenset(
    """
    tensor zeros ones empty full rand randn randint normal arange linspace logspace eye
    zeros_like ones_like empty_like full_like rand_like randn_like randint_like
    stack cat concat concatenate hstack vstack dstack column_stack where matmul mm bmm
    einsum exp log log1p sqrt rsqrt abs sigmoid tanh relu softmax log_softmax sum mean
    prod cumsum cumprod std var add sub subtract mul multiply div divide true_divide
    argmax argmin floor_divide remainder pow clamp clip maximum minimum tril triu outer cross dot
    clone flip roll sin cos erf floor ceil round sign neg reciprocal masked_select
    index_select gather cdist bernoulli multinomial polar complex atan2 lerp baddbmm
    addmm addmv addcmul addcdiv kron tile repeat_interleave cartesian_prod
    """.split()
)
# torch functions that return a bool or long tensor: advanced indices.
INDEX_FUNCTIONS = frozenset(
    """
    nonzero argsort randperm randint isnan isinf isfinite isclose eq ne gt ge lt le
    logical_and logical_or logical_not logical_xor bucketize searchsorted multinomial
    """.split()
)
# (``argmax``/``argmin`` return long tensors that are 0-d without ``dim``: indexing with
# a 0-d integer tensor is basic indexing, a view. They are fresh, not index evidence.)
# torch constructors whose result is a long/bool index tensor when given integer literals.
INDEX_CONSTRUCTORS = frozenset({"tensor", "as_tensor", "LongTensor", "BoolTensor", "IntTensor"})
INDEX_DTYPES = frozenset({"long", "int64", "int", "int32", "bool", "int16", "int8", "uint8"})
TORCH_PREFIXES = ("torch.", "torch.cuda.")
FUNCTIONAL_PREFIX = "torch.nn.functional."
PARAMETER_CONSTRUCTORS = frozenset(
    {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.parameter.Buffer"}
)
TENSOR_ANNOTATIONS = frozenset(
    {"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor"}
)
# The legacy constructors: ``torch.Tensor(x)``, ``torch.cuda.LongTensor(x)``. Whatever they are
# given they return a tensor, which may be ``x`` itself (a tensor of the same type).
_LEGACY_TYPES = "Float Double Half BFloat16 Byte Char Short Int Long Bool".split()
LEGACY_CONSTRUCTORS = frozenset(
    {"torch.Tensor"} | {f"torch.{module}{kind}Tensor" for kind in _LEGACY_TYPES for module in ("", "cuda.")}
)
# Words in a name tested by ``if is_best:`` that say a metric improved (a best-model branch).
METRIC_FLAGS = ("best", "improv")
# Context managers (and decorators) under which no autograd graph is recorded.
NO_GRAD_CONTEXTS = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad"})
DATA_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
# The pre-0.4 wrapper, still common in application code: ``Variable(t)`` takes only a tensor
# (anything else raises TypeError) and returns a tensor sharing its storage.
VARIABLE_CONSTRUCTORS = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
# Base classes of modules whose call runs ``forward``: any class of ``torch.nn`` but these.
_NOT_MODULES = ("torch.nn.utils", "torch.nn.parameter", "torch.nn.init", "torch.nn.functional",
                "torch.nn.Parameter", "torch.nn.Buffer", "torch.nn.Uninitialized")
LIGHTNING_MODULES = frozenset({
    "pytorch_lightning.LightningModule", "pytorch_lightning.core.LightningModule",
    "lightning.LightningModule", "lightning.pytorch.LightningModule",
})


def is_module_base(qualified: str) -> bool:
    """``nn.Module``, ``nn.Linear``, ``pl.LightningModule``: calling an instance runs ``forward``."""
    return (qualified.startswith("torch.nn.") and not qualified.startswith(_NOT_MODULES)) \
        or qualified in LIGHTNING_MODULES


# Tensor methods whose result shares memory with the receiver.
VIEW_METHODS = frozenset(
    """
    detach view view_as expand expand_as t transpose permute squeeze unsqueeze narrow
    select unfold diagonal as_strided unflatten movedim moveaxis swapaxes swapdims
    """.split()
)
# Methods numpy arrays have too, but taking a dtype (``view``) or nothing callable (``size``,
# an int) where a tensor's take sizes or a dimension: called with an integer literal among
# the arguments (``x.view(-1, 5)``, ``x.size(0)``) the receiver can only be a tensor. A
# file's own classes define ``size()`` too (a replay buffer's), but without a dimension.
SIZED_TENSOR_METHODS = frozenset({"view", "size"})

# Conversions that return the receiver itself when no conversion is needed.
CONVERSION_METHODS = frozenset(
    """
    to cpu cuda float double half bfloat16 int long short bool byte char type
    contiguous reshape reshape_as flatten
    """.split()
)
# Tensor methods that return a new tensor (out of place).
FRESH_METHODS = frozenset(
    """
    clone add sub mul div true_divide floor_divide remainder fmod pow matmul mm bmm
    sum mean prod std var norm abs exp log log1p sqrt rsqrt neg reciprocal sigmoid tanh
    relu softmax log_softmax clamp clip cumsum cumprod masked_fill index_select gather
    repeat tile flip roll tril triu sign floor ceil round trunc sin cos
    new_zeros new_ones new_empty new_full new_tensor masked_select argmax argmin
    """.split()
)
INDEX_METHODS = frozenset(
    """
    nonzero argsort eq ne gt ge lt le isnan isinf isfinite logical_not
    logical_and logical_or logical_xor
    """.split()
)


def is_inplace_method(name: str) -> bool:
    """``add_``, ``copy_``; not ``__iadd__``-style dunders nor ``_private_``."""
    return name.endswith("_") and not name.endswith("__") and not name.startswith("_")


# In-place methods that change metadata or autograd state, not the values (`rename_`:
# named tensors, gone from torch 2.13, kept for code written against older torch).
_NON_WRITING_INPLACE = frozenset({"requires_grad_", "share_memory_", "detach_", "rename_"})


def writes_in_place(method: str) -> bool:
    return is_inplace_method(method) and method not in _NON_WRITING_INPLACE


# The collectives that write the result into the tensor they are given (torch.distributed's
# docs: "in-place"); tests/test_project.py checks each is a function of the pinned torch.
IN_PLACE_COLLECTIVES = frozenset({
    "torch.distributed.all_reduce", "torch.distributed.broadcast", "torch.distributed.reduce",
    "torch.distributed.recv", "torch.distributed.irecv",
})


def writes_first_argument(qualified: str) -> bool:
    """A torch function that writes its first argument in place: ``torch.nn.init.normal_``,
    ``torch.add_``-like names, nn.init's deprecated names (``nn.init.normal``) and the
    in-place collectives (``dist.all_reduce(t)``)."""
    from .torch_api import DEPRECATED_INIT_FUNCTIONS

    return (qualified.startswith("torch.") and writes_in_place(qualified.rpartition(".")[2])) \
        or qualified in DEPRECATED_INIT_FUNCTIONS or qualified in IN_PLACE_COLLECTIVES


# -- numpy arrays of tensors (TCP010 and its gate) ---------------------------------
# Array methods that return a view of the array (when they can: ``reshape``, ``ravel``).
NUMPY_ARRAY_VIEWS = frozenset({"reshape", "transpose", "squeeze", "swapaxes", "view", "ravel"})
# numpy functions that return a view of their first argument (or the array itself: asarray).
NUMPY_VIEW_FUNCTIONS = frozenset(
    {"transpose", "squeeze", "reshape", "swapaxes", "moveaxis", "ravel", "expand_dims", "asarray"}
)
# Array methods that write into the array.
NUMPY_WRITING_METHODS = frozenset({"fill", "sort", "put", "partition", "itemset"})
# Functions that write into their first argument: ``np.random.shuffle(a)``, ``np.copyto(a, v)``.
NUMPY_WRITING_FUNCTIONS = frozenset({"shuffle", "copyto", "putmask", "place", "fill_diagonal"})
# Attributes of a tensor that may be a module's Parameter (TCP011): not the running
# statistics, which are buffers.
TIED_PARAMETER_ATTRIBUTES = PARAMETER_ATTRIBUTES - {"running_mean", "running_var"}


# -- writes through .data (TCP001 and its gate) -----------------------------------
# Receivers whose ``.data`` is an ordinary attribute, not ``Tensor.data``
# (``self.data`` in a Dataset, ``args.data`` from argparse).
NOT_TENSOR_NAMES = frozenset(
    {"self", "cls", "args", "opt", "opts", "options", "config", "cfg", "conf", "hparams", "settings"}
)
# The words of a function's name that make it an initialiser (``__init__``,
# ``reset_parameters``, ``weights_init``, ``_init_weights``, ``initialize``, ``initWeights``):
# it runs before any graph has saved the tensors it writes.
_INITIALISER_WORDS = frozenset({"init", "initialize", "initialise", "initialization", "initialisation", "reinit"})
_NAME_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# The receivers of a ``.step()`` that ends a training step (an optimizer, a grad scaler),
# not an environment's or a scheduler's.
_STEPPING = re.compile(r"opt|scaler", re.IGNORECASE)


def initialiser_name(name: str) -> bool:
    """Whether a function called ``name`` initialises parameters (see :data:`_INITIALISER_WORDS`)."""
    if name in ("reset_parameters", "_reset_parameters", "reset_params"):
        return True
    return any(word.lower() in _INITIALISER_WORDS for word in _NAME_WORDS.findall(name))


def ends_a_step(method: str, receiver: str) -> bool:
    """``loss.backward()``, ``optimizer.step()``, ``scaler.step(opt)``: a call after which the
    graphs built so far are spent (``receiver`` is the last name of what it is called on)."""
    return method in BACKWARD_CALLEES or (method == "step" and _STEPPING.search(receiver) is not None)


# -- losses and graphs (TCP009 and its gate) ---------------------------------------
# Callees whose result is a loss, judged by the name they are called by.
LOSS_NAMES = frozenset({"criterion", "loss", "loss_fn", "loss_func", "loss_function", "lossfn"})
FUNCTIONAL_LOSSES = frozenset({"cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"})
BACKWARD_CALLEES = frozenset({"backward", "manual_backward"})
# Methods that end the graph, and methods whose result stays in it.
DETACHING = frozenset({"item", "detach", "tolist", "numpy", "data"})
GRAPH_PRESERVING = frozenset(
    """
    mean sum cpu cuda to float double half view reshape squeeze unsqueeze clone mul add div sub
    pow abs sqrt exp log neg contiguous flatten expand sigmoid
    """.split()
)
# torch functions that make a new tensor that no graph leads to, whatever they are given
# (unless asked for ``requires_grad=True``): a leaf, not a result of an operation. Not the
# legacy constructors: ``torch.FloatTensor(t)`` of a float tensor is an alias in its graph.
GRAPHLESS_FACTORIES = frozenset(
    f"torch.{name}" for name in """
    zeros ones empty full zeros_like ones_like empty_like full_like rand randn randint rand_like
    randn_like randint_like randperm arange linspace logspace eye tensor
    """.split()
)
# torch functions that join their first argument's tensors: a graph only where one of them has one.
JOINING = frozenset({"torch.stack", "torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack"})
ACCUMULATING_METHODS = frozenset({"append", "extend", "insert"})
PLAIN_BUILTINS = frozenset({"float", "int", "bool", "len", "str", "round", "abs"})
# Functions of these modules return plain numbers or arrays, never a tensor with a graph.
PLAIN_MODULES = ("numpy.", "math.", "statistics.")
DATA_HINTS = ("loader", "batch", "data", "iterator")


def is_loss_call(callee: str, arguments: int, constructor: str) -> bool:
    """``criterion(out, y)``: a loss of predictions and targets, judged by the ``callee``'s
    name and the number of ``arguments``; ``constructor`` names the call that made the
    callee (``MSELoss`` of ``nn.MSELoss()(a, b)``), else "". One argument or none is more
    often a constructor or a getter: ``loss_fn(model)``, ``self._get_aux_loss()``."""
    if arguments < 2:
        return False
    if callee in LOSS_NAMES or callee in FUNCTIONAL_LOSSES or callee.endswith(("_loss", "_criterion")):
        return True
    return constructor.endswith("Loss")


def over_data(words: set[str]) -> bool:
    """Whether the names of a loop's header say it runs over batches of data."""
    return any(hint in part for word in words for part in word.lower().split(".") for hint in DATA_HINTS)


# -- state_dict snapshots (TCP008 and its gate) -------------------------------------
# Receivers whose state_dict() holds plain values, not tensors that alias live state:
# schedulers, grad scalers, data loaders (``prepared_dl``), samplers, datasets, iterators.
_PLAIN_STATE_HINTS = ("sched", "scaler", "loader", "sampler", "lr_", "dataset", "iterator")
DICT_COPIES = frozenset({"dict", "OrderedDict", "collections.OrderedDict", "copy.copy"})
TRAINING_METHODS = frozenset({"backward", "step"})
SAVING = ("save", "dump")


# A program that picks the CPU as its device: a fallback when CUDA is missing (``... else
# "cpu"``), ``"cpu" if args.cpu``, ``device = "cpu"`` (a default too), ``default="cpu"``, or a
# ``--cpu``/``--no-cuda`` flag. Moving a value there (``.to("cpu")``, ``map_location``) is no choice.
_CPU_DEVICE = re.compile(
    rb"""\belse\s+(?:torch\.device\(\s*)?['"]cpu['"]"""
    rb"""|['"]cpu['"]\s*\)?\s+if\b"""
    rb"""|\bdevice\s*(?::\s*[\w.]+\s*)?=\s*(?:torch\.device\(\s*)?['"]cpu['"]"""
    rb"""|\bdefault\s*=\s*['"]cpu['"]"""
    rb"""|['"]--(?:cpu|no[-_]cuda|no[-_]gpu|use[-_]cpu)['"]"""
)


def chooses_cpu_device(text: bytes) -> bool:
    """Whether a module's text picks the CPU as the device it runs on (``_CPU_DEVICE``)."""
    return _CPU_DEVICE.search(text) is not None


# torchvision's (v1) transforms that return a tensor whenever they return: ToTensor and
# PILToTensor make one (from a PIL image or an array); the others accept only tensors.
TENSOR_TRANSFORMS = frozenset({"ToTensor", "PILToTensor", "Normalize", "ConvertImageDtype"})
_TRANSFORM_MODULES = ("torchvision.transforms.transforms.", "torchvision.transforms.")


def torchvision_transform(qualified: str) -> str | None:
    """``torchvision.transforms.ToTensor`` -> ``"ToTensor"``: the name of one of torchvision's
    (v1) transform classes; None for anything else (v2's, whose transforms pass through
    what they do not handle, included)."""
    for module in _TRANSFORM_MODULES:
        name = qualified.removeprefix(module)
        if name != qualified:
            return name if "." not in name else None
    return None


def is_loss_module(qualified: str) -> bool:
    """``torch.nn.CrossEntropyLoss``, ``torch.nn.modules.loss.MSELoss``: a loss class, whose
    instances return a tensor when called."""
    name = qualified.rpartition(".")[2]
    return qualified.startswith("torch.nn.") and name.endswith("Loss") and name[:1].isupper()


def holds_live_state(receiver: str) -> bool:
    """Whether ``receiver.state_dict()`` (``receiver`` dotted, "" when not a plain name)
    may alias live tensors."""
    receiver = receiver.lower()
    return not any(hint in receiver for hint in _PLAIN_STATE_HINTS) and not receiver.endswith("dl")


class CallShape:
    """What :func:`torch_function_info` asks of a call's arguments; the ``ast`` and the
    LibCST side each answer it for their own nodes."""

    def single_argument(self) -> bool:
        raise NotImplementedError

    def integer_literals(self) -> bool:
        """``torch.tensor([0, 2])``, or a long/bool ``dtype=``: an index tensor."""
        raise NotImplementedError

    def float_arange(self) -> bool:
        """``torch.arange(0, 1, 0.1)`` or with a dtype: maybe not an integer tensor."""
        raise NotImplementedError


def torch_function_info(qualified: str, call: CallShape) -> TensorInfo | None:
    """What calling the torch function ``qualified`` returns, when it is a tensor."""
    from .torch_api import TORCH_FUNCTIONS

    if qualified in PARAMETER_CONSTRUCTORS:
        return PARAMETER
    if qualified in VARIABLE_CONSTRUCTORS:
        return TENSOR
    if qualified.startswith(FUNCTIONAL_PREFIX):
        return FRESH
    for prefix in TORCH_PREFIXES:
        if qualified.startswith(prefix):
            name = qualified[len(prefix) :]
            if name == "where" and call.single_argument():
                return None  # a tuple of index tensors
            if name in INDEX_CONSTRUCTORS and call.integer_literals():
                return FRESH_INDEX
            if name == "arange" and not call.float_arange():
                return FRESH_INDEX
            if name in INDEX_FUNCTIONS:
                return FRESH_INDEX
            if name in FRESH_FUNCTIONS:
                return FRESH
            if prefix == "torch." and name in TORCH_FUNCTIONS:
                return TENSOR  # may share memory with its argument (from_numpy, as_tensor)
    return TENSOR if qualified in LEGACY_CONSTRUCTORS else None


# Functions of array libraries that answer in the array type of their inputs (their
# "backend"): a tensor in, a tensor out. POT (``import ot``, 0.8 and later) picks the
# backend of its arguments with ``ot.backend.get_backend`` and refuses a mix; with
# ``log=True`` these return a tuple. einops answers in the type of the tensor it is given.
# Neither package is a dependency here to generate this from, hence a short list.
BACKEND_FOLLOWING = frozenset({
    "ot.dist", "ot.emd", "ot.emd2", "ot.sinkhorn", "ot.sinkhorn2", "ot.bregman.sinkhorn",
    "einops.einsum", "einops.rearrange", "einops.reduce", "einops.repeat",
})


def gives_tensor_for_tensor(qualified: str, keywords: Iterable[str | None]) -> bool:
    """Whether a call of ``qualified`` gives a tensor back when one of its positional
    arguments is a tensor: a numpy ufunc (``np.exp(t)``: a tensor for a CPU tensor, an error
    for a CUDA one; with ``out=`` it returns that array instead), or a function that follows
    its inputs' backend (``ot.sinkhorn(a, b, M, reg)``, ``einops.rearrange(t, ...)``).
    ``keywords``: the call's keyword names, None for a ``**`` (which may hold any)."""
    from .torch_api import NUMPY_TENSOR_UFUNCS

    keywords = set(keywords)
    if None in keywords:
        return False
    if qualified in BACKEND_FOLLOWING:
        return "log" not in keywords
    return qualified.startswith("numpy.") and qualified[len("numpy.") :] in NUMPY_TENSOR_UFUNCS and "out" not in keywords


def tensor_method_info(method: str, receiver: TensorInfo, copies: bool) -> TensorInfo | None:
    """What ``tensor.method(...)`` returns; ``copies``: a ``copy=True`` conversion."""
    if method in INDEX_METHODS:
        return FRESH_INDEX
    if method in FRESH_METHODS:
        return FRESH
    if method in VIEW_METHODS or method in CONVERSION_METHODS:
        index = method in ("long", "bool") or (method == "to" and receiver.index)
        if method in CONVERSION_METHODS and copies:
            return FRESH_INDEX if index else FRESH
        return TensorInfo(index=True) if index else TENSOR
    if is_inplace_method(method):
        return receiver
    from .torch_api import TENSOR_METHODS

    if method in TENSOR_METHODS:
        return TENSOR
    return None


# torch.nn modules that hold no parameter and no buffer (as built by default): repeating
# one instance of these in a container shares nothing that trains.
STATELESS_MODULES = frozenset(
    f"torch.nn.{name}"
    for name in """
    Identity Flatten Unflatten ReLU ReLU6 LeakyReLU ELU SELU CELU GELU SiLU Mish Sigmoid Tanh
    Hardtanh Hardswish Hardsigmoid Softplus Softsign Softshrink Hardshrink Tanhshrink Threshold
    LogSigmoid GLU Softmax Softmin LogSoftmax Softmax2d Dropout Dropout1d Dropout2d Dropout3d
    AlphaDropout FeatureAlphaDropout MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d
    AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d
    AdaptiveMaxPool3d LPPool1d LPPool2d LPPool3d FractionalMaxPool2d FractionalMaxPool3d
    MaxUnpool1d MaxUnpool2d MaxUnpool3d Upsample UpsamplingNearest2d UpsamplingBilinear2d
    PixelShuffle PixelUnshuffle ChannelShuffle ZeroPad1d ZeroPad2d ZeroPad3d ConstantPad1d
    ConstantPad2d ConstantPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d
    ReplicationPad1d ReplicationPad2d ReplicationPad3d CircularPad1d CircularPad2d
    CircularPad3d CosineSimilarity PairwiseDistance Fold Unfold
    """.split()
)
# The containers that register the modules handed to them.
MODULE_CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict"})
