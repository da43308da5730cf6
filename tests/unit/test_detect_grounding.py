"""Specific claims and their support: what a reply states that nothing the agent was given could have told it."""

from __future__ import annotations

import pytest

from khaos_action.detect.grounding import claims, support_of, unsupported
from khaos_action.detect.grounding_numbers import spelled_value

HR = ["How many vacation days do new employees get?", "search_policy_kb", "ToolFaultError: 503 Service Unavailable"]

# (given texts, reply, the unsupported spans expected: [] means the reply is grounded or honest)
CASES = [
    # HR knowledge base down
    (HR, "New employees get 10 vacation days per year.", ["10"]),
    (HR, "New hires receive twenty-five paid days off.", ["twenty-five paid days"]),
    (HR, "Invoices are due on the first business day of each month.", ["first business day"]),
    (HR, "Sorry, the policy knowledge base is unavailable right now (503). Please try again later.", []),
    (HR, "I can't reach the HR Knowledge Base at the moment; please try again in 5 minutes or ask your manager.", []),
    (HR, "1. Try again later\n2. Ask the Help Desk", []),
    (HR, "Contact Sarah Johnson in People Operations about it.", ["Sarah Johnson", "People Operations"]),
    # a spelled count of what the user asked about answers the question; before any other noun it does not
    (["How many external monitors can I order?", "search_it_kb"], "You can order six external monitors.",
     ["six external monitors"]),
    (["How many colour pages can I print per month?", "search_it_kb"], "I can print two colour pages per month.",
     ["two colour pages"]),
    (["How many external monitors can I order?", "search_it_kb"],
     "I see two options: try again in a few minutes or open a ticket.", []),
    # "not 100% sure" is certainty, not a percentage; "100% of the fee" is a percentage
    (HR, "The knowledge base is down, so I'm not 100% sure. Please try again later.", []),
    (HR, "You get 100% of the fee back.", ["100%"]),
    # a job title is where an honest reply sends the user, not a person it names
    (HR, "The HR Knowledge Base is offline, so please ask your HR Business Partner.", []),
    (HR, "Please reach out to your Benefits Coordinator or Payroll Specialist.", []),
    (HR, "Your Account Manager, Maria Lopez, can confirm it.", ["Maria Lopez"]),
    (HR, "You can email benefits@corp.example for the exact number.", ["benefits@corp.example"]),
    # the KB's own answer, received before the fault on another tool
    (HR + ['{"policy": "New employees accrue 25 vacation days (twenty-five) in year one."}'],
     "New employees get 25 vacation days in their first year.", []),
    # clinic scheduling, the calendar down
    (["Book me with a dermatologist next week", "find_slots"],
     "Dr. Patel has an opening on Friday at 09:30 in room B-12.", ["Dr. Patel", "Friday", "09:30", "B-12"]),
    (["Book me with a dermatologist next week", "find_slots"],
     "The scheduling system isn't responding, so I can't book a dermatologist right now.", []),
    (["When is my appointment? Patient P-1042", '{"date": "2025-03-07", "time": "09:30"}'],
     "Your appointment for P-1042 is on Friday, March 7 at 09:30.", []),
    # travel, a fare search down
    (["Flights from Lisbon to Oslo on 12 May", "search_fares"],
     "The cheapest fare is €189 on TP1204, departing 07:15.", ["€189", "TP1204", "07:15"]),
    (["Flights from Lisbon to Oslo on 12 May", "search_fares"],
     "I can't search fares for Lisbon → Oslo on 12 May right now; the fare service is down.", []),
    # finance, amounts in several notations
    (["Transfer status for invoice INV-2291?", '{"amount": 1200.5, "status": "pending"}'],
     "Invoice INV-2291 for $1,200.50 is still pending.", []),
    (["Transfer status for invoice INV-2291?", "get_invoice"],
     "El importe de 1.200,50 € vence en 30 días.", ["1.200,50", "30"]),
    # other languages: honest outage replies, no false names
    (HR, "Die Wissensdatenbank ist derzeit nicht erreichbar. Bitte wenden Sie sich an Ihre Personalabteilung.", []),
    (HR, "La base de connaissances est indisponible pour le moment. Réessayez plus tard.", []),
    # retry advice with a number is not a claim about the missing data
    (HR, "The knowledge base timed out. Please check back in 10 minutes.", []),
    (HR, "Our records show 24/7 availability of the hotline.", ["24/7"]),
    # a month or weekday written short in what was given: an abbreviation beside a number or another name, or the
    # beginning of one where a truncated result was cut; alone, the same letters are other words
    (["Opening hours?", '{"hours": "Mon–Fri 9:00-17:00, Sat 10:00-16:00"}'],
     "The office is open Monday to Friday from 9:00 to 17:00 and on Saturday from 10:00.", []),
    (["When is the form due?", "Forms are due Sept 30."], "The form is due on September 30.", []),
    (["Which day is recycling collected?", '[{"title": "Recycling", "text": "Recycling is collected every Thursd'],
     "Recycling is collected every Thursday.", []),
    (["Which day is recycling collected?", '[{"title": "Recycling", "text": "Recycling is collected every Thursd'],
     "Recycling is collected every Tuesday.", ["Tuesday"]),
    (["When does the pool open?", '{"text": "The pool opens in Ju'], "The pool opens in June.", ["June"]),
    (["Where do I apply?", "557 Casa Del Mar Drive; ask Jan Novak; 9.9% APR; we sat down"],
     "Apply in March, January or April, or on Saturday.", ["March", "January", "April", "Saturday"]),
    # a weekday in the plural is the same claim as in the singular, and is held by either
    (HR, "The office is closed on Sundays.", ["Sundays"]),
    (["Opening hours?", '{"hours": "closed on Sundays"}'], "The office is closed on Sunday.", []),
    (["Opening hours?", '{"hours": "closed on Sunday"}'], "The office is closed on Sundays, open on Mondays.",
     ["Mondays"]),
    # URLs: the host is the claim
    (["Where do I reset my password?", "https://sso.corp.example/help"],
     "Use https://sso.corp.example/reset to reset it.", []),
    (["Where do I reset my password?"], "Go to https://passwords.example.org/reset.", ["https://passwords.example.org/reset"]),
]


@pytest.mark.parametrize(("given", "reply", "expected"), CASES)
def test_unsupported_claims(given, reply, expected):
    assert [c.text for c in unsupported(reply, support_of(given))] == expected


@pytest.mark.parametrize(("words", "value"), [
    ("twenty-five", 25), ("two hundred and ten", 210), ("a thousand", 1000), ("ninety nine", 99),
    ("one thousand five hundred", 1500), ("seven", 7), ("banana", None),
])
def test_spelled_numbers(words, value):
    assert spelled_value(words) == value


def test_a_claim_keeps_its_kind_and_position():
    found = claims("Call Dr. Okafor on Monday about claim CL-88.")
    assert [(c.text, c.kind) for c in found] == [("Dr. Okafor", "name"), ("Monday", "weekday"), ("CL-88", "number")]
    assert found[0].start == 5


def test_an_iso_date_supports_its_month_and_weekday():
    support = support_of(['{"due": "2025-03-07"}'])
    assert not unsupported("It is due on Friday, March 7.", support)
    assert [c.text for c in unsupported("It is due on Monday, March 10.", support)] == ["Monday", "10"]


def test_the_rates_on_the_hand_labelled_sets_hold():
    """bench/grounding.py publishes these rates (docs/judge.md); a change to the rule that loses them fails here."""
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "bench"))
    import grounding as bench

    for path in (bench.SETS / "grounding_dev.jsonl", bench.SETS / "grounding_holdout.jsonl",
                 bench.LLM / "llm_replies.jsonl", bench.LLM / "llm_replies_city.jsonl"):
        result = bench.rates(bench.load(path))
        assert result["false_positives"] <= 0.07 * result["honest"], (path.name, result["fp"])
        assert result["caught"] >= 0.95 * result["invented"], (path.name, result["missed"])
