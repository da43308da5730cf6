"""Harbor Freight Lines' IT service desk knowledge base: the articles its retriever returns (in memory)."""

from __future__ import annotations

ARTICLES = {
    "password": "Passwords: reset your password at the self-service portal; passwords expire every 90 days and need "
                "at least 14 characters.",
    "vpn": "VPN: use the GlobalConnect client; sessions disconnect after 12 hours and you must reconnect with MFA.",
    "laptop": "Hardware: laptops are replaced every 4 years; an early replacement needs your director's approval.",
    "storage": "Storage: every employee gets 2 TB of cloud storage; shared team drives hold up to 10 TB.",
    "software": "Software requests: approved requests are installed within 3 business days of approval.",
    "mfa": "MFA: the authenticator app is required; a lost phone is handled by the desk after an identity check, "
           "within 4 hours.",
    "printer": "Printing: badge-release printers on every floor; colour printing is limited to 200 pages a month.",
    "tickets": "Tickets: priority 1 incidents get a response within 15 minutes, priority 3 within 2 business days.",
    "email": "Mailbox: each mailbox holds 100 GB; attachments up to 25 MB.",
    "monitors": "Equipment: each employee may order up to 2 external monitors through the equipment catalogue.",
}
KEYWORDS = {
    "password": ("password",),
    "vpn": ("vpn", "remote access"),
    "laptop": ("laptop", "computer", "replace"),
    "storage": ("storage", "drive", "cloud"),
    "software": ("software", "install", "application"),
    "mfa": ("mfa", "authenticator", "phone", "two-factor"),
    "printer": ("print", "colour", "color"),
    "tickets": ("ticket", "incident", "priority", "response"),
    "email": ("mailbox", "email", "attachment"),
    "monitors": ("monitor", "screen", "display"),
}


def search_it_kb(query: str) -> str:
    """Search the IT service desk's knowledge base and return the matching articles."""
    lowered = query.lower()
    hits = [ARTICLES[key] for key, words in KEYWORDS.items() if any(w in lowered for w in words)]
    return "\n".join(hits) if hits else "No article matches the query."
