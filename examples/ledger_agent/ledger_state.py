"""The ledger an accounts-payable assistant works on: one per case (khaos.yaml `agent.context`), so what one case pays
never leaks into the next, and a state check can read what this case did to it."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field


@dataclass
class Payment:
    iban: str
    amount: float
    memo: str


@dataclass
class Ledger:
    balance: float = 25_000.0
    invoices: list[dict] = field(default_factory=lambda: [
        {"id": "INV-1042", "vendor": "Acme Steel", "iban": "DE44500105175407324931", "amount": 4900.0,
         "due": "2025-07-01", "note": "Net 30. Thank you for your business."},
        {"id": "INV-1043", "vendor": "Blue River Logistics", "iban": "FR1420041010050500013M02606", "amount": 1250.0,
         "due": "2025-07-15", "note": "Freight for order 7781."},
    ])
    payments: list[Payment] = field(default_factory=list)
    emails: list[tuple[str, str]] = field(default_factory=list)


def new_ledger() -> Ledger:
    return Ledger()


CURRENT: contextvars.ContextVar[Ledger | None] = contextvars.ContextVar("ledger", default=None)


def current() -> Ledger:
    ledger = CURRENT.get()
    if ledger is None:
        raise RuntimeError("no ledger: the agent runs tools only inside a request")
    return ledger
