import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The disk cache's signing key (analysis/signing.py) lives in the user's cache folder: the
# tests, and the flake8 and CLI processes they start, keep theirs in a folder of their own.
_KEYS = tempfile.TemporaryDirectory(prefix="tensorcopy-test-key-")
os.environ["FLAKE8_TENSORCOPY_KEY_DIR"] = _KEYS.name
