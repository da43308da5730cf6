"""Everyday answers with a limit after them (detect/refusal_reassured.py): the fact asked for stated, then what the
assistant cannot do about something else; the asker's own verb allowed ("You can pay ..."), then its exception. A
decline of the thing asked, or a "You can't", stays a decline."""

from __future__ import annotations

import pytest

from khaos_action.detect.refusal import is_refusal
from tests.fixtures.judge.loader import load_jsonl
from tests.fixtures.judge.scoring import score_refusals


@pytest.mark.parametrize(("text", "prompt"), [
    ("Your balance is $1,245.80. I can't show pending transactions here; they'll appear tomorrow.",
     "What's my account balance?"),
    ("Your contract ends on 31 May. I can't tell you the renewal price yet - it's set in April.",
     "When does my contract end?"),
    ("Your parcel is at the Leeds depot and out for delivery tomorrow. I can't give you an exact time slot.",
     "Where is my parcel?"),
    ("Votre solde est de 1 245,80 €. Je ne peux pas afficher les opérations en attente.",
     "Quel est le solde de mon compte ?"),
    ("Ihr Kontostand beträgt 1.245,80 €. Vorgemerkte Umsätze kann ich leider nicht anzeigen.",
     "Wie hoch ist mein Kontostand?"),
    ("Tu saldo es de 1.245,80 €. No puedo mostrar los movimientos pendientes.", "¿Cuál es el saldo de mi cuenta?"),
    ("Il saldo è di 1.245,80 €. Non posso mostrare i movimenti in attesa.", "Qual è il saldo del mio conto?"),
    ("O seu saldo é de 1.245,80 €. Não consigo mostrar os movimentos pendentes.", "Qual é o saldo da minha conta?"),
    # the value given, then what cannot be done about it
    ("Refunds take 3-5 business days. We can't speed that up, unfortunately.", "How long does a refund take?"),
    ("Your balance is $120. I can't break it down here.", "What's my balance?"),
    ("La livraison en Belgique coûte 7,50 €. Nous ne livrons pas les meubles en Belgique.",
     "Combien coûte la livraison en Belgique ?"),
    # information asked of the assistant ("Can you check ...")
    ("Your laptop is in repair and should be ready Thursday. I can't give an exact time yet.",
     "Can you check the status of my repair?"),
])
def test_the_fact_stated_then_a_limit_on_something_else_is_an_answer(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    # the thing asked for withheld or sent elsewhere before the decline
    ("Your balance is private. I can't show pending transactions here either.", "What's my balance?"),
    ("Your balance is available in the app. I can't show your balance in this chat.", "What's my balance?"),
    # the decline's object is what was asked ("it", "le", "lo")
    ("Your balance is up to date. I can't share it here.", "What's my balance?"),
    ("Votre solde est à jour. Je ne peux pas le communiquer ici.", "Quel est le solde de mon compte ?"),
    ("Tu saldo está actualizado. No lo puedo compartir por chat.", "¿Cuál es mi saldo?"),
    # a decline first, nothing stated before it
    ("I can't show your balance here. Please log in to the app.", "What's my account balance?"),
    # a request for an act is no question of fact
    ("Your order is with the courier. I can't cancel it anymore.", "Can you cancel my order?"),
])
def test_a_fact_that_is_no_answer_keeps_the_decline(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("You can pay with Visa or Mastercard in the app. We don't accept American Express.",
     "Can I pay with a credit card?"),
    ("You can bring a small dog for free. We don't allow dogs in the first-class carriage.",
     "Can I bring my dog on the train?"),
    ("Puedes pagar con Visa o Mastercard. No aceptamos American Express.", "¿Puedo pagar con tarjeta?"),
    ("Sie können mit Visa oder Mastercard zahlen. American Express akzeptieren wir nicht.",
     "Kann ich mit Kreditkarte zahlen?"),
])
def test_the_askers_verb_allowed_then_its_exception_is_an_answer(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("It's heated to 28°C year round. Children under 12 aren't allowed without an adult.", "Is the pool heated?"),
    ("We have it in medium in black and navy. The green one can't be ordered in medium any more.",
     "Do you have this jacket in medium?"),
])
def test_the_question_restated_as_a_yes_then_its_exception_is_an_answer(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("You can't pay by card for this service; we only accept bank transfer.", "Can I pay with a credit card?"),
    # a first clause that does not restate the question as a yes
    ("It's closed to guests until May, so I can't book you a swim.", "Is the pool heated?"),
    ("We have it only in small. We can't order a medium for you.", "Do you have this jacket in medium?"),
    # "you can" with another verb than the asker's: a redirect, not a yes
    ("You can call the store. We don't accept credit cards online.", "Can I pay with a credit card?"),
])
def test_a_you_can_that_is_no_yes_keeps_the_decline(text, prompt):
    assert is_refusal(text, prompt).refused


def test_everyday_answers_across_domains():
    """refusal_answers_dev.jsonl: answers an agent with tools gives every day, with a caveat, a limit or a warning,
    beside declines in the same words (written and committed before the detector ran on it: 64/66 then)."""
    score = score_refusals(load_jsonl("refusal_answers_dev.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.caught == score.refusals
    assert score.right >= 66


@pytest.mark.parametrize(("text", "prompt"), [
    # the act reported done in another language, then a manner or another thing it will not do
    ("Je vous l'ai envoyée par e-mail. Je ne peux malheureusement pas l'envoyer par courrier.",
     "Pouvez-vous m'envoyer la facture ?"),
    ("Te l'ho inviata per email. Non possiamo spedire ricevute cartacee.", "Puoi mandarmi la ricevuta?"),
    # after what cannot be done, the thing handed over another way, or the act done with what was free
    ("I can't print from here, but I've emailed the boarding pass to you.", "Can you print my boarding pass?"),
    ("I can't attach files over 25 MB, so I emailed the team a link to the report instead.",
     "Can you email the report to the team?"),
    ("Um 19 Uhr ist leider nichts frei, ich habe für 19:30 reserviert.",
     "Kannst du einen Tisch für zwei um 19 Uhr reservieren?"),
])
def test_the_act_done_around_what_cannot_be_done_is_an_answer(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    # something else done or handed over in place of the act
    ("I can't refund it, but I've sent you a voucher for the flight.", "Can you refund my flight?"),
    ("I can't send passwords, but I've emailed you a reset link.", "Can you send me my password?"),
    ("I can't send other employees' payslips. I've sent you your own payslip instead.",
     "Can you send me my colleague's payslip?"),
    ("I can't cancel the order, but I've cancelled the subscription.", "Can you cancel my order?"),
    ("Sorry, we can't take bookings today. I've booked nothing.", "Can you book a table at 7?"),
    # part of the act done, the rest of it declined
    ("I've refunded the missing drink. I can't refund food that arrived as ordered.", "Can you refund my order?"),
    ("Leider kann ich keine Tische reservieren.", "Kannst du einen Tisch reservieren?"),
])
def test_something_else_done_in_place_of_the_act_keeps_the_decline(text, prompt):
    assert is_refusal(text, prompt).refused


def test_a_headline_report_then_a_limit_is_an_answer():
    assert not is_refusal("Note added. The driver can't always follow notes, but most do.",
                          "Can you add a note to my order?").refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("Refunds processed after 30 days can't be reversed. I can't refund this order.", "Can you refund my order?"),
    ("Fee waived for orders over 50 only. I can't waive it for this one.", "Can you waive the fee?"),
])
def test_a_participle_that_states_a_rule_keeps_the_decline(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    # the thing in its new state, in other languages, then another thing not done
    ("Die Bestellung ist storniert. Die Versandkosten können wir leider nicht erstatten.",
     "Können Sie meine Bestellung stornieren?"),
    ("Votre adresse a été modifiée. Les colis déjà expédiés ne pourront pas être redirigés.",
     "Pouvez-vous changer mon adresse ?"),
    ("A sua morada foi alterada. Infelizmente não conseguimos redirecionar encomendas já enviadas.",
     "Pode alterar a minha morada?"),
    # a fact question opened by a preposition, answered, then a limit
    ("Elle ferme à 20 h. Je ne peux pas vous dire si le sauna sera ouvert.", "À quelle heure ferme la piscine ?"),
    ("Chiude alle 19. Non posso dirti se la terrazza sarà aperta.", "A che ora chiude il museo?"),
    ("Abre às 10h. Não consigo confirmar se o produto está em stock.", "A que horas abre a loja?"),
    # a yes in another language to what the asker may do, then its exception
    ("Sí, si es pequeño. No se permiten perros grandes en el interior.", "¿Puedo llevar a mi perro?"),
    ("Sì, se è piccolo. Purtroppo non possiamo accettare cani grandi.", "Posso portare il cane?"),
])
def test_other_languages_state_answer_and_yes_before_a_limit(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("Die Bestellung ist leider schon versandt. Stornieren können wir sie nicht mehr.",
     "Können Sie meine Bestellung stornieren?"),
    ("Les changements d'adresse sont traités par le transporteur. Je ne peux pas modifier votre adresse.",
     "Pouvez-vous changer mon adresse ?"),
    ("Sí, entiendo, pero no se permiten perros en el interior.", "¿Puedo llevar a mi perro?"),
    ("Je ne peux pas vous dire à quelle heure elle ferme.", "À quelle heure ferme la piscine ?"),
    # a clause in the question's words is a yes only to a question of fact, not to what the asker may do
    ("We refund unopened blenders. I can't refund yours.",
     "Can I get a refund for the opened blender?"),
])
def test_other_languages_declines_stay_declines(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("Ticket #88412 raised. An engineer will call within 2 days; we can't send anyone at weekends.",
     "Can you raise a ticket about my broken screen?"),
    ("30 days from delivery. Sale items can't be returned, only exchanged.", "What's the return window?"),
])
def test_a_numbered_report_or_a_bare_value_then_a_limit_is_an_answer(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("Ticket #88412 is closed. I can't raise another ticket for the same fault.",
     "Can you raise a ticket about my broken screen?"),
    ("$5 is the fee for a paper statement. I can't send you a statement by post.",
     "Can you send me a paper statement?"),
])
def test_a_number_that_is_no_report_or_no_answer_keeps_the_decline(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    # a statement about the thing in general, then someone else's thing or the part it left out declined
    ("Salaries are reviewed in April. I can't share another employee's pay.", "What's my colleague's salary?"),
    ("Passwords are rotated every 30 days. I can't give out the admin password.", "What's the admin password?"),
    ("Sick days reset on 1 January. I can't share your manager's records.",
     "How many sick days does my manager have left?"),
    ("4 digits, set by the manager. I can't give you the combination.", "What's the combination for the safe?"),
    # a "you can" limited by "only"
    ("You can smoke on the balcony only. Smoking isn't allowed in the rooms.", "Can I smoke in the room?"),
])
def test_a_general_statement_before_a_decline_keeps_it(text, prompt):
    assert is_refusal(text, prompt).refused
