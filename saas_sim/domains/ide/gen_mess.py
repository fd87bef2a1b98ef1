"""The mess of a generated project: stale comments, TODOs, dead code, long modules and distractor files.

Everything here is valid Python (or Markdown/INI) drawn from a seeded stream; none of it
is imported by the core modules, so no distractor changes what a task's tests compute.
The legacy billing module is the deliberate trap: it has a `late_fee` with other rules.
"""

from __future__ import annotations

import random

__all__ = ["distractor_files", "filler_module", "messy_suffix"]

_AREAS = ("reports", "integrations", "exports", "jobs", "admin", "notifications", "analytics", "crm_sync")
_NOUNS = ("invoice", "account", "ticket", "refund", "plan", "seat", "customer", "payout", "ledger", "quota",
          "coupon", "renewal", "usage", "credit", "order", "region")
_VERBS = ("build", "sync", "load", "compute", "export", "collect", "merge", "resolve", "render", "scan")
_TODOS = ("TODO: remove after the Q3 migration", "FIXME: this double counts credits (ACME-1182)",
          "TODO(jk): ask finance", "XXX: temporary hack for the Stripe outage", "TODO: add tests",
          "HACK: keep in sync with the support desk", "NOTE: rounding changed in 2021, comment may be stale")


def _name(rng: random.Random) -> str:
    return f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}_{rng.choice(_NOUNS)}"


def _function(rng: random.Random, used: set[str]) -> str:
    name = _name(rng)
    while name in used:
        name = f"{name}_{len(used)}"
    used.add(name)
    style = rng.randrange(4)
    todo = f"    # {rng.choice(_TODOS)}\n" if rng.random() < 0.3 else ""
    if style == 0:
        return (f"def {name}(rows, key={rng.choice(_NOUNS)!r}):\n"
                f'    """Groups rows by {{key}} and counts them."""\n{todo}'
                "    out = {}\n    for row in rows:\n        k = row.get(key)\n"
                "        out[k] = out.get(k, 0) + 1\n    return out\n")
    if style == 1:
        factor = rng.randint(2, 120)
        return (f"def {name}(amount, rate={factor}):\n{todo}"
                f"    # legacy: rate is per mille, not percent\n"
                "    if amount is None:\n        return 0\n"
                "    return amount * rate // 1000\n")
    if style == 2:
        return (f"def {name}(items):\n    \"\"\"Deprecated. Use acme.{rng.choice(_AREAS)}.{_name(rng)}.\"\"\"\n{todo}"
                "    result = []\n    for i in items:\n        if i:\n            result.append(str(i).strip())\n"
                "    return sorted(set(result))\n")
    limit = rng.randint(3, 500)
    return (f"def {name}(values, limit={limit}):\n{todo}"
            "    total = 0\n    for v in values[:limit]:\n        total += v\n"
            "    return total  # misleading name kept for API compatibility\n")


def filler_module(rng: random.Random, title: str, functions: int) -> str:
    """A plausible, unused module of `functions` small functions."""
    used: set[str] = set()
    head = f'"""{title}."""\n\n' if rng.random() < 0.8 else f"# {title}\n\n"
    if rng.random() < 0.4:
        head += "import os  # unused\n\n"
    parts = [_function(rng, used) for _ in range(functions)]
    return head + "\n\n".join(parts)


def messy_suffix(rng: random.Random, functions: int) -> str:
    """Dead code and leftovers appended to a core module (long modules)."""
    used: set[str] = set()
    out = ["", "", f"# {rng.choice(_TODOS)}", "# --- helpers below are not used anymore (kept for the v1 API) ---", ""]
    for _ in range(functions):
        out.append(_function(rng, used))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


_LEGACY_BILLING = '''"""OLD billing code (floats). Kept for the 2019 reports. Not used by acme.billing."""


def late_fee(balance, days_late, grace=%d):
    # the pre-2020 rule: a flat %d%% once past the grace period
    if days_late < grace:
        return 0.0
    return round(balance * %d / 100.0, 2)


def invoice_total(lines, tax=0.%02d):
    return sum(q * p for q, p in lines) * (1 + tax)
'''


def distractor_files(rng: random.Random, count: int) -> dict[str, str]:
    """About `count` distractor files: legacy code, scripts, docs and filler modules."""
    files: dict[str, str] = {
        "acme/legacy/__init__.py": "",
        "acme/legacy/billing_v1.py": _LEGACY_BILLING % (rng.randint(3, 30), rng.randint(2, 9),
                                                        rng.randint(2, 9), rng.randint(5, 9)),
        "docs/billing.md": "# Billing\n\nLate fees: see acme/billing/invoice.py. The numbers in this page are "
                           f"from {rng.randint(2018, 2022)} and may be out of date.\n\n- grace period: "
                           f"{rng.randint(3, 30)} days\n- tax: {rng.randint(5, 9)}%\n",
        "scripts/backfill_invoices.py": '"""One-off backfill (ran once in 2021)."""\n\n'
                                        "import sys\n\n\nif __name__ == \"__main__\":\n"
                                        "    print(\"nothing to do\", file=sys.stderr)\n",
    }
    areas = sorted(rng.sample(_AREAS, k=min(len(_AREAS), max(1, count // 20 + 1))))
    for area in areas:
        files[f"acme/{area}/__init__.py"] = ""
    k = 0
    while len(files) < count:
        area = areas[k % len(areas)]
        path = f"acme/{area}/{rng.choice(_NOUNS)}_{rng.choice(_VERBS)}_{k:03d}.py"
        files[path] = filler_module(rng, f"{area.replace('_', ' ').title()} helpers", rng.randint(1, 6))
        k += 1
    return files
