"""How the analysis behaves in a long-lived host: the cycle collector paused while a part is
analysed (``collector``), freed memory handed back (``memory``), a language server's pulls
served first (``yielding``), caches bounded by size (``bounded``), and immutable values that
cost nothing to define at import (``frozen``)."""
