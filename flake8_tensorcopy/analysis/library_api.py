"""Generated from the sources of torchvision 0.28.0 by
`python3 scripts/generate_library_api.py`: do not edit.

DATASET_TENSOR_FIELDS: torchvision's dataset classes (qualified both ways) -> the
attributes that hold tensors (``MNIST(...).targets``): some store of the class or its
bases gives a tensor, and none gives anything else that the module summary knows.
"""

DATASET_TENSOR_FIELDS = {
    'torchvision.datasets.CelebA': frozenset(['attr']),
    'torchvision.datasets.EMNIST': frozenset(['data', 'targets']),
    'torchvision.datasets.FashionMNIST': frozenset(['data', 'targets']),
    'torchvision.datasets.KMNIST': frozenset(['data', 'targets']),
    'torchvision.datasets.MNIST': frozenset(['data', 'targets']),
    'torchvision.datasets.MovingMNIST': frozenset(['data']),
    'torchvision.datasets.QMNIST': frozenset(['data', 'targets']),
    'torchvision.datasets.celeba.CelebA': frozenset(['attr']),
    'torchvision.datasets.mnist.EMNIST': frozenset(['data', 'targets']),
    'torchvision.datasets.mnist.FashionMNIST': frozenset(['data', 'targets']),
    'torchvision.datasets.mnist.KMNIST': frozenset(['data', 'targets']),
    'torchvision.datasets.mnist.MNIST': frozenset(['data', 'targets']),
    'torchvision.datasets.mnist.QMNIST': frozenset(['data', 'targets']),
    'torchvision.datasets.moving_mnist.MovingMNIST': frozenset(['data']),
}
