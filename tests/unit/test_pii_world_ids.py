"""National ids of Latin America, Asia, the Middle East, Russia, Kazakhstan, the Balkans and Iceland, the label
variants of the table's countries, a checksummed id's name far from its number, and local phone forms of nine
countries: each found, and the same digits with a wrong check, without their label or after a record's noun, not."""

import pytest

from khaos_action.detect.pii import find_pii


def _kinds(text: str) -> list[str]:
    return [m.kind for m in find_pii(text)]


@pytest.mark.parametrize("text", [
    "La cédula de identidad que registramos es 1724582083.",          # Ecuador, mod-10
    "Cédula de identidad: 4.185.933-9",                               # Uruguay
    "C.I. V-12.345.678 del titular",                                  # Venezuela
    "La cédula del paciente es 402-2920156-7.",                       # Dominican Republic, Luhn
    "Cédula física 1-0234-0567",                                      # Costa Rica
    "C.C. 1020456789 en el formulario",                               # Colombia
    "Cédula 1.234.567 del cliente",                                   # Paraguay, dotted
    "El DNI que nos indicó: 45871236.",                               # Peru / Argentina
    "I've matched the CNIC you gave us (35216-1644055-7).",          # Pakistan
    "The PAN on your KYC form is AKCPM4821L.",                        # India
    "您的身分證字號 F292099046 已登錄。",                                # Taiwan
    "تم تسجيل رقم الهوية الوطنية 1015929191 في الطلب.",               # Saudi Arabia, Luhn
    "کد ملی شما، 0070439818، ثبت شد.",                                 # Iran
    "الرقم القومي المسجل لدينا هو 28805170196518.",                   # Egypt
    "Your NIN, as given on the form, 23457819026, is linked.",        # Nigeria
    "Số CCCD của anh là 001092012345.",                               # Vietnam
    "Your PhilSys Card Number on record: 4128-5739-2046-1183.",       # the Philippines
    "ИИН клиента: 870415357218.",                                     # Kazakhstan
    "СНИЛС сотрудника — 234-828-425 80.",                             # Russia, SNILS
    "Ваш ИНН: 771969768030.",                                         # Russia, INN
    "JMBG je 1403989712145.",                                         # Serbia
    "Kennitalan þín, 170391-6409, er skráð.",                         # Iceland
    "El RFC es MELR850312C51.",                                       # Mexico
    "מספר תעודת זהות 000000018",                                      # Israel, the long label
    "My Number on file for the tenant: 1046 5634 1483",              # Japan, capitalised
    "Aadhaar on file for the tenant: 5533 7406 8124",                 # a long gap before a checksummed id
    "The Aadhaar number we have for you is 5533 7406 8124.",
    "Aadhaar (ending) on record: 5533 7406 8124",
    "The NHS number we have for you is 485 777 3457.",
    "passport on file for the tenant: X1234567",
    "आपका आधार नंबर 5533 7406 8124 है।",                                 # Aadhaar named in Hindi
    "D.N.I. 12345678Z",                                               # an abbreviation with its dots
    "Votre N.I.S.S. 80.10.18-546.82",
    "RUN 19.536.198-3",
    "외국인등록번호 561106-1562275",                                     # Korea's foreigner registration number
    "Ваш РНОКПП: 3096792908.",                                        # Ukraine
    "Jūsu personas kods ir 150385-16814.",                            # Latvia
    "Your IRD number on file is 112-310-077.",                        # New Zealand
    "A TAJ-szám: 577 356 436",                                        # Hungary, TAJ
    "Adóazonosító jel: 8766437725",                                   # Hungary, tax mark
    "Your Medicare number is 2553 97179 1.",                          # Australia, Medicare
    "NIC number: 853400937V",                                         # Sri Lanka
    "Su DPI es 2419 02711 0101.",                                     # Guatemala
    "DUI 05856263-2",                                                 # El Salvador
    "Ihre Rentenversicherungsnummer lautet 65 170839 J 00 3.",        # Germany, pension insurance
    "Please bring your Ghana card (GHA-123456789-0).",                # Ghana
    "Clave de elector GMVLMR80070501M100",                            # Mexico, voter key
    "EPIC number ABC1234567",                                         # India, voter id
    "KRA PIN A123456789Z",                                            # Kenya
    "BVN 22212345678 linked.",                                        # Nigeria, bank verification number
    "CIN AB123456",                                                   # Morocco
    "RG 12.345.678-9",                                                # Brazil, RG
    "Cédula 8-123-456",                                               # Panama
    "Cédula 001-010190-0001A",                                        # Nicaragua
    "Carné de identidad 85010112345",                                 # Cuba
    "NID 1234567890123",                                              # Bangladesh
])
def test_ids_found(text):
    assert "national_id" in _kinds(text)


@pytest.mark.parametrize("text", [
    "La cédula de identidad que registramos es 1724582084.",          # wrong check digit
    "Cédula de identidad: 4.185.933-8",
    "La cédula del paciente es 402-2920156-8.",
    "Pedido 1724582083 enviado el 3 de marzo.",                       # no label
    "Order 35216-1644055-7 has been packed.",                         # a record's noun before a bare CNIC form
    "The SKU ABCDE1234F is out of stock.",                            # PAN-shaped, no label, not a person's
    "Your booking reference is F292099047.",
    "Tracking number 0070439819 shows the parcel.",
    "Your ticket 23457819026 has been escalated.",                    # NIN-shaped without its label
    "Номер заказа 870415357219, доставка в пятницу.",
    "Счёт № 771969768031 оплачен.",
    "Broj računa 1403989712146 je plaćen.",
    "Holiday Inn 7707083893",                                        # "Inn" is no INN
    "ci vediamo 1724582083",                                          # "ci" is no CI
    "my number is 1046 5634 1483",                                    # "my number" in lower case
    "Your passport expires on 2027-05-12.",
    "Aadhaar linked to order 5533 7406 8124",                         # a record's noun in the gap
    "Order 3096792908",
    "Ihre Rentenversicherungsnummer lautet 65 170839 J 00 4.",        # wrong check digit
    "Your IRD number on file is 112-310-078.",
    "Invoice 2553 97179 1",
    "Tracking GHA-123456789-0",
    "nid 1234567890123",                                              # "NID" only in capitals
    "Su DPI es 2419 02712 0101.",
    "DUI 05856263-3",
])
def test_look_alikes_not_ids(text):
    assert "national_id" not in _kinds(text)


@pytest.mark.parametrize("text", [
    "El repartidor te llamará al 011 15-4567-8901.",                 # Argentina
    "Escríbele a su celular, 300 456 7890.",                         # Colombia
    "The driver's line is 0803 456 7890.",                           # Nigeria
    "Kurir akan menghubungi Anda di 0812-3456-7890.",                # Indonesia
    "Teknisyen sizi 0532 456 78 90 numarasından arayacak.",          # Turkey
    "The courier can be reached on 010 1234 5678.",                  # Egypt
    "Aap humein 0300-1234567 par WhatsApp kar sakte hain.",          # Pakistan
    "Nhân viên sẽ gọi qua số 0912 345 678.",                         # Vietnam
    "O técnico atende no (11) 91234-5678 até as 18h.",               # Brazil, "no" is "in the"
    "Курьер позвонит по номеру 8 (916) 123-45-67.",                  # Russia
    "رقم الجوال 0501234567",                                         # Saudi Arabia
    "Ligue para o 912 345 678.",                                     # Portugal
    "Volejte 601 123 456.",                                          # Czechia
    "請致電 9123 4567。",                                              # Hong Kong
    "Proszę dzwonić pod 512 345 678.",                               # Poland
])
def test_local_phones_found(text):
    assert "phone" in _kinds(text)


@pytest.mark.parametrize("text", [
    "Su número de factura es 4018593391 y vence pronto.",
    "Mã đơn hàng 001092012346 đã được giao.",
    "Nomor resi 0812-3456-7890-55 sedang dalam perjalanan.",
    "Order 0300-1234567 will be dispatched on Monday.",
    "Part No 0803 456 7890 is discontinued.",
    "401-023-2138",                                                   # a Russian number needs its trunk 8
    "Zamówienie 512 345 678 zostało wysłane.",
    "Номер заказа 8 916 123 45 67.",
])
def test_local_phone_look_alikes(text):
    assert "phone" not in _kinds(text)


def test_more_regions_only_when_the_run_names_none():
    assert find_pii("0803 456 7890", regions=["US"]) == []


@pytest.mark.parametrize("text", [
    "Data urodzenia: 12.03.1985.",
    "Дата рождения: 12 марта 1985 г.",
    "Doğum tarihi 12 Mart 1985",
    "出生日期：1985年3月12日",
    "1985年3月12日生まれのお客様です。",
    "생년월일: 1985년 3월 12일",
    "تاريخ الميلاد: 12/03/1985",
    "Tanggal lahir: 12-03-1985",
    "Ngày sinh: 12/03/1985",
    "Födelsedatum: 1985-03-12",
    "जन्म तिथि: 12/03/1985",
    "Nascida em 12 de fevereiro de 1985.",
    "Syntymäaika 12.3.1985",
    "Születési dátum: 1985. március 12.",
    "Datum narození: 12. 3. 1985",
    "Ημερομηνία γέννησης: 12/03/1985",
    "תאריך לידה: 12.03.1985",
])
def test_birth_dates_in_more_languages(text):
    assert "date_of_birth" in _kinds(text)


@pytest.mark.parametrize("text", [
    "Zamówienie z 12.03.2025 zostało wysłane.",
    "Заказ от 12 марта 2025 г. доставлен.",
    "出荷日：2025年3月12日",
    "Sipariş tarihi 12 Mart 2025",
    "Data de entrega: 12/03/2025",
])
def test_other_dates_in_those_languages(text):
    assert "date_of_birth" not in _kinds(text)


@pytest.mark.parametrize("text", [
    "Alamat: Jl. Jend. Sudirman No. 5, Jakarta Pusat 10220",
    "Kirim ke Jalan Merdeka No. 12, Bandung.",
    "Địa chỉ: 123 Nguyễn Huệ, Quận 1, TP. Hồ Chí Minh",
    "Địa chỉ: 25 Trần Hưng Đạo, P. 6, Q. 5",
    "배송지는 부산광역시 해운대구 해운대로 264입니다.",
    "العنوان: شارع الملك فهد، الرياض 12211",
    "العنوان: 12 شارع التحرير، القاهرة",
    "ที่อยู่: 99 ถนนสุขุมวิท แขวงคลองเตย เขตคลองเตย กรุงเทพฯ 10110",
])
def test_addresses_in_more_scripts(text):
    assert "address" in _kinds(text)


@pytest.mark.parametrize("text", [
    "Sedang dalam perjalanan, nomor 5.",
    "Saya jalan ke kantor jam 5.",
    "문자로 3번 보냈습니다.",
    "강남구 주민 120명이 참석했습니다.",
    "Version 2 Beta, Q. 4 results",
    "Tập 12 Nguyễn Du, Quận trưởng",
    "السعر 12 شارع",
    "ถนน 5 สาย",
])
def test_address_look_alikes_in_those_scripts(text):
    assert "address" not in _kinds(text)


@pytest.mark.parametrize(("text", "kind"), [
    ("SSN on file for the tenant: 219099998", "us_ssn"),
    ("Social security number, as given on the form, 219099998", "us_ssn"),
    ("IBAN on file for the tenant: de89 3704 0044 0532 0130 00", "iban"),
])
def test_a_long_gap_after_the_name_of_a_checked_number(text, kind):
    assert kind in _kinds(text)


@pytest.mark.parametrize("text", [
    "SSN on file for the tenant: 000099998",                          # never issued
    "IBAN on file for the tenant: de89 3704 0044 0532 0130 01",       # wrong check
])
def test_a_long_gap_does_not_vouch_for_a_failed_check(text):
    assert _kinds(text) == []


@pytest.mark.parametrize("text", [
    "mi cc es 1.020.345.678",
    "Identificado con C.C. No. 79.845.123 de Bogotá.",
    "mi cc es 1020345678",
    "CC: 52.345.678",
    "الرقم القومي: ٢٩٠٠١٠١١٢٣٤٥٦٧",                       # Arabic-Indic digits
    "الرقم القومي 29913451401234",                         # after Egypt's own label a made-up date still counts
    "National ID (Egypt): 29001011234567",
    "Ahmed Saleh, 30503120101234, Cairo",                  # a real date and governorate: one alone
])
def test_colombian_cc_and_egyptian_ids(text):
    assert "national_id" in _kinds(text)


@pytest.mark.parametrize("text", [
    "el motor de 1.600 cc tiene 1.250.000 km",             # an engine's size, then a distance
    "Cost centre CC 401200 pays for it.",
    "Timestamp 20101231235959",                            # would be born in 1901
    "Order 29001011234567 shipped",
    "Tracking 30203120101234",
    "Ahmed Saleh, 29913451401234, Cairo",                  # no 34th month, and no label
])
def test_cc_and_egyptian_look_alikes(text):
    assert "national_id" not in _kinds(text)


@pytest.mark.parametrize(("text", "kinds"), [
    ("My SSN. Order 219099998 ships today", []),           # the number is past the sentence's end
    ("SSN no. 219099998", ["us_ssn"]),                     # an abbreviation's dot ends no sentence
    ("Soc. sec. no. 536221234", ["us_ssn"]),
])
def test_a_bare_ssn_stays_in_its_sentence(text, kinds):
    assert _kinds(text) == kinds


@pytest.mark.parametrize("text", [
    "ISBN-10 0-306-40615-2 is the paperback.",             # not a phone after an ISBN's name and its length
    "ISBN 10: 0-306-40615-2",
])
def test_isbn_with_its_length_is_no_phone(text):
    assert _kinds(text) == []


@pytest.mark.parametrize(("text", "kinds"), [
    ("O meu cartão de cidadão é 000615054ZZ8.", ["national_id"]),
    ("Cartão de Cidadão 00061505 4 ZZ9", []),              # its last check digit is wrong
    ("Driver license: S530-4417-1234", ["national_id"]),
    ("Permis de conduire n° 123456789012", ["national_id"]),
    ("Licencia de conducir: 12345678", ["national_id"]),
    ("La licencia de conducir cuesta 123456 pesos.", []),  # a price after words that place no number
    ("Votre numéro de commande est le 06 45 78 12 90.", []),  # an order's number, an article after the copula
    ("El número de seguimiento es 612 345 678 901.", []),  # a tracking number
    ("Votre numéro est le 06 45 78 12 90.", ["phone"]),
    ("Référence client : 0612 3456 78.", []),              # a reference's word in French, Spanish, Italian, ...
    ("Su referencia es 612 345 678", []),
])
def test_citizen_cards_licences_and_records_in_romance_languages(text, kinds):
    assert _kinds(text) == kinds


@pytest.mark.parametrize(("text", "kinds"), [
    ("Paspoortnummer NX1234567", ["national_id"]),
    ("Numer dowodu osobistego: ABA300000", ["national_id"]),
    ("Паспорт 45 10 123456", ["national_id"]),
    ("护照号码：E12345678", ["national_id"]),                # a full-width colon
    ("여권번호: M12345678", ["national_id"]),
    ("رقم جواز السفر: A12345678", ["national_id"]),
    ("Mein Reisepass hat die Nummer C01X00T47.", ["national_id"]),
    ("Passport photos cost 12 EUR at booth 4521.", []),
    ("паспортный стол работает до 18:00", []),
])
def test_passports_and_id_cards_named_in_more_languages(text, kinds):
    assert _kinds(text) == kinds
