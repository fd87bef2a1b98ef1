"""The package version, in a leaf module so any layer can read it without importing the public API."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
"""saas_sim's release; part of `runtime.world.code_version`, so a bump invalidates cached worlds."""
