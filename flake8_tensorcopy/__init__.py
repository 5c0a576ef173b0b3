"""flake8-tensorcopy: lint PyTorch tensor copy and alias mistakes."""

__version__ = "0.1.0"
