"""A tiny domain that lives in tests, so the runtime is proven without knowing any real domain.

It follows docs/adding-a-domain.md to the letter, in the order the guide writes a domain: records,
events, state, the kit and its tools (with one effect tool), the generator, setups, checks, grade
effects, policy, and the `DOMAIN` value. A real domain puts each section in its own module
(`models.py`, `events.py`, `state.py`, `kit.py`, `tools_<resource>.py`, `generate.py`,
`setups_<topic>.py`, `checks_<topic>.py`, `policy.py`, `__init__.py`); this one is small enough for one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from saas_sim.core.domain import CheckContext, CheckOutcome, GenerateContext, Setup, SetupContext
from saas_sim.core.effects import Effect, EffectOutcome
from saas_sim.core.events import Event, event
from saas_sim.core.kit import DomainKit
from saas_sim.core.paging import Page, PageArgs
from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Entity, Projection, State, TableKey
from saas_sim.core.tool_errors import conflict, require
from saas_sim.core.tools import READ, WRITE, ToolArgs, ToolContext, ToolResult
from saas_sim.errors import ToolError

# 1. Records (models.py) ----------------------------------------------------------------------------


class Note(Entity):
    title: str
    body: str
    archived: bool = False


class WordCount(Entity):
    words: int


# 2. Events (events.py): past-tense facts, each with a stable dotted type name ------------------------


@event("notes.NoteCreated")
class NoteCreated(Event):
    note_id: str
    title: str
    body: str


@event("notes.NoteArchived")
class NoteArchived(Event):
    note_id: str


@event("notes.WordsCounted")
class WordsCounted(Event):
    note_id: str
    words: int


# 3. State (state.py): tables, pure reducers, the snapshot schema -------------------------------------

NOTES = TableKey("notes.notes", Note)
WORD_COUNTS = TableKey("notes.word_counts", WordCount)

PROJECTION = Projection("notes")


@PROJECTION.on(NoteCreated)
def _created(state: State, ev: NoteCreated) -> State:
    return state.put(NOTES, Note(id=ev.note_id, title=ev.title, body=ev.body))


@PROJECTION.on(NoteArchived)
def _archived(state: State, ev: NoteArchived) -> State:
    note = state.get(NOTES, ev.note_id)
    assert note is not None
    return state.put(NOTES, note.model_copy(update={"archived": True}))


@PROJECTION.on(WordsCounted)
def _counted(state: State, ev: WordsCounted) -> State:
    return state.put(WORD_COUNTS, WordCount(id=ev.note_id, words=ev.words))


SCHEMA = StateSchema(tables=[NOTES, WORD_COUNTS])

# 4. The kit (kit.py) and the tools (tools_notes.py, views_notes.py) ----------------------------------

kit = DomainKit("notes")


class NoteView(ToolResult):
    id: str
    title: str
    body: str
    archived: bool


class NotePage(Page[NoteView]):
    """One page of notes, sorted by id."""


class GetNoteArgs(ToolArgs):
    note_id: str = Field(description="The note's id, such as nt_000001.")


class ListNotesArgs(PageArgs):
    query: str | None = Field(default=None, description="Only notes whose title contains this text.")


class CreateNoteArgs(ToolArgs):
    title: str = Field(min_length=1, max_length=200, description="The title.")
    body: str = Field(default="", description="The text.")


class ArchiveNoteArgs(ToolArgs):
    note_id: str = Field(description="The note to archive.")


def _view(n: Note) -> NoteView:
    return NoteView(id=n.id, title=n.title, body=n.body, archived=n.archived)


@kit.tool(READ)
def get_note(ctx: ToolContext, args: GetNoteArgs) -> NoteView:
    """Returns one note by id."""
    return _view(require(ctx, NOTES, args.note_id, "note", "note_id"))


@kit.tool(READ)
def list_notes(ctx: ToolContext, args: ListNotesArgs) -> NotePage:
    """Lists notes sorted by id, optionally filtered by title text, with cursor pagination."""
    items = [n for n in ctx.table(NOTES) if args.query is None or args.query.lower() in n.title.lower()]
    return NotePage.of(items, lambda n: (n.id,), args, view=_view)


@kit.tool(WRITE)
def create_note(ctx: ToolContext, args: CreateNoteArgs) -> NoteView:
    """Creates a note. A title that already exists is a conflict."""
    if any(n.title == args.title for n in ctx.table(NOTES)):
        raise conflict(f"a note titled {args.title!r} exists", ["title"])
    note_id = ctx.ids.next("nt")
    ctx.emit(NoteCreated(note_id=note_id, title=args.title, body=args.body))
    return _view(require(ctx, NOTES, note_id, "note"))


@kit.tool(WRITE)
def archive_note(ctx: ToolContext, args: ArchiveNoteArgs) -> NoteView:
    """Archives a note."""
    note = require(ctx, NOTES, args.note_id, "note", "note_id")
    if note.archived:
        raise conflict(f"note {args.note_id} is already archived", ["note_id"])
    ctx.emit(NoteArchived(note_id=note.id))
    return _view(require(ctx, NOTES, note.id, "note"))


class ExplodeArgs(ToolArgs):
    pass


class Nothing(ToolResult):
    pass


@kit.tool(READ)
def explode(ctx: ToolContext, args: ExplodeArgs) -> Nothing:
    """A tool with a bug in it: it raises a plain exception."""
    raise RuntimeError("a bug in the harness")


# An effect tool (issue 10 section 3): it counts a note's words in a real subprocess, off the event loop.
# Tests patch WORD_COUNT_SCRIPT, WORD_COUNT_TIMEOUT_S or run_word_count; all three are read at call time.

WORD_COUNT_SCRIPT = "import sys; print(len(sys.stdin.read().split()))"
"""The child's program: it reads the text on stdin and prints its word count."""

WORD_COUNT_TIMEOUT_S = 20.0
WORD_COUNT_COST_S = 120.0


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


@kit.tool(WRITE, cost_s=5)
def count_words(ctx: ToolContext, args: CountWordsArgs) -> Effect[WordCountView]:
    """Counts the words of a note's body and records the count on the note."""
    note = require(ctx, NOTES, args.note_id, "note", "note_id")

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


# 5. The generator (generate.py): a world's events from the profile's parameters and the seed ---------


def generate(ctx: GenerateContext) -> list[Event]:
    fake = ctx.seed.faker("notes")
    return [
        NoteCreated(note_id=ctx.ids.next("nt"), title=fake.sentence(nb_words=4), body=fake.text(80))
        for _ in range(int(ctx.params.get("notes", 10)))
    ]


# 6. Setups (setups_<topic>.py): pick the task's entities with the episode's rng ----------------------


@kit.setup
def pick_note(ctx: SetupContext) -> Setup:
    """Binds one unarchived note, drawn from the seed."""
    notes = [n for n in ctx.state.table(NOTES) if not n.archived]
    note = ctx.rng.choice(notes)
    return Setup(bindings={"note": {"id": note.id, "title": note.title}, "new_title": f"Follow up {note.id}"})


@kit.setup
def pick_two_notes(ctx: SetupContext) -> Setup:
    """Binds the note to archive and a note to keep, drawn from the seed."""
    note, keep = ctx.rng.sample([n for n in ctx.state.table(NOTES) if not n.archived], 2)
    return Setup(bindings={
        "note": {"id": note.id, "title": note.title}, "keep": {"id": keep.id}, "new_title": f"Follow up {note.id}",
    })


@kit.setup
def pick_note_to_count(ctx: SetupContext) -> Setup:
    """Like `pick_note`, for a task whose grade counts the archived notes' words (a grade effect)."""
    picked = pick_note(ctx)
    return Setup(bindings={**picked.bindings, "count_archive_words": True})


@kit.setup
def stage_note(ctx: SetupContext) -> Setup:
    """Stages a new note titled `params.title` (the first step of a two-step setup)."""
    note_id = ctx.ids.next("nt")
    title = str(ctx.params["title"])
    return Setup(
        bindings={"staged": {"id": note_id, "title": title}},
        events=[NoteCreated(note_id=note_id, title=title, body="staged by the setup")],
    )


@kit.setup
def pick_titled(ctx: SetupContext) -> Setup:
    """Binds the note titled `params.title`: it only exists if an earlier setup step staged it."""
    title = str(ctx.params["title"])
    found = [n for n in ctx.state.table(NOTES) if n.title == title]
    return Setup(bindings={"note": {"id": found[0].id, "title": title}, "new_title": f"Follow up {found[0].id}"})


# 7. Checks (checks_<topic>.py): goals give partial credit, constraints gate --------------------------


@kit.check
def note_archived(ctx: CheckContext, note_id: str) -> CheckOutcome:
    """A goal: the note is archived."""
    note = ctx.final.get(NOTES, note_id)
    return CheckOutcome.of(note is not None and note.archived, f"note {note_id} archived")


@kit.check
def note_titled(ctx: CheckContext, title: str) -> CheckOutcome:
    """A goal: exactly one note created in the episode has this title."""
    made = [n for n in ctx.created(NOTES) if n.title == title]
    return CheckOutcome.of(len(made) == 1, f"exactly one new note titled {title!r} (found {len(made)})")


@kit.check
def nothing_else_archived(ctx: CheckContext, note_id: str) -> CheckOutcome:
    """A goal: no other existing note changed."""
    others = [i for i, b, a in ctx.changed(NOTES) if i != note_id and b is not None]
    return CheckOutcome.of(not others, f"other notes changed: {others}")


@kit.check
def broken(ctx: CheckContext) -> CheckOutcome:
    """A check with a bug in it, for the verifier-error path."""
    raise RuntimeError("this check is broken on purpose")


@kit.check
def note_kept(ctx: CheckContext, note_id: str) -> CheckOutcome:
    """A constraint: the note was not archived."""
    note = ctx.final.get(NOTES, note_id)
    return CheckOutcome.of(note is not None and not note.archived, f"note {note_id} left unarchived")


@kit.check
def no_title_with(ctx: CheckContext, text: str) -> CheckOutcome:
    """A constraint: no note created in the episode has `text` in its title."""
    bad = sorted(n.id for n in ctx.created(NOTES) if text in n.title)
    return CheckOutcome.of(not bad, f"new notes titled with {text!r}: {bad}")


@kit.check
def words_counted(ctx: CheckContext, note_id: str) -> CheckOutcome:
    """A goal: the note's recorded word count is its body's true count."""
    note, count = ctx.final.get(NOTES, note_id), ctx.final.get(WORD_COUNTS, note_id)
    truth = None if note is None else len(note.body.split())
    return CheckOutcome.of(count is not None and count.words == truth,
                           f"note {note_id}: counted {None if count is None else count.words}, true {truth}")


@kit.check
def archive_words_total(ctx: CheckContext, minimum: int) -> CheckOutcome:
    """A goal read off a grade effect: the archived notes hold at least `minimum` words, counted out of process."""
    outcome = ctx.effects.get(ARCHIVE_WORDS)
    if outcome is None or outcome.status != "ok":
        return CheckOutcome.failed(f"the archive's words were not counted ({outcome})")
    words = outcome.value["words"]
    assert isinstance(words, int)
    return CheckOutcome.of(words >= minimum, f"archived notes hold {words} words (at least {minimum} wanted)")


# 8. Grade effects (grade_runs.py): slow or impure work the checks need at grade time -----------------

ARCHIVE_WORDS = "notes.archive_words"


def grade_effects(state: State, bindings: Mapping[str, Any]) -> dict[str, Effect[Any]]:
    """Counts the words of every archived note in a real subprocess, for tasks that ask for it."""
    if not bindings.get("count_archive_words"):
        return {}
    text = "\n".join(n.body for n in sorted(state.table(NOTES), key=lambda n: n.id) if n.archived)
    if not text:
        return {}
    return {ARCHIVE_WORDS: Effect("notes.archive_word_count", {"text": text},
                                  run=lambda i, t: run_word_count(i, t),
                                  complete=lambda _ctx, outcome: outcome, timeout_s=WORD_COUNT_TIMEOUT_S)}


# 9. Policy (policy.py + policy.md), data report (data_report.py) and display (narrate) -------------

POLICY = "1. Archive only what you are asked to."


def data_report(state: State) -> dict[str, Any]:
    """Measured mess: the share of notes whose body is empty."""
    notes = list(state.table(NOTES))
    return {"notes": len(notes), "empty_body_rate": sum(not n.body for n in notes) / len(notes) if notes else 0.0}


def narrate(tool: str, args: object, value: object) -> list[str]:
    if tool == "notes.create_note" and isinstance(value, dict):
        return [f"created note {value['id']}: {value['title']!r}"]
    return []


# 10. The domain (__init__.py) ------------------------------------------------------------------------

DOMAIN = kit.domain(
    module=__name__,
    modules=(sys.modules[__name__],),
    projection=PROJECTION,
    schema=SCHEMA,
    generate=generate,
    policy=POLICY,
    data_report=data_report,
    narrate=narrate,
    id_kinds={"nt": "note"},
    grade_effects=grade_effects,
)
