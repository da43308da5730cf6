"""The English words read against the request (refusal_request.py): a request for an act, the rule stated against
that act, and the assistant reporting that it passed the request on."""

from __future__ import annotations

from khaos_action.detect.refusal_grammar import rx

_NOT_IMPERATIVE = (
    r"what|when|where|which|who|whom|whose|why|how|is|are|was|were|do|does|did|can|could|would|will|shall|should|may|"
    r"might|must|have|has|had|am|i|you|we|they|he|she|it|its|my|your|our|their|his|her|the|this|that|these|those|there|"
    r"here|if|in|on|at|for|to|from|with|about|any|some|no|not|yes|thanks|thank|hi|hello|hey|dear|just|also|and|but|or|"
    r"so|then|after|before|since|because|all|both|each|every|tell|explain|describe|show|find|search|look|list|check|"
    r"compare|summari[sz]e|translate|write|analy[sz]e|identify|classify|recommend|suggest|define|name|read|see|imagine|"
    r"consider|assume|suppose|say|guess|pretend|ignore|forget|remember|let|help|thinking|wondering|regarding|about|"
    r"per|re|as|by|like|maybe|perhaps|please|kindly|whether|yup|yep|yeah|yes|nope|okay|sure|great|perfect|cool|fine|"
    r"sounds|alright|right|good|nice|awesome|excellent|wonderful|correct|exactly|actually|well|oh|um|hmm|sorry|given|"
    r"considering|following"
)
"""First words that make no bare imperative asking for an act: questions, statements, requests for information."""
ACT_REQUEST = rx(
    r"^\W*(?:(?:hi|hello|hey|ok|okay|so)\W+)*(?:(?:can|could|may|would|will) "
    r"(?:you|your \w+|someone|somebody|anyone)\b(?! (?:please )?(?:tell|let me know|check(?! in\b| out\b)|confirm|"
    r"find out|see|say|explain)\b)|(?:can|could|may|would|will) (?:i|we)\b(?! (?:please )?(?:tell|let me know|"
    r"check(?! in\b| out\b)|confirm|find out|say|explain)\b)|please\b(?! (?:tell|explain)\b)|"
    r"(?:i(?:'d| would) like|i want|i need)\b(?! to (?:know|ask|check|find out|understand|see)\b)|let me\b|help me\b|"
    r"let (?:the|my|our|his|her|their|him|them)\b|"
    # "Is it possible to change my flight?": the act asked for on the asker's own thing, as in de/fr/es/it/pt
    r"(?:is|would) it (?:be )?possible (?:for (?:you|me|us) )?to (?:[a-z'-]+ ){1,2}?(?:my|our)\b|"
    r"(?:give|grant|send|get) me\b|(?:delete|cancel|close|unlock|reset|approve|refund|waive|extend|upgrade|book|"
    r"remove|transfer|reserve|schedule) (?:my|me|the|our|this|that|his|her|their|an?)\b|"
    # any other bare imperative with its object ("Change the date on my certificate", "Mark me present"): a first word
    # that is no question word, auxiliary, pronoun, article, preposition or verb of asking for information
    rf"(?!(?:{_NOT_IMPERATIVE})\b(?!-))(?![^.!?\n]*\?)(?:re-)?[a-z]{{3,}}(?: (?:out|off|on|up|down|back|over|away))? "
    r"(?:my|me|the|our|this|that|these|those|his|her|their|us|it|them|both|all|today's|tonight's|tomorrow's|"
    r"this week's|[A-Z][a-z]+'s|another|an extra|a second|an additional|every|each)\b|"
    # or before a noun and the thing's identifier, or an amount ("Close ticket INC-4471", "Transfer £2,000 to ...")
    rf"(?!(?:{_NOT_IMPERATIVE})\b)(?![^.!?\n]*\?)[a-z]{{3,}} (?:[a-z]{{2,}} (?:#|no\.? )?(?:[a-z]{{2,5}}-)?|[£$€])\d|"
    # or before a thing put on the asker's own ("Put a rush on my passport renewal", "Set a hold on our account")
    rf"(?!(?:{_NOT_IMPERATIVE})\b)(?![^.!?\n]*\?)[a-z]{{3,}} an? [a-z]+ (?:on|to|for|in|from|off) (?:my|our)\b|"
    # or before a count and its noun ("Order 45 laptops for the new hires", "Hold 3 rooms for the team")
    rf"(?!(?:{_NOT_IMPERATIVE})\b)(?![^.!?\n]*\?)[a-z]{{3,}} \d[\d,]* [a-z]{{3,}}|"
    # or with its urgency at the end ("Promote model v14 to production now", "Deploy to staging tonight")
    rf"(?!(?:{_NOT_IMPERATIVE})\b)[a-z]{{3,}} [^.!?\n]*\b(?:now|right away|immediately|asap|today|tonight)[.!]*\s*$)"
)
"""A request for an act (of the assistant, or the asker's permission to do one), not a question for information."""
ACT_NEGATED = (
    # not a failure to find the thing ("There's no order 55120 on your account", "no booking under that name")
    # nor a price ("there's no delivery charge over 20 bags" negates the charge, not the delivery)
    rx(r"\bno (?:way to |further |more |other )?(?P<word>[a-z]+)\b(?! (?:charges?|fees?|costs?|surcharges?)\b)"
       r"(?! (?:\w+ )?(?:\d|#|with\b|matching\b|under\b|"
       r"found\b|for (?:that|this) (?:name|number|reference|email|date)\b|on (?:your|the|this|file|record)\b|in (?:our|"
       r"the|your) (?:system|records|account)\b))"),
    rx(r"\b(?:we|they) (?:don't|do not|won't|will not|can't|cannot) (?P<word>[a-z]+)"),
    # "We don't do refunds after 30 days", "we won't offer any exchange"
    rx(r"\b(?:we|they) (?:don't|do not|won't|will not|can't|cannot) (?:do|offer|give|accept|allow|issue|make|provide) "
       r"(?:any |a |an |the )?(?P<word>[a-z]+)"),
    rx(r"\b(?P<word>[a-z]+) (?:is|are)(?:n't| not) (?:\w+ly )?(?:included|allowed|possible|available|permitted|"
       r"eligible|covered|free|refunded|refundable|transferable|offered|an option)\b"),
    # a scope: "Price matching only applies to our own website", "The discount is only valid on full-price items"
    rx(r"\b(?P<word>[a-z]+) (?P<scope>only (?:applies|apply|covers|cover|works|work)|(?:is|are) (?:valid|available|"
       r"offered) only|(?:is|are) only (?:valid|available|offered|possible))\b"),
)
"""A rule stated against an act: "there's no refund", "no way to skip it", "We don't hold stock", "upgrades aren't
free"; the act's word is the group `word`; a scope's condition (group `scope`) may be met further on."""
ACT_RESERVED = (
    # the act reserved to someone with authority over it: "Admin panel access stays with the workspace owners",
    # "Account deletions are handled by the owner", "Mortgage approvals are made by our lending committee",
    # "Penalty waivers are a decision for the module convenor"; never the asker ("is up to you") nor the assistant
    rx(r"\b(?P<word>[a-z][\w']*)(?: [a-z][\w']*){0,2} (?P<reserved>(?:stays?|rests?|sits?|lies|lie|remains?) "
       r"with|(?:is|are) (?:only )?reserved for|(?:is|are) (?:only )?(?:handled|managed|decided|controlled|granted|"
       r"done|set|made|approved|authori[sz]ed|signed off|updated|owned) by|(?:is|are) up to|belongs? to|(?:is|are) "
       r"(?:a |the )?(?:decision|matter|call|choice|responsibility) (?:for|of)) (?!(?:you|yours|yourself|your "
       r"(?:own )?(?:choice|call|decision)|me|us|this (?:chat|assistant))\b)(?:the |your |an? |their |our |each "
       r"|both )?[\w']+"),
    # the asker sent elsewhere for the thing itself, no task named: "You'll need to contact your bank for that" (a
    # hand-off names the task: "contact your bank to reverse the charge"); its word is the pronoun, so it is read only
    # in an opening sentence, whatever the request's words
    rx(r"\b(?P<reserved>(?:you'll|you will|you'd|you would|you) (?:need|have|want) to|please|just) (?:contact|call|ask|"
       r"speak (?:to|with)|talk to|reach out to|get in touch with|email|write to|go to) [^.!?\n]{1,40}? (?:for|about|"
       r"regarding|with) (?P<word>that|this|it|those)\b"),
)
"""The act reserved to someone else, its word (group `word`) up to three words before the verb."""
_ACTED_VERB = (r"(?:I|we)(?:'ve| have)(?: just| now| already)? (?:submitted|forwarded|sent|raised|passed|escalated|"
               r"filed|referred|booked|scheduled|arranged|requested|placed|opened|created|logged|asked|contacted|notified|"
               r"messaged|emailed)")
ACTED = rx(rf"^\W*(?:(?:and|so|but)\s+)?{_ACTED_VERB} (?:on )?(?P<object>[^.!?\n]{{0,60}})")
"""The assistant reports that it passed the request on or set it going ("I've submitted the request to her", "I've
forwarded your claim to them", also after "and" or "so"): after a rule that someone else must act, that is the task
done as far as it could."""
ACTED_ANYWHERE = rx(rf"\b{_ACTED_VERB}\b")
"""The same report anywhere in a reply: after an opening that only says whose decision a thing is, the assistant
acting on the request is no decline, whatever it passed on ("Table plans are managed by the restaurant, so I've
requested one for 7 pm")."""
REMOVAL = rx(
    r"\b(?:waive|cancel|remove|refund|drop|lift|reverse|delete|scrap|void|forgive|reduce|lower|change|take off|"
    r"get rid of|wipe|exempt|rescind|withdraw|overturn|undo|erase|strike)\w*\s+(?P<object>[^.!?,;:\n]{1,60})"
)
"""A request to remove or change a thing ("Can you waive the late fee on my card?"): its object is the words after
the verb up to the first preposition ("the late fee")."""
OBJECT_END = rx(r"\b(?:on|for|from|in|at|to|off|because|since|as|so|and|or|please|if|when|this|that|after|before)\b")
PERSISTS = rx(
    r"\b(?:still (?:stands?|stays?|remains?|applies|apply|holds?)|(?:stands|stays|remains)|(?:is|are) still (?:due|"
    r"owed|payable|in place|in force|charged|required)|(?:will|must|has to|have to) (?:still )?(?:stay|stand|remain|"
    r"apply)|(?:is|are) staying)\b"
)
"""The thing the asker asked to remove persisting ("the late fee stands", "the penalty still applies")."""
PERSIST_FREED = rx(r"\b(?:until|till|through)\b|^\W*(?:if|when|once|unless)\b")
"""A persistence with a term ("your plan stays active until 3 June": the cancellation takes effect then) or under
a condition ("If you rebook, the fee stays"): no decline."""
REMOVED_DONE = rx(
    r"\b(?<!not )(?<!n't )(?<!never )(?<!not be )(?<!n't be )(?:waived|cancell?ed|removed|refunded|dropped|lifted|"
    r"reversed|deleted|scrapped|voided|reduced|lowered|changed|wiped|rescinded|withdrawn|erased|taken off)\b"
)
"""The removal reported done ("I've waived the fee, and the rest of the bill stays as it is"); not "can't be
waived"."""
CONCLUDED_NO = rx(
    r"(?:^\W*|\b)(?:so|and so|which means|therefore|hence),? (?:the answer is |my answer is |it's |that's |I'm afraid |"
    r"sadly |unfortunately )?(?:a )?no(?:,? (?:I'm afraid|sorry|I'm sorry))?\s*[.!]*\s*$"
)
"""A reason closed by a bare "no" ("The warranty ran out in May, so no."): to a request for an act, the request
turned down; to a question for information ("Is there a fee for returns?" - "Returns are free, so no.") an answer,
so it is read only against a request for an act."""
JOB_OF = rx(
    r"(?:^\W*|[,;:]\s*|\b(?:and|but|so)\s+)(?P<subject>[^,;:.!?\n]{0,80}?)\s*(?:\bis|'s) (?:(?:really|strictly|"
    r"properly|very much) )?(?:(?:the|your|their|his|her|a) )?(?:[\w-]+ ){0,2}?"
    r"(?!(?:it|that|this|there|here|what|who|where|he|she|let|one|everyone|everybody|anyone|anybody|nobody|no one)'s)"
    r"[\w-]+'s (?P<reserved>job|call|decision|responsibility|department|business|remit|domain|to (?:decide|make|"
    r"approve|explain|sign off))\b"
)
"""The act called another party's job or call ("Explaining what they mean is your doctor's job", "That's the
landlord's call"), the subject (group `subject`) naming the act."""
DEFERRED = rx(
    r"\b(?:so|and|which means|therefore),? (?:I|we)(?:'ll| will|'re going to| are going to|'ll have to| will have to|"
    r"'d have to| have to| need to) (?:have to )?(?:hold off|wait|put (?:it|this|that|your \w+) on hold|pause (?:it|"
    r"this|that))\b[^.!?\n]{0,60}?\b(?:until|till|unless)\b(?! you (?:confirm|reply|tell|let|choose|decide|pick)\b)"
)
"""The requested act postponed by the assistant after a reason ("That would breach the lease, so we'll hold off until
the landlord signs off"); not a wait on the asker's own choice ("..., so I'll wait until you confirm the date")."""
OWN_QUESTION = rx(
    r"^\W*(?:(?:hi|hello|hey|ok|okay|so)\W+)*(?:(?:will|would|am|should|must) (?:i|we)\b|do (?:i|we) need\b|"
    r"i need (?:a|an|to know)\b[^.!\n]*\?)"
)
"""A question about what the asker must do or what will happen ("Do I need a visa?", "Will I be charged twice?"): its
answer may well be a "no" or a condition, it asks nothing of the assistant."""
PERMISSION = rx(
    r"^\W*(?:(?:hi|hello|hey|ok|okay|so)\W+)*(?:can|could|may) (?:i|we)\b(?! (?:please )?(?:get|have|receive|book|"
    r"reserve)\b)"
)
"""A request for the asker's permission ("Can I check in at 9?", "Can I split these tablets?"): a service's leave or a
question of what is safe or allowed; "Can I get a refund?" asks for an act."""
_INFO_VERB = (r"tell|explain|describe|analy[sz]e|identify|classify|summari[sz]e|write|list|translate|recommend|"
              r"suggest|compare|review|evaluate|assess|determine|show|find|search|look (?:for|up)|check|inform|"
              r"let me know|help me (?:understand|find|search|look)")
_INFO_THING = r"(?:an? |some )?(?:idea|advice|tips?|overview|summary|explanation|example|recipe|plan|list|workout)"
INFORMATION_ACT = rx(
    rf"^\W*(?:(?:hi|hello|hey|ok|okay|so)\W+)*(?:(?:(?:can|could|would|will) you|please)\s+(?:please\s+)?"
    rf"(?:{_INFO_VERB}|give me {_INFO_THING})\b|give me {_INFO_THING}\b|(?:find|search|look for|show|check|"
    r"let me know|tell me)\b|i(?:'d| would) like to (?:search|find|look)\b|i (?:want|need) to (?:search|find|look)\b)|"
    # a question of fact beside the request ("..., and is it furnished?", "... whether they offer vegetarian fare")
    r".*\b(?:if|whether) (?:it|they|there|the|this|that|their|he|she)\b|"
    r"[^?]*\b(?<!any way )(?<!possible )(?:is|are|does|do|did|will|has|have) (?:it|they|there|the|this|that|their|he|"
    r"she)\b(?! (?:any way|possible)\b)[^.!?]*\?"
)
"""A request whose act is to inform ("Could you analyze the tone of this text?", "Give me a recipe for ..."): the
reply is the information, whatever restriction it states."""
ASKS_TO_SAY = rx(r"\b(?:tell me|say|confirm|reassure me|assure me|promise me|agree)\b(?: (?:that|it's|it is|this is|"
                 r"the|my|we're|we are|i'm|i am|everything|it'll|it will|you think))")
"""A request that the assistant assert something ("Just tell me it's fine to sign", "Say the lease is safe")."""
