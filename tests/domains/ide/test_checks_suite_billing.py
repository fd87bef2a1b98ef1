"""`ide.code_unchanged` gates any edit of the code in a task whose code is right."""

from __future__ import annotations

from saas_sim.domains.ide.checks_suite_billing import code_unchanged
from saas_sim.domains.ide.workspace import tree_files
from tests.domains.ide.tasks import check_ctx, edit, world


def test_an_untouched_tree_holds() -> None:
    state = world(1)
    assert code_unchanged(check_ctx(state, state)).score == 1.0


def test_an_edit_a_new_file_or_a_deletion_breaks_it() -> None:
    state = world(1)
    path = "acme/pricing/tiers.py"
    text = tree_files(state)[path]
    for change in ({path: text + "\n# reviewed\n"}, {"acme/notes.py": "X = 1\n"}, {path: None}):
        outcome = code_unchanged(check_ctx(state, edit(state, change)))
        assert outcome.score == 0.0
        assert next(iter(change)) in outcome.detail


def test_an_edit_undone_by_hand_holds() -> None:
    state = world(1)
    path = "acme/billing/invoice.py"
    text = tree_files(state)[path]
    back = edit(edit(state, {path: text + "# x\n"}), {path: text})
    assert code_unchanged(check_ctx(state, back)).score == 1.0
