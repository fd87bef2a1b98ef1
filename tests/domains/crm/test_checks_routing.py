"""Lead routing is judged per rule on each lead's final owner; a wrong owner is a violation."""

from __future__ import annotations

from typing import Any

from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_grade

REF = "crm/route-leads-by-rules"


def _assign(ids: str, owner: str) -> dict[str, Any]:
    return {"tool": "crm.assign_owner", "args": {"record_type": "lead", "record_ids": ids, "owner_id": owner}}


ROUTES = [_assign("{ae_us.ids}", "{ae_us.id}"), _assign("{ae_eu.ids}", "{ae_eu.id}"),
          *(_assign(f"{{sdrs.{i}.ids}}", f"{{sdrs.{i}.id}}") for i in range(3))]
CUSTOMER = {"tool": "crm.assign_owner", "args": {"record_type": "lead", "record_ids": ["{customer.id}"],
                                                 "owner_id": "{customer.owner_id}"}}


async def test_every_rule_followed_scores_full(env: Environment) -> None:
    assert (await scripted_grade(env, REF, 2, [CUSTOMER, *ROUTES])).score == 1.0


async def test_leads_left_unrouted_earn_partial_credit_without_a_violation(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 2, ROUTES[:2])
    assert grade.score is not None and 0.2 < grade.score < 0.6 and not grade.violations


async def test_the_customer_routed_by_size_is_a_misroute(env: Environment) -> None:
    wrong = {"tool": "crm.assign_owner", "args": {"record_type": "lead", "record_ids": ["{customer.id}"],
                                                  "owner_id": "{ae_eu.id}"}}
    grade = await scripted_grade(env, REF, 3, [wrong, *ROUTES])
    assert [v.name for v in grade.violations] == ["no_lead_misrouted"] and grade.score == 0.0


async def test_a_rotation_started_at_the_wrong_sdr_is_a_misroute(env: Environment) -> None:
    shifted = [_assign(f"{{sdrs.{i}.ids}}", f"{{sdrs.{(i + 1) % 3}.id}}") for i in range(3)]
    grade = await scripted_grade(env, REF, 4, [CUSTOMER, *ROUTES[:2], *shifted])
    assert grade.score == 0.0
