"""saas_sim: deterministic, event-sourced simulated SaaS backends for agent RL."""

from saas_sim.core.batching import AppendResult as AppendResult
from saas_sim.core.events import Event as Event
from saas_sim.core.events import EventRegistry as EventRegistry
from saas_sim.core.events import RecordedEvent as RecordedEvent
from saas_sim.core.events import event as event
from saas_sim.core.events import upcaster as upcaster
from saas_sim.core.state import Entity as Entity
from saas_sim.core.state import Projection as Projection
from saas_sim.core.state import State as State
from saas_sim.core.state import Table as Table
from saas_sim.core.state import TableKey as TableKey
from saas_sim.core.state import ValueKey as ValueKey
from saas_sim.core.store import EventStore as EventStore
from saas_sim.core.store import open_store as open_store
from saas_sim.errors import SaasSimError as SaasSimError
from saas_sim.errors import ToolError as ToolError

__all__ = [
    "AppendResult",
    "Entity",
    "Event",
    "EventRegistry",
    "EventStore",
    "Projection",
    "RecordedEvent",
    "SaasSimError",
    "State",
    "Table",
    "TableKey",
    "ToolError",
    "ValueKey",
    "event",
    "open_store",
    "upcaster",
]
from saas_sim._version import __version__ as __version__
