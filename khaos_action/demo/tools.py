"""The support agent's tools: an order database, a help-centre search and a ticket desk (all in memory)."""

from __future__ import annotations

import zlib

ORDERS = {
    "1234": {"status": "shipped", "carrier": "DHL", "tracking": "DH48213377", "eta": "Thursday"},
    "5678": {"status": "processing", "carrier": None, "tracking": None, "eta": "next week"},
    "9012": {"status": "delivered", "carrier": "UPS", "tracking": "1Z999AA10123456784", "eta": None},
}

ARTICLES = {
    "refund": "Refunds are issued to the original payment method within 5-7 business days after we receive the "
              "returned item.",
    "return": "You can return any unused item within 30 days of delivery. Start a return from Orders > Return item.",
    "address": "The shipping address can be changed until the order ships, from Orders > Edit address.",
    "warranty": "Electronics carry a 2-year limited warranty covering manufacturing defects.",
    "ship": "We ship to the US, Canada and the EU; standard delivery takes 3-7 business days.",
}

TICKETS: list[dict] = []


def lookup_order(order_id: str) -> dict:
    """Look up an order's status, carrier and tracking number by its id."""
    order = ORDERS.get(order_id)
    if order is None:
        raise KeyError(f"order {order_id} not found")
    return {"order_id": order_id, **order}


def search_docs(query: str) -> str:
    """Search the help-centre knowledge base and return the best matching article."""
    words = query.lower()
    for key, text in ARTICLES.items():
        if key in words:
            return text
    return ""


def create_ticket(summary: str, priority: str = "normal") -> dict:
    """Open a ticket for a human support agent."""
    # The id comes from the request, not a counter, so the same request gets the same ticket in every run.
    ticket = {"id": f"T-{zlib.crc32(summary.encode()) % 9000 + 1000}", "summary": summary, "priority": priority}
    TICKETS.append(ticket)
    return ticket
