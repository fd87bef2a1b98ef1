"""The domain kit: names come from the function, and nothing is registered by accident or lost."""

from __future__ import annotations

import sys
import types

import pytest
from pydantic import Field

from saas_sim.core.domain import CheckContext, CheckOutcome, GenerateContext, Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.core.kit import DomainKit
from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Projection
from saas_sim.core.tools import READ, WRITE, ToolArgs, ToolContext, ToolResult
from saas_sim.errors import HarnessError


class EchoArgs(ToolArgs):
    text: str = Field(description="What to echo.")


class Echo(ToolResult):
    text: str


def _generate(ctx: GenerateContext) -> list[Event]:
    return []


def _module(name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module
    return module


def _declare(kit: DomainKit, module: types.ModuleType) -> None:
    """Declares two tools, a check and a setup as if they were written in `module`."""

    def echo(ctx: ToolContext, args: EchoArgs) -> Echo:
        """Echoes the text."""
        return Echo(text=args.text)

    def shout(ctx: ToolContext, args: EchoArgs) -> Echo:
        """Echoes the text in capitals."""
        return Echo(text=args.text.upper())

    def echoed(ctx: CheckContext) -> CheckOutcome:
        return CheckOutcome.passed("ok")

    def staged(ctx: SetupContext) -> Setup:
        return Setup(bindings={})

    for fn in (echo, shout, echoed, staged):
        fn.__module__ = module.__name__
    kit.tool(READ)(echo)
    kit.tool(WRITE, cost_s=7)(shout)
    kit.check(echoed)
    kit.setup(staged)


def _build(kit: DomainKit, *modules: types.ModuleType) -> object:
    return kit.domain(module="x", modules=modules, projection=Projection(kit.name), schema=StateSchema(tables=[]),
                      generate=_generate)


def test_names_are_the_domain_and_the_function_and_order_follows_the_modules() -> None:
    kit = DomainKit("kitdemo")
    first, second = _module("kitdemo_first"), _module("kitdemo_second")
    _declare(kit, second)

    def later(ctx: ToolContext, args: EchoArgs) -> Echo:
        """Echoes later."""
        return Echo(text=args.text)

    later.__module__ = first.__name__
    kit.tool(READ)(later)
    domain = kit.domain(module="kitdemo_first", modules=(first, second), projection=Projection("kitdemo"),
                        schema=StateSchema(tables=[]), generate=_generate)
    assert [t.name for t in domain.tools] == ["kitdemo.later", "kitdemo.echo", "kitdemo.shout"]
    assert domain.tools[2].sim_cost.total_seconds() == 7
    assert list(domain.checks) == ["kitdemo.echoed"] and list(domain.setups) == ["kitdemo.staged"]
    assert domain.module == "kitdemo_first"


def test_a_module_that_declares_but_is_not_listed_is_refused() -> None:
    kit = DomainKit("kitlost")
    listed, forgotten = _module("kitlost_listed"), _module("kitlost_forgotten")
    _declare(kit, forgotten)
    with pytest.raises(HarnessError, match=r"kitlost_forgotten.*not listed"):
        _build(kit, listed)


def test_a_listed_module_that_declares_nothing_is_refused() -> None:
    kit = DomainKit("kitempty")
    used, empty = _module("kitempty_used"), _module("kitempty_empty")
    _declare(kit, used)
    with pytest.raises(HarnessError, match="declare nothing"):
        _build(kit, used, empty)


def test_a_name_declared_twice_is_refused() -> None:
    kit = DomainKit("kittwice")
    module = _module("kittwice_m")
    _declare(kit, module)
    with pytest.raises(HarnessError, match=r"kittwice\.echo is declared twice"):
        _declare(kit, module)


def test_a_domain_name_must_be_an_identifier() -> None:
    with pytest.raises(HarnessError, match="identifier"):
        DomainKit("not a name")
