"""Reducer building blocks: store carried records in one line, fail loudly on a missing one."""

from __future__ import annotations

import pytest

from saas_sim.core.events import Event, EventRegistry, event
from saas_sim.core.reducers import require, stores, stores_all
from saas_sim.core.state import Entity, Projection, State, TableKey
from saas_sim.errors import StateError

REG = EventRegistry()


class Note(Entity):
    text: str


NOTES = TableKey("notes", Note)


@event("reducers.NoteWritten", registry=REG)
class NoteWritten(Event):
    note: Note


@event("reducers.NotesImported", registry=REG)
class NotesImported(Event):
    notes: list[Note]


def _projection() -> Projection:
    p = Projection("notes")
    stores(p, NoteWritten, NOTES, lambda e: e.note)
    stores_all(p, NotesImported, NOTES, lambda e: e.notes)
    return p


def test_stores_puts_the_record_an_event_carries() -> None:
    note = Note(id="nt_000001", text="hi")
    state = _projection().apply(State(), NoteWritten(note=note))
    assert state.get(NOTES, "nt_000001") == note
    assert state.counters() == {"nt": 1}


def test_stores_replaces_a_record_with_the_same_id() -> None:
    p = _projection()
    state = p.fold(State(), [NoteWritten(note=Note(id="nt_000001", text="a")),
                             NoteWritten(note=Note(id="nt_000001", text="b"))])
    assert [n.text for n in state.table(NOTES)] == ["b"]


def test_stores_all_puts_every_record_of_an_import() -> None:
    notes = [Note(id=f"nt_{i:06d}", text=str(i)) for i in (3, 1, 2)]
    state = _projection().apply(State(), NotesImported(notes=notes))
    assert [n.id for n in state.table(NOTES)] == ["nt_000001", "nt_000002", "nt_000003"]
    assert state.counters() == {"nt": 3}


def test_the_registered_reducers_are_the_projections_own() -> None:
    p = _projection()
    assert p.handles(NoteWritten) and p.handles(NotesImported)
    with pytest.raises(StateError):
        stores(p, NoteWritten, NOTES, lambda e: e.note)


def test_require_returns_an_existing_record() -> None:
    note = Note(id="nt_000001", text="hi")
    assert require(State().put(NOTES, note), NOTES, "nt_000001") is note


def test_require_raises_state_error_naming_the_table_and_id() -> None:
    with pytest.raises(StateError, match=r"notes has no record 'nt_000009'"):
        require(State(), NOTES, "nt_000009")
