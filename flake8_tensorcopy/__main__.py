"""``python -m flake8_tensorcopy``: the same command line as ``flake8-tensorcopy``."""

from .cli import main

raise SystemExit(main())
