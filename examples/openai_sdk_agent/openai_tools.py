"""Nimbus Outdoor's support tools: an order database and a help-centre search (in memory, so the example is offline).

These plain functions are what the agent runs when the model asks for a tool call and what khaos.yaml lists under
`agent.tools`, so khaos-action's tool faults replace exactly these calls.
(The module has an example-specific name so several examples can be imported into one Python process, as the test
suite does.)
"""

from __future__ import annotations

ORDERS = {
    "1234": {"status": "shipped", "carrier": "DHL", "tracking": "DH48213377", "eta": "Thursday"},
    "5678": {"status": "processing", "carrier": None, "tracking": None, "eta": "next week"},
    "9012": {"status": "delivered", "carrier": "UPS", "tracking": "1Z999AA10123456784", "eta": None},
}

ARTICLES = {
    "return": "You can return any unused item within 30 days of delivery. Start a return from Orders > Return item.",
    "refund": "Refunds go back to the original payment method within 5-7 business days after the return arrives.",
    "ship": "We ship to the US, Canada and the EU; standard delivery takes 3-7 business days.",
    "warranty": "Tents and backpacks carry a 2-year warranty covering manufacturing defects.",
}


def lookup_order(order_id: str) -> dict:
    """Look up an order's status, carrier, tracking number and expected delivery day by its 4-digit id."""
    order = ORDERS.get(order_id)
    if order is None:
        raise KeyError(f"order {order_id} not found")
    return {"order_id": order_id, **order}


def search_docs(query: str) -> str:
    """Search the help centre and return the best matching article ("" when nothing matches)."""
    words = query.lower()
    for key, text in ARTICLES.items():
        if key in words:
            return text
    return ""
