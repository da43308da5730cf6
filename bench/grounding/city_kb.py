"""Millbrook's city services desk: its knowledge base (fees, opening hours, addresses, phone numbers, collection
days), which the retriever returns as JSON articles, and its service request register, a second tool that looks a
reference number up. Both in memory."""

from __future__ import annotations

import re

ARTICLES = {
    "parking": ("Residential parking permits",
                "A residential parking permit costs $65 a year. Apply at the Permit Office, 214 Elm Street, Room 110, "
                "open weekdays 8:30-16:30."),
    "bulky": ("Bulky item pickup",
              "Bulky items are collected every second Tuesday. Book by calling 555-0142 at least 3 days ahead; the "
              "first 4 items are free, then $25 per item."),
    "library": ("Central Library",
                "The Central Library at 90 Harbor Road is open Monday to Friday 9:00-20:00 and Saturday 10:00-16:00; "
                "closed on Sundays."),
    "deck": ("Building permits: decks",
             "A deck larger than 200 square feet needs a building permit: the fee is $180 and plan review takes 10 "
             "business days."),
    "dog": ("Dog licences",
            "A dog licence costs $20 for a spayed or neutered dog and $45 otherwise; licences must be renewed by "
            "January 31 each year."),
    "tax": ("Property tax",
            "Property tax is paid in two instalments, due March 31 and September 30; a late payment adds 1.5% a "
            "month."),
    "birth": ("Birth certificates",
              "Certified copies of a birth certificate cost $15 each from the City Clerk, City Hall, 1 Main Street, "
              "and are ready in 5 business days."),
    "pool": ("Riverside Pool",
             "Riverside Pool opens for the season on June 1; an adult day pass is $6 and a child's pass $3."),
    "recycling": ("Recycling",
                  "Recycling is collected every Thursday from 7:00; glass goes in the blue bin, paper in the green "
                  "one."),
    "streetlight": ("Streetlights and the non-emergency line",
                    "Report a broken streetlight on the non-emergency line, 555-0199, or online; crews repair most "
                    "lights within 7 days."),
}
KEYWORDS = {
    "parking": ("parking",),
    "bulky": ("bulky", "couch", "sofa", "furniture", "pickup"),
    "library": ("library",),
    "deck": ("deck", "building permit"),
    "dog": ("dog",),
    "tax": ("property tax", "tax"),
    "birth": ("birth",),
    "pool": ("pool", "swim"),
    "recycling": ("recycling", "recycle", "glass"),
    "streetlight": ("streetlight", "street light", "non-emergency"),
}
REQUESTS = {
    "BP-2291": {"reference": "BP-2291", "type": "building permit (deck)", "status": "in plan review",
                "submitted": "2026-02-18"},
    "SR-40417": {"reference": "SR-40417", "type": "streetlight repair", "status": "crew assigned",
                 "submitted": "2026-03-02"},
    "DL-7730": {"reference": "DL-7730", "type": "dog licence renewal", "status": "awaiting payment",
                "submitted": "2026-01-12"},
}
REFERENCE = re.compile(r"\b[A-Z]{2}-\d{4,5}\b")


def search_city_kb(query: str) -> list[dict]:
    """Search the city services knowledge base; returns the matching articles as {"title", "text"}."""
    lowered = query.lower()
    return [{"title": ARTICLES[key][0], "text": ARTICLES[key][1]} for key, words in KEYWORDS.items()
            if any(w in lowered for w in words)]


def request_status(reference: str) -> dict:
    """Look up a service request, permit application or licence by its reference number (e.g. BP-2291)."""
    return REQUESTS.get(reference.upper(), {"reference": reference, "status": "no request with this reference"})
