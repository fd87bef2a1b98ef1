"""The IDE domain: a Python project in a virtual tree, real sandboxed test runs, and verifiers for code.

Modules:

* `kit`: the domain kit every tool, check and setup below is declared on;
* `models`, `events`, `state`: files, blobs, undo steps, runs and pure reducers (`PROJECTION`, `SCHEMA`);
* `paths`, `workspace`: path normalization, the tree's reads and hashes, and `TreeWriter`, the one way
  every tool, generator and setup writes files (it enforces every limit of the tree);
* `tools_files`, `tools_search`, `tools_edit`: the READ and WRITE tools; `views_files`: what they return;
  `tool_helpers`: what they share; `symbols`: the AST index behind `find_symbol`;
* `tools_run`, `sandbox/`, `grade_runs`: test and python runs in a sandboxed child, and the hidden runs at
  grade time;
* `generate` (`gen_*`): the seeded, messy acme project; `task_model`: the hidden task;
* `setups_<family>` (`setup_helpers`, `mutators`, `hidden_tests`) and `checks_<topic>` (`tamper`):
  the task families and their verifiers;
* `data_report`: measured mess of a world; `policy` (`policy.md`): the rules agents see.
"""

from __future__ import annotations

from saas_sim.domains.ide import (
    checks_config,
    checks_flaky,
    checks_function,
    checks_integrity,
    checks_refactor,
    checks_suite_billing,
    checks_tests,
    checks_testwriting,
    setups_bugfix,
    setups_config,
    setups_flaky,
    setups_implement,
    setups_refactor,
    setups_security,
    setups_suite_billing,
    setups_suite_blocker,
    setups_suite_incidents,
    setups_suite_proration,
    setups_suite_tax,
    setups_testwriting,
    tools_edit,
    tools_files,
    tools_run,
    tools_search,
)
from saas_sim.domains.ide.data_report import data_report
from saas_sim.domains.ide.generate import generate
from saas_sim.domains.ide.grade_runs import grade_effects
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.policy import POLICY
from saas_sim.domains.ide.search_index import INDEXES
from saas_sim.domains.ide.state import PROJECTION, SCHEMA

__all__ = ["DOMAIN", "POLICY"]

DOMAIN = kit.domain(
    module=__name__,
    # Tool order agents see: reads (files, then search) before writes, then runs.
    modules=(
        tools_files,
        tools_search,
        tools_edit,
        tools_run,
        checks_tests,
        checks_function,
        checks_integrity,
        checks_refactor,
        checks_flaky,
        checks_config,
        checks_testwriting,
        checks_suite_billing,
        setups_bugfix,
        setups_implement,
        setups_refactor,
        setups_flaky,
        setups_config,
        setups_testwriting,
        setups_security,
        setups_suite_billing,
        setups_suite_proration,
        setups_suite_tax,
        setups_suite_incidents,
        setups_suite_blocker,
    ),
    projection=PROJECTION,
    schema=SCHEMA,
    generate=generate,
    policy=POLICY,
    data_report=data_report,
    indexes=INDEXES,
    mess_params=("mess",),
    grade_effects=grade_effects,
    id_kinds={"run": "run"},
    # The code is the company's own product: its refund, SLA and seat-price constants are the support
    # desk's and the CRM's when the world has them (generate.py reads their ports).
    uses=("crm", "support"),
)
"""The IDE, as the runtime loads it."""
