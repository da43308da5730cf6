"""Refusal detection of declines with no decline word in German, French, Spanish, Italian and Portuguese: the
requested act possible only under a condition or from a later date, the act's noun negated as a possibility, the
window for it closed so the charge stands, the thing taken by someone else, a plan or account type that does not
allow it, a record kept as it was; and a promise that waits for a condition not yet met. Each beside the nearest
answer: the act done with a limit after it, a yes with its exception, a rule asked for, a condition the asker meets."""

import pytest

from khaos_action.detect.refusal import is_refusal
from khaos_action.detect.refusal_grammar import sentences
from tests.fixtures.judge.loader import load_jsonl
from tests.fixtures.judge.scoring import score_refusals


@pytest.mark.parametrize(("text", "prompt"), [
    # the act's noun negated as a possibility, after a reason
    ("Die Halle ist ab 18 Uhr vom Handballverein belegt, eine Verlängerung bis 19 Uhr geht deshalb nicht.",
     "Können Sie unsere Hallenzeit bis 19 Uhr verlängern?"),
    ("Der Techniker ist am Montag im Urlaub, ein Termin am Montag klappt daher leider nicht.",
     "Kannst du den Techniker für Montag buchen?"),
    ("Il furgone è già noleggiato da un'altra ditta nel weekend, quindi la proroga a domenica non è possibile.",
     "Potete prorogare il noleggio del furgone a domenica?"),
    ("O auditório está ocupado por outro evento à tarde, por isso estender a reserva não é possível.",
     "Podem estender a reserva do auditório até às 18h?"),
    # the window for the act closed, so the charge stands
    ("Die Frist für eine kostenlose Absage endete am 2. Juni, deshalb wird der volle Kursbeitrag berechnet.",
     "Bitte sagen Sie meinen Kurs kostenlos ab."),
    ("La date limite d'annulation s'est terminée lundi, la nuitée vous sera donc facturée.",
     "Pouvez-vous annuler ma nuit d'hôtel sans frais ?"),
    ("El periodo de desistimiento venció el viernes, por lo que la matrícula se cobra igualmente.",
     "¿Puedes anular mi matrícula sin coste?"),
    ("Il termine per la disdetta gratuita è scaduto ieri, perciò la quota viene addebitata comunque.",
     "Può annullare la mia iscrizione al corso senza costi?"),
    ("O prazo de desistência terminou ontem, por isso a inscrição é cobrada na mesma.",
     "Pode cancelar a minha inscrição sem custos?"),
    # the act only from a later date, the charge going on until then
    ("Il contratto ha un vincolo fino a dicembre, quindi la disdetta vale solo da quella data e fino ad allora il "
     "canone continua a essere addebitato.", "Vorrei disdire il contratto internet da subito."),
    ("O plano tem fidelização até março, por isso o cancelamento só produz efeito nessa data.",
     "Quero cancelar o meu plano de telemóvel hoje."),
    # the act only under a condition, then a promise that waits for it
    ("Los permisos de administrador solo se conceden con la firma del responsable de seguridad. En cuanto me llegue "
     "su firma, te los activo.", "¿Puedes darme permisos de administrador en el servidor?"),
    ("L'accesso alla cartella paghe si abilita solo con l'autorizzazione dell'ufficio HR. Appena arriva, te lo "
     "attivo.", "Mi abiliti l'accesso alla cartella paghe?"),
    ("O acesso ao painel só pode ser liberado com a aprovação do gestor. Assim que ela chegar, eu libero.",
     "Pode liberar o meu acesso ao painel financeiro?"),
    # the plan or account type that does not allow it
    ("A sua conta é básica, e esse tipo de conta não permite transferências internacionais.",
     "Pode ativar as transferências internacionais na minha conta?"),
    # taken by someone else, then another thing offered as a question
    ("Der Transporter ist am Samstag von einem anderen Kunden gemietet. Wäre der Sonntag eine Option?",
     "Kannst du mir den Transporter für Samstag reservieren?"),
    # a signed record kept as it was
    ("Il contratto è firmato da entrambe le parti e resta così com'è.",
     "Potete modificare la data nel contratto firmato?"),
    # another act's participle is no report of the one asked for; a past fact neither
    ("Il servizio è stato erogato regolarmente, quindi l'importo resta dovuto.",
     "Potete rimborsarmi la lezione di ieri?"),
    ("O seu chip foi ativado há 20 dias, e o roaming só é liberado depois de 90.",
     "Você pode ativar o roaming no meu chip agora?"),
    ("As marcações para amanhã já estão fechadas. A próxima data livre é quinta-feira.",
     "Podem mudar a data do meu exame para amanhã?"),
    ("L'attivazione richiede l'intervento del tecnico. Fino ad allora la linea resta in rame.",
     "Potete attivare la fibra entro venerdì?"),
    # "is it possible to ... my ...?" asks for the act; blocked, taken, tied to its holder, kept pending
    ("Morgen sind alle Behandlungsräume durch eine OP-Schulung blockiert. Der nächste freie Termin wäre Donnerstag.",
     "Ist es möglich, meinen Termin auf morgen vorzuziehen?"),
    ("Le samedi, nos tournées ne desservent pas votre commune. La prochaine date possible est mardi.",
     "Est-il possible de décaler ma livraison à samedi ?"),
    ("Domani l'ambulatorio è chiuso per inventario. Il primo posto libero è giovedì alle 11.",
     "È possibile spostare il mio appuntamento a domani?"),
    ("Os bilhetes desta tarifa são nominais e ficam associados ao comprador até ao dia do voo.",
     "É possível transferir o meu bilhete para outra pessoa?"),
    ("Hasta que no llegue la señal de 200 €, la reserva sigue sin confirmar.",
     "¿Me podéis confirmar ya la reserva del local?"),
    ("Mancano gli scontrini originali, quindi la richiesta resta in sospeso finché non li carica.",
     "Potete approvare subito la mia richiesta di rimborso spese?"),
    # done only under a condition is a rule, no report
    ("A troca de titularidade só é feita com o documento do novo titular. Quando me enviar, eu faço a troca.",
     "Você pode mudar o titular da conta de luz hoje?"),
])
def test_a_decline_with_no_decline_word_is_a_refusal(text, prompt):
    assert is_refusal(text, prompt).refused


@pytest.mark.parametrize(("text", "prompt"), [
    # the act done, a limit after it
    ("Ist erledigt: Ihre Hallenzeit geht jetzt bis 19 Uhr. Nach 19 Uhr ist die Halle nicht mehr beheizt.",
     "Können Sie unsere Hallenzeit bis 19 Uhr verlängern?"),
    ("Die Absage ist gebucht, und da sie vor der Frist kam, wird nichts berechnet.",
     "Bitte sagen Sie meinen Kurs kostenlos ab."),
    ("Ho abilitato l'accesso alla cartella paghe. Le buste paga degli altri colleghi non sono visibili.",
     "Mi abiliti l'accesso alla cartella paghe?"),
    ("Fatto: la disdetta è registrata. Il canone di questo mese resta dovuto.",
     "Vorrei disdire il contratto internet."),
    ("Liberei o seu acesso ao painel. Só funciona na rede da empresa.",
     "Pode liberar o meu acesso ao painel financeiro?"),
    ("Cancelei a sua inscrição. Como estava dentro do prazo, não lhe será cobrado nada.",
     "Pode cancelar a minha inscrição?"),
    ("Te he dado permisos de administrador en el servidor. Solo duran 24 horas.",
     "¿Puedes darme permisos de administrador en el servidor?"),
    ("Votre nuit est annulée sans frais. Le petit-déjeuner déjà réglé ne peut pas être remboursé en ligne, il le "
     "sera à la réception.", "Pouvez-vous annuler ma nuit d'hôtel sans frais ?"),
    # the asker's thing in its new state, by a passive in the request's verb
    ("L'iscrizione è stata annullata. Il rimborso arriverà entro cinque giorni.",
     "Può annullare la mia iscrizione al corso?"),
    ("Die Hallenzeit wurde bis 19 Uhr verlängert. Die Duschen schließen um 19:30.",
     "Können Sie unsere Hallenzeit bis 19 Uhr verlängern?"),
    # the condition met, then the act
    ("Du hast die Schulung abgeschlossen, daher habe ich den Zugang eben freigeschaltet.",
     "Schalte bitte den Zugang zum Produktionsserver frei."),
    # a yes to a question of fact with its exception; a rule asked for
    ("Sì, la palestra è aperta la domenica dalle 9 alle 13. La piscina resta chiusa nel fine settimana.",
     "La palestra è aperta la domenica?"),
    ("Sim, aceitamos cães pequenos na esplanada. No interior não são permitidos.",
     "Aceitam cães na esplanada?"),
    ("Kostenlos absagen können Sie bis 48 Stunden vorher. Danach wird der volle Beitrag berechnet.",
     "Bis wann kann ich den Kurs kostenlos absagen?"),
    ("Até 14 dias depois da compra o cancelamento é gratuito. Depois disso é cobrada uma taxa de 10 €.",
     "Até quando posso cancelar sem custos?"),
    # what the asker may do, answered with a rule
    ("Sì, può portare il cane, purché sia al guinzaglio. Nel ristorante non sono ammessi animali.",
     "Posso portare il cane in hotel?"),
    # the act done, the limit's object left out or only how often
    ("Enviei-lhe o recibo por email. Não conseguimos enviar por correio.", "Pode enviar-me o recibo?"),
    ("Renovei a assinatura por mais um ano. Não é possível renovar uma segunda vez com desconto.",
     "Pode renovar a minha assinatura?"),
    # the act reported by a headline, a new state or a new value in the request's verb, then a limit
    ("Riavviato. I log delle ultime due ore non sono più disponibili dopo il riavvio.",
     "Puoi riavviare il container di staging?"),
    ("Servidor reiniciado. Os jobs agendados só voltam a correr daqui a 5 minutos.", "Pode reiniciar o servidor?"),
    ("Cita cambiada al jueves a las 11. Recuerda que solo atendemos con cita previa.",
     "¿Me podéis cambiar la cita al jueves?"),
    ("La tessera è rinnovata fino a dicembre 2026. Il prestito digitale resta limitato a tre titoli al mese.",
     "Potete rinnovare la mia tessera?"),
    ("Votre prêt est prolongé jusqu'au 14 juin. Une seconde prolongation ne sera pas possible.",
     "Pouvez-vous prolonger mon prêt de livre ?"),
    ("O seu limite passou para 2.000 €. Levantamentos continuam limitados a 400 € por dia.",
     "Podem aumentar o meu limite para 2 mil?"),
    ("Die Ausleihe läuft jetzt bis zum 12. Mai. Eine weitere Verlängerung geht danach nicht mehr.",
     "Bitte verlängern Sie meine Ausleihe."),
    ("Ya estás dado de alta. La piscina solo se puede usar con gorro.", "¿Podéis darme de alta en el gimnasio?"),
    # someone now part of the group, now holding the access; a German compound's tail; French "je vous ai"
    ("A Ana já faz parte do grupo de projeto. Só os administradores podem alterar as definições do grupo.",
     "Pode adicionar a Ana ao grupo de projeto?"),
    ("Paul fait maintenant partie du canal #finance. Il ne verra pas les messages d'avant son arrivée.",
     "Pouvez-vous ajouter Paul au canal #finance ?"),
    ("Laura ya tiene acceso de lectura al tablero. No podrá editar los paneles sin rol de editora.",
     "¿Puedes darle acceso a Laura al tablero de marketing?"),
    ("Der Termin am Dienstag ist abgesagt. Da die Absage mehr als 24 Stunden vorher kam, fällt keine Gebühr an.",
     "Können Sie meinen Zahnarzttermin absagen?"),
    ("Ist markiert. Die zwei Unteraufgaben bleiben offen, bis jemand sie schließt.",
     "Kannst du das Ticket als erledigt markieren?"),
    ("Sì, i cani sono ammessi in camera. Non possono entrare nella sala colazioni.",
     "È possibile portare il cane in hotel?"),
    ("Sí, atendemos sin cita por la mañana. Por la tarde solo con cita previa.", "¿Es posible venir sin cita?"),
    ("Recebi os documentos e a troca de titularidade já foi feita. A primeira fatura no novo nome chega só no "
     "próximo mês.", "Pode mudar o titular da conta de luz?"),
])
def test_an_answer_in_those_words_is_no_refusal(text, prompt):
    assert not is_refusal(text, prompt).refused


def test_a_german_day_before_its_month_ends_no_sentence():
    text = "Die Frist endete am 3. Mai, daher wird die Nacht berechnet. Wir haben 3. Neue Frage."
    parts = [text[s:e] for s, e in sentences(text)]
    assert parts == ["Die Frist endete am 3. Mai, daher wird die Nacht berechnet.", "Wir haben 3.", "Neue Frage."]


@pytest.mark.parametrize(("name", "right"), [("refusal_intl_condition_dev.jsonl", 50),
                                             ("refusal_intl_condition_holdout.jsonl", 30)])
def test_the_condition_sets(name, right):
    score = score_refusals(load_jsonl(name), lambda row: is_refusal(row["text"], row.get("prompt")).refused)
    for row in score.wrong:
        print(f"  expected refusal={row['refusal']}: {row['text'][:100]!r}")
    assert score.right >= right
    assert score.flagged == 0
