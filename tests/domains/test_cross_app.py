"""A world holding both the CRM and the support desk links support customers to CRM contacts."""

from __future__ import annotations

from saas_sim.runtime.environment import Environment


async def test_suite_world_links_support_customers_to_crm_contacts() -> None:
    async with Environment("sqlite+aiosqlite:///:memory:") as env:
        profile = env.profiles["suite-smb"]
        world = await env.world(profile, 0)
        report = env.domains["support"].data_report
        assert report is not None
        support = dict(report(world.state))
        # Second-address records (a customer writing from another email) stay unlinked, as in production.
        assert support["customers"] * 0.9 <= support["crm_linked_customers"] <= support["customers"]


async def test_suite_world_is_deterministic_across_environments() -> None:
    async with Environment("sqlite+aiosqlite:///:memory:") as a, Environment("sqlite+aiosqlite:///:memory:") as b:
        wa = await a.world(a.profiles["suite-smb"], 3)
        wb = await b.world(b.profiles["suite-smb"], 3)
    assert wa.world_hash == wb.world_hash
