"""The engine gives freed parse memory back on glibc (bench/run.py measures what it saves)."""

import platform

import pytest

from flake8_tensorcopy import memory


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_malloc_trim_is_found_on_glibc():
    # A failed lookup would be silent: the peak RSS of a flake8 run would grow again.
    assert memory._MALLOC_TRIM is not None
    assert memory._MALLOC_TRIM(0) in (0, 1)  # 1: memory was released, 0: there was none
