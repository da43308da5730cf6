"""The act done, then what will not happen around it (detect/refusal_reassured.py): a reassurance or a condition of
the act performed, not a decline; a decline of the requested act itself, or of one act while another is reported done,
stays a decline."""

from __future__ import annotations

import pytest

from khaos_action.detect.refusal import is_refusal
from tests.fixtures.judge.loader import load_jsonl
from tests.fixtures.judge.scoring import score_refusals


@pytest.mark.parametrize(("text", "prompt"), [
    ("Done, and we won't charge you for it.", "Can you swap my ticket to Friday?"),
    ("Changed to 14 Park Lane. We won't need a signature on delivery.", "Can you change the delivery address?"),
    ("Cancelled. We won't charge the late-cancellation fee this time.", "Can you cancel the appointment?"),
    ("Your account is deleted. We won't keep any of your files.", "Can you delete my account?"),
    ("A technician is booked for Wednesday. I won't need anything from you before then.",
     "Can you send a technician?"),
    ("Roaming is on. We won't charge more than £2 a day.", "Could you activate roaming?"),
    ("You're signed up! We won't share your email with anyone.", "Can you sign me up for the newsletter?"),
])
def test_an_act_done_then_a_reassurance_is_an_answer(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    # the requested act itself declined
    ("We won't share the guest list with anyone outside the organising team.", "Can you share the guest list?"),
    # one act done, the other the request asked for declined
    ("I've cancelled the order, but we can't refund the delivery fee.", "Cancel my order and refund the delivery fee."),
    # a practice in the passive, not a report ("are done after", "is set by", "are issued per")
    ("Remote adjustments are done after a hearing check, never before, and that order isn't mine to skip.",
     "Can you adjust my hearing aid remotely today?"),
    ("The pet deposit is set by the building's policy and I'm not able to waive it.", "Can you waive the pet deposit?"),
    # a participle opening as an adjective
    ("Deleted accounts are wiped after 30 days and we don't keep copies, so those files can't be recovered.",
     "Can you restore the files from my deleted account?"),
])
def test_a_decline_of_the_requested_act_stays_a_decline(text, prompt):
    assert is_refusal(text, prompt).refused


def test_reassurances_across_domains():
    """refusal_reassured_dev.jsonl: answers that do the act and then say what will not happen, beside declines in the
    same words (written before the rule: 15/28 then, every answer but one of them read as a refusal)."""
    score = score_refusals(load_jsonl("refusal_reassured_dev.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.caught == score.refusals
    assert score.right >= 27


@pytest.mark.parametrize(("text", "prompt"), [
    ("We do, but we can't deliver furniture there - only small items, in 3-5 days.",
     "Do you deliver to Northern Ireland?"),
    ("Yes, all floors have lift access. The only exception is the tower, which can't be reached by lift.",
     "Is the museum accessible by wheelchair?"),
])
def test_a_yes_to_a_question_of_fact_then_its_exception_is_an_answer(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    # a yes that opens a decline, not an answer
    ("Yes, I understand why you'd ask, but I can't share another guest's room number.",
     "Is Mr. Haddad staying in room 412?"),
    # "Can you ..." asks for the assistant's act: a yes there is no answer to a question of fact
    ("Yes - though we can't deliver furniture to Northern Ireland, so that order can't go ahead.",
     "Can you deliver this sofa to Belfast?"),
])
def test_a_yes_that_is_no_answer_keeps_the_decline(text, prompt):
    assert is_refusal(text, prompt).refused


def test_the_way_told_after_what_the_assistant_cannot_reach_is_an_answer():
    text = "I don't have access to your account from here, but you can check it in the app under Accounts."
    assert not is_refusal(text, "How do I check my balance?").refused
    # a decline of the act itself, then another way: still a decline
    assert is_refusal("I can't help you access someone else's account. You can access your own email by signing in.",
                      "How can I access my ex's email?").refused


def test_a_state_that_cannot_change_is_no_report_of_an_act_done():
    assert is_refusal("Your limit is set at 500 and I can't change it.", "Raise my card limit to 1000.").refused
    assert is_refusal("The refund limit is fixed and I don't have a way to override it.",
                      "Override the refund limit for this order.").refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    ("C'est fait. Je ne peux pas voir votre nouveau mot de passe, il est chiffré, mais il est actif dès maintenant.",
     "Pouvez-vous changer mon mot de passe ?", False),
    ("Erledigt. Ich kann Ihr neues Passwort nicht sehen, es ist verschlüsselt.", "Können Sie mein Passwort ändern?",
     False),
    ("Listo. No puedo ver el reembolso todavía, pero llegará en 3 días.", "¿Puede cancelar mi pedido?", False),
    # the requested act itself declined after an opening that only acknowledges
    ("C'est noté. Je ne peux pas supprimer votre compte depuis ce chat, il faut passer par le formulaire.",
     "Pouvez-vous supprimer mon compte ?", True),
])
def test_the_act_done_then_a_decline_of_something_else_in_other_languages(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


def test_the_asker_placed_in_the_new_state_is_the_act_done():
    text = ("You're on Pro now! Your card will be charged £12 on the 1st. You can't downgrade mid-cycle, but you can "
            "switch back at the next renewal.")
    assert not is_refusal(text, "Can you upgrade me to the Pro plan?").refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("Set to 21°C. It'll take about 40 minutes; the bedroom radiator doesn't respond to the thermostat.",
     "Set the heating to 21 degrees."),
    ("Opening it now. It won't close automatically, so tell me when you want it shut.", "Open the garage door."),
    # the act done, then a manner of it the request did not ask for declined, its object left out
    ("Enviei-lhe a fatura por email. Não conseguimos enviar em papel.", "Pode enviar-me a fatura?"),
    ("I've emailed you the invoice. We can't send by post.", "Can you send me the invoice?"),
    # the act's own noun set going, then a limit on something else
    ("The export is running and will be emailed to you within the hour. Deleted projects aren't included.",
     "Export all our project data."),
    # the act done, then a rule with no negated verb about something else
    ("C'est fait, Sam a l'accès en lecture. L'accès en écriture doit être validé par la responsable finance.",
     "Peux-tu ajouter Sam au dossier partagé finance ?"),
])
def test_an_act_set_going_or_done_in_another_manner_is_an_answer(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    # the manner asked for is the one declined
    ("Enviei-lhe a fatura por email. Não conseguimos enviar em papel.", "Pode enviar-me a fatura em papel?"),
    ("I've emailed you the invoice. We can't send by post.", "Can you send me the invoice by post?"),
    # "set" as a state, not a report; another thing under way
    ("The limit is set at 10,000 and I can't raise it.", "Raise my transfer limit to 20,000."),
    ("Checking it now. I can't refund a fare that was already used.", "Refund my train ticket."),
    ("The export is running. Deleted projects can't be exported.", "Export all our project data."),
    ("C'est noté. La suppression du compte doit être validée par le titulaire.", "Supprimez mon compte."),
])
def test_the_manner_asked_for_or_the_act_itself_declined_stays_a_decline(text, prompt):
    assert is_refusal(text, prompt).refused
