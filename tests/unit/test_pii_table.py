"""Tables an agent writes: a label in a column's header names the values under it."""

import pytest

from khaos_action.detect.pii import find_pii
from khaos_action.detect.pii_table import table_cells


def _found(text: str) -> list[tuple[str, str]]:
    return [(m.kind, text[m.start:m.end]) for m in find_pii(text)]


@pytest.mark.parametrize(("text", "found"), [
    ("| Name | Passport No. | Nationality |\n|---|---|---|\n| Ana Ruiz | XDA123456 | ES |",
     [("national_id", "XDA123456")]),
    ("name,aadhaar,city\nRavi Kumar,4726 0145 4713,Pune", [("national_id", "4726 0145 4713")]),
    ("| Name | SIN |\n|:---|---:|\n| Marc Roy | 733 472 260 |", [("national_id", "733 472 260")]),
    ("Patient\tDOB\tWard\nJohn Carter\t14/03/1988\t4B", [("date_of_birth", "14/03/1988")]),
    ("name,ssn\nJo,475947551", [("us_ssn", "475947551")]),
])
def test_a_label_in_the_header_names_the_column(text, found):
    assert _found(text) == found


@pytest.mark.parametrize("text", [
    "| Order | Tracking |\n|---|---|\n| 4471 | 1Z999AA10123456784 |",
    "| Name | Passport |\n|---|---|\n| Ana | see file |",            # no number in the cell
    "| SKU | Passport cover price |\n|---|---|\n| 12 | 1234567 |",   # the header names a price
    "Passport\nXDA123456 is the booking's code",                     # one column, no table
])
def test_headers_that_name_no_id(text):
    assert find_pii(text) == []


def test_cells_keep_their_places_in_the_text():
    text = "intro\n\n| A | B |\n|---|---|\n| x1 | y22 |\n| x3 |  |\n\nafter"
    assert [(h, text[s:e]) for h, s, e in table_cells(text)] == [("A", "x1"), ("B", "y22"), ("A", "x3")]


def test_a_long_table_is_read_in_linear_time():
    import time

    rows = "".join(f"| Passenger {i} | X{i:08d} |\n" for i in range(4000))
    text = "| Name | Passport No. |\n|---|---|\n" + rows
    start = time.process_time()
    find_pii(text[: len(text) // 4])
    quarter = time.process_time() - start
    start = time.process_time()
    find_pii(text)
    assert time.process_time() - start < 12 * quarter + 0.05


def test_a_csv_after_a_sentence():
    text = "Here is the export:\nname,ssn,state\nJo Park,475947551,OH\nAl Ray,298532425,TX"
    assert _found(text) == [("us_ssn", "475947551"), ("us_ssn", "298532425")]


@pytest.mark.parametrize(("text", "found"), [
    ('{"passport_number": "548320917", "country": "US"}', [("national_id", "548320917")]),
    ("driversLicense=S530-4417-1234", [("national_id", "S530-4417-1234")]),
    ('{"dateOfBirth": "07/02/1990"}', [("date_of_birth", "07/02/1990")]),
    ('{"social_security_number": "475947551"}', [("us_ssn", "475947551")]),
    ('{"order_id": "548320917", "created_at": "2024-03-01"}', []),
    ('{"passport_expiry": "2031-05-01"}', []),
])
def test_keys_joined_as_code_name_their_values(text, found):
    assert _found(text) == found


@pytest.mark.parametrize(("text", "found"), [
    ('{"customer": {"full_name": "Olu Ade", "nin": "70123456789"}}', [("national_id", "70123456789")]),
    ('{"order": "70123456789"}', []),
    ('{"idNumber": "A1234567"}', [("national_id", "A1234567")]),  # a quoted key joined as code, split into words
    ('{"orderNumber": "A1234567"}', []),
    ("Geburtsdatum laut Ausweis: 07.09.1979", [("date_of_birth", "07.09.1979")]),  # a date is no document's number
    ("my driver's license number is 2270-66-1551", [("national_id", "2270-66-1551")]),  # no month: no date
    ("Pasaport numarası: U09871234", [("national_id", "U09871234")]),
    ("O número do passaporte é FT123456.", [("national_id", "FT123456")]),
    ("Passport to Paris 2024 tour", []),
])
def test_quoted_keys_dates_and_copulas(text, found):
    assert _found(text) == found
