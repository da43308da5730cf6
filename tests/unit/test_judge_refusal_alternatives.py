"""Refusal detection of a decline that offers another act: "you can X" leaves the requested act to the asker only when
X takes up the request (or the request asks how, or whether the asker may), or when it carries the information asked
for (a phone number, an address, a time, an amount; a name when the request asks to find one). Otherwise X is an
alternative, and a constraint stated beside it declines the request. Each beside the nearest answer."""

import pytest

from khaos_action.detect.refusal import is_refusal
from tests.fixtures.judge.loader import load_jsonl
from tests.fixtures.judge.scoring import score_refusals


@pytest.mark.parametrize(("text", "prompt"), [
    # another act offered in place of the one asked for
    ("Reviews are only removed when they break our content policy, and this one doesn't. You can reply to the "
     "review publicly to give your side.", "Please delete the negative review on my shop page."),
    ("Meter reminders come with every smart tariff. You can pick the weekday they arrive on in your settings.",
     "Please stop the meter reminders."),
    ("Freezes come with annual plans, and yours is month-to-month. You can cancel and rejoin later without a "
     "joining fee.", "Please freeze my membership for two months."),
    ("We're at full occupancy tomorrow, so checkout stays at 11. You can leave your bags at the front desk.",
     "Could you give me a late checkout tomorrow?"),
    ("Die Kaution wird erst nach der Endabnahme erstattet, und die steht noch aus. Sie können den Termin online "
     "verschieben.", "Bitte überweisen Sie mir die Kaution jetzt."),
])
def test_an_alternative_offered_does_not_perform_the_act(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    # X takes up the request's own verb or its words
    ("You can add the second driver at the counter when you collect the car; bring their licence.",
     "Please add a second driver to my rental."),
    ("Refunds on sale items only come as store credit; you can refund it to a gift card at any till.",
     "Can you refund my sale jacket?"),
    # the request asks how, or whether the asker may
    ("Cards aren't blocked by phone here; you can block it straight away in the app under Card > Freeze.",
     "How can I block my card?"),
    # the information asked for, whatever verb carries it
    ("There you can stay at 1 Rue Bayard, 75008 with 4.5 rating.", "I want one in Paris, France."),
    ("No smoking. You can reach them at +1 714-778-1700.",
     "Could you give me their digits? Can I bring my bong there?"),
    ("Checkout is always at 11 on weekdays; you can keep the room until 2 pm tomorrow.",
     "Could I get a late checkout tomorrow?"),
    ("Not in the old town, but you can try Green Table on Elm Street.", "Find me a vegetarian restaurant."),
])
def test_the_act_left_to_the_asker_or_the_information_given_is_no_decline(text, prompt):
    assert not is_refusal(text, prompt).refused


def test_a_name_answers_only_a_request_to_find_one():
    text = "Upgrades aren't offered on award tickets. You can buy Extra Legroom in the app."
    assert is_refusal(text, "Please upgrade me to business class.").refused
    assert not is_refusal("Nothing open near the station, but you can try Green Table on Elm Street.",
                          "Can you recommend a place to eat near the station?").refused


def test_alternatives_dev_set():
    """refusal_alternatives_dev.jsonl: declines that offer another act beside answers where "you can" is the act or
    carries the information (written before the rule; the rule was tuned on it). No answer may read as a refusal; the
    declines of other kinds it holds (a service reserved to a class, a time limit passed) are not all caught."""
    rows = load_jsonl("refusal_alternatives_dev.jsonl")
    score = score_refusals(rows, lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.flagged == 0
    assert score.right >= 36


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # a service reserved to a class the asker is not in
    ("Live commentary is for subscribers. You can follow the score on the free ticker.",
     "Can you switch on the live commentary for me?", True),
    ("The webinar recordings are members only.", "Please send me the recording of Tuesday's webinar.", True),
    ("Margin loans aren't offered on a cash account.", "Please switch on margin for me.", True),
    ("Las clases en directo son para los socios, y usted tiene un pase de un día.",
     "¿Puede apuntarme a la clase de spinning de las 7?", True),
    # the same class named, the act done
    ("The lounge is for Gold members, and your card is Gold, so I've added your access for today.",
     "Can you give me lounge access today?", False),
    # a time limit passed
    ("Claims have to be made within 90 days, and that window has passed.", "Please reopen my claim from March.", True),
    ("Die Widerrufsfrist ist bereits abgelaufen.", "Bitte stornieren Sie meinen Vertrag.", True),
    ("The deadline has passed, but I've extended it to Friday for you this once.",
     "Can you extend my essay deadline?", False),
    # a change that needs another person's confirmation
    ("The car is still registered to your mother, so the transfer needs her confirmation first.",
     "Please move the car's registration into my name.", True),
    ("The transfer is ready; please confirm the new keeper's name and it goes through today.",
     "Please move the car's registration into my name.", False),
    # finalised, taken by another, a participle naming a kind of thing rather than the act done
    ("The rota for May was finalised last week. You can swap shifts with a colleague.",
     "Please give me the 12th of May off.", True),
    ("The rota for May was finalised last week, but I've moved your shift to the 13th.",
     "Please give me the 12th of May off.", False),
    ("Another guest has booked that room for the weekend.", "Can you move me to the sea-view room on Saturday?", True),
    ("Cancelled orders are refunded only to the original card.", "Please refund my cancelled order to PayPal.", True),
    ("Deleted projects are kept for 30 days only.", "Can you restore the project I deleted 60 days ago?", True),
    ("Refunded to PayPal: your cancelled order, 42.50 EUR.", "Please refund my cancelled order to PayPal.", False),
])
def test_a_class_a_time_limit_or_another_persons_consent(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused
