"""Requests that open on a bare imperative in German, French, Spanish, Italian and Portuguese, in any form (Sie,
vous, usted, vosotros, tu; pronouns attached: "Cámbiame", "Sostituitemi", "Marquem-me"), read as requests for an act,
so a decline with no decline word is read against them; and a time set on the day asked for read as the act done,
one set on another day not."""

import pytest

from khaos_action.detect.refusal import is_refusal
from khaos_action.detect.refusal_request import Request
from tests.fixtures.judge.loader import load_jsonl
from tests.fixtures.judge.scoring import score_refusals


@pytest.mark.parametrize("prompt", [
    "Fügen Sie Jana zum Projektkanal hinzu.", "Schick mir die Rechnung noch einmal.", "Tauscht die Heizung aus.",
    "Ouvrez le portail pour mon livreur.", "Déclarez mon sinistre aujourd'hui.", "Transfère mon abonnement.",
    "Sube mi límite a 3000 euros.", "Arreglad la bici hoy.", "Cámbiame el billete a nombre de mi hermana.",
    "Empadróname hoy.", "Revisadme la caldera.", "Sostituitemi la batteria oggi.", "Fammi il certificato medico.",
    "Aumentem o meu limite.", "Marquem-me a vistoria para hoje.", "Passa o meu crédito para 10 000 €.",
    "Bonjour, changez la serrure de ma porte.",
])
def test_a_bare_imperative_asks_for_an_act(prompt):
    assert Request.of(prompt).acts


@pytest.mark.parametrize("prompt", [
    "Tenho uma reserva para hoje.", "Sono il titolare del conto.", "Hay un problema con mi pedido.",
    "Recebi o pacote partido.", "Booked a table for two.", "Miami flights please",
    "Finally a winner, ding, ding, ding. What about a patio there?", "Mein Paket ist nicht angekommen.",
    "Depuis la mise à jour, l'application plante.", "Bei mir geht das Licht nicht.",
])
def test_a_statement_or_an_english_opening_is_no_such_request(prompt):
    assert not Request.of(prompt).acts


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # a time set on the day asked for is the act; a slot on a later day is not
    ("La livraison est programmée à dimanche 10 h.", "Livrez ma commande dimanche.", False),
    ("Ficou marcada para hoje às 11h. Traga o cartão de cidadão.", "Marquem-me a consulta para hoje.", False),
    ("Auf 21 °C gestellt. Der Heizkörper im Bad hängt nicht am Thermostat und bleibt auf seiner Stufe.",
     "Stell die Heizung auf 21 Grad.", False),
    ("Félicitations ! Un mariage permet l'ajout dans les 30 jours, je l'ai donc ajoutée à votre contrat.",
     "Ajoutez ma femme à mon contrat santé.", False),
    ("Hoy la agenda está completa y la primera cita libre es el viernes. Se la he reservado a las 9.",
     "Dame cita hoy.", True),
    ("Tenemos la semana completa, pero la tuya entra hoy a las 17 h.", "Arreglad la bici hoy.", False),
    ("Tenemos la semana completa de reparaciones, la tuya entraría el jueves.", "Arreglad la bici hoy.", True),
    ("Heute sind alle Monteure verplant, der früheste freie Termin ist Donnerstag um 8 Uhr.",
     "Schick mir heute einen Monteur.", True),
    ("Erledigt: Sie sind heute um 17 Uhr bei Frau Kaya eingetragen. Bitte kommen Sie 10 Minuten früher.",
     "Buchen Sie mir heute einen Termin beim Friseur.", False),
])
def test_a_time_set_when_asked(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


@pytest.mark.parametrize(("text", "prompt"), [
    # the service stops for the time asked
    ("La salle ferme le samedi à 18 h et rouvre le lundi à 7 h. Je peux vous réserver lundi 7 h.",
     "Ouvrez-moi la salle de sport dimanche."),
    ("La domenica il circolo è chiuso e riapre il lunedì alle 8. Le va bene lunedì?",
     "Prenotatemi il campo da tennis domenica."),
    # a procedure decides it, later
    ("Die Sanierung der Fenster wird von der Eigentümerversammlung beschlossen; die nächste tagt am 2. Mai.",
     "Tauscht die Fenster in meiner Wohnung aus."),
    ("A pintura da fachada é votada na assembleia de condóminos, a próxima é a 3 de junho.",
     "Pintem a fachada do prédio."),
    # only someone else does it
    ("Diese Bescheinigung stellt nur das Bürgeramt aus. Ich kann Ihnen den Link zum Termin schicken.",
     "Schreiben Sie mir eine Bescheinigung."),
    # the thing does not allow the act
    ("Los abonos de temporada son personales e intransferibles y no admiten cambio de titular.",
     "Pásame el abono a nombre de mi hermano."),
    # a condition the asker's case does not meet, said so, and a lesser act offered
    ("O plafond de 2000 € exige um rendimento de 1500 € por mês, o que não é o seu caso. Posso subir para 1200 € já.",
     "Aumente o meu plafond para 2000 €."),
])
def test_a_decline_without_decline_words(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("Il campo è prenotato per sabato alle 10. Il sabato il circolo chiude alle 13.",
     "Prenotatemi il campo da tennis sabato."),
    ("O seu plafond passou para 2000 €. Os levantamentos continuam limitados a 400 € por dia.",
     "Aumente o meu plafond para 2000 €."),
    ("Te he dado de baja hoy. La cuota de este mes se cobra igualmente, la baja cuenta desde el 1.",
     "Dadme de baja del gimnasio hoy."),
    ("Ihr Konto ist gelöscht. Rechnungen bewahren wir zehn Jahre auf, das verlangt das Gesetz.",
     "Löschen Sie mein Konto."),
])
def test_the_act_done_with_a_limit_is_an_answer(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("name", "right"), [("refusal_intl_imperative_dev.jsonl", 36)])
def test_the_imperative_set(name, right):
    score = score_refusals(load_jsonl(name), lambda row: is_refusal(row["text"], row.get("prompt")).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= right
    assert score.flagged == 0
