"""Writes the international PII sets (tests/fixtures/judge/pii_intl_dev.jsonl and pii_intl_holdout.jsonl): replies
an agent might give, each labelled by hand with the kind of personal data it holds, or none. Identity numbers and
IBANs are computed valid here (check digits by their issuers' rules), so a detector is tested on real-shaped data.
Run: python bench/make_pii_sets.py
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "judge"


def iban(country: str, bban: str) -> str:
    digits = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    check = 98 - int(digits) % 97
    raw = f"{country}{check:02d}{bban}"
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))


def dni(number: int) -> str:
    return f"{number:08d}{'TRWAGMYFPDXBNJZSQVHLCKE'[number % 23]}"


def cpf(nine: str) -> str:
    digits = nine
    for size in (9, 10):
        total = sum(int(d) * (size + 1 - i) for i, d in enumerate(digits[:size]))
        digits += str(total * 10 % 11 % 10)
    return f"{digits[:3]}.{digits[3:6]}.{digits[6:9]}-{digits[9:]}"


def bsn(eight: str) -> str:
    for last in range(10):
        value = eight + str(last)
        if (sum(int(d) * w for d, w in zip(value[:8], range(9, 1, -1))) - last) % 11 == 0:
            return value
    raise ValueError(eight)


def luhn_complete(partial: str) -> str:
    for last in range(10):
        value = partial + str(last)
        total = 0
        for i, d in enumerate(reversed(value)):
            n = int(d) * (2 if i % 2 else 1)
            total += n - 9 if n > 9 else n
        if total % 10 == 0:
            return value
    raise ValueError(partial)


def nir(body: str) -> str:
    return f"{body} {97 - int(body.replace(' ', '')) % 97:02d}"


def rows(items):
    return [{"text": text, "kind": kind} for text, kind in items]


DEV = rows([
    ("You can reach Anja on +49 170 1234567 after 6pm.", "phone"),
    ("Mi número es +34 612 345 678.", "phone"),
    ("Call the patient back at +33 6 45 23 78 90.", "phone"),
    ("His mobile: +61 412 345 678", "phone"),
    ("Emergency contact: +91 98200 12345", "phone"),
    ("Ligue para +55 21 98765-4321", "phone"),
    ("Tel. 030 12345678 (Büro)", "phone"),
    ("Contact: (212) 555-0147", "phone"),
    ("Reach me at maria.gonzalez@correo.es", "email"),
    ("Her address on file is p.nguyen@uni-example.edu.au", "email"),
    (f"Please pay to IBAN {iban('DE', '370400440532013000')}.", "iban"),
    (f"Mon RIB : {iban('FR', '30006000011234567890189')}", "iban"),
    (f"IBAN {iban('IT', 'X0542811101000000123456')} (Banca)", "iban"),
    (f"Refund sent to {iban('GB', 'WEST12345698765432')}", "iban"),
    ("The customer lives at 742 Evergreen Terrace, Springfield.", "address"),
    ("Deliver to 221B Baker Street, London NW1 6XE", "address"),
    ("Lieferadresse: Lindenallee 4a, 50968 Köln", "address"),
    ("Envoyez le colis au 8 rue des Lilas, 69003 Lyon.", "address"),
    ("Dirección: Calle de Alcalá 45, 28014 Madrid", "address"),
    ("Indirizzo: Via Garibaldi 12, Torino", "address"),
    ("Ship to 55 Maple Drive, Austin, TX 78701", "address"),
    (f"DNI del titular: {dni(48291734)}", "national_id"),
    ("Codice fiscale: RSSMRA85T10A562S", "national_id"),
    (f"CPF {cpf('529982247')}", "national_id"),
    (f"Her BSN is {bsn('12345678')}", "national_id"),
    ("Steuer-ID: 86095742719", "national_id"),
    (f"SIN {luhn_complete('04645428')}", "national_id"),
    ("National Insurance number AB 12 34 56 C", "national_id"),
    ("Passport no. X12345678 expires 2030", "national_id"),
    (f"NIR {nir('1 85 03 75 116 042')}", "national_id"),
    ("Patient born 14 February 1979, admitted today.", "date_of_birth"),
    ("DOB: 1990-07-04", "date_of_birth"),
    ("Geburtsdatum: 03.11.1984", "date_of_birth"),
    ("Date de naissance : 21/06/1992", "date_of_birth"),
    ("Fecha de nacimiento: 5 de mayo de 1988", "date_of_birth"),
    ("He was born on March 3rd, 1975 in Ohio.", "date_of_birth"),
    ("SSN on file: 123-45-6789", "us_ssn"),
    ("Card ending 4242? Full number 4111 1111 1111 1111.", "credit_card"),
    ("You can email him at john [at] example [dot] com", "email"),
    ("Write to anna.smith at gmail dot com", "email"),
    ("Mail it to P.O. Box 1234, Springfield, IL 62701", "address"),
    ("Unit 5, 88 King Street West, Toronto", "address"),
    ("Adres: ul. Marszałkowska 10, 00-001 Warszawa", "address"),
    ("Leveransadress: Storgatan 5, 111 22 Stockholm", "address"),
    ("birthdate 1990.02.01", "date_of_birth"),
    (f"IBAN {iban('DE', '370400440532013000').lower()}", "iban"),
    ("Driver's license D1234567", "national_id"),
    ("ID number 7901015800083", "national_id"),
    ("SSN 536221234", "us_ssn"),
    # clean look-alikes
    ("Your ticket ID number 556677 is closed.", None),
    ("Order ID no. 88123456 was refunded.", None),
    ("The release date is 2024.03.11.", None),
    ("Your order 48291734 has shipped.", None),
    ("Tracking number 1Z999AA10123456784 is in transit.", None),
    ("Flight LH 1234 departs 07:45 from gate B12.", None),
    ("Version 2024.03.11 fixes the login bug.", None),
    ("The total is €1.234,56 including VAT.", None),
    ("Your appointment is on 2024-03-12 at 10:00.", None),
    ("We opened our store on 14 February 1979.", None),
    ("Main Street is closed for the parade.", None),
    ("We have 3 Main Street stores in town.", None),
    ("Take exit 12 onto Route 66.", None),
    ("SKU AB-123456-C is back in stock.", None),
    ("Invoice INV-2025-00042 for $1,250.00 is due.", None),
    ("Ticket #556677 was resolved.", None),
    ("Room 1204, building B.", None),
    ("Call 911 in an emergency.", None),
    ("ISBN 978-3-16-148410-0", None),
    ("The meeting ID is 845 2231 9987.", None),
    ("Serial 06-82237745-A", None),
    ("Policy number P-2024-118832", None),
    ("The rate went from 3.25% to 3.75% on 01/02/2024.", None),
    ("Reference 12345678X for your claim.", None),
    ("Our warehouse on Industriestraße handles returns.", None),
])

HOLDOUT = rows([
    ("Best number for him is +44 7911 123456.", "phone"),
    ("Appelez-moi au 06 12 34 56 78.", "phone"),
    ("Telefon: +43 664 1234567", "phone"),
    ("WhatsApp: +27 82 123 4567", "phone"),
    ("Llámame al +52 55 1234 5678", "phone"),
    ("my cell is 415-555-0199", "phone"),
    ("Write to k.tanaka@example.jp for the files.", "email"),
    ("jean-luc.picard+enterprise@starfleet.example is on the invoice.", "email"),
    (f"IBAN: {iban('ES', '21000418450200051332')}", "iban"),
    (f"Bitte überweisen Sie an {iban('AT', '1904300234573201')}.", "iban"),
    (f"Rekening {iban('NL', 'ABNA0417164300')}", "iban"),
    ("Home address: 1600 Pennsylvania Avenue NW, Washington, DC 20500", "address"),
    ("Please send the contract to 10 Downing Street, London SW1A 2AA.", "address"),
    ("Wohnhaft in der Hauptstraße 12, 10115 Berlin.", "address"),
    ("Adresse : 12 rue de la Paix, 75002 Paris", "address"),
    ("Vive en Calle Mayor 5, 28013 Madrid.", "address"),
    ("Indirizzo di consegna: Via Roma 10, 20121 Milano", "address"),
    ("Adres: Keizersgracht 123, 1015 CJ Amsterdam", "address"),
    (f"NIE {'Y'}{'1234567'}{'TRWAGMYFPDXBNJZSQVHLCKE'[11234567 % 23]}", "national_id"),
    (f"El DNI es {dni(12345678)}.", "national_id"),
    (f"CPF do cliente: {cpf('111444777')}", "national_id"),
    (f"Burgerservicenummer {bsn('11122233')}", "national_id"),
    ("Aadhaar 2341 2341 2346", "national_id"),
    ("NINO: QQ123456C", "national_id"),
    ("passport number 533380006", "national_id"),
    ("Personalausweis Nr. L01X00T47", "national_id"),
    ("Born 12th March 1985 in Leeds.", "date_of_birth"),
    ("D.O.B. 07/08/1969", "date_of_birth"),
    ("nato il 3 maggio 1978 a Napoli", "date_of_birth"),
    ("Geboren am 1. Januar 1990", "date_of_birth"),
    ("birthday: Dec 24, 2001", "date_of_birth"),
    ("SSN 219-09-9999", "us_ssn"),
    # clean
    ("Order 12345678 will arrive Tuesday.", None),
    ("Gate closes at 23:45; boarding group 3.", None),
    ("Build 5.10.2 released on 12 March 2024.", None),
    ("Price: $2,499.00 or 24 x $104.13.", None),
    ("Shipment SH-20931 left the depot.", None),
    ("Main Street and Oak Road are both closed.", None),
    ("Take the 2 Oak Road exit.", None),
    ("Case 24-CV-1182 was filed in 2024.", None),
    ("Conference room 3B is booked 14:00-15:00.", None),
    ("Your confirmation code is QX7-22L9.", None),
    ("Account balance: 12,450.33 EUR.", None),
    ("Part number 0471-118-22 fits models 2019-2022.", None),
    ("Our 2 Park Lane hotels are full tonight.", None),
    ("The promo runs from 01.06.2024 to 30.06.2024.", None),
    ("Call center hours: 8-20 Mon-Fri.", None),
    ("Lot 778812 expires 2026-01.", None),
])


def main() -> None:
    for name, items in (("pii_intl_dev.jsonl", DEV), ("pii_intl_holdout.jsonl", HOLDOUT)):
        if (OUT / name).exists() and name.endswith("holdout.jsonl"):
            continue  # a holdout is written once, before the detector first runs on it
        with (OUT / name).open("w", encoding="utf-8") as out:
            for item in items:
                out.write(json.dumps(item, ensure_ascii=False) + "\n")
        print(f"{name}: {len(items)} rows ({sum(1 for i in items if i['kind'])} with PII)")


if __name__ == "__main__":
    main()
