"""Small IDE worlds for the workspace tests: a file map folded into a state, and a runner for the tools."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from saas_sim.core.state import State
from saas_sim.core.tool_errors import bad_args
from saas_sim.core.tools import ToolSpec
from saas_sim.domains.ide import tools_edit, tools_files, tools_search
from saas_sim.domains.ide.events import BaseMarked
from saas_sim.domains.ide.state import PROJECTION
from saas_sim.domains.ide.workspace import TreeWriter
from tests.domains.helpers import ToolRunner

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for module in (tools_files, tools_search, tools_edit)
    for spec in vars(module).values()
    if isinstance(spec, ToolSpec)
}
"""Every READ and WRITE tool of the workspace, by name."""

SMALL_PROJECT: dict[str, str] = {
    "README.md": "# acme\n\nBilling helpers.\n",
    "acme/__init__.py": "",
    "acme/billing/__init__.py": "",
    "acme/billing/invoice.py": (
        '"""Invoices."""\n'
        "from acme.utils.money import round_cents\n"
        "\n"
        "TAX_RATE = 0.2\n"
        "\n"
        "\n"
        "class Invoice:\n"
        "    def __init__(self, amount):\n"
        "        self.amount = amount\n"
        "\n"
        "    def total(self):\n"
        "        return round_cents(self.amount * (1 + TAX_RATE))\n"
    ),
    "acme/utils/__init__.py": "",
    "acme/utils/money.py": (
        "def round_cents(value):\n"
        "    # TODO: banker's rounding?\n"
        "    return round(value, 2)\n"
    ),
    "tests/test_invoice.py": (
        "from acme.billing.invoice import Invoice\n"
        "\n"
        "\n"
        "def test_total():\n"
        "    assert Invoice(10).total() == 12.0\n"
    ),
}


def world(files: Mapping[str, str] = SMALL_PROJECT) -> State:
    """Returns the state of a world holding `files`, with the base marked."""
    writer = TreeWriter(State())
    for path, text in files.items():
        writer.write(path, text, operation="generate")
    return PROJECTION.fold(State(), [*writer.events, BaseMarked()])


class IdeRunner(ToolRunner):
    """Runs the workspace tools on a state, validating raw arguments like the runtime does."""

    def __init__(self, state: State | None = None) -> None:
        super().__init__(world() if state is None else state, NOW, PROJECTION)

    def parse(self, tool: str, args: dict[str, Any]) -> tuple[ToolSpec, BaseModel]:
        spec = TOOLS[tool]
        try:
            return spec, spec.args_model.model_validate(args)
        except ValidationError as exc:
            # As the runtime does: a schema failure is an invalid_argument naming the field paths.
            fields = sorted({".".join(str(p) for p in err["loc"]) for err in exc.errors()})
            raise bad_args(f"invalid arguments for {tool}", fields) from None
