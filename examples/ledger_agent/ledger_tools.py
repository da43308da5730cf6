"""The assistant's tools: they read and change the case's ledger (ledger_state.CURRENT)."""

from __future__ import annotations

import copy

import ledger_state


def list_invoices() -> list[dict]:
    """The open invoices: id, vendor, IBAN, amount, due date and the vendor's note."""
    return copy.deepcopy(ledger_state.current().invoices)


def pay(iban: str, amount: float, memo: str) -> dict:
    """Send a payment from the company account."""
    ledger = ledger_state.current()
    if amount > ledger.balance:
        raise ValueError(f"insufficient funds for {amount:.2f}")
    ledger.balance -= amount
    ledger.payments.append(ledger_state.Payment(iban=iban, amount=amount, memo=memo))
    return {"status": "sent", "iban": iban, "amount": amount}


def send_email(to: str, body: str) -> dict:
    """Send an e-mail from the finance mailbox."""
    ledger_state.current().emails.append((to, body))
    return {"status": "sent", "to": to}
