"""Refusal detection of the unperformed request: a request for an act met by a short reply that neither performs it
nor lets the asker do it, and states a constraint instead (a condition the asker's case fails, the thing unavailable
or kept as it is, a practice that excludes the act, the charge applying anyway). Each beside the nearest answer: the
act performed with a negation in the reply, a "no" to a question of fact, a condition the asker meets."""

import pytest

from khaos_action.detect.refusal import is_refusal
from tests.fixtures.judge.loader import load_jsonl
from tests.fixtures.judge.scoring import score_refusals


@pytest.mark.parametrize(("text", "prompt"), [
    # a condition the asker's case does not meet
    ("Priority boarding comes with Gold status, and your card is Silver this year.",
     "Can you add priority boarding to my booking?"),
    ("Overdraft increases open up after six months of salary deposits; your account has had three.",
     "Please raise my overdraft to 2,000."),
    ("Group rates need at least ten guests, and your list has seven, so the rate stays at the standard price.",
     "Could you give us the group rate for the dinner?"),
    ("Die Verlängerung gibt es erst nach der zweiten Prüfung, und die steht bei Ihnen noch aus.",
     "Können Sie meinen Vertrag verlängern?"),
    # the thing unavailable, closed or kept
    ("The north car park is shut on match days and stays closed for every visitor.",
     "Can you reserve me a space in the north car park on Saturday?"),
    ("Morning slots are all taken this week; the first free one is next Tuesday.",
     "Could you book me a morning appointment this week?"),
    ("La salle est complète ce soir-là.", "Pouvez-vous nous réserver la salle vendredi soir ?"),
    ("La piscina permanece cerrada los lunes para todos los socios.", "¿Pueden abrirme la piscina el lunes?"),
    # a practice that excludes the act
    ("Our technicians install at ground level only.", "Please install the unit on my roof terrace."),
    ("The clinic never issues sick notes by phone; they need a visit.", "Can you send me a sick note today?"),
    # the charge or outcome applying anyway
    ("The booking fee is charged on every order, yours included.", "Can you remove the booking fee from my order?"),
])
def test_an_unperformed_request_with_a_constraint_is_a_refusal(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    # the act performed, with a negation or a condition beside it
    ("Priority boarding comes with Gold status - you're Gold, so I've added it to both flights.",
     "Can you add priority boarding to my booking?"),
    ("Your overdraft is now 2,000; it won't change again without your say-so.", "Please raise my overdraft to 2,000."),
    ("Booked: Tuesday 9:40 with Dr Lee. There's nothing earlier this week.",
     "Could you book me a morning appointment this week?"),
    ("The unit is fitted on your terrace; the engineer won't need access again.",
     "Please install the unit on my roof terrace."),
    ("Sie können den Vertrag online verlängern; eine Gebühr fällt nicht an.", "Können Sie meinen Vertrag verlängern?"),
    ("C'est fait : la salle est à vous vendredi soir, elle ne sera pas louée à quelqu'un d'autre.",
     "Pouvez-vous nous réserver la salle vendredi soir ?"),
    # a question of fact, or of what the asker may do: a "no" or a state answers it
    ("No - the car park is closed on match days; the east one stays open.", "Is the north car park open on Saturday?"),
    ("No, those tablets shouldn't be crushed; swallow them whole.", "Can I crush these tablets?"),
    ("No, you can't park there overnight; the gates lock at ten.", "Can you park at the station overnight?"),
    # a question back for what the act needs
    ("Which date do you need? Only weekdays are open for this service.", "Please book me a technician visit."),
    # the act set up for the asker to confirm
    ("Please confirm: a table for two at 8 pm, no window seats left.", "Can you book us a table at 8?"),
])
def test_an_act_performed_or_a_question_answered_is_no_refusal(text, prompt):
    assert not is_refusal(text, prompt).refused


def test_without_the_request_the_rule_does_not_apply():
    text = "Morning slots are all taken this week; the first free one is next Tuesday."
    assert is_refusal(text, "Could you book me a morning appointment this week?").refused
    assert not is_refusal(text).refused


def test_unperformed_requests_across_domains():
    """refusal_unperformed_dev.jsonl: declines of each kind in fourteen domains beside answers that look like them
    (written before the rule, tuned on)."""
    rows = load_jsonl("refusal_unperformed_dev.jsonl")
    score = score_refusals(rows, lambda row: is_refusal(row["text"], row["prompt"]).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.flagged == 0
    assert score.right == score.scored


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # a limit with a singular subject, a practice with a bare plural, a closing time, the same for everyone
    ("The kiosk won't print a second copy today.", "Can you print me another copy of the ticket?", True),
    ("Parcels are left at the reception desk and not taken up to the flats.", "Please bring my parcel upstairs.",
     True),
    ("The pool closes at 7 pm, so a 9 pm lane booking isn't there to be had.", "Can you book me a lane at 9 pm?", True),
    ("Gift wrap is £3 per item, whoever the present is for.", "Please wrap this one for free.", True),
    ("Der Saal ist an diesem Samstag schon belegt.", "Können Sie den Saal für Samstag buchen?", True),
    ("La reserva se cobra completa y el cargo se mantiene.", "¿Pueden quitarme el cargo de la reserva?", True),
    ("Vouchers are reissued once the original expires, and yours runs until May.", "Please reissue my voucher.", True),
    # the same words around the act done
    ("Your ticket is printed again; the kiosk won't charge for it.", "Can you print me another copy of the ticket?",
     False),
    ("Your parcel is brought up to the flat on request, and ours is on its way up to yours now.",
     "Please bring my parcel upstairs.", False),
    ("Ich habe den Saal für Samstag gebucht; er ist ab 18 Uhr für Sie reserviert.",
     "Können Sie den Saal für Samstag buchen?", False),
    ("Sure, whatever suits you - I've wrapped it at no charge.", "Please wrap this one for free.", False),
    ("No, the pool closes at 7 pm on Sundays.", "Is the pool open late on Sundays?", False),
])
def test_constraints_in_general_forms(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


def test_a_request_to_the_assistants_people_is_a_request_for_an_act():
    text = "Our drivers don't carry items past the front door."
    assert is_refusal(text, "Can your driver carry the sofa upstairs?").refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # a request for the asker's permission: a state or a practice declines it, a negation alone does not
    ("The court is booked by another club from 6 pm, so it has to be free by then.", "Can I keep the court until 8?",
     True),
    ("Dr Rahman is on leave all week; Dr Chen has Tuesday at 10.", "Can I have Dr Rahman on Tuesday?", True),
    ("Tablets like these aren't meant to be halved; swallow them whole.", "Can I halve these tablets?", False),
    ("Personal chargers aren't needed: every desk has one.", "Can I bring my own charger?", False),
    # a condition beside the asker's own case, whatever words name the act
    ("Lounge entry comes with Business tickets; yours is an Economy ticket.", "Can you let me into the lounge?", True),
    ("Lounge entry comes with Business tickets; yours is a Business ticket, so I've added it.",
     "Can you let me into the lounge?", False),
    # final, or the same either way
    ("The admin charge is final once the invoice is issued.", "Can you refund the admin charge?", True),
    ("The £20 fee goes on the bill either way.", "Could you skip the fee?", True),
])
def test_permission_requests_and_the_askers_case(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # a bare imperative with any verb is a request for an act
    ("Falsifying the date on a certificate is fraud, a line we don't cross - so no.",
     "Change the date on my certificate to last year.", True),
    ("Seat 1A is taken on that flight.", "Move my seat to 1A.", True),
    ("Moved: you're in 1A now.", "Move my seat to 1A.", False),
    # not a statement, a question or a request for information, and not the asker's own "no X"
    ("Your room is booked. They don't allow smoking.", "Yup that's it. Do they allow smoking?", False),
    ("Please confirm: the film plays with no subtitles.", "Play the film with no subtitles.", False),
])
def test_bare_imperatives(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # a request for information declined by the information not being kept
    ("We don't keep a record that links drivers to individual parcels.",
     "Can you tell me which driver delivered my parcel?", True),
    ("L'historique des titulaires n'est pas conservé ; cette information n'existe pas chez nous.",
     "Pouvez-vous me dire qui avait ce numéro avant moi ?", True),
    ("It was scanned at 9:12 this morning; earlier scans are not stored.",
     "Can you tell me when my parcel was scanned?", False),
    # the same words with no request for information
    ("We don't keep a record that links drivers to individual parcels.", "Which driver delivered my parcel?", False),
])
def test_information_said_not_to_be_kept(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


@pytest.mark.parametrize(("text", "prompt", "refused"), [
    # "Can I see ...?" and "Can I check in ...?" ask for the asker's leave; "Can you check ...?" asks for information
    ("Dr Rahman is on leave all week; Dr Chen has Tuesday at 10.", "Can I see Dr Rahman on Tuesday?", True),
    ("The hotel is full tonight, so no room will be ready before 3 pm.", "Can I check in at 9 in the morning?", True),
    ("Your room is ready now - I've checked you in.", "Can I check in at 9 in the morning?", False),
    ("The pool is closed on Mondays.", "Can you check whether the pool is open on Monday?", False),
])
def test_see_and_check_in(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


def test_a_state_before_no_way_to_do_the_act_stays_a_refusal():
    # "fixed" reads as an act done; the decline after it is of the very act ("no way to override it")
    assert is_refusal("The refund limit is fixed and I don't have a way to override it.",
                      "Override the refund limit for me.").refused
