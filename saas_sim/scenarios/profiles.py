"""World profiles: the `seeds/<name>.yaml` files that say which domains a world holds.

A profile names the domains of a world, in generation order, and each
domain's generator parameters::

    name: crm-smb
    epoch: "2026-03-02T09:00:00Z"
    domains:
      crm: {accounts: 60, contacts: 400}

Profiles are files, like scenario files, so they live in the scenarios layer;
`runtime.world` builds worlds from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from saas_sim.core.clock import DEFAULT_EPOCH
from saas_sim.errors import ScenarioFileError
from saas_sim.scenarios.yaml_io import safe_load

__all__ = ["WorldProfile", "load_profiles"]


class WorldProfile(BaseModel):
    """A world profile file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    description: str = ""
    epoch: datetime = DEFAULT_EPOCH
    domains: dict[str, dict[str, Any]] = Field(min_length=1)

    @field_validator("epoch")
    @classmethod
    def _aware(cls, v: datetime) -> datetime:
        if v.tzinfo is None:
            raise ValueError("epoch must carry a timezone (use ...Z)")
        return v

    def scaled(self, factor: int) -> WorldProfile:
        """Returns the profile with every integer count multiplied by `factor` (for benchmarks)."""
        domains = {
            name: {k: v * factor if isinstance(v, int) and not isinstance(v, bool) else v
                   for k, v in params.items()}
            for name, params in self.domains.items()
        }
        return self.model_copy(update={"name": f"{self.name}-x{factor}", "domains": domains})


def load_profiles(dirs: Sequence[Path]) -> dict[str, WorldProfile]:
    """Loads every `*.yaml` profile in `dirs`; later folders override earlier ones.

    Raises:
        ScenarioFileError: A profile file is malformed (the message names the file and field).
    """
    profiles: dict[str, WorldProfile] = {}
    for folder in dirs:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.yaml")):
            try:
                raw = safe_load(path.read_text(encoding="utf-8"))
                profile = WorldProfile.model_validate(raw)
            except (yaml.YAMLError, OSError) as exc:
                raise ScenarioFileError(f"{path}: cannot read world profile: {exc}") from exc
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                raise ScenarioFileError(f"{path}: field {where!r}: {first['msg']}") from exc
            if profile.name != path.stem:
                raise ScenarioFileError(f"{path}: field 'name' is {profile.name!r}, expected {path.stem!r}")
            profiles[profile.name] = profile
    return profiles
