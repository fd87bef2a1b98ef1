"""The benchmark's workload: small billing events, frozen entities and their reducers.

The events live in a registry of their own, so benchmarking never adds names
to the default registry that domains use. The shapes are deliberately
ordinary: a few ids, a short string, an integer and a `Decimal` amount, as a
domain's events are.
"""

from __future__ import annotations

from decimal import Decimal

from saas_sim.core.events import Event, EventRegistry, event
from saas_sim.core.ids import format_id
from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Entity, Projection, State, TableKey

__all__ = [
    "ACCOUNTS",
    "BENCH_REGISTRY",
    "INVOICES",
    "SCHEMA",
    "Account",
    "AccountOpened",
    "Invoice",
    "InvoiceIssued",
    "InvoiceLineAdded",
    "PaymentRecorded",
    "fold_events",
    "line_event",
    "projection",
]

BENCH_REGISTRY = EventRegistry()
"""The registry of the benchmark's events (never the default one)."""

_PLANS = ("free", "team", "business", "enterprise")
_SKUS = ("seat", "storage", "support", "addon")


@event("bench.AccountOpened", registry=BENCH_REGISTRY)
class AccountOpened(Event):
    """A customer account was opened."""

    account_id: str
    name: str
    plan: str


@event("bench.InvoiceIssued", registry=BENCH_REGISTRY)
class InvoiceIssued(Event):
    """An invoice was issued to an account."""

    invoice_id: str
    account_id: str
    currency: str
    amount: Decimal


@event("bench.InvoiceLineAdded", registry=BENCH_REGISTRY)
class InvoiceLineAdded(Event):
    """A line was added to an invoice."""

    invoice_id: str
    account_id: str
    sku: str
    quantity: int
    amount: Decimal


@event("bench.PaymentRecorded", registry=BENCH_REGISTRY)
class PaymentRecorded(Event):
    """A payment was recorded against an invoice."""

    payment_id: str
    invoice_id: str
    amount: Decimal


class Account(Entity):
    """A customer account."""

    name: str
    plan: str
    invoice_count: int = 0
    billed: Decimal = Decimal(0)


class Invoice(Entity):
    """An invoice and its running totals."""

    account_id: str
    currency: str
    status: str
    total: Decimal
    paid: Decimal = Decimal(0)
    lines: int = 0


ACCOUNTS = TableKey("accounts", Account)
INVOICES = TableKey("invoices", Invoice)
SCHEMA = StateSchema(tables=[ACCOUNTS, INVOICES])


def projection() -> Projection:
    """Returns the billing projection: each reducer puts or updates frozen entities."""
    proj = Projection("bench.billing")

    @proj.on(AccountOpened)
    def _opened(state: State, ev: AccountOpened) -> State:
        return state.put(ACCOUNTS, Account(id=ev.account_id, name=ev.name, plan=ev.plan))

    @proj.on(InvoiceIssued)
    def _issued(state: State, ev: InvoiceIssued) -> State:
        account = state.get(ACCOUNTS, ev.account_id)
        if account is None:
            return state
        state = state.put(
            ACCOUNTS,
            account.model_copy(update={"invoice_count": account.invoice_count + 1,
                                       "billed": account.billed + ev.amount}),
        )
        return state.put(
            INVOICES,
            Invoice(id=ev.invoice_id, account_id=ev.account_id, currency=ev.currency,
                    status="open", total=ev.amount),
        )

    @proj.on(InvoiceLineAdded)
    def _line(state: State, ev: InvoiceLineAdded) -> State:
        invoice = state.get(INVOICES, ev.invoice_id)
        if invoice is None:
            return state
        return state.put(
            INVOICES,
            invoice.model_copy(update={"total": invoice.total + ev.amount, "lines": invoice.lines + 1,
                                       "status": "open"}),
        )

    @proj.on(PaymentRecorded)
    def _paid(state: State, ev: PaymentRecorded) -> State:
        invoice = state.get(INVOICES, ev.invoice_id)
        if invoice is None:
            return state
        paid = invoice.paid + ev.amount
        status = "paid" if paid >= invoice.total else "partial"
        return state.put(INVOICES, invoice.model_copy(update={"paid": paid, "status": status}))

    return proj


def _amount(n: int) -> Decimal:
    return Decimal(f"{(n * 37) % 9000 + 100}.{n % 100:02d}")


def line_event(stream: int, n: int) -> InvoiceLineAdded:
    """Returns a small, realistic event for stream number `stream`, append number `n`."""
    return InvoiceLineAdded(
        invoice_id=format_id("inv", stream * 1000 + n % 1000 + 1),
        account_id=format_id("acct", stream + 1),
        sku=_SKUS[n % len(_SKUS)],
        quantity=n % 7 + 1,
        amount=_amount(stream * 31 + n),
    )


def fold_events(total: int, accounts: int, invoices: int) -> list[Event]:
    """Returns `total` events that open `accounts` accounts, issue `invoices` invoices,
    then add lines and payments to them (three lines per payment)."""
    out: list[Event] = []
    for a in range(1, accounts + 1):
        out.append(AccountOpened(account_id=format_id("acct", a), name=f"Account {a}",
                                 plan=_PLANS[a % len(_PLANS)]))
    for i in range(1, invoices + 1):
        out.append(InvoiceIssued(invoice_id=format_id("inv", i),
                                 account_id=format_id("acct", i % accounts + 1),
                                 currency="USD", amount=_amount(i)))
    n = 0
    while len(out) < total:
        n += 1
        invoice = format_id("inv", (n * 7919) % invoices + 1)
        if n % 4:
            out.append(InvoiceLineAdded(invoice_id=invoice, account_id=format_id("acct", n % accounts + 1),
                                        sku=_SKUS[n % len(_SKUS)], quantity=n % 5 + 1, amount=_amount(n)))
        else:
            out.append(PaymentRecorded(payment_id=format_id("pay", n // 4), invoice_id=invoice,
                                       amount=_amount(n + 3)))
    return out[:total]
