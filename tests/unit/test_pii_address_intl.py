"""Street addresses in national forms (detect/pii_address_intl), each form with the look-alikes it must leave alone.
The addresses are written for these tests, in other streets and towns than the labelled sets'."""

import pytest

from khaos_action.detect.pii import find_pii


def _addresses(text: str) -> list[str]:
    return [text[m.start:m.end] for m in find_pii(text) if m.kind == "address"]


@pytest.mark.parametrize(("text", "address"), [
    # a street's kind joined to its name, in forms the Germanic patterns did not list
    ("The parcel shop is at Trondheimsvei 44.", "Trondheimsvei 44"),
    ("The club meets at Youngstorget 2.", "Youngstorget 2"),
    ("Zeedijk 8, Amsterdam", "Zeedijk 8, Amsterdam"),
    # the kind as a word of its own after a capitalised name
    ("Ole Bulls plass 5", "Ole Bulls plass 5"),
    ("Her new flat: Sankt Olavs vei 9, Oslo", "Sankt Olavs vei 9, Oslo"),
    ("Bygdøy allé 23", "Bygdøy allé 23"),
    ("The office moved to Staroměstské náměstí 6.", "Staroměstské náměstí 6"),
    # a Slavic street named by an adjective or a possessive, then its town or postcode
    ("Piotrkowska 104, Łódź", "Piotrkowska 104, Łódź"),
    ("Obchodná 25, Bratislava", "Obchodná 25, Bratislava"),
    ("Her flat is on Nerudova 12, Brno.", "Nerudova 12, Brno"),
    ("Send it to Wrocławska 7, 50-001 please", "Wrocławska 7, 50-001"),
    # a Polish kind before the name; a German preposition's street with a comma after its postcode
    ("ulica Długa 44", "ulica Długa 44"),
    ("plac Zbawiciela 3", "plac Zbawiciela 3"),
    ("An der Alster 42, 20099, Hamburg", "An der Alster 42, 20099, Hamburg"),
    # French kinds
    ("3 hameau des Pins", "3 hameau des Pins"),
    ("8 cité Voltaire", "8 cité Voltaire"),
    # Russian kinds, before or after the name, with the house's word
    ("ул. Тверская д. 7", "ул. Тверская д. 7"),
    ("Невский пр., 28", "Невский пр., 28"),
    # a Chinese road and number, a Korean road, a Japanese chōme written out
    ("地址：北京市朝阳区建国路88号", "北京市朝阳区建国路88号"),
    ("Sejong-daero 209", "Sejong-daero 209"),
    ("Ginza 4 Chome, Chuo-ku", "Ginza 4 Chome"),
    # a half house number
    ("We are at 12½ Mill Lane.", "12½ Mill Lane."),
])
def test_national_forms(text, address):
    assert address in _addresses(text)


@pytest.mark.parametrize("text", [
    "Final score: Nebraska 31, Iowa 24.",            # a Slavic-looking ending and a town: a score
    "Alaska 5, Hawaii 3 in the standings.",
    "The Casanova 2, Venice edition",               # a title's number
    "Chapter Polska 5, Warsaw",
    "Version Krakowska 2, Beta",
    "Please go to departure gate 12.",               # "gate" is an English word
    "The Bow tie 3 pack",
    "Legia Warszawa 2, Lech Poznań 1.",
    "Windows 10, Linux.",
    "Supernova 2, Orion 3",
    "Глава 5, стр. 12",                               # a chapter and a page
    "地铁2号线",                                       # metro line 2
    "Order Nowa 12, Kraków",
    "Plac 5 items",
])
def test_national_look_alikes(text):
    assert _addresses(text) == []


@pytest.mark.parametrize(("text", "address"), [
    # an old village's street in Berlin's way, and a German preposition's street, before a postcode that ends the phrase
    ("The flat is at Alt-Tegel 12, 13507.", "Alt-Tegel 12, 13507"),
    ("Pick-up: Alt-Friedrichsfelde 60 10315", "Alt-Friedrichsfelde 60 10315"),
    ("Am Kupfergraben 6 10117.", "Am Kupfergraben 6 10117"),
    # Quebec's abbreviation of boulevard
    ("Le bureau est au 1200, boul. Saint-Laurent, Montréal.", "1200, boul. Saint-Laurent"),
])
def test_german_streets_before_a_postcode_and_quebec_boulevards(text, address):
    assert any(found.startswith(address) for found in _addresses(text))


@pytest.mark.parametrize("text", [
    "Order 12 12345.",
    "Im Jahr 2019 12345 Besucher.",
    "In 2019 12345 people came.",
])
def test_look_alikes_of_a_street_before_a_postcode(text):
    assert _addresses(text) == []


@pytest.mark.parametrize(("text", "street"), [
    ("Rendez-vous Rue de Piétrain 371, Noorderwijk.", "Rue de Piétrain 371"),
    ("Envoyez-le à Chemin des Vignes 8, 1260 Nyon.", "Chemin des Vignes 8"),
    ("Leveres til Karl Johans gate 22, 0159 Oslo.", "Karl Johans gate 22"),
    ("Adres: İstiklal Caddesi No: 45, Beyoğlu", "İstiklal Caddesi No: 45"),
    ("Ofis: Atatürk Cad. No:12 Kadıköy", "Atatürk Cad. No:12"),
    ("Livrare la Strada Lipscani 12, București.", "Strada Lipscani 12"),
    ("Biroul este pe Calea Victoriei 155, București.", "Calea Victoriei 155"),
])
def test_streets_whose_kind_comes_first_and_number_after(text, street):
    """The street is read as an address (where an older rule reads it from its name on, "Vignes 8, 1260 Nyon",
    that span stands)."""
    start = text.index(street)
    spans = [(m.start, m.end) for m in find_pii(text) if m.kind == "address"]
    assert any(s <= start + len(street) - 1 < e for s, e in spans)


@pytest.mark.parametrize("text", ["Departure gate 12, 2 hours before boarding.", "Avenue Q 2 is playing tonight.",
                                  "Terminal gate 4, 1200 passengers a day.", "Route 66, Arizona", "the Sk. 5 model",
                                  "Order Rue de Paris 3, Lyon edition"])
def test_look_alikes_of_streets_whose_kind_comes_first(text):
    assert [m for m in find_pii(text) if m.kind == "address"] == []


@pytest.mark.parametrize(("text", "address"), [
    ("Sídlo: Dašická 688, Ústí nad Labem", "Dašická 688, Ústí nad Labem"),
    ("We meet at Locavore, 641 Dašická 688, Turkovice u Prelouce", "Dašická 688, Turkovice u Prelouce"),
    ("Send it to Ermou 25, 105 63 Athens.", "Ermou 25, 105 63 Athens"),
    ("Ask the driver to stop at the corner of heiligengeistbrücke 77 and minik courts",
     "heiligengeistbrücke 77 and minik courts"),
])
def test_towns_joined_by_a_preposition_split_postcodes_and_a_corner_in_lower_case(text, address):
    assert _addresses(text) == [address]


@pytest.mark.parametrize("text", ["Chapter 25, 105 63 pages in all", "Walk round the corner of the room 3 times.",
                                  "Nebraska 31, Iowa 24 at the half"])
def test_look_alikes_of_towns_postcodes_and_corners(text):
    assert _addresses(text) == []


@pytest.mark.parametrize(("text", "address"), [("Leveres til Epleskogen 39A i morgen.", "Epleskogen 39A"),
                                               ("Kirkebakken 7, 2000 Frederiksberg", "Kirkebakken 7, 2000")])
def test_a_nordic_place_noun_in_its_definite_form_names_a_street(text, address):
    assert _addresses(text)[0].startswith(address)


@pytest.mark.parametrize("text", ["Toppen 3 liste i dag", "Stoppen 5 minutter", "Granlia 4"])
def test_look_alikes_of_nordic_place_nouns(text):
    assert _addresses(text) == []


@pytest.mark.parametrize(("text", "address"), [
    ("meet me at 2407 tawastintie 6, sé, portugal", "2407 tawastintie 6, sé, portugal"),
    ("update it to 2613 avenida praia 1 suite 463, mohács, hungary 24743",
     "2613 avenida praia 1 suite 463, mohács, hungary 24743"),
    ("> 2224 Trenerys gate 232\n> Apt. 342\n> TRONDHEIM\n> Norway 64389",
     "2224 Trenerys gate 232\n> Apt. 342\n> TRONDHEIM\n> Norway 64389"),
    ("Return to 72134 Coronilla 3599\nNijmegen\n, GE\n Netherlands 62971 in case of an issue.",
     "72134 Coronilla 3599\nNijmegen\n, GE\n Netherlands 62971"),
])
def test_addresses_that_end_in_a_country(text, address):
    from khaos_action.detect.pii_address_country import country_addresses

    assert [text[s:e] for s, e in country_addresses(text)] == [address]


@pytest.mark.parametrize("text", [
    "We visited 3 cities, Lyon, France",                   # no second number, unit or postcode
    "We shipped 3 parcels to Lyon, France 75001",          # a sentence's words
    "Team of 12 engineers 4, Berlin, Germany",             # a count
    "Top 10 hotels 2024, Rome, Italy",                     # a count and a year
    "Windows 11 Pro 23H2, Redmond, USA",
])
def test_country_address_look_alikes(text):
    from khaos_action.detect.pii_address_country import country_addresses

    assert list(country_addresses(text)) == []


@pytest.mark.parametrize(("text", "address"), [
    ("Calle 72 # 10-34, Bogotá", "Calle 72 # 10-34"),
    ("Enviar a la Cl 45 # 12-30 sur", "Cl 45 # 12-30"),
    ("Cra. 15 #93A-62 apto 301", "Cra. 15 #93A-62"),
    ("House No. 45, Street 7, F-8/3, Islamabad", "House No. 45, Street 7"),
    ("House #12, Road 5, Dhanmondi, Dhaka", "House #12, Road 5"),
    ("Plot 12, Admiralty Way, Lekki Phase 1, Lagos", "Plot 12, Admiralty Way"),
])
def test_grid_and_plot_addresses(text, address):
    from khaos_action.detect.pii_address_grid import grid_addresses

    assert [text[s:e] for s, e in grid_addresses(text)] == [address]


@pytest.mark.parametrize("text", [
    "La calle 10 tiene 3-4 carriles",                      # no "#" or "No." before the cross street
    "Carrera 5 No. 12 del campeonato, vuelta 3-2",
    "Scores: Av 12 # 3-1 win",
    "The house no. 5 is the blue one, street 7 is next",   # no comma joins them
])
def test_grid_address_look_alikes(text):
    from khaos_action.detect.pii_address_grid import grid_addresses

    assert list(grid_addresses(text)) == []


@pytest.mark.parametrize(("text", "address"), [
    ("la dirección es calle gran vía 28, 28013 madrid", "calle gran vía 28, 28013"),
    ("abito in via roma 10, 00184 roma", "via roma 10, 00184"),
])
def test_romance_streets_in_lower_case_before_a_postcode(text, address):
    from khaos_action.detect.pii_address_grid import grid_addresses

    assert [text[s:e] for s, e in grid_addresses(text)] == [address]


def test_a_lower_case_romance_word_before_a_count_is_no_street():
    from khaos_action.detect.pii_address_grid import grid_addresses

    assert list(grid_addresses("take the via ferrata 3 times, 12000 steps")) == []
