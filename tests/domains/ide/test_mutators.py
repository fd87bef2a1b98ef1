"""AST bug injection: every modifier class finds sites, edits only its span, and combines."""

from __future__ import annotations

import ast

import pytest

from saas_sim.domains.ide.generate import build_project
from saas_sim.domains.ide.mutators import MUTATOR_KINDS, apply_mutations, candidate_mutations

INVOICE = build_project(0).modules["acme/billing/invoice.py"]


@pytest.mark.parametrize("kind", MUTATOR_KINDS)
def test_each_kind_finds_sites_in_late_fee_and_each_mutant_parses(kind: str) -> None:
    sites = candidate_mutations(INVOICE, ["late_fee"], [kind])
    assert sites
    for m in sites:
        mutant = apply_mutations(INVOICE, [m])
        ast.parse(mutant)
        assert mutant != INVOICE
        assert m.kind == kind and m.function == "late_fee"


def test_a_mutation_changes_only_its_own_span() -> None:
    m = next(m for m in candidate_mutations(INVOICE, ["late_fee"], ["flip_operator"]) if m.before == "<=")
    mutant = apply_mutations(INVOICE, [m])
    assert mutant[: m.start] == INVOICE[: m.start]
    assert mutant[m.start + len(m.after):] == INVOICE[m.end:]


def test_docstrings_and_other_functions_are_never_mutated() -> None:
    tree = ast.parse(INVOICE)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "late_fee")
    doc = fn.body[0]
    lines = INVOICE.splitlines()
    doc_text = "\n".join(lines[doc.lineno - 1: doc.end_lineno])
    for m in candidate_mutations(INVOICE, ["late_fee"]):
        assert m.line >= (doc.end_lineno or 0) + 1
        assert m.before not in ("", doc_text)
    assert all(m.function == "late_fee" for m in candidate_mutations(INVOICE, ["late_fee"]))


def test_module_constants_are_sites_only_when_asked() -> None:
    plain = candidate_mutations(INVOICE, ["late_fee"], ["change_constant"])
    with_module = candidate_mutations(INVOICE, ["late_fee"], ["change_constant"], module_constants=True)
    assert all(m.function == "late_fee" for m in plain)
    assert any(m.function == "<module>" for m in with_module)


def test_non_overlapping_mutations_combine_and_overlapping_ones_are_refused() -> None:
    sites = candidate_mutations(INVOICE, ["late_fee", "line_amount"], ["flip_operator", "off_by_one"])
    a = next(m for m in sites if m.function == "late_fee")
    b = next(m for m in sites if m.function == "line_amount")
    both = apply_mutations(INVOICE, [a, b])
    assert both == apply_mutations(apply_mutations(INVOICE, [b]), [a])
    same_span = [m for m in sites if m.start == a.start and m is not a]
    if same_span:
        with pytest.raises(ValueError, match="overlapping"):
            apply_mutations(INVOICE, [a, same_span[0]])


def test_a_mutation_that_does_not_match_the_text_is_refused() -> None:
    m = candidate_mutations(INVOICE, ["late_fee"], ["swap_arguments"])[0]
    with pytest.raises(ValueError, match="does not match"):
        apply_mutations(INVOICE.replace("late_fee", "late_fees", 1).replace("#", "##"), [m])


def test_unknown_kinds_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown mutator"):
        candidate_mutations(INVOICE, ["late_fee"], ["delete_everything"])
