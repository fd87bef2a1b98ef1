"""saas_sim: deterministic, event-sourced simulated SaaS backends for agent RL.

The public API, in one place::

    from saas_sim import Environment

    async with Environment() as env:
        episode = await env.start("crm/advance-qualified-deal", seed=0)
        result = await episode.call("crm.get_deal", {"deal_id": "dl_000026"})
        grade = await episode.grade()

* running episodes: `Environment`, `Episode`, `CallResult`, `Grade`, `CheckScore`, `Violation`;
* writing a domain: `Domain`, `tool`, `READ`, `WRITE`, `ToolArgs`, `ToolContext`, `ToolResult`,
  `Setup`, `SetupContext`, `CheckContext`, `CheckOutcome`, `GenerateContext`, and the state kernel
  (`State`, `Projection`, `Entity`, `Table`, `TableKey`, `ValueKey`);
* events and storage: `Event`, `event`, `upcaster`, `EventRegistry`, `RecordedEvent`,
  `EventStore`, `open_store`, `AppendResult`;
* errors: the root `SaasSimError`, `ToolError` (the only one agents observe), `HarnessError`,
  `VerifierError`, `UsageError`, `ScenarioError`, `StoreError`.

The runtime names load on first use (PEP 562), so `import saas_sim.core.events`
does not pay for the runtime; `python -X importtime -c "import saas_sim"` shows it.
"""

from __future__ import annotations

# Private aliases: the module's namespace holds the public API and nothing else.
import importlib as _importlib
import typing as _typing

from saas_sim._version import __version__ as __version__
from saas_sim.core.batching import AppendResult as AppendResult
from saas_sim.core.conventions import CONVENTIONS as CONVENTIONS
from saas_sim.core.domain import CheckContext as CheckContext
from saas_sim.core.domain import CheckOutcome as CheckOutcome
from saas_sim.core.domain import Domain as Domain
from saas_sim.core.domain import GenerateContext as GenerateContext
from saas_sim.core.domain import Setup as Setup
from saas_sim.core.domain import SetupContext as SetupContext
from saas_sim.core.events import Event as Event
from saas_sim.core.events import EventRegistry as EventRegistry
from saas_sim.core.events import RecordedEvent as RecordedEvent
from saas_sim.core.events import event as event
from saas_sim.core.events import upcaster as upcaster
from saas_sim.core.kit import DomainKit as DomainKit
from saas_sim.core.paging import Page as Page
from saas_sim.core.paging import PageArgs as PageArgs
from saas_sim.core.state import Entity as Entity
from saas_sim.core.state import Projection as Projection
from saas_sim.core.state import State as State
from saas_sim.core.state import Table as Table
from saas_sim.core.state import TableKey as TableKey
from saas_sim.core.state import ValueKey as ValueKey
from saas_sim.core.store import EventStore as EventStore
from saas_sim.core.store import open_store as open_store
from saas_sim.core.tools import READ as READ
from saas_sim.core.tools import WRITE as WRITE
from saas_sim.core.tools import ToolArgs as ToolArgs
from saas_sim.core.tools import ToolContext as ToolContext
from saas_sim.core.tools import ToolResult as ToolResult
from saas_sim.core.tools import tool as tool
from saas_sim.errors import HarnessError as HarnessError
from saas_sim.errors import SaasSimError as SaasSimError
from saas_sim.errors import ScenarioError as ScenarioError
from saas_sim.errors import StoreError as StoreError
from saas_sim.errors import ToolError as ToolError
from saas_sim.errors import UsageError as UsageError
from saas_sim.errors import VerifierError as VerifierError

if _typing.TYPE_CHECKING:
    from saas_sim.runtime.environment import Environment as Environment
    from saas_sim.runtime.episode import CallResult as CallResult
    from saas_sim.runtime.episode import Episode as Episode
    from saas_sim.runtime.grading import CheckScore as CheckScore
    from saas_sim.runtime.grading import Grade as Grade
    from saas_sim.runtime.grading import Violation as Violation

__all__ = [
    "CONVENTIONS",
    "READ",
    "WRITE",
    "AppendResult",
    "CallResult",
    "CheckContext",
    "CheckOutcome",
    "CheckScore",
    "Domain",
    "DomainKit",
    "Entity",
    "Environment",
    "Episode",
    "Event",
    "EventRegistry",
    "EventStore",
    "GenerateContext",
    "Grade",
    "HarnessError",
    "Page",
    "PageArgs",
    "Projection",
    "RecordedEvent",
    "SaasSimError",
    "ScenarioError",
    "Setup",
    "SetupContext",
    "State",
    "StoreError",
    "Table",
    "TableKey",
    "ToolArgs",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "UsageError",
    "ValueKey",
    "VerifierError",
    "Violation",
    "event",
    "open_store",
    "tool",
    "upcaster",
]

_LAZY: dict[str, str] = {
    "CallResult": "saas_sim.runtime.episode",
    "CheckScore": "saas_sim.runtime.grading",
    "Environment": "saas_sim.runtime.environment",
    "Episode": "saas_sim.runtime.episode",
    "Grade": "saas_sim.runtime.grading",
    "Violation": "saas_sim.runtime.grading",
}
"""Public runtime names -> the module that defines them, imported on first access."""


def __getattr__(name: str) -> _typing.Any:
    """Imports a runtime name on first use and caches it in the module (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'saas_sim' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Lists the public names, the lazy ones included."""
    return sorted(set(globals()) | set(__all__))
