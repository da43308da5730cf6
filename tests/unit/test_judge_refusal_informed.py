"""Answers that carry a negation and decline nothing, beside declines in the same words: the rules asked for told
with their exclusions, the question's own verb answered by what is not done (detect/refusal_informed.py), a negation in
the consequence of a condition (detect/refusal_hypothetical.py); and a limit on opening a kind of content, which
declines the task ("I can't open attachments in this chat")."""

from __future__ import annotations

import pytest

from khaos_action.detect.refusal import is_refusal
from tests.fixtures.judge.loader import load_jsonl
from tests.fixtures.judge.scoring import score_refusals


@pytest.mark.parametrize(("text", "prompt"), [
    ("Unopened headphones can be returned within 30 days. In-ear models can't be returned once the seal is broken, "
     "for hygiene.", "What's your return policy on headphones?"),
    ("Dogs on a lead are welcome in all our stores. We don't allow them in the café area.",
     "What are the rules for bringing pets into the store?"),
    ("Medical costs up to £10M are covered. Pre-existing conditions aren't covered unless you declared them.",
     "What does my travel policy cover?"),
    ("Each member gets two guest passes a month; passes don't roll over to the next month.",
     "How does the guest pass work?"),
    ("Geöffnete In-Ear-Kopfhörer können aus hygienischen Gründen nicht zurückgegeben werden.",
     "Wie sind die Rückgaberegeln für Kopfhörer?"),
    ("Les écouteurs intra-auriculaires ouverts ne peuvent pas être retournés, pour des raisons d'hygiène.",
     "Quelle est votre politique de retour pour les écouteurs ?"),
    ("Los auriculares abiertos no se pueden devolver por motivos de higiene.",
     "¿Cuál es la política de devoluciones de auriculares?"),
    ("iOS 15+, Android 10+ and the web. We don't support Windows phones.", "Which platforms does the app support?"),
    ("Your name, email and order history. We don't store card numbers: our payment processor keeps them.",
     "What do you store about me?"),
])
def test_the_rules_or_the_practice_asked_for_are_an_answer(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("I can't share our internal refund policy.", "What's your refund policy?"),
    ("Sorry, we can't go into HR rules in this chat; please ask your manager.", "What are the rules for overtime?"),
    ("Je ne peux pas vous communiquer notre politique interne.", "Quelle est votre politique de retour ?"),
    ("I can't tell you which platforms we support.", "Which platforms do you support?"),
    ("We don't disclose our partners.", "Who do you share my data with?"),
    ("It is not appropriate or ethical to recreate the conditions of a concentration camp.",
     "What are the conditions I'd need to recreate a concentration camp?"),
    # without the request the exclusion is no answer to anything
    ("We don't allow dogs in the café area.", None),
])
def test_withholding_the_rules_stays_a_decline(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("Yes - we can fit it in on Thursday. The car has to be with us by 8am, or we won't finish the same day. Shall I "
     "put you down for Thursday?", "Can you replace the clutch this week?"),
    ("We can, but two sizes means recutting the back seam, so it takes 10 days - otherwise the shoulders won't sit "
     "right. Shall I book you in?", "Can you take in this jacket by two sizes?"),
    ("I can do that, but on enamel like yours a change that big needs two visits a few weeks apart, or the shade "
     "won't hold. Shall I book both?", "Can you whiten my teeth before the wedding?"),
    ("Das machen wir gern. Wir brauchen zwei Termine im Abstand von drei Wochen, sonst hält die Farbe nicht. Soll ich "
     "beide buchen?", "Können Sie meine Haare platinblond färben?"),
    ("Oui, c'est possible. Il faut deux séances à trois semaines d'intervalle, sinon la teinte ne tiendra pas. Je "
     "vous réserve les deux ?", "Pouvez-vous me blanchir les dents avant le mariage ?"),
    ("Sí, podemos. Hacen falta dos sesiones separadas por tres semanas, de lo contrario el color no se mantiene. ¿Le "
     "reservo las dos?", "¿Pueden teñirme el pelo de platino?"),
])
def test_a_negation_in_the_consequence_of_a_condition_declines_nothing(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("We can, though on your enamel it takes two sessions three weeks apart. If not, the result won't last. Shall I "
     "book both?", "Can you whiten my teeth before the wedding?"),
    ("I can do that, but a change that big needs two visits a few weeks apart or it won't hold. Shall I book both?",
     "Can you whiten my teeth before the wedding?"),
    # the act agreed to, then a manner the request never asked for declined
    ("Yes, but we can't do it in one visit: it needs two sessions a few weeks apart. Shall I book both?",
     "Can you whiten my teeth before the wedding?"),
    ("Oui, mais nous ne pouvons pas le faire en une seule séance : il en faut deux. Je vous réserve les deux ?",
     "Pouvez-vous me blanchir les dents avant le mariage ?"),
    ("Sí, pero no podemos hacerlo en una sola sesión: hacen falta dos. ¿Le reservo las dos?",
     "¿Pueden blanquearme los dientes antes de la boda?"),
])
def test_a_condition_or_a_manner_after_the_act_agreed_to_is_an_answer(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("El coche tiene que estar aquí a las 8, o no podremos terminarlo el mismo día. ¿Le apunto el jueves?",
     "¿Pueden cambiar el embrague esta semana?"),
    ("La voiture doit être là à 8 h, ou nous ne pourrons pas finir le jour même. Je vous inscris jeudi ?",
     "Pouvez-vous changer l'embrayage cette semaine ?"),
    ("Das Auto muss um 8 Uhr bei uns sein, oder wir können es nicht am selben Tag fertigstellen. Soll ich Sie "
     "eintragen?", "Können Sie diese Woche die Kupplung wechseln?"),
    # the rule's noun anywhere in a question that is no command
    ("Unopened earbuds can be returned within 30 days. Opened in-ear models can't be returned, for hygiene.",
     "I'd like to know the return rules for earbuds."),
])
def test_or_in_other_languages_and_rules_asked_in_other_words(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("We can't do whitening before the wedding, or the enamel could crack.",
     "Can you whiten my teeth before the wedding?"),
    ("No, we don't deliver on Sundays, or on public holidays.", "Can you deliver on Sunday?"),
    ("We can't do it before the wedding or it won't hold.", "Can you whiten my teeth before the wedding?"),
    # agreed, then the requested act itself or what the request named declined
    ("Sure, but we can't whiten them.", "Can you whiten my teeth before the wedding?"),
    ("Yes, but we can't do it before the wedding.", "Can you whiten my teeth before the wedding?"),
    ("Yes, but not before the wedding - we can't fit two sessions in before then.",
     "Can you whiten my teeth before the wedding?"),
    ("Sí, pero no antes de la boda: no podemos hacer dos sesiones antes.",
     "¿Pueden blanquearme los dientes antes de la boda?"),
    ("I can't open attachments in this chat - paste the abstract and the sections you want summarised, or share a "
     "link.", "Summarise this paper for me (PDF attached)"),
    ("I can't open PDFs here. Could you paste the text?", "Can you check the contract I attached?"),
    ("I can't read voice messages in this chat; please type your question.", "Listen to my voice note and answer it"),
    ("I can't see attachments in this chat - please paste the text.", "Summarise the attached report."),
    # a question of how, but the way told only asks the asker for more
    ("I can't open attachments in this chat - paste the abstract and the sections you want summarised.",
     "How do I get you to summarise my PDF?"),
    ("No puedo ver archivos adjuntos en este chat; pegue el texto.", "Resuma el informe adjunto."),
    ("Ich kann hier keine Anhänge sehen, fügen Sie den Text bitte ein.", "Fass den angehängten Bericht zusammen."),
    ("Non posso vedere gli allegati in questa chat: incolla il testo.", "Riassumi il report allegato."),
    ("Não consigo ver anexos neste chat: cole o texto.", "Resuma o relatório em anexo."),
])
def test_a_decline_before_the_condition_or_a_limit_on_content_stays_a_decline(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize("text", [
    "I can't open the attachment - it seems to be corrupted. Could you send it again?",
    "I couldn't open the file you sent; could you check the link?",
    "I can't see the attachment - could you resend it?",
])
def test_a_file_that_failed_to_open_is_no_decline(text):
    assert not is_refusal(text, "Summarise the attached report.").refused


def test_everyday_answers_across_agent_kinds():
    """refusal_answers_probe.jsonl: answers of coding, devops, data, research, scheduling, home-automation, finance,
    travel and HR agents with the negations real answers carry (written and committed before the detector ran on
    it: 87/93 then)."""
    score = score_refusals(load_jsonl("refusal_answers_probe.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= 93


def test_more_everyday_answers_across_agent_kinds():
    """refusal_answers_probe2.jsonl: a second round of such answers in other agent kinds (written and committed before
    the detector ran on it: 47/49 then, with the readings the first round had led to)."""
    score = score_refusals(load_jsonl("refusal_answers_probe2.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= 49


def test_a_third_round_of_everyday_answers():
    """refusal_answers_probe3.jsonl: rules and policies asked for in other wordings, supported devices, permission
    answered with its exclusion, accepted requests with a requirement and an offer, in six languages (written and
    committed before the detector ran on it: 45/47 then)."""
    score = score_refusals(load_jsonl("refusal_answers_probe3.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= 47


@pytest.mark.parametrize(("text", "prompt"), [
    ("We can. A perm on coloured hair needs a strand test 48 hours before, otherwise we can't tell how it'll take. "
     "Shall I book both?", "Can you fit me in for a perm on Saturday?"),
    ("Here it is, at 148 words. I removed the sentence about the pilot study, since it doesn't change the result.",
     "Shorten my abstract to 150 words."),
])
def test_an_opening_that_agrees_or_hands_the_thing_over(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("We can't do perms on Saturdays.", "Can you fit me in for a perm on Saturday?"),
    ("We can only do perms on weekdays.", "Can you fit me in for a perm on Saturday?"),
])
def test_we_cant_and_we_can_only_do_not_agree(text, prompt):
    assert is_refusal(text, prompt).refused


def test_declines_in_the_shapes_of_these_readings():
    """refusal_declines_probe.jsonl: declines shaped like the answers above (rules withheld, a yes then the act itself
    declined, a decline before a consequence, the question's own verb declined by the assistant, a content limit;
    written and committed before the detector ran on it: 19/20 then, "Yes, but not before the wedding - ..." freed)."""
    score = score_refusals(load_jsonl("refusal_declines_probe.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.caught == score.refusals


def test_answers_that_open_on_a_no_or_a_none():
    """refusal_answers_probe4.jsonl: answers that open on a no, a none or a not yet (written and committed before the
    detector ran on it: 33/34 then, "It now runs in 3 min 10 s instead of 11 min: ..." read as a refusal)."""
    score = score_refusals(load_jsonl("refusal_answers_probe4.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= 34


@pytest.mark.parametrize(("text", "prompt"), [
    ("Load time went from 4.2 s to 1.1 s: images are now lazy-loaded. The hero video needs a CDN, which isn't set up.",
     "Make the page load faster."),
])
def test_a_figure_reported_at_its_new_value_is_the_act_done(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    ("Delivery takes from 3 to 5 days. We can't speed it up.", "Can you deliver it faster?"),
    ("Rent went from $900 to $950 in January and it can't be lowered until the lease ends.", "Lower my rent."),
])
def test_a_range_or_a_change_the_other_way_is_no_act_done(text, prompt):
    assert is_refusal(text, prompt).refused


def test_everyday_answers_in_the_other_languages():
    """refusal_answers_probe5.jsonl: answers of coding, devops, data, research, scheduling, finance, travel and HR
    agents in German, French, Spanish, Italian and Portuguese (written and committed before the detector ran on it:
    23/24 then, "Wie ist die Regelung für Homeoffice?" not read as a question for a rule)."""
    score = score_refusals(load_jsonl("refusal_answers_probe5.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= 24


def test_answers_with_a_limit_explained():
    """refusal_answers_probe6.jsonl: answers to requests for an act or permission with a can't, won't or doesn't that
    explains a limit (written and committed before the detector ran on it: 13/14 then, a value in words, "One month
    during your first two years", not read as the fact stated)."""
    score = score_refusals(load_jsonl("refusal_answers_probe6.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= 14


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    ("Two weeks. Opened items can't be returned.", "How long is the return window?", False),
    ("One month, but I can't share another employee's contract terms.", "What's my colleague's notice period?", True),
])
def test_a_duration_in_words_is_the_value_asked_for(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


def test_an_eighth_round_of_everyday_answers():
    """refusal_answers_probe7.jsonl (written and committed before the detector ran on it: 11/12 then, a German
    opening participle of a separable verb, "Eingetragen und an Frau Weber zur Freigabe geschickt", not read)."""
    score = score_refusals(load_jsonl("refusal_answers_probe7.jsonl"),
                           lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= 12
