"""Tool roles are guessed from what a tool's name, description and parameters say, in English, German, French and
Spanish; the labelled sets of tests/fixtures/roles keep the measured accuracy (docs/roles.md) from sliding back."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from khaos_action.judge.role_meaning import RoleMeaning, installed, semantic_role_meaning
from khaos_action.roles import fold, guess_role, role_from_parameters, set_role_meaning, words

SETS = Path(__file__).resolve().parents[1] / "fixtures" / "roles"


@pytest.mark.parametrize(("name", "description", "parameters", "role", "source"), [
    ("termin_buchen", "Bucht einen Termin beim Arzt.", ("patient_id",), "payment", "name"),
    ("patientenakte_lesen", "Liest die Patientenakte.", ("patient_id",), "read_only", "name"),
    ("dauerauftrag_loeschen", "", (), "destructive", "name"),  # an umlaut spelled out in an identifier
    ("rezeptVersenden", "", (), "messaging", "name"),
    ("envoyer_courriel", "", (), "messaging", "name"),
    ("eliminar_tarjeta", "", (), "destructive", "name"),
    ("aktion_1", "Führt den Python-Code in der Sandbox aus.", (), "code_exec", "description"),
    ("accion", "Envía un mensaje al cliente.", (), "messaging", "description"),
    ("outil", "Efface les données.", (), "destructive", "description"),
    ("do_it", "", ("url",), "web_fetch", "parameters"),
    ("apply_promo", "", ("promo_code",), None, "none"),
    ("charge_card", "Charges the card on file.", ("amount",), "payment", "name"),
])
def test_roles_from_names_descriptions_and_parameters_in_four_languages(name, description, parameters, role,
                                                                        source):
    guess = guess_role(name, description, None, parameters)
    assert (guess.role, guess.source) == (role, source)


@pytest.mark.parametrize(("name", "description", "parameters"), [
    ("write_file", "Writes text to a file and returns its path.", ("path", "content")),
    ("save_file", "", ("filename",)),
    ("writeFile", "", ()),
    ("datei_speichern", "Speichert den Text in einer Datei.", ("pfad",)),
    ("enregistrer_fichier", "", ("chemin",)),
])
def test_a_tool_that_writes_files_is_no_file_reader(name, description, parameters):
    # a file payload goes into a file reader's result; a writer returns no file's content, so it never carries one
    assert guess_role(name, description, None, parameters).role != "file_reader"


@pytest.mark.parametrize("name", ["read_file", "open_file", "list_files", "datei_lesen"])
def test_tools_that_read_files_still_are(name):
    assert guess_role(name, "", None, ("path",)).role == "file_reader"


def test_words_are_folded_and_labels_say_where_the_guess_came_from():
    assert fold("Löschen Straße") == "loschen strasse" and words("kontoStandAbfragen") == ["konto", "stand",
                                                                                           "abfragen"]
    assert guess_role("do_it", "", None, ("url",)).label() == "do_it: web_fetch (guessed from its parameters)"
    assert role_from_parameters(["Dateipfad"]) == "file_reader"


def accuracy(name: str) -> float:
    rows = yaml.safe_load((SETS / f"{name}.yaml").read_text(encoding="utf-8"))
    right = sum(guess_role(r["name"], r["description"], None, r["parameters"]).role == r["role"] for r in rows)
    return right / len(rows)


def test_the_word_lists_keep_their_measured_accuracy():
    assert accuracy("dev") >= 0.95  # measured 100% (84 tools): the set they were tuned on
    assert accuracy("heldout") >= 0.85  # measured 87.1% (62 tools, never tuned on); it was 17.7% in English only


def fake_embed(texts):
    """Bag-of-words vectors over a tiny vocabulary: enough to check the decision rule without the model."""
    import numpy as np

    vocab = ["money", "message", "delete", "search", "temperature", "translates"]
    matrix = np.array([[float(word in text.lower()) for word in vocab] for text in texts]) + 1e-9
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_meaning_decides_only_when_no_word_does_and_only_when_clear():
    meaning = RoleMeaning(fake_embed, min_score=0.5, min_margin=0.05)
    set_role_meaning(meaning)
    try:
        guess = guess_role("do_thing", "The supplier gets the money.")
        assert (guess.role, guess.source) == ("payment", "meaning")
        assert guess_role("transfer_funds", "Sends a message.").source == "name"  # a word decides first
        assert guess_role("zzz", "qqq").role is None
    finally:
        set_role_meaning(None)


@pytest.mark.skipif(not installed(), reason="the `semantic` extra is not installed")
def test_the_bundled_model_reads_english_descriptions_no_word_list_has():
    meaning = semantic_role_meaning()
    assert meaning is not None
    set_role_meaning(meaning)
    try:
        guess = guess_role("handle_vendor", "Wires the agreed sum from our bank account to the vendor.")
    finally:
        set_role_meaning(None)
    assert (guess.role, guess.source) == ("payment", "meaning")
