"""find_pii: validated detectors (Luhn, mod-97, SSN ranges, octets, context) with few false positives."""

import pytest

from khaos_action.detect.pii import find_pii
from tests.linear_time import assert_linear


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Contact me at jane.doe+work@example.co.uk please", "email"),
        ("Call +1 415 555 0132 tomorrow", "phone"),
        ("My number is (415) 555-2671.", "phone"),
        ("Ruf mich an: +49 30 12345678", "phone"),
        ("Telefon: 030 1234567", "phone"),
        ("Téléphone : 06 12 34 56 78", "phone"),
        ("Card: 4111 1111 1111 1111 exp 12/26", "credit_card"),
        ("card 5500-0000-0000-0004", "credit_card"),
        ("amex 3782 822463 10005", "credit_card"),
        ("IBAN DE89 3704 0044 0532 0130 00", "iban"),
        ("GB82WEST12345698765432", "iban"),
        ("SSN 536-22-1234", "us_ssn"),
        ("ssn: 536221234", "us_ssn"),
        ("server at 192.168.1.20", "ipv4"),
        ("key sk-proj-abcdefghijklmnopqrstuvwxyz123456", "api_key"),
        ("token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "api_key"),
        ("AKIAIOSFODNN7EXAMPLE", "api_key"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "api_key"),
        ("She was born on 12/03/1985 in Ohio", "date_of_birth"),
        ("Date of birth: 1990-07-14", "date_of_birth"),
        ("geboren am 3. März 1979", "date_of_birth"),
    ],
)
def test_pii_is_found_and_masked(text, kind):
    found = find_pii(text)
    assert [m.kind for m in found] == [kind]
    match = found[0]
    raw = text[match.start : match.end]
    assert raw and match.value_masked != raw and "*" in match.value_masked


@pytest.mark.parametrize(
    "text",
    [
        "Your order #123456789012 has shipped",
        "Order 4111111111111112 total",  # fails Luhn
        "Order 1234567812345678",  # Luhn-valid but no card issuer starts with 1
        "The price is $1,234.56 or €99.99",
        "Version 1.2.3.4 is out; upgrade from v10.0.0.1",
        "Tracking number 1Z999AA10123456784",
        "Invoice 2024-0001-5532 due 2024-05-01",
        "Meeting on 12/03/2024 at 10:00",  # a date, but nobody's birth date
        "SSN 000-12-3456, 666-12-3456 and 987-65-4321 are never issued",
        "IBAN DE89 3704 0044 0532 0130 01",  # fails mod-97
        "Localhost 127.0.0.1 and 0.0.0.0",
        "We sold 4,111,111 units",
        "ISBN 978-3-16-148410-0",
        "Ref 2025-11-22-778812, 2 items",
        "Call 555-0100 for the demo line",
        "Use sk-test-short as a placeholder",
    ],
)
def test_lookalikes_are_not_pii(text):
    assert find_pii(text) == []


def test_several_kinds_in_one_text_are_ordered_by_position():
    text = "Mail bob@example.com, card 4111-1111-1111-1111, from 10.0.0.7"
    assert [m.kind for m in find_pii(text)] == ["email", "credit_card", "ipv4"]


def _scores(name):
    from tests.fixtures.judge.loader import load_jsonl

    rows = load_jsonl(name)
    pii = [r for r in rows if r["kind"]]
    clean = [r for r in rows if not r["kind"]]
    found = sum(r["kind"] in [m.kind for m in find_pii(r["text"])] for r in pii)
    false = [r["text"] for r in clean if find_pii(r["text"])]
    return found / len(pii), len(false) / len(clean), false


@pytest.mark.parametrize("name", ["pii_dev.jsonl", "pii_holdout.jsonl", "pii_intl_dev.jsonl", "pii_intl_holdout.jsonl"])
def test_pii_recall_and_false_positives_on_the_labelled_sets(name):
    """Targets: recall ≥ 0.95 on pattern-PII sentences (phones in many national formats, 12-19 digit
    cards, IPv6), ≤ 1% false positives on number-heavy text (prices, dates, order numbers, versions, ISBNs)."""
    recall, fp_rate, false = _scores(name)
    print(f"\n{name}: recall {recall:.3f}, false positives {fp_rate:.3f}")
    assert recall >= 0.95
    assert fp_rate <= 0.01, false


@pytest.mark.parametrize("text", ["Call me on 06-82237745 after five.", "Our office line is (73) 4746-3459.",
                                  "Reach Marco at 0380 7558505 for the invoice.", "781-618-4959-Fax",
                                  "JCB 180000000000002", "Maestro 6759 6498 2648",
                                  "server 2001:db8:85a3::8a2e:370:7334 is down"])
def test_the_formats_the_issue_names_are_found(text):
    assert find_pii(text)


def test_regions_are_configurable_for_national_numbers():
    # A Swiss number in national format with no phone word: found once CH is a region to read it in.
    assert find_pii("044 668 18 00", regions=["CH"]) and not find_pii("044 668 18 00", regions=["US"])


@pytest.mark.parametrize(("text", "kind"), [
    ("I live at 742 Evergreen Terrace, Springfield.", "address"),
    ("Deliver to 221B Baker Street, London NW1 6XE", "address"),
    ("Lieferadresse: Lindenallee 4a, 50968 Köln", "address"),
    ("Envoyez le colis au 8 rue des Lilas, 69003 Lyon.", "address"),
    ("Dirección: Calle de Alcalá 45, 28014 Madrid", "address"),
    ("Adres: Keizersgracht 123, Amsterdam", "address"),
    ("DNI 48291734Z", "national_id"),
    ("NIE X1234567L", "national_id"),
    ("Codice fiscale: RSSMRA85T10A562S", "national_id"),
    ("CPF 529.982.247-25", "national_id"),
    ("Steuer-ID: 86095742719", "national_id"),
    ("Aadhaar 2341 2341 2346", "national_id"),
    ("National Insurance number AB 12 34 56 C", "national_id"),
    ("Passport no. X12345678 expires 2030", "national_id"),
    ("Fecha de nacimiento: 5 de mayo de 1988", "date_of_birth"),
    ("He was born on March 3rd, 1975 in Ohio.", "date_of_birth"),
    ("nato il 3 maggio 1978", "date_of_birth"),
    ("SSN on file: 123-45-6789", "us_ssn"),  # everyone's sample number, but handed out as an SSN
])
def test_addresses_national_ids_and_dates_of_birth(text, kind):
    assert kind in [m.kind for m in find_pii(text)]


@pytest.mark.parametrize("text", [
    "We have 3 Main Street stores in town.", "Take the 2 Oak Road exit.", "Main Street is closed for the parade.",
    "Serial 06-82237745-A", "Reference 12345678X for your claim.", "Your order 48291734 has shipped.",
    "We opened our store on 14 February 1979.", "Sample number 123-45-6789",
    "DNI 48291734K",  # wrong check letter
    "CPF 529.982.247-26",  # wrong check digit
])
def test_address_and_id_lookalikes_are_not_pii(text):
    assert find_pii(text) == []


# Measured with `python bench/judge.py` (docs/judge.md, "Detector accuracy"): a regression below these fails.
# (spans found, clean sentences): presidio-research's synthetic sentences and the Schema-Guided Dialogue dataset's
# assistant turns.
EXTERNAL_FLOORS = {"external/pii_presidio_dev.jsonl": (261, 150), "external/pii_presidio_holdout.jsonl": (194, 150),
                   "external/pii_sgd_dev.jsonl": (353, 500), "external/pii_sgd_holdout.jsonl": (303, 500),
                   "external/pii_datafog_dev.jsonl": (40, 32), "external/pii_datafog_holdout.jsonl": (36, 43)}
# Other detectors' test suites, bare values as well as sentences: recall floors, and at most the false positives a
# look at each explains (docs/judge.md): values a test says are not its id that are valid phone numbers in a default
# region ("046 454 286" in Germany, Italy and Sweden), and a test sentence holding an address the source did not
# label.
SUITE_FLOORS = {"external/pii_suites_dev.jsonl": (220, 140, 2), "external/pii_suites_holdout.jsonl": (112, 124, 3),
                # Recognizers-Text's phone, e-mail and IP specs (made-up numbers, look-alikes of each kind) and
                # usaddress's hand-labelled US addresses in two carrier sentences (recall only: no clean rows).
                "external/pii_recognizers_dev.jsonl": (389, 77, 2),
                "external/pii_recognizers_holdout.jsonl": (437, 82, 2),
                "external/pii_usaddress_dev.jsonl": (1255, 0, 0),
                "external/pii_usaddress_holdout.jsonl": (1179, 0, 0),
                # pyap's test addresses (US, British, Canadian) and its parts-list look-alikes, bare and in a
                # carrier sentence.
                "external/pii_pyap_dev.jsonl": (253, 30, 0), "external/pii_pyap_holdout.jsonl": (231, 8, 0),
                # libphonenumber's matcher tests: numbers of eleven regions in the sentences its authors wrote, each
                # given the region its test gives the matcher, and strings they say hold no number.
                "external/pii_libphonenumber_dev.jsonl": (647, 21, 0),
                "external/pii_libphonenumber_holdout.jsonl": (258, 19, 0),
                # libpostal's and Pelias's parser tests: addresses of many countries as their authors wrote them,
                # and places with no street, bare and in a carrier sentence, split by country.
                "external/pii_postal_dev.jsonl": (172, 58, 0), "external/pii_postal_holdout.jsonl": (209, 112, 0)}


@pytest.mark.parametrize("name", sorted(SUITE_FLOORS))
def test_pii_recall_and_false_positives_on_other_detectors_test_suites(name):
    from tests.fixtures.judge.loader import load_jsonl
    from tests.fixtures.judge.scoring import score_pii_spans, with_regions

    rows = load_jsonl(name)
    score = score_pii_spans(rows, with_regions(rows, find_pii))
    found, clean, false = SUITE_FLOORS[name]
    assert sum(score.found.values()) >= found
    assert score.clean == clean and len(score.false_positives) <= false, score.false_positives


@pytest.mark.parametrize("name", sorted(EXTERNAL_FLOORS))
def test_pii_recall_and_false_positives_on_sentences_labelled_by_others(name):
    """Sets labelled by others (tests/fixtures/judge/external/SOURCES.md): recall per required kind on the labelled
    spans; sentences without one must yield nothing outside an allowed span."""
    from tests.fixtures.judge.loader import load_jsonl
    from tests.fixtures.judge.scoring import score_pii_spans

    score = score_pii_spans(load_jsonl(name), find_pii)
    print(f"\n{name}: recall {sum(score.found.values())}/{sum(score.needed.values())}, false positives "
          f"{len(score.false_positives)}/{score.clean}")
    for kind, text in score.missed:
        print(f"  missed {kind}: {text[:100]!r}")
    found, clean = EXTERNAL_FLOORS[name]
    assert sum(score.found.values()) >= found
    assert score.clean == clean and score.false_positives == []


@pytest.mark.parametrize(("text", "kind"), [
    ("The Avalara office is at PSC 0413, Box 8144\nAPO AA 42323", "address"),
    ("She lives on Rue Dielhère 130.", "address"),
    ("Ship it to 6750 Koskikatu 25 Apt. 864, Helsinki", "address"),
    ("What is the limit for credit card 060426070011?", "credit_card"),
    ("my iban is gb42nawi04454264788619", "iban"),
    ("Phone:\n467 3395", "phone"),
])
def test_structural_pii_forms(text, kind):
    assert kind in [m.kind for m in find_pii(text)]


@pytest.mark.parametrize("text", [
    "During 2008, the company invested heavily in new designs.",
    "Send 5 copies to Unit 3 please",
    "Version 2 Beta Unit 3 tests pass",
    "I lived in Paris 2019 to 2021",
    "Hungary 34796",
])
def test_structural_pii_look_alikes(text):
    assert find_pii(text) == []


# Hand-written PII and look-alikes in many national formats (docs/judge.md, "Holdouts across domains"): every kind
# found, and no look-alike reported beyond the ones the docs list as left as they are; the first looks are recorded
# in the docs.
FORMAT_SETS = [f"pii_formats_holdout{n}.jsonl" for n in ("", "2", "3", "4", "5", "6", "7", "8", "9")] + [
    f"pii_agents_holdout{n}.jsonl" for n in ("", *map(str, range(2, 18)))] + [
    "pii_agents_dev.jsonl", "pii_kinds_dev.jsonl", "pii_national_holdout.jsonl", "pii_national_holdout2.jsonl",
    "pii_probe42_dev.jsonl", "pii_probe42_holdout.jsonl"]
# the second holdout's one miss is left (a Polish genitive and "to" between a passport's name and its number: "to"
# as a copula would make "Passport to Paris 2024" one), so its floor is its figure
PROBE42_HOLDOUT2_MISSED = ["Numer paszportu klienta to ZS4410987."]
KNOWN_FALSE: dict[str, list[str]] = {
    # labelled a look-alike (a network's gateway); the detector reports a private host's address as an IP, as
    # "The 10.0.0.5 server is down" is meant to be
    "pii_probe42_dev.jsonl": ["The cluster runs on 10.0.0.0/16 with the gateway at 10.0.0.1."],
    # labelled a look-alike (a network's broadcast address); the detector reports a broadcast address written as an
    # address, as "Broadcast 255.255.255.255" is meant to be, unless a mask's word names it
    "pii_probe42_holdout.jsonl": ["Subnet mask 255.255.255.128, broadcast 192.168.10.255."],
    # labelled a look-alike (a company's campus); the detector reads a number, a street's name and its kind as an
    # address whoever lives there (blind look, docs/judge.md)
    "pii_agents_holdout17.jsonl": ["The building at 1 Infinite Loop is Apple's old campus."],
}
KNOWN_MISSED: dict[str, list[str]] = {
    # a record's noun between the document's name and its number ("Aadhaar linked to order 5533 7406 8124") makes
    # the number the record's; here the noun is the account the Aadhaar is linked to (blind look, docs/judge.md)
    "pii_agents_holdout16.jsonl": ["Aadhaar linked to this account: 4918 9782 5475."],
}


@pytest.mark.parametrize("name", FORMAT_SETS)
def test_pii_formats_are_found_and_look_alikes_are_not(name):
    from tests.fixtures.judge.loader import load_jsonl

    rows = load_jsonl(name)
    pii = [r for r in rows if r["kind"]]
    clean = [r["text"] for r in rows if not r["kind"]]
    assert [r["text"] for r in pii if r["kind"] not in _kinds(r["text"])] == KNOWN_MISSED.get(name, [])
    assert [text for text in clean if find_pii(text)] == KNOWN_FALSE.get(name, [])


def _kinds(text: str) -> list[str]:
    return [m.kind for m in find_pii(text)]


@pytest.mark.parametrize(("text", "kind"), [
    ("El repartidor llamará al 612 345 678 mañana.", "phone"),
    ("Vous pouvez appeler le 06 45 78 12 90 demain.", "phone"),
    ("Her NHS number is 485 777 3457.", "national_id"),
    ("Address updated to B-204, Sai Residency, 14th Cross Road, Indiranagar, Bengaluru 560038.", "address"),
    ("Main Street, Springfield, IL 62701", "address"),
    ("Zustellung an Am Lindenhof 3, 04109 Leipzig, morgen.", "address"),
    ("〒150-0002 東京都渋谷区渋谷2-21-1", "address"),
    ("大阪市北区梅田3丁目1番1号", "address"),
    ("Meet at 1-1-2 Oshiage, Sumida-ku, Tokyo.", "address"),
    ("Pay to KW81 CBKU 0000 0000 0000 1234 5601 01", "iban"),
    ("The attack came from 185.220.101.47 on 12.06.25.", "ipv4"),
    ("The order ships to 303, Rajpath Apartments, Sector 12, Dwarka, New Delhi 110075.", "address"),
    ("It goes to 19, Anna Salai, Teynampet, Chennai 600018.", "address"),
    ("Copies went to h.müller@praxis-mueller.de.", "email"),
    ("Order 0161-4471 shipped; call me on 0161-4480.", "phone"),  # a phone word: not one more record
    ("The passport number on the booking, 548320917, is wrong.", "national_id"),
    ("The 10.0.0.5 server is down.", "ipv4"),
    ("The traveller's passport, no. C01X00T47, expires in 2031.", "national_id"),
    ("Lieferadresse:\nHauptstraße 5\n10115 Berlin", "address"),
    ("Bitte an\nAm Lindenhof 3\n04109 Leipzig senden.", "address"),
    ("The office is at Király u. 15.", "address"),
    ("Andrássy út 60, Budapest", "address"),
])
def test_address_phone_and_id_structures(text, kind):
    assert kind in _kinds(text)


@pytest.mark.parametrize("text", [
    "Update the router to firmware 1.0.3.14 tonight.",
    "Upgrade the switches to 10.2.3.4 after the backup.",
    "Kernel 6.8.0-31 fixes the bug we saw on 5.15.0.91.",
    "Quote RF18 5390 0754 7034 on the transfer.",  # an ISO 11649 creditor reference, not an account
    "Our Calle Serrano 45 perfume is €39.90.",
    "The Baker Street 2-seat sofa is in stock.",
    "The TV has 3 HDMI ports.",
    "NHS number 485 777 3458",  # wrong check digit
    "Order 12, 34567 Units",
    "The subnet mask is 255.255.255.0 and the gateway mask 255.255.240.0.",
    "Product 0800-123-456 is the spare for model X2.",
    "Your reference for this call is 8841-2290-5531.",
    "Item 0161-4471 is discontinued; the replacement is 0161-4480.",
    "Version 2, Release Notes, Page 4, Berlin 10115",
    "The 4.3.2.1 hotfix is on staging; prod stays on 4.3.2.0 until Monday.",
    "Our birthday sale runs until 30/06/2025.",
    "The store celebrates its 10th birthday on 14 June 2025.",
    "Ref 204-11-5532 is your complaint number.",
    "Open 0900-1730 daily, 1000-1600 on Sundays.",
    "The range 10.0.0.0/8 is private.",
    "2 Latte 4\nTotal 12345",
    "Agent 7.52.1.3 is deployed on 18 of 20 hosts.",
])
def test_version_reference_and_product_look_alikes(text):
    assert find_pii(text) == []


@pytest.mark.parametrize(("text", "kind"), [
    ("There's a nice one at 1 Addington Street with a 4.3 rating.", "address"),
    ("1 Baffin Way has a 4.0 rating.", "address"),
    ("They are at 8339 Church Street. Phone is 831-665-5053.", "address"),
    ("You can visit them at 7200 Bancroft Ave # 125C and call them.", "address"),
    ("It's in 29 East Allen Street 2nd Floor.", "address"),
    ("The venue is at 1 AMB Drive Northwest and it's sold out.", "address"),
    ("it is 150 muir rd", "address"),
    ("How about 100 greenwich street? It has been rated 4.4", "address"),
    ("I found a house at Avenida Almirante Silvio de Noronha, 365 - Centro.", "address"),
    ("There is no outdoor seating and the telephone number is 408-779-8182.", "phone"),
    ("Their address is 301 los gatos-saratoga road and their number is 408-399-5677", "phone"),
    ("How about Buchanan Gardens at 1600 Buchanan Road costing $3,000,000?", "address"),
    ("Head to 501 Buckingham Way on the day of your movie.", "address"),
])
def test_streets_that_a_sentence_goes_on_after(text, kind):
    assert kind in _kinds(text)


@pytest.mark.parametrize("text", [
    "In 2019 Abbey Road was remastered.",
    "By 2020 Church Street had changed.",
    "Room 12 Ocean View is free tonight.",
    "Season 2 Ocean Drive was filmed in Miami.",
    "Chapter 7 Sunset Boulevard has the twist.",
    "Over 200 Elm Street residents were there.",
    "We sold 3 Park Avenue lamps and 2 chairs.",
    "It is 5 miles down the road.",
    "It's 10 min drive.",
    "This is 1 more way to do it.",
    "It is on 4 lane road.",
    "Up to 3 Park Avenue flats are free.",
    "The flight stops only at 1 place and it would take off at 9:35 am.",  # a French street kind, an English word
    "4. Your email address:\n5. Your date of birth:",  # an e-mail address's label, no postal one
])
def test_years_counts_and_modifiers_before_a_street_are_not_addresses(text):
    assert find_pii(text) == []


@pytest.mark.parametrize(("text", "kind"), [
    ("Dash as separator: AL47-2121-1009-0000-0002-3569-8741", "iban"),
    ("IBAN DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX", "iban"),
    ("AL47212110090000000235698741 ALL CAPS", "iban"),
    ("Mi NIE es x9613851n", "national_id"),
    ("DNI 48291734z", "national_id"),
    ("The number is AZ 123 456 A.", "national_id"),
    ("IdNr. 86095742719 liegt vor.", "national_id"),
    ("My social security number is 109.99.6000", "us_ssn"),
    ("Gateway: fe80::1 on interface eth0", "ipv6"),
    ("John says account 4111 1111 1111 1111 was charged twice.", "credit_card"),  # grouped as cards are printed
])
def test_formats_other_detectors_test_suites_write(text, kind):
    assert kind in _kinds(text)


@pytest.mark.parametrize("text", [
    "This isn't a valid national insurance number UV 98 76 54 B",  # no U or V in a NINO's prefix
    "GI75 aWBK 0000 0000 7099 453",  # an IBAN with a wrong letter: its digits are no phone
    "2001:db8::256.1.1.1",  # no IPv6 address heads a dotted run
    "Part 109.99.6000 is back in stock.",  # dots make an SSN only after its name
    "DNI 48291734k",  # wrong check letter, in lower case too
    "std::vector and dead::beef",
    "Order 4111 1111 1111 1111 shipped.",
    "401-023-2138",  # no US number (an exchange starting 0), and no German one without its trunk 0
    "Born in the USA was released on 4 June 1984.",  # a title's "Born", and a release between it and the date
    "Born 1950 in Ohio, she retired on 3 May 2010.",
    "Please quote 301-22-4471 when you call back.",  # a number to quote is a reference
    "Range 07700 900000 to 07700 900999 is reserved for drama.",  # a range of numbers is nobody's phone
    "Numbers 415-555-0100 to 415-555-0199 are fictional.",
])
def test_format_look_alikes_from_other_detectors_test_suites(text):
    assert find_pii(text) == []


@pytest.mark.parametrize("text", ["A" * 100_000, ".1" * 50_000, "-1" * 50_000, "Aasa 43\n" * 12_000,
                                  "10.0.0.1 " * 11_000, "ca 12345 " * 11_000, "Xa-" * 7_000 + "ro 5",
                                  "Szewska 6, Kraków\n" * 1_200])
def test_long_replies_are_read_in_linear_time(text):
    """A pattern tried at each place of a long run of one word (a street's line, a spelled e-mail's local part) took
    minutes on 100 kB; the bound is loose for a loaded machine, the old cost was a hundred times over it. A log of
    IP addresses took minutes too: each address's sentence was read whole, and each match was checked against every
    one before it. Capitalised words joined by hyphens took time exponential in their number (a word of a street's
    line could end at any hyphen): 300 characters of "Xa-" took 20 s."""
    assert_linear(find_pii, text)


@pytest.mark.parametrize(("text", "kind"), [
    ("Backup SSN 987-65-4321 recorded.", "us_ssn"),  # an ITIN's group after the SSN's name
    ("ITIN 912-70-3456", "us_ssn"),
    ("hh 01 02 03 d", "national_id"),  # a NINO in lower case, printed in pairs
    ("NINO tw987654a", "national_id"),  # run together only after its name
    ("Mi DNI es 1111111G.", "national_id"),  # seven digits only after its name
    ("mon NAS: 046 454 286", "national_id"),  # the SIN's French name after a French determiner
    ("Pass-Nr.: F12345671", "national_id"),
    ("Seine Ausweis-Nr. ist T22000129.", "national_id"),
    ("The passport number on the booking, 548320917", "national_id"),  # a word after the name is no value
])
def test_ids_known_by_their_label(text, kind):
    assert kind in _kinds(text)


@pytest.mark.parametrize("text", [
    "Order 987-65-4321 left the warehouse.",  # the 900s only after an SSN's or ITIN's name
    "SSN 912-45-1234 is not a valid format.",  # group 45 is no ITIN's
    "Write your SSN as 999-99-9999 if you have none.",  # a form's placeholder
    "SKU tw987654a is back in stock.",
    "Part ab123456c fits the older model.",
    "Lote 1111111G, caducado.",
    "DNI 1111111H",  # wrong check letter
    "NAS backup job 130692544 finished.",  # a storage box, no French determiner
    "Pass 3 of 12 finished at 14:05.",
    "Boarding pass 2345 6789 is for seat 14C.",
])
def test_look_alikes_of_ids_known_by_their_label(text):
    assert find_pii(text) == []


@pytest.mark.parametrize("text", [
    "It's a quiet place. Its number is 20 7946 0958.",  # a place's own number
    "Thier number is 650-555-0143.",  # an owner's word with two letters swapped
    "I booked it for you and the listed number is 408-399-5677.",  # a participle between owner and number
    "The booking is confirmed.You will get an email soon.925-824-2555.",  # glued to the sentence before
    "You can contacgt them at 55 5395 4586 before noon.",  # a phone's word with a letter added
    "Their telphone is 1 40 20 50 50.",  # and with one dropped
])
def test_phones_whose_owner_is_said_loosely(text):
    assert "phone" in _kinds(text)


@pytest.mark.parametrize("text", [
    "Contract number is 415-555-2671.",  # "contact" with a letter added is a record's word
    "Order 4821-33971 shipped.Ref 415-555-2671",  # glued, and still a reference
    "Its part number is 415-555-2671.",
    "The attached invoice number is 415-555-2671.",
    "Its serial is 20 7946 0958.",
    "It opened in 2019.0900-1730 daily.",
    "The contract 55 5395 4586 was signed.",
    "Please contacgt them about order 55 5395 4586.",  # the record's word is nearer
])
def test_look_alikes_of_phones_whose_owner_is_said_loosely(text):
    assert find_pii(text) == []


@pytest.mark.parametrize(("text", "kind"), [
    ("You can find the clinic at 555 East El Camino Real.", "address"),  # a Spanish street, numbered the US way
    ("The street address is 754 The Alameda #10.", "address"),
    ("You can find them at 855 El Camino Real Building #1 Suite #3 and call", "address"),
    ("My email is john at gmail.com", "email"),  # "at" for "@" after an e-mail's word
    ("Reach me as j.smith88 at gmail.com after five.", "email"),  # a provider's domain and an address's dot
    ("john@acme.com123-45-6789", "email"),  # digits glued after the top-level domain
    ("They are located at 28-30 Bute Gardens.", "address"),  # a range of house numbers
    ("Try the place at 9042/1044 Tower Avenue Jomo Kenyatta Intl Airport, Kenya.", "address"),
])
def test_streets_and_addresses_written_another_way(text, kind):
    assert kind in _kinds(text)


@pytest.mark.parametrize("text", [
    "We have 3 Via Rail trains leaving today.",  # a count of trains
    "Flight 12 Via Dallas lands at 9:40.",  # a number that numbers a flight
    "The 4 Calle Ocho tacos cost $12.50.",
    "Sign in at gmail.com with your new password.",
    "I work at mail.com since 2019.",
    "Sales at Amazon.com rose 5% in Q3.",
    "The docs for next.js at vercel.com cover version 14.2.3.",
    "Our 24/7 Park Avenue store never closes.",  # a noun after it: a modifier
    "The 2-3 Main Street flats are let.",
])
def test_look_alikes_of_streets_and_addresses_written_another_way(text):
    assert find_pii(text) == []


@pytest.mark.parametrize("text", ["Pay with 30569309025904 (Diners Club).",
                                  "Use 122000000000003, the UATP card on file."])
def test_cards_of_rare_lengths_named_right_after(text):
    assert "credit_card" in _kinds(text)


@pytest.mark.parametrize("text", [
    "Order 30569309025904 was paid by card.",  # a record's word before it wins
    "30569309025904 gift card balance: $25.",  # a card that pays for nothing
    "Ref 30569309025904. Card declined at the till.",  # the card's word is in the next sentence
    "Serial 4111-1111-1111-1111 is the test card number from the docs.",
    "30569309025904",  # no card's word at all: the checksum passes one number in ten
])
def test_look_alikes_of_cards_of_rare_lengths(text):
    assert find_pii(text) == []


@pytest.mark.parametrize(("text", "kind"), [
    ("我的电话号是0176-12345678。", "phone"),  # glued to words of a script that does not space them
    ("请拨打电话+49 176 12345678", "phone"),
    ("私のIPは192.168.1.20です", "ipv4"),
    ("मेरा फोन नंबर 9834257234 है.", "phone"),  # the Hindi phone word
    ("My phone number is 837.824.1482x6388.", "phone"),  # an extension right after the number
    ("Call 0161 123 4567 ext. 123 today.", "phone"),
    ("The VPN gives my PC 10.8.0.6/24.", "ipv4"),  # a host's address on its network
])
def test_numbers_glued_to_unspaced_scripts_extensions_and_hosts_on_a_network(text, kind):
    assert kind in _kinds(text)


@pytest.mark.parametrize("text", [
    "订单号0176-12345678已发货",  # an order's number
    "型号：0176-12345678",  # a model's
    "价格是12345678元",  # a price, no phone word
    "版本1.2.3.4已发布",  # a version
    "バージョンは1.2.3.4です",
    "The subnet is 192.168.1.0/24.",  # a network: its host bits are zero
    "Solve (12)+(34)-567890 first.",  # a "+" after an operand is arithmetic
    "Resolution 1920x1080 and 12345678x2 tiles",
])
def test_look_alikes_in_unspaced_scripts_and_beside_extensions(text):
    assert find_pii(text) == []


@pytest.mark.parametrize("text", [
    "Please send it to 317 conniston road west palm beach fl 33458.",  # a US line in lower case, its state and ZIP
    "The office is at 5050 s dr martin luther king blvd apt 3609 chicago il 60615",
    "Mail it to 1501 N Main St # 2 Beaver Dam KY 42320-8961",
    "The office is at 3849 W 69TH PLACE",  # an ordinal in capitals
    "It is at 2616 20Th Street South.",
    "Please send it to 7257 S. State.",  # a direction and a name, no street kind
    "Meet at 55 E Monroe, 40th Floor.",
    "The office is at 1320 west Webster chicago il 60622",
    "Please send it to 201 joseph e. lowry blvd.",  # lower case: an initial in the name
    "I live at 17071 w dixie hwy # 312.",  # lower case: a direction and a unit after the kind
    "It is at 2100 roswell rd. suite 200c pmb 214",
    "The office is at 3313 hwy. 31, w. white house tn 37188",  # a highway and its number before a state and ZIP
])
def test_us_address_lines_known_by_their_state_and_zip(text):
    assert "address" in _kinds(text)


@pytest.mark.parametrize("text", [
    "We have 3 park rangers in Boulder CO 80301.",  # a count, then a clause: no street's line
    "I drove 300 miles on highway 5 to fresno ca 93650",
    "We sold 40 green hill tickets near Nashville TN 37215",
    "Ship 5 oak lane benches to Portland OR 97201",
    "Order 12 ships to Austin TX 78701 tomorrow.",
    "We have 12 north facing rooms in Austin TX 78701",
    "My new Model 30 S Plaid.",  # a model's number, not a house's
    "Tesla Model 3 S Plaid.",
    "In 2019 N Korea tested missiles.",
    "Buy 24 E Coli test kits.",
    "Take I-95 N Miami exit.",
    "We met at 3 st, 2 ave",
    "The score is 2 nil at 3 rd",
    "it is on 4 lane road.",
    "We drove 40 miles up route 9 near Albany NY 12207",
    "Exit 12 on highway 5, Fresno CA 93650",
    "Mile 45 of route 66 in Tulsa OK 74103",
])
def test_counts_before_a_state_and_zip_are_no_address_line(text):
    assert "address" not in _kinds(text)


@pytest.mark.parametrize("text", ["My phone number is 223-4567.", "Call me at 867-5309 tonight.",
                                  "Their number is 343-2211."])
def test_a_local_north_american_number_a_phone_word_introduces(text):
    assert "phone" in _kinds(text)


@pytest.mark.parametrize("text", [
    "Call 555-0100 for the demo line",  # reserved for fiction
    "my phone number is 112-3333.",  # no exchange starts with 1
    "Ticket 234-5678 is yours.",
    "The total is 234-5678",
    "We sold 234-5678 units",
])
def test_seven_digits_without_a_phone_word_or_a_valid_exchange(text):
    assert "phone" not in _kinds(text)


def _phones(text: str, regions: tuple[str, ...] | None = None) -> list[str]:
    return [text[m.start:m.end] for m in find_pii(text, regions=regions) if m.kind == "phone"]


@pytest.mark.parametrize(("text", "expected"), [
    ("(415) 666-7777 (800) 443-1223", ["(415) 666-7777", "(800) 443-1223"]),  # numbers in a row
    ("415-666-7777 - 800-443-1223 - 212-443-1223", ["415-666-7777", "800-443-1223", "212-443-1223"]),
    ("My number is (415) 666 7777. 34215 is my zip-code.", ["(415) 666 7777"]),  # a ZIP code after the period
    ("My phone number is 010 - 123 45 67.", ["010 - 123 45 67"]),  # a spaced dash after an area code: one number
    ("+1 (650) 333-6000", ["+1 (650) 333-6000"]),
    ("Hello 1-650-333-6000", ["1-650-333-6000"]),  # a North American number after its trunk 1
    ("++1 (650) 333-6000", ["++1 (650) 333-6000"]),  # the "+" doubled
    ("＋１\u3000（６５０）\u3000３３３－６０００", ["＋１\u3000（６５０）\u3000３３３－６０００"]),  # full-width forms
])
def test_numbers_in_a_row_after_a_trunk_1_doubled_plus_and_full_width(text, expected):
    assert _phones(text, ("US",)) == expected


@pytest.mark.parametrize("text", [
    "415-666-7777%",  # a percentage
    "Growth was 415-666-7777 % this year",
    "Hello 1-650-333-60000",  # one digit too many for the trunk 1 shape
    "価格は１２３４５６７８円",  # a price in full-width digits, no phone word
    "Scores 1234567 - 7654321 - 1111111",  # bare runs the cut leaves as they were
])
def test_look_alikes_of_numbers_in_a_row_and_full_width(text):
    assert _phones(text, ("US",)) == []


@pytest.mark.parametrize(("text", "kind"), [
    ("Broadcast 255.255.255.255", "ipv4"),  # the broadcast address, written as an address
    ("My PC IP address is 255.255.255.255", "ipv4"),
    ("08.008.08.08 is the ip address", "ipv4"),  # octets padded with zeros beside an IP's word
    ("My IP is 192.168.001.010", "ipv4"),
    ("我电脑的V6地址是12::1", "ipv6"),  # a compressed IPv6 address of few digits beside an IP's word
    ("My PC IPv6 address is 12::1", "ipv6"),
])
def test_broadcast_zero_padded_and_short_ip_addresses(text, kind):
    assert kind in _kinds(text)


@pytest.mark.parametrize("text", [
    "Subnet mask 255.255.255.255 means one host",  # a mask's word: a netmask
    "The netmask is 255.255.255.0",
    "Chapter 01.02.03.04 covers it",  # padded octets with no IP's word
    "Ratio 12::1 in the mix",  # few digits with no IP's word
    "My IP is ::1",  # loopback, still no host
])
def test_look_alikes_of_broadcast_zero_padded_and_short_ip_addresses(text):
    assert not {"ipv4", "ipv6"} & set(_kinds(text))


@pytest.mark.parametrize(("text", "regions", "expected"), [
    ("Hi call+64 3 331 6005", ("US",), ["+64 3 331 6005"]),  # a "+" right after a word's letter starts a number
    ("Call 03 331 6005/x12 more", ("NZ",), ["03 331 6005"]),  # a slash with no digit after it ends the number
    ("$20 415-666-7777", ("US",), ["415-666-7777"]),  # an amount beside the number is no part of it
    ("415-666-7777 100$", ("US",), ["415-666-7777"]),
    ("Call 415-666-7777 for 5 $ off", ("US",), ["415-666-7777"]),  # a sign after another number
    ("宝爵台球会所：13604779660或13604770960", None, ["13604779660", "13604770960"]),  # Chinese mobiles in Chinese text
])
def test_numbers_after_a_letter_before_a_slash_beside_money_and_chinese_mobiles(text, regions, expected):
    assert _phones(text, regions) == expected


@pytest.mark.parametrize("text", [
    "Formula 45+31-339243873 is not a phone number",  # a "+" after a digit is arithmetic
    "Let y = x+12345678901 in the sum",  # after a lone letter: algebra
    "Call 415-666-7777/5 times",  # a slash before a digit: a fraction or a list
    "Order 13604779660 shipped",  # eleven digits in English text: China's numbers are not tried
    "订单号13604779660已发货",  # an order's number in Chinese
    "注文番号13604779660です",  # Japanese: kana beside the ideographs
    "价格是13812345678元",  # a price: the currency's sign after the digits
])
def test_look_alikes_of_numbers_after_a_letter_and_chinese_mobiles(text):
    assert _phones(text, ("US",)) == []


def test_an_international_number_with_its_extension_after_a_hyphen():
    assert _phones("My phone number is +86 20 61302222-8866.") == ["+86 20 61302222"]
    assert _phones("Tracking +1234 5678 9012 3456-12 is on its way") == []  # no number before the last hyphen


def test_polands_exit_code_with_its_wait_for_a_dial_tone():
    assert _phones("Call 0~01-650-333-6000 now") == ["0~01-650-333-6000"]
    assert _phones("Scores went 0~0 then 0~012345 in the replay") == []  # no whole number after it


@pytest.mark.parametrize(("text", "expected"), [
    ("Customer care: 1800 123 4567 (toll-free, India)", ["1800 123 4567"]),  # "toll-free" after it labels it
    ("The IRS helpline 8008291040 is open 24/7", ["8008291040"]),  # a helpline's number as one run
])
def test_helplines_and_toll_free_numbers(text, expected):
    assert _phones(text) == expected


def test_look_alike_of_a_toll_free_number_and_a_bracketed_ipv6_address_with_its_port():
    assert _phones("Toll-free shipping on orders over 1500 2000 3000") == []
    text = "connect to [2001:db8::1]:443"
    assert [text[m.start:m.end] for m in find_pii(text)] == ["[2001:db8::1]"]


@pytest.mark.parametrize("text", ["我的电话号码是13812345678", "手机号13812345678", "我的首选号码是13812345678"])
def test_chinese_mobiles_a_phones_noun_introduces(text):
    assert _phones(text) == ["13812345678"]


@pytest.mark.parametrize("text", [
    "会员卡号13812345678",  # a membership card's number
    "您的账号13812345678已激活",  # an account's
    "您的验证码是13812345678",  # a verification code
    "流水号13812345678",  # a transaction's serial
    "库存13812345678件",  # a count: a measure word after the digits
    "共13812345678人",
    "价格13812345678",  # a price
    "数量：13812345678",  # a quantity
])
def test_chinese_records_and_counts_shaped_like_mobiles(text):
    assert _phones(text) == []


def _an_iban(country: str, length: int, seed: int) -> str:
    """A valid IBAN of `country`'s length: its BBAN's digits made from `seed`, its check digits computed."""
    bban = "".join(str((seed * 7 + i * 3) % 10) for i in range(length - 4))
    number = int("".join(str(int(ch, 36)) for ch in bban + country + "00"))
    return f"{country}{98 - number % 97:02d}{bban}"


def _grouped(iban: str) -> str:
    return " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))


def test_an_iban_of_every_registered_country_is_found_grouped_by_four_and_a_wrong_one_is_not():
    from khaos_action.detect.pii import _IBAN_LENGTHS

    missed, taken = [], []
    for seed, (country, length) in enumerate(sorted(_IBAN_LENGTHS.items())):
        iban = _an_iban(country, length, seed)
        wrong = iban[:2] + f"{(int(iban[2:4]) + 1) % 100:02d}" + iban[4:]
        text = f"IBAN ({country}): {_grouped(iban)}, thank you."
        if [m.kind for m in find_pii(text)] != ["iban"]:
            missed.append(text)
        if "iban" in _kinds(f"IBAN ({country}): {_grouped(wrong)}, thank you."):
            taken.append(wrong)
    assert missed == [] and taken == []


@pytest.mark.parametrize("text", [
    "IBAN (CH): ch93 0076 2011 6238 5295 7",          # lower case after its name and the country in parentheses
    "Die IBAN (CH) lautet CH 93 0076 2011 6238 5295 7.",  # a space after the country
    "IBAN: CH93\u00a00076\u00a02011\u00a06238\u00a05295\u00a07",  # no-break spaces
    "Konto CH93.0076.2011.6238.5295.7 (UBS)",          # dots
])
def test_ibans_written_with_other_separators_are_found(text):
    assert _kinds(text) == ["iban"]


@pytest.mark.parametrize("text", ["Dallas, TX 75201 214 555 0199", "CH 93 0076 2011 6238 5295 8"])
def test_a_state_and_digits_after_it_are_no_iban(text):
    assert "iban" not in _kinds(text)


@pytest.mark.parametrize(("text", "street"), [
    ("Send it to Av. Paulista, 1578 - Bela Vista, São Paulo - SP, 01310-200.", "Av. Paulista, 1578"),
    ("Av. Corrientes 1234, C1043 CABA, Buenos Aires", "Av. Corrientes 1234"),
    ("Av. Insurgentes Sur 1602, Col. Crédito Constructor, Ciudad de México", "Av. Insurgentes Sur 1602"),
    ("Mande para Travessa do Carmo, 12, Lisboa.", "Travessa do Carmo, 12"),
])
def test_latin_american_and_portuguese_streets_abbreviated_or_not(text, street):
    assert [(m.kind, text[m.start:m.end]) for m in find_pii(text)] == [("address", street)]


def test_a_brazilian_postcode_is_no_phone_number():
    assert find_pii("CEP 01310-200") == []
    assert [m.kind for m in find_pii("Call me on (11) 91234-5678.")] == ["phone"]


@pytest.mark.parametrize("text", [
    "Lottery numbers drawn: 04 11 23 35 42 47.",           # six numbers; national phones in pairs have four or five
    "GTIN 00012345678905 maps to the blue mug.",           # leading zeros, no exit code
    "The carton's 00012345678905 is scanned at the dock.",
])
def test_numbers_in_pairs_and_leading_zeros_are_no_phones(text):
    assert _kinds(text) == []


@pytest.mark.parametrize("text", ["Appelez le 01 23 45 67 89", "Call 0049 30 901820"])
def test_pairs_and_exit_codes_of_real_phones(text):
    assert _kinds(text) == ["phone"]


@pytest.mark.parametrize(("text", "kinds"), [
    ("git clone git@github.com:acme/api.git", []),           # an SSH remote, a login
    ("The icons are logo@2x.png and home@3x.webp.", []),     # high-density images' file names
    ("Email me at anna@acme.com: thanks!", ["email"]),
    ("Use the test card 4242 4242 4242 4242 in sandbox.", []),  # a processor's published test number
    ("Stripe test number 4000 0566 5566 5556 triggers a decline.", []),
    ("I tested my card 4086 1793 7541 8820 and it failed.", ["credit_card"]),
])
def test_remotes_image_names_and_test_cards(text, kinds):
    assert _kinds(text) == kinds


@pytest.mark.parametrize("text", [
    "HF token: hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567",
    "GitLab PAT glpat-xY12aB34cD56eF78gH90",
    "npm token npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "SendGrid key SG.abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefg",
    "Webhook: https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/aBcDeFgHiJkLmNoPqRsTuVwX",
    "rk_test_" + "b" * 20,
])
def test_more_providers_tokens(text):
    assert _kinds(text) == ["api_key"]


@pytest.mark.parametrize("text", [
    "the hf_hub_download function", "npm_config_cache is set", "ask-abcdefghijklmnopqrstuvwxyz",
    "xghp_" + "a" * 36, "desk_live_" + "a" * 16,           # a prefix inside a longer word is none
])
def test_token_prefixes_inside_words(text):
    assert _kinds(text) == []


def test_probe42_holdout2_floor():
    from tests.fixtures.judge.loader import load_jsonl

    rows = load_jsonl("pii_probe42_holdout2.jsonl")
    assert [r["text"] for r in rows if r["kind"] and r["kind"] not in _kinds(r["text"])] == PROBE42_HOLDOUT2_MISSED
    assert [r["text"] for r in rows if not r["kind"] and find_pii(r["text"])] == []
