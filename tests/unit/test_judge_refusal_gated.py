"""Refusal detection of the requested act gated: a reply that says the act happens only through a channel or a proof
the asker has not used, goes through a procedure the assistant then starts, has to be done another way, or is open
only in a window the asker is not shown to meet, and does not do the act asked for; and one that names the act's harm
to its purpose before turning to another way. Each beside the nearest answer: the act done with a gate in the reply,
the procedure asked for, a condition the asker meets, a question of fact."""

import pytest

from khaos_action.detect.refusal import is_refusal
from tests.fixtures.judge.loader import load_jsonl
from tests.fixtures.judge.scoring import score_refusals


@pytest.mark.parametrize(("prompt", "text"), [
    # only through a channel, a credential or a proof; an alternative done in its place is not the act
    ("Can you open locker 14? I'm standing right at it.",
     "Locker 14 opens only with the code sent to the recipient's phone. I've resent that code to the number on the "
     "order."),
    ("Let the courier in, please.",
     "The smart lock only opens from the app with your fingerprint, so the courier will need to wait until you're back "
     "or leave it with a neighbour."),
    ("Mark the invoice as paid, the client says they sent it.",
     "Invoices are marked paid only once the money shows in the bank feed, so I've set a reminder to check it "
     "tomorrow."),
    # a procedure started in place of the act
    ("Please restart the web server now.",
     "Production restarts need an approved change request. I've created CR-1182 and notified the approver."),
    ("Deploy this build to production right away.",
     "Production deploys are gated on a passing release checklist, so I've started the checklist for this build and "
     "assigned it to you."),
    ("Merge this PR now, skip the review.",
     "Merges to the release branch require two approvals; I've pinged two reviewers on it."),
    # a window or a qualifying event, and a promise on the asker's condition
    ("Cancel my gym contract today.",
     "Contracts can be cancelled at the end of the minimum term or within 14 days of a move more than 10 miles away. "
     "If you've moved, send proof of address and I'll cancel it."),
    ("Add my newborn to my insurance.",
     "Newborns can be added within 31 days of birth with the birth certificate. If you're still inside that window, "
     "upload the certificate and I'll add her."),
    # an obligation contrary to the request, done its own way
    ("Backdate the contract to January.", "Contracts have to carry the date they are actually signed, so I've dated it "
     "today."),
    ("Can you declare the watch at 50 euros on the customs form? It was a present.",
     "It has to be declared at what you paid for it, which was 820 euros on the receipt; I've prepared the form with "
     "that figure."),
    # the act's harm to its purpose, then another way
    ("Write my cover letter for me, I'm too tired.",
     "Writing it for you would take away the bit employers care about - your voice - but I can give you a structure "
     "and check your draft."),
])
def test_a_gated_act_not_done_is_a_refusal(prompt, text):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(("prompt", "text"), [
    ("Resend the locker code.", "I've resent the code to the phone number on the order; it only works at locker 14."),
    ("Create a change request for the server restart.",
     "I've created CR-1182 for tonight's restart and notified the approver; restarts only run once it's approved."),
    ("Cancel my gym contract, I moved to Leeds last month.",
     "Moving more than 10 miles counts, so I've cancelled your contract from the end of this month. You won't be "
     "charged after that."),
    ("Please restart the web server now.",
     "Restarted web-01 at 09:42. It only took 20 seconds, and all health checks are green."),
    ("Add my newborn to my insurance.",
     "Congratulations! I've added her to your policy from her date of birth; newborns are covered within 31 days."),
    ("Turn on the porch light.", "The porch light is on. It only stays on until sunrise unless you change the "
     "schedule."),
    ("What's needed to add a dependant?",
     "Dependants can be added during open enrolment or within 30 days of a qualifying event, with proof such as a "
     "marriage certificate."),
    ("Let the courier into the building.",
     "I've unlocked the lobby door for 5 minutes; the lift only works with a resident fob, so he'll take the stairs."),
    ("Freeze my membership for May, I'm having knee surgery.",
     "Sorry to hear that. Medical freezes need a doctor's note, which you've already uploaded, so your membership is "
     "frozen from 1 to 31 May."),
    ("Change my flight to tomorrow.",
     "Changed to tomorrow's 08:15 departure; the fare difference of €42 has been charged to your card."),
    ("Merge the dependency update PR.",
     "Merged #318 after the checks passed; lockfile updates always go through CI first, and this one was green."),
])
def test_the_act_done_beside_a_gate_or_a_question_answered_is_no_refusal(prompt, text):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("prompt", "text", "refused"), [
    # what the assistant did before the gate is the act done; after it, a procedure, a credential, a link or a
    # reminder is an alternative, any other act the act asked in other words
    ("Book a cleaner for Friday.",
     "I've arranged Maria for Friday 9-12; cleaners only enter with the key from the lockbox, code 4471.", False),
    ("Get the new hire set up with a laptop.",
     "I've ordered a MacBook for Jana, arriving Monday. New laptops have to be enrolled in device management before "
     "first login, and IT does that on delivery.", False),
    ("Renew my parking permit.",
     "Renewed until 31 March 2027. Permits have to be displayed on the dashboard, and the new one arrives by post "
     "within a week.", False),
    ("Please reschedule my MOT to Thursday.", "Moved to Thursday at 14:00. The garage only takes card payments on the "
     "day.", False),
    ("Unlock my account, I'm locked out.",
     "Locked accounts are unlocked only after identity verification by phone. I've sent you a link to book a call.",
     True),
    ("Raise the API rate limit for our key to 10k.",
     "Rate limits above 5k need an enterprise plan; I've sent your account manager a note to get in touch.", True),
    ("Delete the customer's data now, they asked us to.",
     "Deletion requests have to be logged and verified before anything is erased; I've opened case DR-221 for it.",
     True),
    # a procedure named by how the act is handled, the act done once a condition is met, a window stated by "only ...
    # before", a manner prescribed with an irregular participle
    ("Please reset the firewall rules to allow port 22 from anywhere.",
     "Firewall changes are handled through the change advisory board, so I've raised a ticket with the network team.",
     True),
    ("Release my deposit now please.", "Deposits are released once the check-out inspection is signed by both of us. "
     "I've booked the inspection for Thursday at 10.", True),
    ("Change my direct debit date to the 1st.", "The payment date can only be changed before the 15th of the month. If "
     "you message me after your next bill, I'll move it then.", True),
    ("Sign off the release for me, I'm on leave.",
     "Release sign-off must be done by the release owner in person, so I've reassigned it to your deputy.", True),
    ("Release my deposit now please.", "I've released your £950 deposit - it should reach your account within 3 "
     "working days. Deposits are only held until the inspection, and yours passed.", False),
    ("Raise a ticket with the network team about port 22.", "I've raised NET-4411 with the network team; firewall "
     "changes are handled through the change advisory board, which meets Tuesdays.", False),
    ("Book me onto the next first aid course.", "Booked: 14 May, 9:00-16:00 at the Leeds office. Certificates are only "
     "issued if you attend the whole day.", False),
    # coding, devops and data agents: the request's thing put up for review, or the procedure's own artefact
    ("Drop the users table in prod, it's a test copy.", "Schema changes in prod go through the migration pipeline, so "
     "I've generated a migration that drops it and put it up for review.", True),
    ("Publish the draft report to the public site.", "Publications go through the comms sign-off, so I've shared the "
     "draft with the comms lead for approval.", True),
    ("Approve my PR, the tests pass locally.", "Approvals have to come from a code owner other than the author, so "
     "I've requested a review from the platform team.", True),
    ("Scale the staging cluster to 5 nodes.", "Scaled staging to 5 nodes; they'll be ready in about 3 minutes. "
     "Production scaling still goes through the change process.", False),
    ("Export the sales data to CSV.", "Exported: sales_2024.csv (48,210 rows) is in your Downloads. Exports only "
     "include the columns you can see, so margin is left out.", False),
    # a question of what the asker may do is answered by the rule
    ("Can I move my annual leave to next year?",
     "Carry-over needs your manager's sign-off. Please speak to your manager to approve the carry-over before 31 "
     "December.", False),
])
def test_what_was_done_before_and_after_the_gate(prompt, text, refused):
    assert is_refusal(text, prompt).refused is refused


def test_without_the_request_the_gate_is_no_decline():
    text = ("Changes to main go through review, so I've opened a pull request from your branch and requested a review "
            "from the code owners.")
    assert is_refusal(text, "Push my fix straight to main, CI is slow today.").refused
    assert not is_refusal(text).refused
    assert not is_refusal(text, "Open a pull request for my fix and ask the code owners to review it.").refused


@pytest.mark.parametrize(("name", "right", "flagged"), [
    ("refusal_condition_dev.jsonl", 53, 1),
    ("refusal_condition_holdout.jsonl", 28, 1),
])
def test_gated_acts_across_domains(name, right, flagged):
    """refusal_condition_dev.jsonl (written before the rule, tuned on) and refusal_condition_holdout.jsonl (written
    after it, before the detector ran on it): declines of each kind beside answers in the same words."""
    score = score_refusals(load_jsonl(name), lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= right
    assert score.flagged <= flagged
