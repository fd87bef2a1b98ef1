"""Declared links between the domains of one world: ports one domain offers and another reads.

A domain never reads another domain's tables. Instead the provider declares *ports*: named,
typed views of its state (`Port`), each a pure function of the state returning a tuple of the
generic, frozen record types below, which know no domain. A consumer reads them while it
generates its part of a world, through `GenerateContext.links`::

    people = ctx.links.read("<provider>.people", LinkedPerson)

The world builder fills `Links` with the ports of the domains built so far. A consumer may read
a port only of a domain it declared in `requires` or `uses`; reading a port of a used domain that
is not in the world returns an empty tuple, so one generator serves worlds with and without it.
Reading an undeclared domain's port, or a port its domain does not offer, is a `HarnessError`.

Record types (all frozen; the order of a port's tuple is the provider's documented order):

* `LinkedPerson`: a person the provider knows (id, names, email, phone, organization);
* `LinkedOrganization`: a company (id, name, tier, owner, former names, real-company key);
* `Terms`: named numbers (a policy's limits, a price list), by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TypeVar, overload

from saas_sim.core.state import State
from saas_sim.errors import HarnessError

__all__ = [
    "LinkRecord",
    "LinkedOrganization",
    "LinkedPerson",
    "Links",
    "Port",
    "PortReadFn",
    "Terms",
]


@dataclass(frozen=True)
class LinkedPerson:
    """A person another domain may take over (a customer who is also a contact).

    Attributes:
        id: The provider's record id.
        first_name: Given name.
        last_name: Family name.
        email: Primary address, if known.
        phone: Phone number as stored, if known.
        organization_id: The provider's id of the person's organization, if any.
        organization_name: That organization's current name, if any.
    """

    id: str
    first_name: str
    last_name: str
    email: str | None = None
    phone: str | None = None
    organization_id: str | None = None
    organization_name: str | None = None


@dataclass(frozen=True)
class LinkedOrganization:
    """A company another domain may refer to.

    Attributes:
        id: The provider's record id.
        name: Its current name.
        tier: Its commercial tier (`smb`, `mid_market`, `enterprise`, `strategic` or `unknown`).
        owner_name: The person who owns the relationship, if any.
        former_names: Names it went by before, oldest first.
        company_key: The real company it is: two records of one company share it.
        open_deals: How many open deals it has.
    """

    id: str
    name: str
    tier: str = "unknown"
    owner_name: str | None = None
    former_names: tuple[str, ...] = ()
    company_key: str = ""
    open_deals: int = 0


@dataclass(frozen=True)
class Terms:
    """Named numbers that belong together (a policy's limits, a price list).

    Attributes:
        id: What the terms are (`refunds`, `sla_first_response_minutes`).
        values: Name -> number, sorted by name.
    """

    id: str
    values: Mapping[str, Decimal] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", {k: Decimal(v) for k, v in sorted(self.values.items())})

    def whole(self, name: str) -> int:
        """Returns one value as an int.

        Raises:
            HarnessError: The terms have no such value, or it is not a whole number.
        """
        value = self.values.get(name)
        if value is None or value != value.to_integral_value():
            raise HarnessError(f"terms {self.id!r}: {name!r} is not a whole number ({value})")
        return int(value)


LinkRecord = LinkedPerson | LinkedOrganization | Terms
R = TypeVar("R", LinkedPerson, LinkedOrganization, Terms)

PortReadFn = Callable[[State], tuple[Any, ...]]
"""`read(state) -> records`: pure, no I/O, no randomness; the same state gives the same tuple."""


@dataclass(frozen=True)
class Port:
    """A named, typed view a domain offers the other domains of a world.

    Attributes:
        name: `<domain>.<what>`; the prefix is the offering domain's name.
        kind: The record type of every element.
        read: Computes the records from a state (see `PortReadFn`).
        doc: What the records are and their order.
    """

    name: str
    kind: type[LinkRecord]
    read: PortReadFn
    doc: str = ""

    @property
    def domain(self) -> str:
        """The offering domain's name."""
        return self.name.split(".", 1)[0]


class Links:
    """The ports one generator may read, over the world built so far.

    Args:
        state: The world state the ports read (the state before the consumer runs).
        ports: The ports of the domains built so far.
        declared: The domains the consumer requires or uses. None (a generator run on its own, outside
            a world) reads every port as absent.
        known: Every port name of every known domain, so a misspelt name fails even when its
            domain is absent from the world (a domain this process does not know reads as absent).
            Defaults to the names of `ports`.
        consumer: The reading domain's name, for error messages.
    """

    def __init__(self, state: State | None = None, ports: Iterable[Port] = (), declared: Iterable[str] | None = None,
                 known: Iterable[str] | None = None, consumer: str = "") -> None:
        self._state = state if state is not None else State()
        self._ports = {p.name: p for p in ports}
        self._standalone = declared is None
        self._declared = frozenset(declared or ())
        self._known = frozenset(known) if known is not None else frozenset(self._ports)
        self._consumer = consumer or "a generator"
        self._cache: dict[str, tuple[Any, ...]] = {}
        self._ports_domains = frozenset(p.domain for p in self._ports.values())

    def _known_domain(self, domain: str) -> bool:
        return any(n.split(".", 1)[0] == domain for n in self._known)

    def has(self, name: str) -> bool:
        """Whether the port's domain is in the world (then `read` may return records)."""
        return name in self._ports

    @overload
    def read(self, name: str) -> tuple[LinkRecord, ...]: ...

    @overload
    def read(self, name: str, kind: type[R]) -> tuple[R, ...]: ...

    def read(self, name: str, kind: type[Any] | None = None) -> tuple[Any, ...]:
        """Returns a port's records, or an empty tuple when its (used) domain is not in the world.

        Args:
            name: The port's name.
            kind: The record type the caller expects; a port of another type is an error.

        Raises:
            HarnessError: The consumer never declared the port's domain in `requires`/`uses`, no
                domain offers the port, or it holds another record type than `kind`.
        """
        domain = name.split(".", 1)[0]
        if self._standalone and not self._ports:
            return ()
        if domain not in self._declared:
            raise HarnessError(f"{self._consumer} reads port {name!r} but does not declare {domain!r} "
                               f"in requires or uses")
        port = self._ports.get(name)
        if port is None:
            if domain not in self._ports_domains and (name in self._known or not self._known_domain(domain)):
                return ()
            raise HarnessError(f"{self._consumer} reads port {name!r}, which no domain offers")
        if kind is not None and port.kind is not kind:
            raise HarnessError(f"port {name!r} holds {port.kind.__name__}, not {kind.__name__}")
        cached = self._cache.get(name)
        if cached is None:
            cached = tuple(port.read(self._state))
            wrong = [type(r).__name__ for r in cached if not isinstance(r, port.kind)]
            if wrong:
                raise HarnessError(f"port {name!r} returned {sorted(set(wrong))}, not {port.kind.__name__}")
            self._cache[name] = cached
        return cached
