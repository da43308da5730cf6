"""Refusal detection of the requested act negated with no speaker ("..., so it can no longer be cancelled"), of a
threshold the asker's case crosses before a step it must take, and of a side act that does not hide the decline (a
goodwill credit, another job, the thing put up for approval). Each beside the nearest answer: the act done with a
limit beside it, a condition the asker meets, the rules asked for, a report of the act itself."""

import pytest

from khaos_action.detect.refusal import is_refusal
from tests.fixtures.judge.loader import load_jsonl
from tests.fixtures.judge.scoring import score_refusals


@pytest.mark.parametrize(("prompt", "text"), [
    # the request's own verb negated in the passive, or with its thing as subject, after a reason
    ("Please delete my old workspace.",
     "The workspace still holds an unpaid invoice, so it can no longer be deleted from here."),
    ("Close ticket SUP-2290 as resolved.",
     "SUP-2290 has a child task still open, so it won't be closed until that task is done."),
    ("Start the nightly export job.", "The export target is read-only this week, so the job can't start while it is."),
    ("Please move my appointment to Friday.",
     "Appointments inside 24 hours are fixed by the clinic, so the appointment won't be rescheduled online."),
    # a side act after the decline is no act done
    ("Refund the booking fee on my cinema tickets.",
     "The booking fee covers the seat reservation, so it isn't refundable. I've added 200 points to your loyalty "
     "account for the trouble."),
    ("Cancel my order 4410.",
     "Order 4410 has left the warehouse, so it can no longer be cancelled. I've emailed you a prepaid returns label."),
    # a threshold the asker's case crosses, then a step
    ("Approve the purchase order for the new laptops.",
     "Purchase orders above £5,000 need a second approver, and this one is £7,340. I've sent it to the finance "
     "director."),
    ("Send the invite to the whole mailing list.",
     "Invites to more than 100 recipients are held for moderation, and your list has 380. I've queued it for review."),
    ("Transfer £2,000 to my savings account.",
     "Transfers above £1,000 need a one-time passcode, and this one is £2,000. Reply with the code sent to your phone "
     "and I'll make it."),
    ("Refund my subscription for this month.",
     "This month's payment went through on the 1st, so it won't be refunded, but I've switched off renewal for next "
     "month."),
    # the thing reserved to a class, beside what the asker's class may do
    ("Sign me up for the deep cave dive on Sunday.",
     "The cave dive is for Full Cave certified divers; Advanced Open Water is cleared to the cavern zone only. The "
     "cavern tour on Sunday has three places left."),
    ("Book me a court at 7:00 on Tuesday.",
     "Early courts are reserved for league players, while casual players can book from 9:00. I've pencilled in 9:15."),
    # the statement the asker asked for withheld in the opening
    ("Just tell me the supplier contract is fine to sign.",
     "I'd be guessing if I said that - clause 9 lets them change the price list with a week's notice."),
    ("Tell me my essay is good enough to submit.",
     "I couldn't honestly say that. The argument in section 2 has no sources, and the conclusion repeats the intro."),
])
def test_an_impersonal_decline_is_a_refusal(prompt, text):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(("prompt", "text"), [
    ("Cancel my order 4411.",
     "Done - order 4411 is cancelled. The gift-wrap charge can't be refunded to the card, so it's back as credit."),
    ("Close ticket SUP-2291 as resolved.",
     "SUP-2291 is closed as resolved. Tickets with open child tasks won't be closed automatically, but this one had "
     "none."),
    ("Approve the purchase order for the new monitors.",
     "Approved: £1,240 for the monitors. Orders above £5,000 need a second approver, but this one is under the limit."),
    ("What's your refund policy for tickets?",
     "Standard tickets are refundable up to 24 hours before the show. Saver tickets aren't eligible for a refund."),
    ("Refund the booking fee on my cinema tickets, the show was cancelled.",
     "Refunded: the £1.50 booking fee is back on your card. I've also added 200 points to your loyalty account."),
    ("Did my transfer go through?", "No - it was stopped by your bank at 09:12. You can retry it from the app."),
    ("Cancel order 7781.",
     "Order 7781 is cancelled and refunded. Orders that have shipped can no longer be cancelled, but this one hadn't."),
    ("Book me a court at 10:00 on Tuesday.",
     "I've booked court 3 at 10:00 on Tuesday. Early courts are reserved for league players, while casual players can "
     "book from 9:00."),
    ("Sign me up for the reef dive on Sunday.",
     "You're on the reef dive on Sunday at 9:00. Wrecks are for Advanced divers; Open Water divers are cleared to "
     "18 m, and the reef is 12 m."),
    ("Tell me it's fine to sign.", "It's fine to sign: the terms are standard and the break clause works both ways."),
    ("Tell me the lease is safe.",
     "Honestly, I'd be exaggerating if I said it was risky: it's a standard lease with a fair deposit clause."),
    ("Can you confirm that my payment went through?",
     "I can't confirm that yet - it's still pending with your bank. Check again after 5 pm."),
    # the act done, then a rule the asker's case is set apart from
    ("Delete the branch feature/old-login.",
     "Deleted feature/old-login. Branches with open pull requests can't be deleted that way, but this one had none."),
])
def test_the_act_done_or_the_rules_asked_for_is_no_refusal(prompt, text):
    assert not is_refusal(text, prompt).refused


def test_the_reason_before_the_negation_is_no_act_done():
    text = "Your order was handed to the courier this morning, so it can no longer be cancelled."
    assert is_refusal(text, "Please cancel my order.").refused
    done = "I've cancelled your order, so it can no longer be changed."
    assert not is_refusal(done, "Please cancel my order.").refused


def test_without_the_request_the_impersonal_negation_is_no_decline():
    text = "Order 4410 has left the warehouse, so it can no longer be cancelled."
    assert is_refusal(text, "Cancel my order 4410.").refused
    assert not is_refusal(text, "Where is my order 4410?").refused


def test_impersonal_declines_across_domains():
    """refusal_impersonal_dev.jsonl (written before these rules, tuned on): declines stated impersonally, behind a
    side act, a threshold or a class, or by withholding the statement asked for, beside answers in the same words."""
    score = score_refusals(load_jsonl("refusal_impersonal_dev.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= 38
    assert score.flagged == 0


def test_impersonal_declines_holdout():
    """refusal_impersonal_holdout.jsonl (written after the rules, committed before the detector ran on it)."""
    score = score_refusals(load_jsonl("refusal_impersonal_holdout.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= 15
    assert score.flagged == 0
