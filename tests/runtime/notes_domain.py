"""A tiny domain that lives in tests, so the runtime is proven without knowing any real domain."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from saas_sim.core.domain import CheckContext, CheckOutcome, Domain, GenerateContext, Setup, SetupContext
from saas_sim.core.effects import Effect, EffectOutcome
from saas_sim.core.events import Event, event
from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Entity, Projection, State, TableKey
from saas_sim.core.tools import READ, WRITE, ToolArgs, ToolContext, ToolResult, tool
from saas_sim.errors import ToolError


class Note(Entity):
    title: str
    body: str
    archived: bool = False


NOTES = TableKey("notes.notes", Note)


@event("notes.NoteCreated")
class NoteCreated(Event):
    note_id: str
    title: str
    body: str


@event("notes.NoteArchived")
class NoteArchived(Event):
    note_id: str


PROJECTION = Projection("notes")


@PROJECTION.on(NoteCreated)
def _created(state: State, ev: NoteCreated) -> State:
    return state.put(NOTES, Note(id=ev.note_id, title=ev.title, body=ev.body))


@PROJECTION.on(NoteArchived)
def _archived(state: State, ev: NoteArchived) -> State:
    note = state.get(NOTES, ev.note_id)
    assert note is not None
    return state.put(NOTES, note.model_copy(update={"archived": True}))


class NoteView(ToolResult):
    id: str
    title: str
    body: str
    archived: bool


class NoteList(ToolResult):
    items: list[NoteView]
    next_cursor: str | None


class GetNoteArgs(ToolArgs):
    note_id: str = Field(description="The note's id, such as nt_000001.")


class ListNotesArgs(ToolArgs):
    query: str | None = Field(default=None, description="Only notes whose title contains this text.")
    limit: int = Field(default=20, ge=1, le=100, description="Page size.")
    cursor: str | None = Field(default=None, description="The next_cursor of the previous page.")


class CreateNoteArgs(ToolArgs):
    title: str = Field(min_length=1, max_length=200, description="The title.")
    body: str = Field(default="", description="The text.")


class ArchiveNoteArgs(ToolArgs):
    note_id: str = Field(description="The note to archive.")


def _view(n: Note) -> NoteView:
    return NoteView(id=n.id, title=n.title, body=n.body, archived=n.archived)


@tool("notes.get_note", READ)
def get_note(ctx: ToolContext, args: GetNoteArgs) -> NoteView:
    """Returns one note by id."""
    note = ctx.table(NOTES).get(args.note_id)
    if note is None:
        raise ToolError("not_found", f"note {args.note_id} does not exist")
    return _view(note)


@tool("notes.list_notes", READ)
def list_notes(ctx: ToolContext, args: ListNotesArgs) -> NoteList:
    """Lists notes sorted by id, optionally filtered by title text, with cursor pagination."""
    items = [n for n in ctx.table(NOTES) if args.query is None or args.query.lower() in n.title.lower()]
    if args.cursor:
        items = [n for n in items if n.id > args.cursor]
    page = items[: args.limit]
    more = len(items) > args.limit
    return NoteList(items=[_view(n) for n in page], next_cursor=page[-1].id if more and page else None)


@tool("notes.create_note", WRITE)
def create_note(ctx: ToolContext, args: CreateNoteArgs) -> NoteView:
    """Creates a note. A title that already exists is a conflict."""
    if any(n.title == args.title for n in ctx.table(NOTES)):
        raise ToolError("conflict", f"a note titled {args.title!r} exists")
    ctx.emit(NoteCreated(note_id=ctx.ids.next("nt"), title=args.title, body=args.body))
    created = ctx.table(NOTES).get(ctx.ids.counters() and max(ctx.table(NOTES).ids()))
    assert created is not None
    return _view(created)


@tool("notes.archive_note", WRITE)
def archive_note(ctx: ToolContext, args: ArchiveNoteArgs) -> NoteView:
    """Archives a note."""
    note = ctx.table(NOTES).get(args.note_id)
    if note is None:
        raise ToolError("not_found", f"note {args.note_id} does not exist")
    if note.archived:
        raise ToolError("conflict", f"note {args.note_id} is already archived")
    ctx.emit(NoteArchived(note_id=note.id))
    return _view(ctx.table(NOTES).get(note.id))


def generate(ctx: GenerateContext) -> list[Event]:
    fake = ctx.seed.faker("notes")
    return [
        NoteCreated(note_id=ctx.ids.next("nt"), title=fake.sentence(nb_words=4), body=fake.text(80))
        for _ in range(int(ctx.params.get("notes", 10)))
    ]


def pick_note(ctx: SetupContext) -> Setup:
    notes = [n for n in ctx.state.table(NOTES) if not n.archived]
    note = ctx.rng.choice(notes)
    return Setup(bindings={"note": {"id": note.id, "title": note.title}, "new_title": f"Follow up {note.id}"})


def note_archived(ctx: CheckContext, note_id: str) -> CheckOutcome:
    note = ctx.final.get(NOTES, note_id)
    return CheckOutcome.of(note is not None and note.archived, f"note {note_id} archived")


def note_titled(ctx: CheckContext, title: str) -> CheckOutcome:
    made = [n for n in ctx.created(NOTES) if n.title == title]
    return CheckOutcome.of(len(made) == 1, f"exactly one new note titled {title!r} (found {len(made)})")


def nothing_else_archived(ctx: CheckContext, note_id: str) -> CheckOutcome:
    others = [i for i, b, a in ctx.changed(NOTES) if i != note_id and b is not None]
    return CheckOutcome.of(not others, f"other notes changed: {others}")


def pick_two_notes(ctx: SetupContext) -> Setup:
    """Binds the note to archive and a note to keep, drawn from the seed."""
    note, keep = ctx.rng.sample([n for n in ctx.state.table(NOTES) if not n.archived], 2)
    return Setup(bindings={
        "note": {"id": note.id, "title": note.title}, "keep": {"id": keep.id}, "new_title": f"Follow up {note.id}",
    })


def note_kept(ctx: CheckContext, note_id: str) -> CheckOutcome:
    """A constraint: the note was not archived."""
    note = ctx.final.get(NOTES, note_id)
    return CheckOutcome.of(note is not None and not note.archived, f"note {note_id} left unarchived")


def no_title_with(ctx: CheckContext, text: str) -> CheckOutcome:
    """A constraint: no note created in the episode has `text` in its title."""
    bad = sorted(n.id for n in ctx.created(NOTES) if text in n.title)
    return CheckOutcome.of(not bad, f"new notes titled with {text!r}: {bad}")


def broken_check(ctx: CheckContext) -> CheckOutcome:
    raise RuntimeError("this check is broken on purpose")


DOMAIN = Domain(
    name="notes",
    projection=PROJECTION,
    schema=StateSchema(tables=[NOTES]),
    tools=[get_note, list_notes, create_note, archive_note],
    generate=generate,
    setups={"notes.pick_note": pick_note, "notes.pick_two_notes": pick_two_notes},
    checks={
        "notes.note_archived": note_archived,
        "notes.note_titled": note_titled,
        "notes.nothing_else_archived": nothing_else_archived,
        "notes.broken": broken_check,
        "notes.note_kept": note_kept,
        "notes.no_title_with": no_title_with,
    },
    policy="1. Archive only what you are asked to.",
)


class ExplodeArgs(ToolArgs):
    pass


class Nothing(ToolResult):
    pass


@tool("notes.explode", READ)
def explode(ctx: ToolContext, args: ExplodeArgs) -> Nothing:
    """A tool with a bug in it: it raises a plain exception."""
    raise RuntimeError("a bug in the harness")


def narrate(tool: str, args: object, value: object) -> list[str]:
    if tool == "notes.create_note" and isinstance(value, dict):
        return [f"created note {value['id']}: {value['title']!r}"]
    return []


DOMAIN = Domain(
    name=DOMAIN.name,
    projection=DOMAIN.projection,
    schema=DOMAIN.schema,
    tools=[*DOMAIN.tools, explode],
    generate=DOMAIN.generate,
    setups=DOMAIN.setups,
    checks=DOMAIN.checks,
    policy=DOMAIN.policy,
    narrate=narrate,
)


# An effect tool (issue 10 section 3): it counts a note's words in a real subprocess, off the event loop.
# Tests patch WORD_COUNT_SCRIPT, WORD_COUNT_TIMEOUT_S or run_word_count; all three are read at call time.

WORD_COUNT_SCRIPT = "import sys; print(len(sys.stdin.read().split()))"
"""The child's program: it reads the text on stdin and prints its word count."""

WORD_COUNT_TIMEOUT_S = 20.0
WORD_COUNT_COST_S = 120.0


class WordCount(Entity):
    words: int


WORD_COUNTS = TableKey("notes.word_counts", WordCount)


@event("notes.WordsCounted")
class WordsCounted(Event):
    note_id: str
    words: int


@PROJECTION.on(WordsCounted)
def _counted(state: State, ev: WordsCounted) -> State:
    return state.put(WORD_COUNTS, WordCount(id=ev.note_id, words=ev.words))


class CountWordsArgs(ToolArgs):
    note_id: str = Field(description="The note whose body to count.")


class WordCountView(ToolResult):
    note_id: str
    words: int


def run_word_count(inputs: Mapping[str, Any], timeout_s: float) -> EffectOutcome:
    """Runs WORD_COUNT_SCRIPT in a child Python with a scrubbed environment; blocking (a worker thread calls it)."""
    env = {"PATH": os.defpath, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}
    try:
        # A fixed program: the note's text only ever goes to its stdin.
        done = subprocess.run(
            [sys.executable, "-I", "-c", WORD_COUNT_SCRIPT], input=str(inputs["text"]), capture_output=True,
            text=True, timeout=timeout_s, env=env, check=False,
        )
    except subprocess.TimeoutExpired:  # subprocess.run has killed the child
        return EffectOutcome.timeout(timeout_s)
    if done.returncode != 0:
        return EffectOutcome(status="failed", value={"exit_code": done.returncode, "stderr": done.stderr[-500:]})
    return EffectOutcome(status="ok", value={"words": int(done.stdout.strip())})


@tool("notes.count_words", WRITE, cost_s=5)
def count_words(ctx: ToolContext, args: CountWordsArgs) -> Effect[WordCountView]:
    """Counts the words of a note's body and records the count on the note."""
    note = ctx.table(NOTES).get(args.note_id)
    if note is None:
        raise ToolError("not_found", f"note {args.note_id} does not exist")

    def complete(ctx: ToolContext, outcome: EffectOutcome) -> WordCountView:
        if outcome.status == "timeout":
            raise ToolError("timeout", f"counting the words of {note.id} timed out")
        if outcome.status == "failed":
            raise ToolError("unavailable", f"the word counter failed on {note.id}")
        words = outcome.value["words"]
        assert isinstance(words, int)
        ctx.emit(WordsCounted(note_id=note.id, words=words))
        return WordCountView(note_id=note.id, words=words)

    return Effect(
        "notes.word_count", {"text": note.body}, run=lambda i, t: run_word_count(i, t), complete=complete,
        timeout_s=WORD_COUNT_TIMEOUT_S, cost_s=WORD_COUNT_COST_S,
    )


def words_counted(ctx: CheckContext, note_id: str) -> CheckOutcome:
    """The note's recorded word count is its body's true count."""
    note, count = ctx.final.get(NOTES, note_id), ctx.final.get(WORD_COUNTS, note_id)
    truth = None if note is None else len(note.body.split())
    return CheckOutcome.of(count is not None and count.words == truth,
                           f"note {note_id}: counted {None if count is None else count.words}, true {truth}")


DOMAIN = Domain(
    name=DOMAIN.name,
    projection=DOMAIN.projection,
    schema=StateSchema(tables=[*DOMAIN.schema.tables, WORD_COUNTS]),
    tools=[*DOMAIN.tools, count_words],
    generate=DOMAIN.generate,
    setups=DOMAIN.setups,
    checks={**DOMAIN.checks, "notes.words_counted": words_counted},
    policy=DOMAIN.policy,
    narrate=DOMAIN.narrate,
)
