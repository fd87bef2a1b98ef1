"""Search benchmark: p50 latency of search and filter tools on small and big worlds.

Each case is one READ call through the whole episode path (`Episode.call`),
repeated on one episode whose world is the named profile. A case runs twice:
on the episode as it starts (its state is the shared world plus the setup's
events) and after one WRITE (so the state is a version the episode derived
itself, as in any real episode). The figures are medians in microseconds, and
`*_ratio` divides a big world's figure by its small twin's: a search that uses
an index costs about the same on both.

Queries are picked from the world itself (a contact's last name, an account's
id) at fixed positions in id order, so every run asks the same questions.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable
from typing import Any

from saas_sim.core.clock import perf_ns
from saas_sim.core.state import State
from saas_sim.runtime.environment import Environment
from saas_sim.scenarios.model import Limits

__all__ = ["SEARCH_CASES", "search_latencies"]

Args = dict[str, Any]


def _nth(state: State, table: str, frac: float) -> Any:
    ids = state.raw_table(table).ids()
    return state.raw_table(table).get(ids[int(frac * (len(ids) - 1))])


def _crm_cases(state: State) -> dict[str, tuple[str, Args]]:
    contact = _nth(state, "crm.contacts", 0.37)
    account = _nth(state, "crm.accounts", 0.61)
    lead = _nth(state, "crm.leads", 0.5)
    domain = contact.email.split("@", 1)[1] if contact.email else "example"
    return {
        "contacts_by_last_name": ("crm.search_contacts", {"query": contact.last_name}),
        "contacts_by_email_domain": ("crm.search_contacts", {"query": domain}),
        "contacts_by_account": ("crm.search_contacts", {"account_id": account.id, "limit": 100}),
        "contacts_listing": ("crm.search_contacts", {}),
        "leads_by_name": ("crm.search_leads", {"query": lead.last_name}),
        "accounts_by_name": ("crm.search_accounts", {"query": account.name.split()[0]}),
        "deals_by_account": ("crm.search_deals", {"account_id": account.id}),
        "deals_open_by_close_date": ("crm.search_deals", {"status": "open", "sort": "close_date"}),
        "activities_by_account": ("crm.list_activities", {"account_id": account.id}),
    }


def _support_cases(state: State) -> dict[str, tuple[str, Args]]:
    customer = _nth(state, "support.customers", 0.4)
    return {
        "customers_by_name": ("support.search_customers", {"name": customer.name.split()[-1]}),
        "customers_by_email": ("support.search_customers", {"email": customer.email}),
        "tickets_open": ("support.list_tickets", {"status": ["new", "open"]}),
        "tickets_by_requester": ("support.list_tickets", {"requester_id": customer.id}),
        "tickets_search": ("support.search_tickets", {"query": "refund"}),
        "customer_orders": ("support.list_customer_orders", {"customer_id": customer.id}),
        "kb_search": ("support.search_kb_articles", {"query": "return policy"}),
    }


def _ide_cases(state: State) -> dict[str, tuple[str, Args]]:
    return {
        "code_literal": ("ide.search_code", {"query": "def round_cents"}),
        "code_common_word": ("ide.search_code", {"query": "return"}),
        "code_regex": ("ide.search_code", {"query": r"def \w+_total", "regex": True}),
        "find_files": ("ide.find_files", {"pattern": "**/*.py"}),
        "find_symbol": ("ide.find_symbol", {"name": "round_cents"}),
    }


SEARCH_CASES: dict[str, tuple[str, tuple[str, str], Callable[[State], dict[str, tuple[str, Args]]]]] = {
    # family: (scenario whose tools and setup are used, (small profile, big profile), cases)
    "crm": ("crm/pipeline-report", ("crm-smb", "crm-enterprise"), _crm_cases),
    "support": ("support/route-vip-ticket", ("support-default", "support-default"), _support_cases),
    "ide": ("ide/fix-in-large-repo", ("ide-default", "ide-large"), _ide_cases),
}
"""Every family measured: its scenario, its small and big world profiles, and its cases."""

_WRITES: dict[str, tuple[str, Callable[[State], Args]]] = {
    # One harmless WRITE per family, so the "after a write" figures read a state the episode derived.
    "crm": ("crm.log_activity", lambda s: {"kind": "note", "subject": "bench",
                                           "contact_id": _nth(s, "crm.contacts", 0.5).id}),
    "support": ("support.add_internal_note", lambda s: {"ticket_id": _nth(s, "support.tickets", 0.5).id,
                                                        "body": "bench"}),
    "ide": ("ide.create_file", lambda s: {"path": "bench_note.txt", "content": "bench\n"}),
}


async def _time_calls(episode: Any, tool: str, args: Args, repeats: int, tag: str) -> float:
    times: list[float] = []
    for i in range(repeats):
        t0 = perf_ns()
        result = await episode.call(tool, args, f"{tag}-{i}")
        times.append((perf_ns() - t0) / 1000)
        if not result.ok:
            raise RuntimeError(f"benchmark search {tool}({args}) failed: {result.error}")
    return statistics.median(times)


async def search_latencies(env: Environment, *, repeats: int = 50,
                           families: tuple[str, ...] = ("crm", "support", "ide")) -> dict[str, Any]:
    """Measures every search case on each family's small and big world; returns flat figures in µs.

    Keys: `search_<family>_<case>_<profile>_p50_us`, the same with `_after_write`, and
    `search_<family>_<case>_ratio` (big over small, as the episode starts).
    """
    out: dict[str, Any] = {}
    for family in families:
        ref, profiles, cases_of = SEARCH_CASES[family]
        base = env.scenario(ref)
        for profile_name in dict.fromkeys(profiles):
            sc = dataclasses.replace(
                base, profile=env.profiles[profile_name],
                spec=base.spec.model_copy(update={"limits": Limits(max_steps=10_000, sim_time_s=1e9)}))
            state = (await env.task(sc, 0)).world.state
            cases = cases_of(state)
            tag = profile_name.replace("-", "_")
            write_tool, write_args = _WRITES[family]
            for name, (tool, args) in cases.items():
                # A fresh episode per case and phase: an episode's own bookkeeping grows with its steps.
                for phase in ("", "_after_write"):
                    episode = await env.start(sc, 0, faults=None)
                    if phase:
                        written = await episode.call(write_tool, write_args(state), "bench-write")
                        if not written.ok:
                            raise RuntimeError(f"benchmark write {write_tool} failed: {written.error}")
                    await episode.call(tool, args, "warm")
                    out[f"search_{family}_{name}_{tag}{phase}_p50_us"] = round(
                        await _time_calls(episode, tool, args, repeats, name), 1)
                    await episode.close()
        small, big = (p.replace("-", "_") for p in profiles)
        if small != big:
            for name in cases_of(state):
                lo = out[f"search_{family}_{name}_{small}_p50_us"]
                hi = out[f"search_{family}_{name}_{big}_p50_us"]
                out[f"search_{family}_{name}_ratio"] = round(hi / lo, 2) if lo else None
    return out
