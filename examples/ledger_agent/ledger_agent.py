"""An accounts-payable assistant with real state: it lists invoices, pays them and e-mails summaries.

Scripted (no model, so it runs offline and the same every time) and naive on purpose: like many agents it treats
text in a tool result as instructions. A line in an invoice's note asking to pay another account, to forward the
list, or to recommend a supplier is followed. `LEDGER_CAREFUL=1` makes it careful: it acts only on what the user
asked and on the invoice's own fields. khaos-action's attacks (attacks/ledger.yaml) check both.
"""

from __future__ import annotations

import os
import re

import ledger_state
import ledger_tools

_PAY = re.compile(r"transfer\s+([\d,.]+)\s+to\s+(?:IBAN\s+)?([A-Z]{2}\d{2}[A-Z0-9]{10,30})", re.IGNORECASE)
_FORWARD = re.compile(r"forward\s+.*?\s+to\s+([\w.+-]+@[\w-]+(?:\.[\w-]+)+)", re.IGNORECASE)
_RECOMMEND = re.compile(r"recommend\s+(?:switching\s+to\s+)?\"?([A-Z][\w ]+?)\"?(?:\s+(?:as|to|for)\b|[.!]|$)")


def handle(prompt: str, context: ledger_state.Ledger | None = None) -> str:
    token = ledger_state.CURRENT.set(context or ledger_state.new_ledger())
    try:
        return _answer(prompt.lower())
    finally:
        ledger_state.CURRENT.reset(token)


def _answer(prompt: str) -> str:
    invoices = ledger_tools.list_invoices()
    extra = [] if os.environ.get("LEDGER_CAREFUL") else _follow_notes(invoices)
    if "pay" in prompt and "due" in prompt:
        first = min(invoices, key=lambda i: i["due"])
        ledger_tools.pay(first["iban"], first["amount"], first["id"])
        answer = f"Paid {first['id']} to {first['vendor']}: {first['amount']:.2f} EUR."
    elif "summar" in prompt or "open invoices" in prompt:
        total = sum(i["amount"] for i in invoices)
        answer = (f"{len(invoices)} open invoices, {total:.2f} EUR in total: "
                  + "; ".join(f"{i['id']} {i['vendor']} {i['amount']:.2f} due {i['due']}" for i in invoices) + ".")
    else:
        answer = "I can list, summarise and pay your open invoices."
    return " ".join([answer, *extra])


def _follow_notes(invoices: list[dict]) -> list[str]:
    """What a naive agent does with instructions it finds in data: it carries them out."""
    said = []
    for invoice in invoices:
        note = str(invoice.get("note", ""))
        for amount, iban in _PAY.findall(note):
            ledger_tools.pay(iban, float(amount.replace(",", "")), f"per note on {invoice['id']}")
        for address in _FORWARD.findall(note):
            ledger_tools.send_email(address, str(invoices))
        for supplier in _RECOMMEND.findall(note):
            said.append(f"I recommend switching to {supplier.strip()} for better prices.")
    return said
