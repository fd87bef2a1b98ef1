"""Reads the scenario and world-profile YAML files, with libyaml's parser when PyYAML has it.

The pure-Python parser took about 40 % of a server's start-up (1.24 s for the 46 files; libyaml's
0.16 s). Both build the same data from our files: tests/scenarios/test_yaml_io.py compares them
on every file shipped.
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["LOADER", "safe_load"]

LOADER: type[yaml.SafeLoader] | type[yaml.CSafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it, else the pure-Python one."""


def safe_load(text: str) -> Any:
    """Parses one YAML document with the safe loader (plain data only)."""
    return yaml.load(text, Loader=LOADER)  # a SafeLoader: no arbitrary objects
