"""The built-in domains. Each registers one `Domain` value in its package's `DOMAIN`."""

from __future__ import annotations

import importlib

from saas_sim.core.domain import Domain

__all__ = ["BUILTIN_DOMAIN_MODULES", "builtin_domains"]

BUILTIN_DOMAIN_MODULES: tuple[str, ...] = ("saas_sim.domains.crm", "saas_sim.domains.support", "saas_sim.domains.ide")
"""Modules whose `DOMAIN` attribute is a built-in domain, in a fixed order."""


def builtin_domains() -> dict[str, Domain]:
    """Returns the built-in domains by name. An import error is a bug and stays loud."""
    domains: dict[str, Domain] = {}
    for module_name in BUILTIN_DOMAIN_MODULES:
        domain = importlib.import_module(module_name).DOMAIN
        if not isinstance(domain, Domain):
            raise TypeError(f"{module_name}.DOMAIN is not a Domain")
        domains[domain.name] = domain
    return domains
