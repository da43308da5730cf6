"""A limit on opening, seeing or reading a kind of content declines the task that needs it: "I can't see attachments
in this chat - please paste the text", "No puedo ver archivos adjuntos en este chat", "Ich kann hier keine Anhänge
sehen", "Non posso vedere gli allegati in questa chat", "Não consigo ver anexos neste chat". Seeing and reading are
otherwise verbs of perceiving, look-alikes of a decline ("I can't see your order"); with a kind of content as their
object (a bare plural, or in the Romance languages its generic article) they say what the assistant cannot take in,
so the request as made is not done. A failure with one thing ("I can't open the attachment - it seems corrupted") is
no such limit."""

from __future__ import annotations

import re

_EN = (r"attachments|files|pdfs|documents|images|photos|pictures|screenshots|links|urls|videos|"
       r"voice (?:messages|notes)|audio (?:files|messages)|recordings|spreadsheets|uploads")
_DE = r"anhänge|dateien|bilder|fotos|pdfs?|links|dokumente|screenshots|videos|sprachnachrichten|audiodateien"
_FR = (r"pièces jointes|fichiers|images|photos|pdf|liens|documents|captures d'écran|vidéos|messages vocaux|"
       r"enregistrements")
_ES = (r"archivos(?: adjuntos)?|adjuntos|imágenes|fotos|pdfs?|enlaces|documentos|capturas|vídeos|videos|audios|"
       r"notas de voz")
_IT = r"allegati|file|immagini|foto|pdf|link|documenti|screenshot|video|messaggi vocali|audio"
_PT = r"anexos|arquivos|ficheiros|imagens|fotos|pdfs?|links|documentos|capturas de ecrã|vídeos|áudios|mensagens de voz"

LIMIT = re.compile(
    r"\b(?:can't|cannot|can not|(?:am|'m|are|'re) (?:not able|unable) to|(?:don't|do not) have (?:the )?(?:ability|"
    r"option) to)\s+(?:open|see|view|read|load|play|watch|listen to|access)\s+(?:any\s+)?"
    rf"(?:(?!the |these |those |your |this |that )\w+\s+)?(?:{_EN})\b"
    rf"|\b(?:kann|können)\b[^.!?;]{{0,30}}?\b(?:keine|nicht)\b\s+(?:\w+\s+){{0,2}}?(?:{_DE})\b[^.!?;]{{0,30}}?"
    r"\b(?:öffnen|sehen|ansehen|lesen|laden|abspielen|anhören)\b"
    r"|\b(?:ne|n')\s*(?:peux|pouvons)\s+pas\s+(?:ouvrir|voir|lire|charger|consulter|écouter|regarder)\s+"
    rf"(?:les |des |de |d')?(?:{_FR})\b"
    r"|\bno\s+(?:puedo|podemos)\s+(?:abrir|ver|leer|cargar|reproducir|escuchar)\s+(?:los |las |)?"
    rf"(?:{_ES})\b"
    r"|\bnon\s+(?:posso|possiamo|riesco a|riusciamo a)\s+(?:aprire|vedere|leggere|caricare|ascoltare)\s+"
    rf"(?:gli |le |i |)?(?:{_IT})\b"
    r"|\bnão\s+(?:posso|podemos|consigo|conseguimos)\s+(?:abrir|ver|ler|carregar|ouvir)\s+(?:os |as |)?"
    rf"(?:{_PT})\b", re.IGNORECASE)
HINTS = ("attach", "file", "pdf", "image", "photo", "picture", "screenshot", "link", "url", "video", "voice", "audio",
         "record", "spreadsheet", "upload", "document", "anhän", "datei", "bild", "foto", "dokument", "sprachnach",
         "pièce", "fichier", "lien", "capture", "vocau", "archiv", "adjunt", "imáge", "enlace", "nota", "allegat",
         "immagin", "anex", "ficheir", "mensage")
"""Lower-cased substrings one of which a sentence must hold for LIMIT to be tried."""


def content_limit(sentence: str, lowered: str) -> re.Match[str] | None:
    """The limit on a kind of content that `sentence` states, if any (`lowered`: the sentence lower-cased)."""
    if not any(hint in lowered for hint in HINTS):
        return None
    return LIMIT.search(sentence)
