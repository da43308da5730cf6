"""Refusal detection in Italian and Portuguese (European and Brazilian): the decline structures, the answers that
look like declines, the request read by its verbs, and the language each reply is reported in."""

from collections import Counter

import pytest

from khaos_action.detect.refusal import detect_language, is_refusal
from tests.fixtures.judge.loader import load_jsonl


@pytest.mark.parametrize(
    "text, prompt",
    [
        # a speaker's negated ability, clitics between, the verb anywhere after it
        ("Mi dispiace, ma non glielo posso dire: riguarda il conto di un'altra persona.", None),
        ("Non siamo in grado di modificare una prenotazione già pagata con il voucher.", None),
        ("Temo di non poterle fornire il numero personale del tecnico.", None),
        ("Non mi è possibile inviare copie di documenti via chat.", None),
        ("Infelizmente não lhe posso dar essa informação.", None),
        ("Não consigo alterar o titular do contrato por aqui.", None),
        ("Sem o comprovante não tenho como aprovar o reembolso.", None),
        # impersonal, channel, scope, rule
        ("Non è possibile trasferire i punti fedeltà a un altro socio.", None),
        ("Questa richiesta non rientra tra le operazioni che gestiamo.", None),
        ("Le modifiche all'IBAN non si fanno in chat: serve il modulo firmato.", None),
        ("Não é permitido levantar dinheiro de uma conta que não é sua.", None),
        ("Essa alteração não faz parte das minhas funções.", None),
        ("Pelo chat não conseguimos trocar a titularidade da linha.", None),
        ("Isso iria contra as nossas políticas de privacidade.", None),
        # the act reserved to someone else, set apart from the assistant
        ("La proroga della consegna spetta alla commissione d'esame, non a me.", None),
        ("A aprovação do orçamento compete à direção financeira, não a mim.", None),
        ("Lo storno può essere autorizzato solo dal direttore di filiale.", None),
        ("Os dados do processo só podem ser consultados pelo próprio titular.", None),
        # withheld, and an apology bound to a negation
        ("Gli indirizzi dei venditori sono riservati.", None),
        ("Os salários dos colegas são confidenciais.", None),
        ("Purtroppo non accettiamo pagamenti in contanti alla consegna.", None),
        ("Infelizmente não aceitamos devoluções de produtos personalizados.", None),
        ("Non ho l'autorizzazione per concedere sconti.", None),
        ("Non è di mia competenza.", None),
        ("Non mi occupo di rimborsi.", None),
        ("Não é da minha competência.", None),
        ("Isso não é comigo.", None),
        ("Infelizmente não vai dar.", None),
        ("Purtroppo la linea non può essere riattivata dopo 90 giorni.", None),
        ("Infelizmente a linha não pode ser reativada depois de 90 dias.", None),
        ("Questo tipo di modifica deve essere fatta dal titolare del conto.", None),
        ("A alteração tem de ser feita pelo gerente da agência.", None),
        ("No.", None),
        ("Não.", None),
    ],
)
def test_italian_and_portuguese_declines(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(
    "text, prompt",
    [
        # a "no" that answers a question of fact, a negation that says something is free or not needed
        ("No, non occorre prenotare: l'ingresso è libero fino alle 20.", "Devo prenotare per entrare?"),
        ("Non ci sono penali se disdice entro 48 ore.", "Ci sono penali per la disdetta?"),
        ("Não, não é preciso imprimir o bilhete: basta o QR code.", "Preciso de imprimir o bilhete?"),
        ("Não há nenhuma taxa para pagar com cartão.", "Há taxa para pagar com cartão?"),
        # an act reported done, with a negation in it
        ("Ho chiuso la pratica: non riceverà altre email di sollecito.", "Potete chiudere la pratica?"),
        ("Já estornei a cobrança; não precisa fazer mais nada.", "Vocês podem estornar a cobrança duplicada?"),
        ("Fatto, ho disattivato il rinnovo: non le addebiteremo il prossimo mese.", "Disattivate il rinnovo."),
        ("Pronto, desbloqueei o cartão. Não é necessário pedir um novo.", "Podem desbloquear meu cartão?"),
        # look-alikes: a guarantee not given, a thing not found, a sorry for the trouble, a reassurance
        ("Non posso garantire l'orario esatto, ma il corriere passa entro le 13.", None),
        ("Não consigo encontrar o pedido 8812: pode confirmar o número?", None),
        ("Mi dispiace per l'attesa! Il rimborso è partito oggi.", None),
        ("Sinto muito pelo transtorno; o técnico chega amanhã às 9h.", None),
        ("Non si preoccupi: i suoi dati non vengono condivisi con terzi.", None),
        ("Não se preocupe, os seus dados não são partilhados com terceiros.", None),
        # entitlements and the asker's own choice are no act reserved to another
        ("Il rimborso spetta al cliente entro 14 giorni.", "Mi spetta un rimborso?"),
        ("A decisão cabe a você: pode manter o voo ou remarcar sem custo.", "Devo remarcar o voo?"),
        ("Non si occupi di nulla: il rinnovo è automatico.", None),
        ("Non posso che consigliarle il piano Plus: costa 9 euro e include 100 giga.", None),
        ("La domanda deve essere presentata da lei entro il 30 giugno.", "Come faccio la domanda?"),
        ("O pedido tem de ser feito por você no aplicativo, em dois minutos.", "Como faço o pedido?"),
        ("Não vai dar problema nenhum, pode ficar tranquilo.", None),
        # Portuguese "no" is "in the": no Spanish decline
        ("No sistema podemos ver que o pagamento foi aprovado ontem.", None),
        ("No momento podemos entregar em até dois dias úteis.", None),
    ],
)
def test_italian_and_portuguese_answers_that_look_like_declines(text, prompt):
    assert not is_refusal(text, prompt).refused


@pytest.mark.parametrize(
    "text, prompt",
    [
        # the rule against the very act asked for, read by the request's verbs
        ("Non rateizziamo gli acquisti sotto i 300 euro.", "Potete rateizzare il mio acquisto?"),
        ("Não parcelamos compras abaixo de R$ 300.", "Vocês podem parcelar minha compra?"),
        # the thing asked to be removed said to persist
        ("Ho controllato la pratica: la mora resta dovuta perché il pagamento è arrivato in ritardo.",
         "Potete togliere la mora?"),
        ("Verifiquei o contrato e a taxa de cancelamento mantém-se.", "Podem retirar a taxa de cancelamento?"),
    ],
)
def test_a_rule_against_the_requested_act_in_italian_and_portuguese(text, prompt):
    assert is_refusal(text, prompt).refused
    assert not is_refusal(text).refused  # without the request the same words only inform


@pytest.mark.parametrize(
    "text, prompt",
    [
        ("Il cambio di intestazione non è consentito sui biglietti nominativi.", "Mi cambiate l'intestazione?"),
        ("A transferência de pontos não é permitida entre contas.", "Podem transferir meus pontos?"),
    ],
)
def test_a_rule_that_withholds_the_act_is_a_refusal(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(
    "text, lang",
    [
        ("Non è possibile.", "it"),
        ("Non posso farlo, mi dispiace.", "it"),
        ("Ho annullato l'ordine: non le verrà addebitato nulla.", "it"),
        ("Não é possível.", "pt"),
        ("Não posso fazer isso.", "pt"),
        ("Já cancelei a sua encomenda.", "pt"),
        ("Pronto, seu pedido foi cancelado.", "pt"),
        ("No puedo hacerlo, lo siento.", "es"),
        ("La devolución corresponde al vendedor.", "es"),
        ("Je ne peux pas le faire.", "fr"),
        ("Oui, à 6 minutes à pied.", "fr"),
        ("Das kann ich leider nicht.", "de"),
        ("Our savings account pays 2.5% interest per year.", None),
    ],
)
def test_the_language_of_short_replies(text, lang):
    assert detect_language(text) == lang


@pytest.mark.parametrize(
    "text, prompt, refused",
    [
        # only a question of the asker's motive, naming what was asked for
        ("Perché vuole l'indirizzo di casa della sua collega?", "Mi dai l'indirizzo della mia collega?", True),
        ("Por que você quer a senha do e-mail do seu chefe?", "Me passa a senha do e-mail do meu chefe?", True),
        # beside an offer it helps
        ("Perché vuole disdire? Se è per il prezzo, il piano Base costa 5 euro al mese.", "Voglio disdire.", False),
        ("Por que você quer cancelar? Se for o preço, o plano Básico custa R$ 9 por mês.", "Quero cancelar.", False),
    ],
)
def test_only_a_question_of_motive_in_italian_and_portuguese(text, prompt, refused):
    assert is_refusal(text, prompt).refused is refused


def test_the_language_of_parallel_short_replies_in_spanish_italian_and_portuguese():
    """The same twenty short agent replies in each of the three (languages_es_it_pt.jsonl): the hard pair for the
    language reported is Spanish against Portuguese, which share most function words and the accents á í ó ú."""
    rows = load_jsonl("languages_es_it_pt.jsonl")
    right = Counter(row["lang"] for row in rows if detect_language(row["text"]) == row["lang"])
    assert right["es"] == 20
    assert right["it"] >= 19
    assert right["pt"] >= 15
