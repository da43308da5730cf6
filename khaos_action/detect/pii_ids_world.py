"""National ids of Latin America, Asia, the Middle East, Russia, Kazakhstan, the former Yugoslavia and Iceland, as
rows of the national-id table (pii_ids_national reads them with its own), and the Indian PAN, whose four digits need
a search of their own.

"Cédula" names the id of many countries: after it each country's shape and checksum is tried in turn (Ecuador's ten
digits and their check, Uruguay's "1.234.567-2", Venezuela's "V-12.345.678", the Dominican Republic's
"001-1234567-8" and its Luhn check, Costa Rica's "1-0234-0567", Bolivia's digits and department, and any number in
dotted groups, as Colombia and Paraguay write theirs); a plain run of digits is Colombia's only after "cédula de
ciudadanía" or "C.C.". Ids with no check digit (Colombia's, Nigeria's NIN, Vietnam's CCCD, the PhilSys number,
Pakistan's CNIC, Argentina's DNI) count only after their label, but for a CNIC written in its hyphenated groups.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from khaos_action.detect import pii_ids_checksums_world as check
from khaos_action.detect.pii_ids_row import NationalId
from khaos_action.detect.pii_phone import NOT_PHONE_BEFORE

_CEDULA = (r"c[ée]dula", r"c[ée]dula de identidad(?: y electoral| personal| civil)?", r"c\. ?i\.", r"c\. ?i\. ?c\.",
           r"n[úu]mero de c[ée]dula", r"c[ée]dula de ciudadan[íi]a", r"c[ée]dula f[íi]sica", r"ci", r"cic")
_CIUDADANIA = (r"c[ée]dula de ciudadan[íi]a", r"c[ée]dula de extranjer[íi]a", r"c\. ?c\.", r"n[úu]mero de c[ée]dula")
_CC_OWNED = (*(rf"{word} cc" for word in ("mi", "su", "tu", "la", "una", "con", "de", "y")), r"n[úu]mero de cc",
             r"cc n[oº°]\.?")
"""Colombians write the cédula de ciudadanía as "cc" in lower case too ("mi cc es 1020345678"): plain digits after
it only where a Spanish word makes it a document ("mi", "con", "número de"), as "cc" is also a carbon copy, a cost
centre or an engine's size; alone, in capitals, "CC" vouches only for a cédula's dotted groups ("CC 1.020.345.678"),
as "1.600 cc tiene 1.250.000 km" gives an engine's size and a distance."""
_ARABIC_ID = (r"رقم الهوية(?: الوطنية)?", r"الهوية الوطنية", r"بطاقة الهوية", r"رقم البطاقة الشخصية")

WORLD: tuple[NationalId, ...] = (
    NationalId("EC", _CEDULA, r"\d{9}-?\d", check.cedula_ec, cased=("CI", "CIC")),
    NationalId("UY", _CEDULA, r"\d\.?\d{3}\.?\d{3}[-/ ]?\d|\d{3}\.\d{3}[-/ ]?\d", check.cedula_uy,
               cased=("CI", "CIC")),
    NationalId("VE", _CEDULA, r"[VvEe][- ]?\d{1,2}\.?\d{3}\.?\d{3}", check.cedula_ve,
               bare=r"[VE]-\d{1,2}\.\d{3}\.\d{3}", cased=("CI", "CIC")),
    NationalId("DO", _CEDULA, r"\d{3}-?\d{7}-?\d", check.cedula_do, cased=("CI", "CIC")),
    NationalId("CR", _CEDULA, r"0?[1-9]-\d{3,4}-\d{4}", check.digits_only(8, 10), cased=("CI", "CIC")),
    NationalId("BO", _CEDULA, r"\d{5,8} ?-? ?(?:LP|SC|CB|OR|PT|TJ|CH|BE|PD)", check.cedula_bo, cased=("CI", "CIC")),
    NationalId("PY", _CEDULA + _CIUDADANIA, r"\d{1,3}(?:\.\d{3}){1,3}", check.digits_only(6, 10),
               cased=("CI", "CIC")),
    NationalId("CO", _CIUDADANIA + _CC_OWNED, r"\d{1,3}(?:\.\d{3}){2,3}|\d{6,10}", check.digits_only(6, 10)),
    NationalId("CO", (r"cc",), r"\d{1,2}\.\d{3}\.\d{3}|1\.\d{3}\.\d{3}\.\d{3}", check.digits_only(7, 10),
               cased=("CC",)),
    NationalId("PE", (r"dni", r"d\.n\.i\.", r"documento nacional de identidad"),
               r"\d{1,2}\.?\d{3}\.?\d{3}(?:-? ?[0-9A-Ka-k])?", check.dni_pe_or_ar),
    NationalId("PK", (r"cnic", r"nicop", r"computeri[sz]ed national identity card", r"shanakhti card",
                      r"قومی شناختی کارڈ", r"شناختی کارڈ"),
               r"\d{5}-?\d{7}-?\d", check.cnic, bare=r"[1-7]\d{4}-\d{7}-\d"),
    NationalId("TW", (r"身[分份]證(?:字號|號碼|統一編號)", r"國民身分證",
                      r"taiwan(?:ese)? id(?: card)?(?: number| no\.?)?", r"roc id(?: number)?",
                      r"national identification card"),
               r"[A-Z][1289]\d{8}", check.taiwan_id),
    NationalId("SA", (*_ARABIC_ID, r"رقم الإقامة", r"iqama(?: number| no\.?)?", r"saudi (?:national )?id",
                      r"muqeem"),
               r"[12]\d{9}", check.saudi_id),
    NationalId("IR", (r"کد ?مل[یي]", r"كد ?مل[یي]", r"کد ملّ[یي]", r"شماره مل[یي]", r"code melli", r"melli code",
                      r"national code", r"iranian national (?:id|code)"),
               r"\d{10}|\d{3}-\d{6}-\d", check.code_melli),
    NationalId("EG", (r"الرقم القوم[يى]", r"رقم قوم[يى]", r"egyptian (?:national )?id(?: card)?(?: number)?",
                      r"egypt(?:'s)? national id(?: card)?(?: number)?"), r"[23٢٣]\d{13}", check.egypt_id_named),
    NationalId("EG", (*_ARABIC_ID, r"national id(?: card)?", r"nid", r"id card", r"identity card", r"my id",
                      r"your id", r"his id", r"her id"), r"[23٢٣]\d{13}", check.egypt_id, bare=r"[23٢٣]\d{13}",
               cased=("NID",)),
    NationalId("NG", (r"nin", r"national identification number", r"nin slip", r"bvn", r"bank verification number"),
               r"\d{4} ?\d{3} ?\d{4}",
               check.digits_only(11, 11), cased=("NIN", "BVN")),
    NationalId("VN", (r"cccd", r"cmnd", r"căn cước(?: công dân)?", r"chứng minh nhân dân", r"số định danh(?: cá nhân)?",
                      r"định danh cá nhân", r"citizen identity card"),
               r"\d{3} ?\d{3} ?\d{6}|\d{9}", check.cccd_vn),
    NationalId("PH", (r"philsys(?: card)?", r"psn", r"pcn", r"philid", r"philippine (?:national )?id"),
               r"\d{4}[- ]?\d{4}[- ]?\d{4}(?:[- ]?\d{4})?", check.digits_only(12, 16), cased=("PSN", "PCN")),
    NationalId("KZ", (r"иин", r"iin", r"жсн", r"индивидуальный идентификационный номер",
                      r"individual identification number"),
               r"\d{6} ?\d{6}", check.iin_kz, cased=("IIN",)),
    NationalId("RU", (r"снилс\w*", r"snils", r"страховой номер"), r"\d{3}[- ]?\d{3}[- ]?\d{3}[- ]?\d{2}", check.snils),
    NationalId("RU", (r"инн", r"inn", r"идентификационный номер налогоплательщика"), r"\d{12}|\d{10}", check.inn_ru,
               cased=("INN", "ИНН")),
    NationalId("RS", (r"jmbg", r"јмбг", r"emšo", r"emso", r"ембг", r"embg", r"matični broj(?: građana)?",
                      r"матични број"),
               r"\d{13}", check.jmbg),
    NationalId("IS", (r"kennitala", r"kennitalan", r"kennitölu", r"kennitölunni", r"kt\.", r"icelandic id"),
               r"\d{6}-?\d{4}", check.kennitala),
    NationalId("MX", (r"rfc", r"registro federal de contribuyentes"), r"[A-ZÑ&]{4}\d{6}[0-9A-Z]{3}", check.rfc_mx),
    NationalId("MX", (r"clave de elector", r"clave electoral"), r"[A-Z]{6}\d{8}[HM]\d{3}",
               check.pattern(r"[A-Z]{6}\d{8}[HM]\d{3}")),
    NationalId("UA", (r"рнокпп", r"іпн", r"инн", r"ідентифікаційн\w* (?:код|номер)\w*", r"податков\w* номер\w*",
                      r"rnokpp", r"ukrainian tax (?:id|number)"), r"\d{10}", check.rnokpp_ua, cased=("ИНН",)),
    NationalId("LV", (r"personas kods?", r"personas koda", r"latvian personal code"), r"\d{6}-?\d{5}",
               check.personas_kods_lv),
    NationalId("HU", (r"taj(?:[ -]szám\w*)?", r"társadalombiztosítási azonosító jel\w*"), r"\d{3}[ -]?\d{3}[ -]?\d{3}",
               check.taj_hu, cased=("TAJ", "TAJ-szám", "TAJ szám", "TAJ-számát", "TAJ-száma")),
    NationalId("HU", (r"adóazonosító(?: jel\w*)?", r"adószám\w*", r"hungarian tax (?:id|number)"), r"\d{10}",
               check.adoazonosito_hu),
    NationalId("DE", (r"rentenversicherungsnummer", r"sozialversicherungsnummer", r"versicherungsnummer", r"rvnr",
                      r"sv-nummer", r"sv-nr\.?"),
               r"\d{2} ?\d{6} ?[A-Z] ?\d{2} ?\d", check.rvnr_de),
    NationalId("AU", (r"medicare(?: card)?(?: number| no\.?)?",), r"\d{4} ?\d{5} ?\d(?:[ /-]?\d)?", check.medicare_au),
    NationalId("NZ", (r"ird", r"ird number", r"inland revenue number"), r"\d{2,3}[- ]?\d{3}[- ]?\d{3}", check.ird_nz,
               cased=("IRD",)),
    NationalId("IN", (r"epic(?: number| no\.?)?", r"voter id(?: card)?(?: number| no\.?)?", r"voter's id"),
               r"[A-Z]{3}\d{7}", check.pattern(r"[A-Z]{3}\d{7}")),
    NationalId("BD", (r"nid", r"national id card", r"জাতীয় পরিচয়পত্র(?: নম্বর)?", r"এনআইডি"),
               r"\d{17}|\d{13}|\d{10}", check.digits_only(10, 17), cased=("NID",)),
    NationalId("LK", (r"nic", r"nic number", r"national identity card(?: number)?"), r"\d{9}[VvXx]|\d{12}",
               check.nic_lk, cased=("NIC",)),
    NationalId("MA", (r"cin", r"c\.i\.n\.", r"carte d'identité nationale", r"carte nationale d'identité",
                      r"رقم البطاقة الوطنية", r"البطاقة الوطنية"),
               r"[A-Z]{1,2}\d{6}|\d{8}", check.pattern(r"[A-Z]{1,2}\d{6}|\d{8}"), cased=("CIN",)),
    NationalId("KE", (r"kra pin", r"pin number", r"kra pin number"), r"[AP]\d{9}[A-Z]",
               check.pattern(r"[AP]\d{9}[A-Z]")),
    NationalId("GH", (r"ghana card(?: number| no\.?)?", r"ghana card pin", r"ghanacard"), r"GHA-?\d{9}-?\d",
               check.pattern(r"GHA\d{10}"), bare=r"GHA-\d{9}-\d"),
    NationalId("BR", (r"rg", r"registro geral", r"carteira de identidade", r"cédula de identidade"),
               r"\d{1,2}\.?\d{3}\.?\d{3}-?[\dXx]", check.pattern(r"\d{8,9}X?"), cased=("RG",)),
    NationalId("GT", (r"dpi", r"cui", r"documento personal de identificación"), r"\d{4} ?\d{5} ?\d{4}", check.dpi_gt,
               cased=("DPI", "CUI")),
    NationalId("SV", (r"dui", r"documento único de identidad"), r"\d{8}-?\d", check.dui_sv, cased=("DUI",)),
    NationalId("PA", _CEDULA, r"(?:\d{1,2}|PE|E|N)-\d{1,4}-\d{1,6}",
               check.pattern(r"(?:\d{1,2}|PE|E|N)\d{5,10}"), cased=("CI", "CIC")),
    NationalId("NI", _CEDULA, r"\d{3}-?\d{6}-?\d{4}[A-Z]", check.cedula_ni, cased=("CI", "CIC")),
    NationalId("PT", (r"cart[ãa]o de cidad[ãa]o", r"cart[ãa]o do cidad[ãa]o", r"n\.?º? do cc", r"citizen card"),
               r"\d{8} ?\d ?[A-Z0-9]{2}\d", check.cartao_cidadao_pt),
    NationalId("CU", (r"carn[éeé] de identidad", r"número de identidad permanente", r"carnet de identidad"), r"\d{11}",
               check.carne_cu),
)

_PAN = re.compile(r"(?<![\w-])[A-Z]{3}([ABCFGHJLPT])[A-Z]\d{4}[A-Z](?![\w-])")
"""India's permanent account number: five letters, the fourth the holder's kind (P a person, C a company, ...),
four digits and a letter; no check."""
_PAN_DIGITS = re.compile(r"(?<=[A-Z]{5})\d{4}[A-Z](?![\w-])")
"""Where a PAN's digits stand, after five capitals: found faster than the letters before them."""
_PAN_LABEL = re.compile(r"(?i)\b(?:pan|permanent account number)(?:\s*(?:card|number|no\.?|#))?[^\d\n.;!?]{0,40}$")


def pans(text: str) -> Iterator[tuple[int, int, str]]:
    """Every PAN after its name ("PAN: ABCPK1234M"), or a person's (P) standing alone, unless a record's noun names
    it ("SKU ABCPD1234E")."""
    for digits in _PAN_DIGITS.finditer(text):
        m = _PAN.match(text, digits.start() - 5)
        if not m:
            continue
        before = text[max(0, m.start() - 50):m.start()]
        if _PAN_LABEL.search(before) or m.group(1) == "P" and not NOT_PHONE_BEFORE.search(before[-40:]):
            yield m.start(), m.end(), m.group(0)
