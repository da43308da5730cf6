"""National ids read from the table in detect/pii_ids_national: found with their label and checksum, not found with a
wrong checksum, without a label where the shape is shared, or after a record's noun. The values were made for these
tests (their check digits computed, and checked against python-stdnum's validators)."""

import pytest

from khaos_action.detect import pii_ids_checksums as check
from khaos_action.detect.pii import find_pii

# (country, label and connecting words, a valid id, the same id with a wrong check digit or letter)
LABELLED = [
    ("PL", "Numer PESEL pacjenta: {}.", "73090320567", "73090320560"),
    ("SE", "Ditt personnummer är {}.", "711114-3421", "711114-3420"),
    ("SE", "Personnummer: {}", "19560503-9006", "19560503-9007"),
    ("FI", "Asiakkaan henkilötunnus on {}.", "280969-7488", "280969-7480"),
    ("FI", "HETU: {}", "160903A7994", "160903A7990"),
    ("NL", "Het BSN van de klant is {}.", "8378.25.398", "8378.25.390"),
    ("NL", "Sofinummer: {}", "213041819", "213041810"),
    ("DK", "CPR-nr. {} er registreret.", "260159-3595", "260159-3595X"),
    ("NO", "Fødselsnummer: {}", "09085944700", "09085944701"),
    ("BE", "Rijksregisternummer: {}", "69.02.28-609.14", "69.02.28-609.10"),
    ("PT", "O seu NIF é {}.", "279214782", "279214780"),
    ("CL", "RUT del cliente: {}", "8.792.802-0", "8.792.802-1"),
    ("MX", "CURP {} registrada.", "GOMA750927HDFRRL08", "GOMA750927HDFRRL00"),
    ("ZA", "RSA ID: {}", "9412025826080", "9412025826081"),
    ("TR", "T.C. Kimlik No: {}", "19731658572", "19731658570"),
    ("CN", "居民身份证号码：{}", "110105199404093930", "110105199404093931"),
    ("KR", "주민등록번호 {}", "610713-2732312", "610713-2732310"),
    ("CH", "AHV-Nr. {}", "756.9837.9960.38", "756.9837.9960.30"),
    ("AT", "SV-Nummer {}", "5022 021278", "5022 021270"),
    ("IE", "PPSN: {}", "1567813Q", "1567813A"),
    ("RO", "CNP: {}", "1550623405097", "1550623405090"),
    ("CZ", "Rodné číslo: {}", "781021/6304", "781021/6300"),
    ("EE", "Isikukood: {}", "37807162564", "37807162560"),
    ("GR", "ΑΜΚΑ: {}", "18046015782", "18046015780"),
    ("AU", "Your TFN is {}.", "611 994 069", "611 994 060"),
    ("AR", "CUIL {}", "20-21038849-5", "20-21038849-0"),
    ("IL", "Teudat zehut: {}", "641504592", "641504590"),
    ("SG", "NRIC {}", "G6629944P", "G6629944A"),
    ("JP", "マイナンバー: {}", "4058 7762 3459", "4058 7762 3450"),
    ("TH", "เลขประจำตัวประชาชน {}", "6-0612-31007-72-8", "6-0612-31007-72-9"),
    ("MY", "MyKad: {}", "620817-14-3266", "620817-00-3266"),   # no check digit: a place of birth that is none
    ("ID", "NIK: {}", "3171165404704940", "3171169904704940"),  # no check digit: a day that is none
    ("AE", "Emirates ID {}", "784197736687597", "784197736687598"),
    ("HK", "香港身份證號碼：{}", "A123456(3)", "A123456(4)"),
]


@pytest.mark.parametrize(("country", "template", "value", "wrong"), LABELLED)
def test_a_national_id_after_its_label_is_found(country, template, value, wrong):
    text = template.format(value)
    assert [(m.kind, text[m.start:m.end]) for m in find_pii(text)] == [("national_id", value)]


@pytest.mark.parametrize(("country", "template", "value", "wrong"), LABELLED)
def test_the_same_id_with_a_wrong_check_is_not(country, template, value, wrong):
    assert find_pii(template.format(wrong)) == []


@pytest.mark.parametrize("value", [v for c, _, v, _ in LABELLED if c not in ("FI", "BE", "CL", "MX", "CH", "SG", "AE")]
                         + ["280969-7488"])
def test_a_shared_shape_without_its_label_is_not_an_id(value):
    assert find_pii(f"We noted {value} yesterday.") == []


@pytest.mark.parametrize("value", ["160903A7994", "69.02.28-609.14", "8.792.802-0", "GOMA750927HDFRRL08",
                                   "756.9837.9960.38", "G6629944P", "784-1977-3668759-7"])
def test_a_distinctive_form_is_an_id_without_its_label(value):
    text = f"We noted {value} yesterday."
    assert [(m.kind, text[m.start:m.end]) for m in find_pii(text)] == [("national_id", value)]


@pytest.mark.parametrize("text", ["Batch GOMA750927HDFRRL08 passed QA.", "Order 756.9837.9960.38 shipped.",
                                  "Lot 69.02.28-609.14 recalled.", "Ticket 160903A7994 closed.",
                                  "Pedido 8.792.802-0 enviado."])
def test_a_distinctive_form_after_a_records_noun_is_the_records(text):
    assert find_pii(text) == []


def test_a_label_then_a_sentence_end_does_not_reach_the_next_number():
    assert find_pii("Please bring your PESEL. Order 73090320567 ships today.") == []


def test_a_label_in_an_unspaced_script_may_touch_its_number():
    text = "居民身份证号码110105199404093930"
    assert [(m.kind, text[m.start:m.end]) for m in find_pii(text)] == [("national_id", "110105199404093930")]
    assert find_pii("PESEL73090320567") == []


@pytest.mark.parametrize(("valid", "good", "bad"), [
    (check.pesel, "02270803624", "02271803624"),   # 2002-07-08 (month +20); a month 17 is none
    (check.hetu, "131052-308T", "131052-308U"),
    (check.cpr, "2110625629", "3213625629"),        # 32 February is no date
    (check.rodne_cislo, "7103192745", "7113192745"),
    (check.rrn, "9710101567898", "9710101567895"),
])
def test_checksums_read_the_embedded_date_and_the_check(valid, good, bad):
    assert valid(good)
    assert not valid(bad)


@pytest.mark.parametrize("text", [
    "OIB vlasnika je 69284910313.",
    "ЕГН на клиента: 7512014655.",
    "Steuer-ID des Mitarbeiters: 65 920 438 189",
])
def test_croatian_bulgarian_and_german_ids_after_their_label(text):
    assert [m.kind for m in find_pii(text)] == ["national_id"]


@pytest.mark.parametrize("text", [
    "OIB vlasnika je 69284910314.",      # the check digit off by one
    "ЕГН на клиента: 7513014655.",        # no thirteenth month
    "The lease number is 69284910313.",   # no label
])
def test_their_look_alikes_are_not(text):
    assert [m.kind for m in find_pii(text)] == []
