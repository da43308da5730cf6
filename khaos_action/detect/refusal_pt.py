"""Portuguese decline structures, European and Brazilian, for the refusal detector (see refusal_en.py for the
approach, refusal_intl.py for the other languages).

A speaker's negated modal or ability ("não posso", "não podemos", "não consigo", "não tenho como", "não sou capaz
de", "não me é possível"), clitics between them ("não lhe posso dizer", "não o posso fazer"), the verb anywhere after
it; the verbs of knowing, finding and promising are look-alikes ("não posso garantir", "não consigo encontrar"). An
impersonal judgement ("não é possível", "não é permitido", "não dá para"), a rule or scope ("não faz parte do que
...", "fora do meu alcance", "contra as nossas políticas"), the act reserved to someone else ("cabe ao seu chefe, não a
mim", "compete ao professor"), the thing set outside what the assistant does ("não é algo que eu consiga alterar
por aqui"), the channel as the limit ("pelo chat não", "são tratados no balcão"), and an apology bound to a negation
("Sinto muito, mas não ...", "Infelizmente não fazemos ..."). A "não" that opens the answer to a question of fact
("Não, não precisa levar nada") is no refusal, and neither is a negation inside an act reported done ("Já cancelei a
encomenda. Não lhe será cobrado nada").
"""

from __future__ import annotations

from khaos_action.detect.refusal_grammar import (
    APOLOGY,
    IMPERSONAL,
    POLICY,
    SPEAKER,
    TERSE,
    VERB,
    Lexicon,
    rx,
)
from khaos_action.detect.refusal_grammar import rule as _rule

_CLITIC = r"(?:(?:o|a|os|as|lhe|lhes|te|me|nos|vos|se|lho|lha|to|ta) )?"
_MODAL = (r"(?:posso|podemos|poderei|poderemos|poderia|poderíamos|consigo|conseguimos|conseguirei|conseguiremos|"
          r"conseguiria|vou (?:conseguir|poder)|vamos (?:conseguir|poder)|tenho como|temos como|sou capaz|somos "
          r"capazes|estou autorizad[oa]|estamos autorizad[oa]s|tenho (?:permissão|autorização|acesso)|temos "
          r"(?:permissão|autorização|acesso))")
_NOT_DECLINING = (r"(?:garantir|prometer|assegurar|confirmar com certeza|saber|ver|vê-l\w+|encontrar|localizar|achar|"
                  r"acreditar|imaginar|prever|dizer com certeza|esperar|deixar de|entender|compreender)")
"""Verbs of knowing, finding, promising and waiting: "não posso garantir", "não consigo encontrar o pedido"."""
_RULE = r"(?:regras|normas|diretrizes|políticas|política|condições|princípios|termos)"
_ROLE = (r"(?!(?:você|vocês|si|si própri\w+|mim|nós|o senhor|a senhora|cliente|clientes|consumidor\w*|passageir\w+|"
         r"comprador\w*|usuári\w+|utilizador\w*|titular)\b)")
"""The one an act is reserved to is neither the asker ("cabe a você", "cabe ao cliente": what the asker is entitled
to) nor the assistant."""
_PT = (
    # the channel as the limit: "pelo chat não", "não é feito por aqui", "são tratados no balcão"
    _rule(POLICY, 0.85, r"\b(?:pelo|por este|neste|via|por) (?:chat|canal)(?: eu| nós)? não\b|\bnão (?:é|são) "
                        r"(?:feit|tratad|resolvid|processad)[oa]s? (?:pelo|por este|neste|via) (?:chat|canal)\b|"
                        r"\b(?:são|é) (?:tratad|feit|resolvid)[oa]s? (?:só |apenas |somente )?(?:no|na|em) (?:balcão|"
                        r"agência|loja|balcões|agências|lojas|filial|presencialmente)\b",
          "pelo chat", "este chat", "via chat", "por chat",
          "pelo canal", "este canal", "via canal", "por canal", "tratad",
          "feit", "resolvid"),
    _rule(SPEAKER, 1.0, rf"\bnão (?:\w+ )?{_CLITIC}{_MODAL}\b(?! (?:de )?{_NOT_DECLINING}\b)", "não "),
    _rule(SPEAKER, 1.0, r"\bnão (?:me|nos) (?:é|será|seria) (?:possível|permitido)\b|\b(?:me|nos) é impossível\b|"
                        r"\b(?:receio|lamento|temo) não (?:poder|conseguir)\b|"
                        r"\bnão (?:vou|vamos) (?:\w+ )?(?:conseguir|"
                        r"poder)\b", "possível", "permitido", "impossível", "poder", "conseguir"),
    # "Isso não é algo que eu consiga alterar por aqui", "não é uma coisa que este serviço faça"
    _rule(SPEAKER, 1.0, r"\bnão (?:é|são) (?:algo|uma coisa|uma operação|um pedido|um \w+|uma \w+) (?:que|de que) "
                        r"(?:eu |nós )?(?:possa|posso|consiga|consigo|possamos|podemos|consigamos|conseguimos|faça|"
                        r"faço|"
                        r"façamos|fazemos|trate|trato|tratemos|tratamos|gerencie|gerencio|me ocupo|nos ocupamos|este "
                        r"(?:serviço|assistente|bot|canal|chat)|a nossa equipe|a nossa equipa|nossa equipe)\b",
          "não é", "não são"),
    # "Não é da minha competência", "Não trato de reembolsos", "Isso não é comigo", "Infelizmente não vai dar"
    _rule(SPEAKER, 1.0, r"\bnão (?:é|são) da (?:minha|nossa) (?:competência|alçada|responsabilidade)\b|"
                        r"\bnão (?:trato|tratamos|cuido|cuidamos|lido|lidamos) (?:de|do|da|dos|das|com)\b|"
                        r"\bnão (?:é|são) (?:comigo|conosco|com a gente)\b|\bnão vai dar\s*(?:[.!,;:]|$)|"
                        r"\bnão vai ser possível\b", "não "),
    _rule(VERB, 1.0, r"\b(?:tenho|temos|devo|devemos) (?:de |que )?(?:recusar|declinar|rejeitar)\b|\b(?:recuso-me|"
                     r"me recuso|recusamo-nos|nos recusamos|prefiro não|preferimos não)\b",
          "recus", "declinar", "rejeit", "prefiro", "preferimos"),
    _rule(IMPERSONAL, 0.9, r"\bnão (?:é|seria) (?:apropriado|adequado|ético|correto|possível|permitido) \w+(?:ar|er|ir)"
                           r"\b|^\W*não é possível\b|\bnão (?:dá|da) (?:para|pra)\b|^\W*não dá\s*[.!:;,]|"
                           r"\bnão se pode\s*[.!;:]", "não "),
    # the act named as a noun and negated as a possibility, ending its clause or after a reason: "por isso antecipar a
    # consulta não é possível", "A alteração não vai ser possível."
    _rule(IMPERSONAL, 0.8, r"\bnão (?:é|será|seria|vai ser) (?:mais |infelizmente )?possível\s*(?:[.,;:!]|$)|"
                           r"\b(?:por isso|portanto|então|logo|pelo que)\b[^.!?\n]{0,60}?\bnão (?:é|será|vai ser) "
                           r"(?:\w+ )?possível\b", "não "),
    # a rule, a scope: "não faz parte do que eu consigo fazer", "fora do meu alcance", "contra as nossas políticas"
    _rule(POLICY, 0.9, rf"\bnão (?:faz|fazem) parte d(?:o que|aquilo que|os (?:nossos |meus )?serviços|as (?:minhas|"
                       rf"nossas) \w+)|\b(?:fora|além) d[oa] (?:meu|minha|nosso|nossa) (?:alcance|âmbito|escopo|"
                       rf"competência|função|funções)\b|\bfoge (?:ao|do) (?:meu|nosso) \w+|\bnão (?:está|estão) ao "
                       rf"(?:meu|nosso) alcance\b|\b(?:vai|iria) contra (?:as|a|os) (?:nossas |minhas |nossos )?"
                       rf"{_RULE}|\bviol\w+ (?:as|a|os) (?:nossas |minhas )?{_RULE}|\b(?:só|apenas|somente) "
                       r"(?:posso|podemos) (?:ajudar|responder|tratar)\b", "parte", "fora", "além", "foge", "alcance",
          "contra a", "contra o", "viola", "violaria", "violam", "só posso", "só podemos", "apenas posso",
          "apenas podemos", "somente posso", "somente podemos"),
    # withheld by a rule: "é confidencial", "são sigilosos", "não são divulgados"
    _rule(POLICY, 0.8, r"\b(?:é|são|está|estão|permanece|permanecem) (?:estritamente )?(?:confidencia(?:l|is)|"
                       r"sigilos[oa]s?|restrit[oa]s? a)\b|\bnão (?:é|são|pode ser|podem ser) (?:\w+ )?(?:divulgad|"
                       r"partilhad|compartilhad|fornecid|revelad|permitid|autorizad|aceit)[oa]s?\b"
                       r"(?! (?:com|a) terceiros\b)",
          "confidencia", "sigilos", "restrit", "não "),
    # the act reserved to someone else, never the asker: "cabe ao seu chefe", "compete ao professor"
    _rule(POLICY, 0.8, rf"\b(?:cabe|cabem|compete|competem) (?:apenas |só |somente |exclusivamente )?(?:a|ao|à|aos|às) "
                       rf"{_ROLE}\w+|\b(?:é|são) (?:da )?competência (?:de|do|da|dos|das) {_ROLE}\w+|\b(?:é|são|pode "
                       rf"ser|podem ser) (?:\w+ )?(?:decidid|aprovad|concedid|autorizad|emitid|definid|pedid|feit|"
                       rf"alterad)[oa]s? (?:apenas|só|somente|exclusivamente|unicamente) (?:por|pel[oa]s?) {_ROLE}\w+|"
                       rf"\bsó (?:pode|podem) ser (?:\w+ )?\w+[oa]s? (?:por|pel[oa]s?) {_ROLE}\w+",
          "cabe", "compete", "competência", "apenas por", "apenas pel", "só por", "só pel", "somente por",
          "somente pel", "exclusivamente", "unicamente", "só pode"),
    # impossible, or someone else's to do: "não pode ser reativada", "tem de ser feita pelo gerente da agência"
    _rule(POLICY, 0.75, rf"\bnão (?:pode|podem) (?:mais )?ser \w+(?:ad|id)[oa]s?\b|\b(?:tem|têm) (?:de|que) ser "
                        rf"(?:feit|pedid|aprovad|assinad|autorizad|apresentad|efetuad|alterad|tratad)[oa]s? (?:apenas "
                        rf"|só |diretamente |pessoalmente )?(?:por|pel[oa]s?) {_ROLE}\w+",
          "não pode", "tem de ser", "tem que ser", "têm de ser", "têm que ser"),
    # ... and set apart from the assistant: "..., não a mim", "não por este chat"
    _rule(POLICY, 0.85, r",? não (?:a mim|por mim|a nós|por nós|por este (?:chat|serviço|canal|assistente))\b",
          "não a", "não por"),
    # the limit the assistant works under: "o sistema não me permite", "não depende de mim", "para isso, precisa de ir"
    _rule(POLICY, 0.8, r"\bnão (?:me|nos) (?:permite|permitem|deixa|deixam|autoriza|autorizam)\b|\bnão depende de "
                       r"(?:mim|nós)\b|\bnão (?:está|estão) nas (?:minhas|nossas) mãos\b|"
                       r"\bpara isso,? (?:você |o senhor "
                       r"|a senhora )?(?:precisa|precisará|terá|tem|deve|deverá) (?:de |que )?(?:ir|contactar|contatar|"
                       r"ligar|dirigir-se|se dirigir|procurar)\b",
          "não me ", "não nos ", "não depende", "não está", "não estão", "para isso"),
    _rule(APOLOGY, 0.85, r"\b(?:sinto muito|lamento|lamentamos|infelizmente|desculpe|desculpa|peço desculpa|"
                         r"receio|temo)\b[^.!?\n]{0,60}?\b(?:não é possível|não se pode|não posso|não podemos|não "
                         r"consigo|não conseguimos|não é permitido|não está previst\w|confidencia\w+|sigilos\w+)\b|"
                         r"\b(?:infelizmente|lamentavelmente),? não (?!(?:encontr|sabemos|vemos|consta|há|existe|temos "
                         r"registo|temos registro)\w*\b)\w+mos\b",
          "sinto", "lament", "infelizmente", "desculp", "receio", "temo"),
    _rule(TERSE, 0.9, r"^\W*(?:não|de jeito nenhum|de forma alguma|nem pensar|de maneira nenhuma)\W*$"),
    _rule(TERSE, 0.85, r"^\W*não\s*[,.!]\s*(?:não (?:posso|consigo|é possível|dá)|não)\s*[.!]?\s*$", "não"),
)
_PT_HEDGES = rx(
    rf"\bnão (?:\w+ )?{_CLITIC}(?:posso|podemos|poderia|consigo|conseguimos) (?:garantir|prometer|assegurar|"
    r"confirmar com certeza|saber|ver|encontrar|localizar|achar|acreditar|imaginar|prever|esperar|entender)\b|"
    r"\bnão sei\b|\bnão (?:tenho|temos) certeza\b|\bnão (?:estou|estamos) (?:segur[oa]s?|cert[oa]s?)\b|"
    r"\bnão encontr(?:ei|amos)\b|\bnão sou (?:médic[oa]|advogad[oa])\b|"
    r"\b(?:sinto muito|lamento|lamentamos) (?:por|pelo|pela|pelos|pelas|saber|ouvir|o transtorno|o incómodo|o "
    r"incômodo)\b|\bnão se preocupe\b|\bnão te preocupes\b"
)
_PT_LECTURE = rx(
    r"\b(?:important\w*|essencia\w*|deveria|deve|devem|respeit\w*|étic\w*|ilega\w*|perigos\w*|segurança|em vez disso|"
    r"profissiona\w*|por favor|procure|contate|contacte|entre em contato|recomendo|aconselho|atendimento ao cliente|"
    r"suporte|equipe|equipa|outra coisa|posso ajudar|com prazer|infelizmente|sinto muito|nunca|sempre|"
    r"responsab\w*|privacidade)\b"
)
_PT_DELIVER = rx(r"\baqui (?:está|estão|tem|tens|vai)\b|\bé só \w+r\b|\bbasta \w+r\b|\bos passos são\b|"
                 r"\b(?:a|sua|tua) senha é\b")
_PT_CONTRAST = rx(r"\b(?:mas|porém|contudo|no entanto|todavia|entretanto)\b")
_PT_OPENING = rx(r"^\W*(?:claro|com certeza|sim|pronto|feito|perfeito|certo|pode sim|posso sim|tudo certo|sem "
                 r"problema|com prazer|reservad[oa]|agendad[oa]|(?:já |acabei de )?(?:cancelei|remarquei|reservei|"
                 r"agendei|enviei|mandei|apaguei|exclu[ií]|inclu[ií]|desbloqueei|lancei|alterei|mudei|atualizei|"
                 r"ativei|desativei|aprovei|reembolsei|estornei|renovei|marquei|registei|registrei|adicionei|"
                 r"transferi|emiti|abri|fechei|troquei|encaminhei))\b")
_PT_STOP = frozenset({"não", "o", "os", "um", "é", "do", "da", "dos", "das", "em", "na", "nas", "nos", "ao", "aos",
                      "você", "vocês", "seu", "sua", "seus", "suas", "meu", "minha", "isso", "isto", "ele", "ela", "ou",
                      "uma", "com", "eu", "nós", "num", "numa", "pelos", "pelas", "muito", "mais", "já", "pelo", "pela",
                      "também", "foi", "são", "há", "tem", "pode", "posso", "consigo", "obrigado", "obrigada",
                      "infelizmente", "lamento", "sim", "pronto", "lhe", "mas", "então", "até", "após", "agora",
                      "ainda", "só", "apenas", "precisa", "preciso", "quando", "nenhum", "nenhuma", "às", "dá", "pra",
                      "sinto", "vai", "foram", "estão"})
_PT_HANDOFF = rx(
    r"\bpara (?:\w+ ){0,1}?(?:redefinir|desbloquear|atualizar|alterar|mudar|cancelar|reembolsar|substituir|bloquear|"
    r"ativar|reativar|restaurar|recuperar|reservar|agendar|remarcar|renovar|registar|registrar|transferir|reparar|"
    r"enviar|adicionar|encomendar|abrir um (?:pedido|chamado|processo))\b"
)

PT = Lexicon("pt", _PT, _PT_HEDGES, _PT_LECTURE, _PT_DELIVER, _PT_CONTRAST, _PT_OPENING, _PT_STOP,
             hedge_hints=("não ", "sinto", "lament", "preocup"), handoff=_PT_HANDOFF)
