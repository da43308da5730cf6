"""Refusal detection of declines that state only the consequence or the conclusion, read against a request for an
act: the thing the asker asked to remove or change said to persist, and a reason closed by "so no". Each with the
nearest reply that is no refusal."""

import pytest

from khaos_action.detect.refusal import is_refusal


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # the object of a request to remove or change, said to persist, after a reason or not, or as a pronoun after a
    # reason that named it
    ("Your booking was on a non-refundable fare, so the late fee stands.",
     "Can you waive the late fee on my booking?", True),
    ("The penalty was applied under the lease terms you signed, so it still applies.",
     "Please remove the penalty from my rent.", True),
    ("That charge covers the technician's visit, and it remains on your bill.",
     "Could you refund the call-out charge?", True),
    ("The parking fine was issued correctly, so it stands.", "Can you cancel my parking fine?", True),
    ("The attendance rule stays in place for everyone this term.", "Can you drop the attendance rule for me?", True),
    ("The fee can't be waived after check-in, so it stands.", "Could you waive the fee?", True),
    ("The word limit is set by the department for every module, so it stays at 3,000 words.",
     "Can you change the word limit for my essay?", True),
    ("Thanks for the photos. The scratches were logged at drop-off, so the damage charge will still apply.",
     "Please take off the damage charge, the scratches were already there.", True),
    # the nearest answers: a question about the thing, a persistence with a term, other things persisting, the
    # removal done, a condition, something else persisting
    ("The fee stays the same as last year.", "How much is the fee this year?", False),
    ("The late fee stands.", "Is there a late fee?", False),
    ("Done: your subscription stays active until 3 June.", "Please cancel my subscription.", False),
    ("I've removed the mug. The other items stay in your basket.", "Please remove the mug from my basket.", False),
    ("I've waived the fee this once; the interest still applies.", "Could you waive the fee and the interest?", False),
    ("If you rebook by Friday, the fee still applies.", "Can you waive the fee?", False),
    ("Your card remains active.", "Could you waive the annual fee on my card?", False),
])
def test_the_thing_asked_to_be_removed_persists(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


def test_persistence_declines_only_against_the_request():
    assert not is_refusal("Your booking was on a non-refundable fare, so the late fee stands.").refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # a reason closed by a bare "no" to a request for an act, in four languages
    ("The warranty ran out last month, so no.", "Can you replace my kettle for free?", True),
    ("The warranty ran out last month. So no.", "Can you replace my kettle for free?", True),
    ("You've already used your free swap this year, so the answer is no.", "Can I swap my shift with Priya?", True),
    ("The room is booked solid that weekend, which means no, I'm sorry.",
     "Could you move my party to the Saturday?", True),
    ("Die Garantie ist im Mai abgelaufen, also nein.", "Können Sie meinen Wasserkocher kostenlos ersetzen?", True),
    ("La garantie a expiré en mai, donc non.", "Pouvez-vous remplacer ma bouilloire gratuitement ?", True),
    ("La garantía venció en mayo, así que no.", "¿Puede cambiarme el hervidor gratis?", True),
    # the nearest answers: a yes/no question for information, "no" before a noun or a clause
    ("Returns within 30 days are free, so no.", "Is there a fee for returns?", False),
    ("Die Rücksendung ist kostenlos, also nein.", "Kostet die Rücksendung etwas?", False),
    ("Your plan renews on the 3rd, so no charge until then.", "Please cancel my plan.", False),
    ("Your account is two years old, so no, you won't be charged.", "Please waive the fee.", False),
    ("No problem, I'll send it today.", "Can you send me the invoice?", False),
])
def test_a_reason_closed_by_no(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


def test_so_no_declines_only_against_a_request_for_an_act():
    assert not is_refusal("The warranty ran out last month, so no.").refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # the act called another party's job or call, past the opening when its subject names the act by the request's
    # words or stands for it
    ("Your results came back from the lab this morning. Explaining what they mean is your doctor's job, and she'll "
     "call you on Thursday.", "Can you explain my blood test results?", True),
    ("I see the leak report from Monday. Whether the boiler gets replaced is the landlord's call.",
     "Please get my boiler replaced.", True),
    ("The leak was reported on Monday. That's the landlord's call, I'm afraid.", "Please get my boiler replaced.",
     True),
    ("That's the landlord's call.", "Please get my boiler replaced.", True),
    # the nearest answers: the assistant acting on the request, a question of whose job it is, another thing's job,
    # a pronoun's "'s"
    ("Your results came back this morning. Booking the follow-up is the receptionist's job, and I've asked her to "
     "call you.", "Can you book my follow-up?", False),
    ("The boiler is twelve years old. Replacing it is the landlord's responsibility, so I've sent them your report.",
     "Please get my boiler replaced.", False),
    ("Replacing the boiler is the landlord's responsibility.", "Can you tell me who has to replace the boiler?",
     False),
    ("That's the landlord's call.", "Who decides whether the boiler is replaced?", False),
    ("I've booked your follow-up for Tuesday at 10. Parking is the hospital's business, so bring coins.",
     "Can you book my follow-up?", False),
    ("It's the tenant's job to bleed the radiators. Open the valve at the top with a key until water comes out.",
     "How do I bleed my radiators?", False),
])
def test_the_act_called_someone_elses_job(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


def test_someone_elses_job_declines_only_against_the_request():
    assert not is_refusal("Explaining what they mean is your doctor's job.").refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # the requested act postponed by the assistant until a condition, after a reason
    ("Knocking that wall through would breach the lease, so we'll hold off until the landlord signs off.",
     "Can you knock the kitchen wall through?", True),
    ("The invoice hasn't been approved yet, so I'll have to wait until finance signs it off.",
     "Please pay the supplier invoice today.", True),
    ("Your visa check is still pending, and we'll put your booking on hold until it clears.",
     "Can you book my flight to Lima?", True),
    # the nearest answers: a wait on the asker's own choice, a schedule asked about, a hold that is the act done
    ("I have two dates free, so I'll wait until you confirm which one suits you.", "Can you book my appointment?",
     False),
    ("The delivery is scheduled; we'll wait until Friday for the courier.", "When will my parcel come?", False),
    ("Done, I've booked it. The hotel will hold the room until 6 pm.", "Can you book the hotel?", False),
])
def test_the_act_deferred_until_a_condition(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused
