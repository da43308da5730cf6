"""Street addresses found by find_pii, each rule with the nearest look-alike it must leave alone."""

import pytest

from khaos_action.detect.pii import find_pii
from tests.linear_time import assert_linear


def _addresses(text: str) -> list[str]:
    return [text[m.start:m.end] for m in find_pii(text) if m.kind == "address"]


@pytest.mark.parametrize(("text", "address"), [
    # a state or province alone after a comma ends a line
    ("28 Gorgo Lane Newfield, NJ", "28 Gorgo Lane Newfield, NJ"),
    ("1720 HARDING HWY NEWFIELD, NJ", "1720 HARDING HWY NEWFIELD, NJ"),
    ("25 Bethridge Road Toronto, Ontario, Canada", "25 Bethridge Road Toronto, Ontario"),
    # a Canadian province and postcode, the province in parentheses as Quebec writes it
    ("67 Lougheed Rd Unit B Barrie, Ontario L4N 8G1", "67 Lougheed Rd Unit B Barrie, Ontario L4N 8G1"),
    ("4260, Still Creek Drive Burnaby (Colombie-Britannique) V5C 6C6",
     "4260, Still Creek Drive Burnaby (Colombie-Britannique) V5C 6C6"),
    # a British postcode after a street whose kind is written in lower case
    ("01 Brett mall, Lake Donna, W02 3JQ", "01 Brett mall, Lake Donna, W02 3JQ"),
    # a town and a ZIP code with no state
    ("Please send it to 4450 camrose court cumming 30041.", "4450 camrose court cumming 30041"),
    # a state written out before its ZIP code
    ("Mail it to 77 Crompton Street Charlotte , North Carolina 28273",
     "77 Crompton Street Charlotte , North Carolina 28273"),
])
def test_address_lines_known_by_their_end(text, address):
    assert address in _addresses(text)


@pytest.mark.parametrize("text", [
    "We shipped 3 park benches to Austin, TX.",
    "In 2019 we drove 300 miles on highway 5 to fresno, CA.",
    "Room 12 Building Way, Springfield, IL",
    "Our 3 main street stores sold 90210.",
    "The 4 Oak Road exits are closed near Toronto, ON",
    "Batch 12 Maple Drive samples, GL6 8EA",
])
def test_address_line_look_alikes(text):
    assert _addresses(text) == []


@pytest.mark.parametrize("text", [", NJ\n" * 20_000, "L4N 8G1 " * 12_500, "SW1A 1AA " * 11_000,
                                  "12 oak road cumming 30041\n" * 4_000,
                                  ("12 Main Street Town " * 20 + ", ON\n") * 250])
def test_line_ends_in_a_long_text_are_read_in_linear_time(text):
    """Each end of a line (a state, a province, a postcode) looks back for a street's line: the street words are found
    once for the whole text, not once for each end."""
    assert_linear(find_pii, text)


@pytest.mark.parametrize(("text", "address"), [
    # a house number in words, placed by a word, followed by a unit, or alone on its line
    ("Please send it to One Jelly Belly Lane.", "One Jelly Belly Lane"),
    ("The address is Twenty-two Elm Street.", "Twenty-two Elm Street"),
    ("The office is at ONE NORTH JEFFERSON AVE", "ONE NORTH JEFFERSON AVE"),
    ("Six Concourse Parkway Suite 2500", "Six Concourse Parkway Suite 2500"),
    ("Two Hundred South Alloy Drive", "Two Hundred South Alloy Drive"),
    ("Write to One Microsoft Way, Redmond, WA 98052", "One Microsoft Way, Redmond, WA 98052"),
    # a unit between the placing word and the house number
    ("The letter went to Suite 1800 233 Richmond Highway on Monday.", "233 Richmond Highway"),
    # Broadway needs no kind; a house number's letter after a hyphen
    ("Our shop is at 1365 Broadway", "1365 Broadway"),
    ("Please send it to 109-A WIMBLEDON SQUARE.", "109-A WIMBLEDON SQUARE"),
])
def test_streets_numbered_in_words_and_other_forms(text, address):
    assert any(found.rstrip(".") == address for found in _addresses(text))


@pytest.mark.parametrize("text", [
    "One more thing: Main Street is closed.",
    "One Tree Hill is a show about a basketball team.",
    "Eight Mile Road is closed for repairs.",
    "We drove down Seven Pines Road yesterday.",
    "Two Rivers Road is the scenic route.",
    "The One Way Street sign fell over.",
    "He starred in 12 Broadway shows.",
    "Room 12 Building Way is free",
    "Season 2 Ocean Drive was filmed in Miami.",
    "Head up to Suite 4 for 3 Park Avenue flats.",
])
def test_look_alikes_of_streets_numbered_in_words(text):
    assert _addresses(text) == []


@pytest.mark.parametrize(("text", "address"), [
    # a parenthesis ends a street's phrase
    ("The office is at 728 w. roosevelt road (east side) 2nd floor", "728 w. roosevelt road"),
    # a highway by its number, in lower case after a placing word
    ("The office is at 3474 scenic hwy 98", "3474 scenic hwy 98"),
    # a state's code alone at the end of a line, in any case
    ("465 pack lane cheshire ct", "465 pack lane cheshire ct"),
    ("Please send it to 8725 nw 18th ter ste 106 doral fl", "8725 nw 18th ter ste 106 doral fl"),
    # a direction and a numbered street, a range with spaces, Wisconsin's grid numbers
    ("Mail: 3545 nw 58th, ste 450 oklahoma city ok 73196", "3545 nw 58th, ste 450 oklahoma city ok 73196"),
    ("718 - 8th Avenue SW Calgary, AB T2P 1H3", "718 - 8th Avenue SW Calgary, AB T2P 1H3"),
    ("W156N9762 Pilgrim Rd Germantown, WI 53022", "W156N9762 Pilgrim Rd Germantown, WI 53022"),
])
def test_street_ends_and_numbers(text, address):
    assert address in _addresses(text)


@pytest.mark.parametrize("text", [
    "Drive 5 miles on hwy 98 to the exit.",
    "I found 3 park benches in the garden, ok",
    "Season 2 Ocean Drive (2019) was filmed in Miami.",
    "We have 3 Main Street stores (two in town).",
    "Please call me",
    "Take 12 oak road signs and it is ok",
])
def test_look_alikes_of_street_ends(text):
    assert _addresses(text) == []


@pytest.mark.parametrize(("text", "address"), [
    ("Our office is at 1200 Market Stret.", "1200 Market Stret"),
    ("Ship it to 45 Lincoln Aevnue, Springfield", "45 Lincoln Aevnue"),
    ("She lives at 9 Elmwood Boulevad", "9 Elmwood Boulevad"),
])
def test_streets_with_a_misspelt_kind(text, address):
    assert any(address in found for found in _addresses(text))


@pytest.mark.parametrize("text", [
    "Yesterday 3 Old Friends drove home.",
    "We saw 12 Jumbo Planes at the show.",
    "Season 2 Main Stret was filmed in May.",
    "Only 3 Pilots count.",
])
def test_look_alikes_of_misspelt_kinds(text):
    assert _addresses(text) == []


@pytest.mark.parametrize(("text", "address"), [
    ("Her home is 15 Crescent Road, Toorak VIC 3142.", "15 Crescent Road, Toorak VIC 3142"),
    ("Send the invoice to Unit 4, 18 Harbour Street, Sydney NSW 2000.", "18 Harbour Street, Sydney NSW 2000"),
    ("He gave 9 Pine Street as his address.", "9 Pine Street"),
])
def test_australian_lines_and_a_street_before_as(text, address):
    assert address in _addresses(text)


@pytest.mark.parametrize("text", [
    "We ordered 3 Park Avenue chairs for the SA 5000 office.",
    "1 room in 1 Hotel Brooklyn Bridge in New York, for 2 days.",
    "Chapter 9 Pine Street as a symbol of home",
])
def test_look_alikes_of_australian_lines(text):
    assert _addresses(text) == []


@pytest.mark.parametrize("text", [
    "There are 4 Green Park benches, OK?",
    "Rated 4.5 by 120 Lake View guests, FL.",
    "I moved 3 Oak Street signs and that is ok",
])
def test_a_state_alone_after_a_sentence_is_no_line_end(text):
    assert _addresses(text) == []


@pytest.mark.parametrize(("text", "address"), [
    # a house number of three digits or more, whatever follows the street
    ("Tenants of 300 Pine Road complained about noise.", "300 Pine Road"),
    ("Lease for 210 W 35th St begins June 1.", "210 W 35th St"),
    # a preposition of place before a smaller number
    ("The shop on 45 Elm Street sells bread.", "45 Elm Street"),
    ("Construction near 88 Harbor Drive starts Monday.", "88 Harbor Drive"),
])
def test_a_street_followed_by_its_verb(text, address):
    assert address in _addresses(text)


@pytest.mark.parametrize("text", [
    "$300 Park Avenue rents are high.",
    "2023 Market Street report shows growth.",
    "About 300 Main Street residents signed the petition.",
    "Approximately 120 Lake Shore Drive units were sold.",
    "We sold 500 Park Avenue condos last year.",
    "on 3 Main Street stores we spent $5",
    "Only 200 Elm Street tickets remain.",
    "They played 150 Abbey Road shows that year.",
    "a mix of 4 Oak Road flavors",
    "I see 10 hotels from 1 Hotel Brooklyn Bridge a nice 1 star hotel.",
])
def test_a_street_that_names_what_follows_or_is_counted(text):
    assert _addresses(text) == []


@pytest.mark.parametrize(("text", "address"), [
    ("8 Elm Ct in Springfield", "8 Elm Ct"),
    ("Our office, 12 Oak Street in Boston, opens at 9.", "12 Oak Street"),
    ("Deliveries go to the depot; 47 Mill Road in Leeds.", "47 Mill Road"),
])
def test_a_street_followed_by_in_and_its_town(text, address):
    assert address in _addresses(text)


@pytest.mark.parametrize("text", [
    "1 room in 1 Hotel Brooklyn Bridge in New York",  # a hotel's name, no road's kind
    "We have 3 Main Street stores in Boston",         # a shop's count
    "Season 2 Ocean Drive in Miami",                  # an episode
    "The 24 Hour Drive in Dallas.",
    "They sold 2 Park Lane flats in London.",
])
def test_look_alikes_of_a_street_in_a_town(text):
    assert _addresses(text) == []


@pytest.mark.parametrize(("text", "street"), [
    ("Ship to Unit 4/18 Smith St, Fitzroy VIC 3065.", "4/18 Smith St"),
    ("Unit 7/22 Beach Road, Mairangi Bay, Auckland 0630", "7/22 Beach Road"),
    ("Her flat is Flat 3/41 Harbour Street, Sydney NSW 2000.", "3/41 Harbour Street"),
    ("Apartment 12/240 Oxford Street, Bondi Junction NSW 2022", "12/240 Oxford Street"),
])
def test_a_unit_and_a_house_number_written_with_a_slash(text, street):
    found = [text[m.start:m.end] for m in find_pii(text) if m.kind == "address"]
    assert found and found[0].startswith(street)


@pytest.mark.parametrize("text", ["Unit 4/18 done, the rest next week.", "the unit 4/18 Smith St sells out fast",
                                  "Unit 3 of 12 Smith Street tenants"])
def test_look_alikes_of_a_unit_and_a_house_number(text):
    assert [m for m in find_pii(text) if m.kind == "address"] == []


@pytest.mark.parametrize("text", ["Brigade 12 moved north at dawn.", "Renegade 3 is out on Friday.",
                                  "Stargate 3 premieres",
                                  "Navigate 2 screens back.", "Aggregate 5 rows first.", "Bowtie 3 sold out.",
                                  "Blockade 2 ended in May.", "Monitoring 2 hosts now.", "Am Ende 3, 12000 Euro",
                                  "Im Jahr 3, 12000 Kunden"])
def test_english_words_that_end_as_a_nordic_street_and_an_amount_after_a_house_number(text):
    assert _addresses(text) == []


@pytest.mark.parametrize(("text", "address"), [
    ("Deliver to Nørregade 12, 1165 København.", "Nørregade 12"),
    ("Kirkegate 3, Bergen", "Kirkegate 3"),
    ("Am Lindenhof 3, 04109 Leipzig", "Am Lindenhof 3, 04109 Leipzig"),
])
def test_nordic_and_german_streets_still_read(text, address):
    assert _addresses(text)[0].startswith(address)


@pytest.mark.parametrize("text", [
    "Apollo 13 Moon Landing, FL",
    "We toured Pier 39 Fisherman Wharf, CA. Tickets cost 2500 yen.",
    "Area 51 Alien Center, NV",
])
def test_a_names_number_before_a_state_is_no_address(text):
    assert [m.kind for m in find_pii(text)] == []


@pytest.mark.parametrize(("text", "address"), [
    ("Send it to Barboncino 12 Oak Street, Springfield, IL", "12 Oak Street, Springfield, IL"),
    ("Hixenbaugh 9 Front St Washington DC 20001", "9 Front St Washington DC 20001"),
    ("The letter went to Flat 05, Byrne shores, Howardshire, GL6 8EA", "05, Byrne shores, Howardshire, GL6 8EA"),
])
def test_a_name_before_a_house_number_with_a_place_word_or_postcode(text, address):
    assert [text[m.start:m.end] for m in find_pii(text) if m.kind == "address"] == [address]
