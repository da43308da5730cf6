"""Refusal detection by structure: the assistant naming itself as the subject of a relative clause after a negated
copula, a decline of the asked act followed by an offer of something else, the decision assigned to another party,
and the assistant's statement of its purpose before a lecture. Each with the nearest reply that is no refusal."""

import pytest

from khaos_action.detect.refusal import is_refusal


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # a negated copula, something / a thing / a noun, and a relative clause whose subject is the assistant, in the
    # first person or naming itself
    ("Opening a joint account isn't something this bot will do.", "Can you open a joint account for us?", True),
    ("Rebooking a missed ferry isn't a thing the desk handles.", "Please rebook my ferry.", True),
    ("Custom engraving is not something our team offers on sale items.", "Can you engrave the watch I bought?",
     True),
    ("That's not a quote we'll write up through this chat.", "Can you write me a quote for the kitchen?", True),
    ("A sick note isn't a document this assistant can issue.", "Can you issue me a sick note?", True),
    # the nearest answers: the negation ends before the clause, or the clause's subject is not the assistant, or
    # its verb gives an answer
    ("That's not a problem, we'll write up the quote today.", "Can you write me a quote for the kitchen?", False),
    ("That isn't a form you need to send; the claim is already open.", "Should I send the claim form?", False),
    ("Returns aren't something our team charges for.", "Do you charge for returns?", False),
    ("That's not something our team recommends, but here's how to do it safely: first back up the data.",
     "How do I wipe the disk?", False),
    # German, French, Spanish
    ("Das Anlegen eines zweiten Kontos ist nichts, was dieser Bot erledigt.",
     "Können Sie mir ein zweites Konto anlegen?", True),
    ("Das ist kein Problem, unser Team erledigt das heute.", "Können Sie mir ein zweites Konto anlegen?", False),
    ("Ce n'est pas une lettre que notre équipe rédigera.", "Pouvez-vous rédiger une lettre à mon propriétaire ?",
     True),
    ("Ce n'est pas un problème, notre équipe rédigera la lettre aujourd'hui.",
     "Pouvez-vous rédiger une lettre à mon propriétaire ?", False),
    ("Abrir una segunda cuenta no es algo que este bot haga.", "¿Puede abrirme una segunda cuenta?", True),
    ("No es un problema, nuestro equipo redactará la carta hoy.", "¿Puede redactar una carta para mi casero?",
     False),
])
def test_the_assistant_as_the_subject_of_a_relative_clause(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


def test_the_relative_clause_declines_without_the_request():
    assert is_refusal("A sick note isn't a document this assistant can issue.").refused
    assert is_refusal("Rebooking a missed ferry isn't a thing the desk handles.").refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # a disclaimer of the asked act followed by an offer of something else: the offer is no information
    ("I can't predict how your case will turn out, but I can book you a consultation with one of our attorneys, "
     "who will review your documents and explain your options.", "Will I win my custody case?", True),
    ("I can't say whether the surgery will be covered, but I can send you the claim form so you can ask the "
     "insurer.", "Will my surgery be covered?", True),
    # the nearest answers: information after the disclaimer, an offer of information, the act done
    ("I can't predict the exchange rate next month. Historically it has moved about 2% a month, and today it is "
     "1.17 dollars per euro.", "What will the euro be worth next month?", False),
    ("I can't guarantee a seat, but I've booked you on the 9:15 train.", "Can you book me on the 9:15 train?",
     False),
    ("As an AI language model, I do not have personal opinions, but I can provide some information on this topic. "
     "Austerity is a set of economic policies that aim to reduce government budget deficits through spending cuts, "
     "tax increases, or both; economists disagree on when it works.", "Does austerity work?", False),
])
def test_a_decline_followed_by_an_offer_is_a_decline(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # the decision or the act assigned to another party, whatever the words it is named by, opening the reply
    ("Pricing exceptions belong to the seller.", "Can you give me a discount on this?", True),
    ("Seat assignments are decided by the gate staff on the day.", "Can you move me to a window seat?", True),
    ("Die Preisgestaltung liegt beim Verkäufer.", "Können Sie mir einen Rabatt geben?", True),
    ("La tarification relève du vendeur.", "Pouvez-vous me faire une remise ?", True),
    ("Los precios corresponden al vendedor.", "¿Me puede hacer un descuento?", True),
    # the nearest answers: the assistant then acts on the request, the asker's case goes ahead, a question for
    # information, the rule after the act is done, no request known
    ("Refund approvals belong to the seller, and I've forwarded your request to them.", "Can I get a refund?",
     False),
    ("Table plans are managed by the restaurant, so I've requested one for 7 pm.", "Can you book a table for four?",
     False),
    ("Discounts on marketplace items are set by each seller, so I've asked this one for a quote.",
     "Can you give me a discount on this?", False),
    ("Exchanges are handled by our returns desk; yours was approved this morning.", "Can I exchange these shoes?",
     False),
    ("Discounts are approved by the store manager.", "Who approves discounts?", False),
    ("Your order is cancelled. Refunds are handled by your bank and take 3-5 days.", "Please cancel my order.",
     False),
    ("Pricing exceptions belong to the seller.", None, False),
])
def test_the_decision_assigned_to_another_party(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


@pytest.mark.parametrize(("text", "refused"), [
    # the assistant's statement of what it is there for, then only a lecture
    ("I must clarify that I am here to provide information and not to encourage illegal activities. Breaking "
     "into a neighbour's shed is a crime with severe consequences.", True),
    ("I'm here to help you learn, not to cause damage. Deleting a colleague's files is a violation of company "
     "policy. It's important to raise the problem with your manager instead.", True),
    ("Je suis là pour vous aider dans le respect de la loi. Falsifier une facture est illégal et peut vous coûter "
     "votre emploi.", True),
    # the nearest answers: the statement before steps, before information, or alone
    ("I'm here to help you with the next steps.\n\n1. Call the registry office.\n2. Bring the death certificate.",
     False),
    ("I'm here to help. Your parcel left the depot this morning and should arrive by 6 pm.", False),
    ("I'm here to help with your account.", False),
])
def test_a_statement_of_purpose_before_a_lecture(text, refused):
    assert is_refusal(text).refused is refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # a copula, a noun and a relative clause in which the assistant turns the thing down or never hands it over
    ("Your neighbour's meter readings are something we never disclose.", "What did my neighbour use last month?",
     True),
    ("Skipping the queue is a request our team turns down every time.", "Can you move me up the waiting list?",
     True),
    # the nearest answers: a thing the assistant never asks for (a warning), a service it does not offer yet
    ("Your PIN is something we never ask for, so that email is a scam.", "Did you email me about my PIN?", False),
    # not part of what the assistant does, in four languages
    ("Tax returns aren't part of what this service handles.", "Can you file my tax return?", True),
    ("Cela ne fait pas partie de ce que nous imprimons.", "Pouvez-vous imprimer ce logo ?", True),
    ("Esa receta queda fuera de lo que compartimos con los clientes.", "¿Me pasa la receta?", True),
    ("Eine Rückerstattung der Anzahlung ist bei Absagen unter 90 Tagen nicht vorgesehen.",
     "Können Sie unsere Anzahlung zurückerstatten?", True),
    ("Eine Gebühr für die Umbuchung ist nicht vorgesehen.", "Kostet die Umbuchung etwas?", False),
    # the act that is not going to happen, the assistant's own say disowned, the source that will not give it
    ("Booking you in isn't going to happen before your birthday.", "Can I book a tattoo for next week?", True),
    ("That order isn't mine to skip.", "Can you skip the hearing test?", True),
    ("That figure won't come from me.", "What did my cousin pay?", True),
    ("Without a licence on file the sale simply can't go through.", "Can you sell me the pesticide?", True),
    ("Unit 112 opens for the name on its contract and nobody else.", "Can you open unit 112 for me?", True),
    # the nearest answers: a promise, a report of what was done, a condition the asker meets
    ("Don't worry, that won't happen again: your refund is on its way.", "Will you charge me twice again?", False),
    ("The delay won't happen again; your parcel arrives tomorrow.", "Why was my parcel late?", False),
    ("The upgrade is yours to keep, and nobody else's account changes.", "Do I keep the upgrade?", False),
    ("Don't worry, a double charge isn't going to happen: the card is frozen.", "Will I be charged twice?", False),
    ("The invoice won't come from me; our billing team sends it on Monday.", "Can you send me the invoice?", False),
    # a price after the act's word, and nothing to pay, are answers
    ("Saturday works. I've put you on the 8-11 am round, and there's no delivery charge over 20 bags.",
     "Can you deliver the feed on Saturday?", False),
    ("No, there's nothing to pay up front: the invoice comes after the service.",
     "Do I have to pay before the service?", False),
])
def test_more_structures_of_a_decline(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


@pytest.mark.parametrize(("text", "language"), [
    # short German and Spanish replies with few function words, told by theirs and by letters only they write
    ("Nein.", "de"),
    ("Keine Chance.", "de"),
    ("Die Erstattung liegt beim Verkäufer.", "de"),
    ("Eso le corresponde a su banco.", "es"),
    ("La devolución corresponde al vendedor.", "es"),
    ("Sí, claro.", "es"),
    ("Non, désolé.", "fr"),
    ("Sorry, the café is closed on Mondays.", "en"),
])
def test_the_language_of_a_short_reply(text, language):
    assert is_refusal(text).language == language


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # the act reserved to someone else, then the asker's own case in a state of being done: an answer
    ("Delivery times are set by the courier; your parcel is booked for Tuesday.", "Can you deliver it on Tuesday?",
     False),
    ("Seat maps are managed by the airline, and your seat is now 14A.", "Can you move me to a window seat?", False),
    ("Table plans are decided by the restaurant. Your table for four is confirmed for 7 pm.",
     "Can you book a table for four?", False),
    # a state that keeps it from the asker is no progress
    ("Price reductions are decided by the seller, and your offer was declined this morning.",
     "Can you lower the price for me?", True),
])
def test_the_reserved_act_then_the_askers_case_done(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


@pytest.mark.parametrize("text", [
    # the relative clause that spares the asker something, or promises, is no decline
    "That isn't something this bot will charge you for.",
    "That's not something we'll bill you for; the change is done.",
    "Don't worry, that's not something our team will hold against you.",
    "That's not a mistake we'll make again - your order was reshipped today.",
])
def test_a_relative_clause_that_spares_the_asker_is_no_decline(text):
    assert not is_refusal(text, "Can you change my delivery address?").refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # the limit the assistant works under, stated as its tools', access's or scope's, or someone else's part
    ("Sadly the system won't let me change a posted invoice.", "Can you change the invoice?", True),
    ("My access doesn't extend to payroll.", "Can you change my salary details?", True),
    ("The tool I have only lets me view orders, so cancelling is out of my hands.", "Can you cancel my order?", True),
    ("Unfortunately I can only view your account, not make changes.", "Can you change my plan?", True),
    ("I'm not the one who can approve that - it's your team lead.", "Can you approve my expenses?", True),
    ("Your HR team would need to handle that.", "Can you change my job title?", True),
    ("That won't be possible, I'm afraid.", "Can you extend my trial?", True),
    ("There's no option for that in our system.", "Can you split my bill into three?", True),
    ("We don't do refunds after 30 days.", "Can I get a refund? I bought it 40 days ago.", True),
    ("You'll need to contact your bank for that.", "Can you reverse the charge?", True),
    # the nearest answers: a condition, a plan carried out, the task done, a hand-off that names the task, a place
    ("That won't be possible until Monday, so I've scheduled it for then.", "Can you install it today?", False),
    ("It won't be possible to miss the entrance: it's the big red door.", "Where is the entrance?", False),
    ("The technician will need to see it. I've booked one for Tuesday at 10.", "Can you fix my boiler?", False),
    ("There's no option for that in the app, but I've done it for you.", "Can you split my bill?", False),
    ("Your plan doesn't cover roaming, but I've added a roaming pack for £5.", "Can I use my phone abroad?", False),
    ("You'll need to contact your bank for that, but I've sent them the details already.",
     "Can you reverse the charge?", False),
    ("Who do I talk to about a chargeback? You'll need to contact your bank for that.", "Who handles chargebacks?",
     False),
    ("Please contact IT support to reset your password.", "Can you reset my password?", False),
    ("Don't let me forget to send you the invoice.", "Can you send the invoice?", False),
])
def test_the_limit_the_assistant_works_under(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # the same limits in German, French and Spanish
    ("Das System lässt mich eine gebuchte Rechnung leider nicht ändern.", "Können Sie die Rechnung ändern?", True),
    ("Das liegt leider nicht in meiner Hand.", "Können Sie die Frist verlängern?", True),
    ("Mein Zugriff reicht nicht bis zur Lohnbuchhaltung.", "Können Sie meine Gehaltsdaten ändern?", True),
    ("Dafür müssten Sie sich an Ihre Bank wenden.", "Können Sie die Abbuchung zurückholen?", True),
    ("Cela ne dépend pas de moi.", "Pouvez-vous prolonger le délai ?", True),
    ("Mes accès ne couvrent pas la paie.", "Pouvez-vous modifier mes données de paie ?", True),
    ("Pour cela, il faudra contacter votre banque.", "Pouvez-vous annuler le prélèvement ?", True),
    ("El sistema no me permite cambiar una factura emitida.", "¿Puede cambiar la factura?", True),
    ("Eso no está en mis manos.", "¿Puede ampliar el plazo?", True),
    ("Para eso tendrá que contactar con su banco.", "¿Puede anular el cargo?", True),
    # the nearest answers
    ("Erledigt: das System lässt mich das sofort ändern, Ihre Rechnung ist korrigiert.",
     "Können Sie die Rechnung ändern?", False),
    ("Nein, das kostet nichts; Ihr Zugriff reicht bis Ende Mai.", "Kostet der Zugang etwas?", False),
    ("Pour cela, il suffit de cliquer sur « Modifier ».", "Comment modifier mon adresse ?", False),
    ("Listo: el sistema me permite cambiarla y su factura ya está corregida.", "¿Puede cambiar la factura?", False),
])
def test_the_limit_the_assistant_works_under_in_every_language(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused
