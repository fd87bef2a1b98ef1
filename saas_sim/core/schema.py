"""The store's tables, as SQLModel models shared by the SQLite and PostgreSQL backends.

No `from __future__ import annotations` here: SQLModel needs real annotations
(sqlmodel#196). Both backends run DDL compiled from these models, so the two
engines can never drift apart.
"""

from sqlalchemy import BigInteger, Column, LargeBinary, UniqueConstraint
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.schema import CreateTable
from sqlmodel import Field, SQLModel

__all__ = ["CommandRow", "EventRow", "SnapshotRow", "StreamRow", "ddl_statements"]


class EventRow(SQLModel, table=True):
    """One stored event envelope."""

    __tablename__ = "events"
    __table_args__ = (
        UniqueConstraint("stream_id", "version", name="uq_events_stream_version"),
    )

    global_position: int = Field(
        sa_column=Column(BigInteger().with_variant(sqlite.INTEGER(), "sqlite"), primary_key=True,
                         autoincrement=False)
    )
    stream_id: str = Field(max_length=255)
    version: int
    event_type: str = Field(max_length=255)
    schema_version: int
    payload: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    sim_time: str | None = Field(default=None, max_length=40)
    command_id: str | None = Field(default=None, max_length=255)
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)


class StreamRow(SQLModel, table=True):
    """The head of each stream: its version and the hash of its last event."""

    __tablename__ = "streams"
    # Every append rewrites its stream's row. Half-empty pages on PostgreSQL keep the new
    # version on the same page (a HOT update: no index entry), which roughly halves a
    # batch's head writes. Tables created before this keep their fill factor.
    __table_args__ = {"postgresql_with": {"fillfactor": 50}}

    stream_id: str = Field(primary_key=True, max_length=255)
    version: int
    head_hash: str = Field(max_length=64)


class CommandRow(SQLModel, table=True):
    """An idempotent command: what it wrote, so a retry can return the same result."""

    __tablename__ = "commands"

    command_id: str = Field(primary_key=True, max_length=255)
    stream_id: str = Field(max_length=255)
    fingerprint: str = Field(max_length=64)
    first_version: int
    last_version: int
    first_position: int = Field(sa_type=BigInteger)
    last_position: int = Field(sa_type=BigInteger)
    head_hash: str = Field(max_length=64)


class SnapshotRow(SQLModel, table=True):
    """A serialized state of a stream at a version."""

    __tablename__ = "snapshots"

    stream_id: str = Field(primary_key=True, max_length=255)
    version: int = Field(primary_key=True)
    schema_version: int
    state: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    state_hash: str = Field(max_length=64)
    event_hash: str = Field(max_length=64)


_TABLES = [EventRow, StreamRow, CommandRow, SnapshotRow]


def ddl_statements(dialect_name: str) -> list[str]:
    """Returns `CREATE ... IF NOT EXISTS` statements for every table, for one dialect."""
    dialect: Dialect = postgresql.dialect() if dialect_name == "postgresql" else sqlite.dialect()  # type: ignore[no-untyped-call]
    tables = [model.__table__ for model in _TABLES]  # type: ignore[attr-defined]
    return [str(CreateTable(t, if_not_exists=True).compile(dialect=dialect)).strip() for t in tables]
