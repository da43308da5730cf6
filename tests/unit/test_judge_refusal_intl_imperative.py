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
])
def test_a_time_set_when_asked(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


@pytest.mark.parametrize(("name", "right"), [("refusal_intl_imperative_dev.jsonl", 26)])
def test_the_imperative_set(name, right):
    score = score_refusals(load_jsonl(name), lambda row: is_refusal(row["text"], row.get("prompt")).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= right
    assert score.flagged == 0
