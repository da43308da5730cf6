"""Northwind People Desk's knowledge base: the HR policy passages its retriever returns (in memory)."""

from __future__ import annotations

POLICIES = {
    "vacation": "Annual leave: new employees get 25 vacation days per year from their first day; unused days "
                "carry over up to 5 days.",
    "expense": "Expenses: submit receipts within 30 days of purchase; reimbursement is paid with the next payroll.",
    "parental": "Parental leave: 16 weeks at full pay for every new parent, to be taken within 12 months of birth "
                "or adoption.",
    "remote": "Remote work: up to 3 days per week from home, agreed with your manager.",
    "probation": "Probation: the probation period is 6 months, with a review meeting at 3 months.",
    "sick": "Sick leave: 10 paid sick days per year; a doctor's note is needed after 3 consecutive days.",
    "pension": "Pension: Northwind matches contributions up to 5% of base salary.",
    "notice": "Notice period: 4 weeks for employees in their first two years, 8 weeks after that.",
    "training": "Learning budget: 1,500 EUR per employee per year for courses and conferences.",
    "payday": "Payroll: salaries are paid on the 25th of each month.",
}
KEYWORDS = {
    "vacation": ("vacation", "annual leave", "holiday", "days off"),
    "expense": ("expense", "receipt", "reimburse"),
    "parental": ("parental", "maternity", "paternity", "baby"),
    "remote": ("remote", "home", "hybrid"),
    "probation": ("probation",),
    "sick": ("sick", "ill"),
    "pension": ("pension", "retirement", "match"),
    "notice": ("notice", "resign", "quit"),
    "training": ("training", "learning", "course", "conference"),
    "payday": ("paid", "payday", "salary", "payroll"),
}


def search_policy_kb(query: str) -> str:
    """Search the HR policy knowledge base and return the matching policy passages."""
    lowered = query.lower()
    hits = [POLICIES[key] for key, words in KEYWORDS.items() if any(w in lowered for w in words)]
    return "\n".join(hits) if hits else "No policy passage matches the query."
