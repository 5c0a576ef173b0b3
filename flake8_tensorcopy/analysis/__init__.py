"""The analysis layer: what the file's ``ast`` says about values, before any LibCST parse.

``summary`` builds the per-module facts (what the file's own functions return, what
attributes and containers hold); ``torch_api`` is the generated table of what torch's
own type stubs say returns a tensor.
"""
