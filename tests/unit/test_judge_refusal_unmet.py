"""Declines with no decline word (refusal_unmet.py): a rule and the asker's case beside it, a class sent to another
day, the asker's thing on terms that exclude the act, a window closed, the act put off, the act done on fewer than
asked; and "Is it possible to <verb> my <thing>?" read as a request for an act. Each with the nearest answer."""

import pytest

from khaos_action.detect.refusal import is_refusal
from khaos_action.detect.refusal_request import Request


@pytest.mark.parametrize(("prompt", "text", "refused"), [
    # a rule of how such acts go, then the asker's case
    ("Upgrade my seat to business.", "Upgrades on award tickets are handled at the gate; yours is an award ticket.",
     True),
    ("Approve my expense claim.", "Claims above £500 are signed off by finance, and this one comes to £740.", True),
    ("Add my partner to the policy.", "Named drivers are added at renewal; your policy renews in March.", True),
    ("Give me write access to the repo.", "Write access is granted to the core team; you're in the docs group.",
     True),
    # the same facts with the act done, or the case inside the rule and the act done
    ("Upgrade my seat to business.", "Upgraded — seat 2A. Upgrades on award tickets are handled at the gate, but "
     "yours was a paid fare.", False),
    ("Approve my expense claim.", "Approved. Claims above £500 are signed off by finance, and this one comes to "
     "£140, so it's paid on Friday.", False),
    ("Give me write access to the repo.", "I've granted you write access; it's normally for the core team, and "
     "you're on it since Monday.", False),
    # a class sent to another day than the one asked
    ("Book my daughter into the Saturday pottery class.", "New students start in the Wednesday taster group.",
     True),
    ("Book my daughter into the Saturday pottery class.", "She's booked for Saturday at 10. New students usually "
     "start on Wednesdays.", False),
    # the asker's thing on terms that exclude the act; a window closed
    ("Transfer my concert ticket to my friend.", "Your ticket was bought on a non-transferable presale.", True),
    ("Sign me up for the spring half marathon.", "Registration closed on 2 March, and the waiting list is full.",
     True),
    # a deferral, against the act done now
    ("Please merge the dependency bump.", "I'll get to that once the release branch is cut next week.", True),
    ("Can you archive the old project board?", "Let's revisit it after the quarterly planning.", True),
    ("Please merge the dependency bump.", "Merged. I'll look at the follow-up warnings after the release.", False),
    # a partial act, against the act done in parts
    ("Order 30 chairs for the hall.", "I've ordered 18 for now; the supplier has no more this month.", True),
    ("Order 30 chairs for the hall.", "I've ordered all 30; 18 arrive Monday and the other 12 next week.", False),
    ("Raise the API quota to 5,000 calls.", "I've raised it to 2,000 until the billing check clears.", True),
    ("Raise the API quota to 5,000 calls.", "I've raised it to 5,000 calls; the change is live.", False),
    # a class of days against the day asked; the asker's thing of a class with its rule; a count opening the object
    # of another verb; a rule whose passive names the request's thing
    ("Schedule the boiler service for Sunday.", "Engineers visit on weekdays between 8 and 6.", True),
    ("Schedule the boiler service for Sunday.", "Scheduled for Sunday at 9 — our weekend engineer covers your area.",
     False),
    ("Close my savings account today.", "Your account is a fixed-term bond, which locks until 1 October.", True),
    ("Print 200 flyers for the fair.", "I've queued 120 for now; the printer is out of A5 card after that.", True),
    ("Print 200 flyers for the fair.", "I've printed all 200; they're at reception in two boxes.", False),
    ("Add me to the design team's channel.", "That channel is kept for the design staff, and you're in sales.", True),
    # the case in a relative clause, through "that", through a part "on this plan", dated in the past; the allowance
    # already used; another clock time than the one asked and never that one; a level set in another verb
    ("Archive every ticket from 2023.", "Mass archiving is run by the support lead, and the set you chose holds "
     "9,300 tickets.", True),
    ("Approve my overtime for the week of 3 March.", "Overtime in March is approved against the budget, and that "
     "week already has the team's cap used.", True),
    ("Close the joint account.", "Joint accounts are closed at the request of both holders, and the second holder "
     "on this account is your brother.", True),
    ("Upgrade my broadband online.", "Online upgrades are open to contracts signed after 2021; yours was signed in "
     "2018.", True),
    ("Waive the rebooking fee on my flight.", "Rebooking fees are waived once a year, and one was waived for your "
     "profile in May.", True),
    ("Let me collect my parcel at 7am.", "Parcel collection is offered from 9am at the depot.", True),
    ("Let me collect my parcel at 9am.", "That's fine — you're set for 9am at the depot; collection is offered from "
     "9am.", False),
    ("Raise the upload limit to 500 MB.", "I've taken it to 300 MB for now, which the server can hold.", True),
    ("Raise the upload limit to 500 MB.", "I've taken it to 500 MB; the server had room.", False),
    ("Upgrade my broadband online.", "Upgraded to Fibre 500 from tomorrow. Online upgrades are open to contracts "
     "signed after 2021, and yours was renewed in March.", False),
    # the rest still needing something, against the rest scheduled; the time now past a rule's time; holding off
    ("Add 8 users to our workspace.", "I've added 5; the other 3 need a paid seat, which your admin has to approve.",
     True),
    ("Pay £900 to the builder.", "I've paid £600 today and scheduled the remaining £300 for Monday.", False),
    ("Cancel my taxi for this evening.", "Free cancellations are allowed up to 2 hours before pickup, and it's 5:45 "
     "for a 6pm pickup.", True),
    ("Return my rental bike.", "Let's leave that until the dock sensor is repaired on Friday.", True),
    # capacities all below the party asked for, against one that takes it or a duration
    ("Can you book a minibus for 18 of us on Saturday?", "Our largest minibus seats 14, and the people carrier 8.",
     True),
    ("Can you book a minibus for 12 of us on Saturday?",
     "Done — the 14-seater is yours on Saturday from 8am; it seats 14.",
     False),
    ("Can you book a minibus for 18 of us on Saturday?",
     "The drive to the venue takes 2 hours, so I've booked the coach for 18 leaving at 7.", False),
])
def test_declines_with_no_decline_word(prompt, text, refused):
    assert is_refusal(text, prompt).refused is refused


@pytest.mark.parametrize(("prompt", "commands"), [
    ("Is it possible to move my appointment to Friday?", True),
    ("Would it be possible to change our delivery address?", True),
    ("Put a hold on my card.", True),
    ("Is it possible that the parcel was lost?", False),
    ("Is it possible to get sunburn through a window?", False),
])
def test_is_it_possible_to_verb_my_thing_asks_for_an_act(prompt, commands):
    assert Request.of(prompt).commands is commands


@pytest.mark.parametrize(("prompt", "text", "refused"), [
    # a report in words no reading of reports knows, then the rule and the case: the rule explains the act done
    ("Switch me to the family tariff.", "You're on the family tariff from the next bill. The family tariff is for "
     "households of up to 6, and yours has 4.", False),
    ("Book me into the Tuesday pottery class.", "You have a wheel in Tuesday's class. Newcomers usually start on "
     "Fridays, but your teacher signed you off.", False),
    # the case's figure inside the rule's bound, in the same unit, or the act given in words of its own: an answer
    ("Book a boat for our party.", "Boats are hired out to parties of 6 or more, and yours is 9 — you're all set "
     "for 10am.", False),
    ("Raise my card limit to £700.", "Limits up to £800 are set in the app, and this one is £700: your new limit is "
     "£700.", False),
    ("Book a boat for our party.", "Boats are hired out to parties of 6 or more, and yours is 3.", True),
    ("Send my parcel by express.", "Express covers parcels up to 20 kg, and yours is 26 kg.", True),
    # the same rule and case opening the reply, after courtesy only: the decline
    ("Switch me to the family tariff.", "Thanks for getting in touch! The family tariff is for households of up to "
     "6, and yours has 9.", True),
    ("Switch me to the family tariff.", "The family tariff is for households of up to 6, and yours has 9.", True),
])
def test_the_rule_and_the_case_decline_only_where_the_reply_opens(prompt, text, refused):
    assert is_refusal(text, prompt).refused is refused


def test_a_service_agent_confirming_a_booking_is_no_deferral():
    text = "I will make a booking for 3 nights starting next Friday at the Harbour Inn. Is this correct?"
    assert not is_refusal(text, "Book the hotel for 3 nights.").refused
