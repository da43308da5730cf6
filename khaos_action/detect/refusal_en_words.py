"""English word classes the refusal detector's decline structures are composed from (refusal_en.py): the speaker
and the assistant naming itself, negated modals, verbs of doing and of handing over, what a disclaimer is about, moral
judgements, rule and scope nouns, participles of withholding, what a rule makes of the thing asked for. Each class is
a short list of words that any phrasing reuses."""

from __future__ import annotations

from khaos_action.detect.refusal_grammar import alt, rx

# ---- word classes -------------------------------------------------------------------------------------------------
SUBJECT = (r"\b(?:I|we|this assistant|the assistant|this bot|this chatbot)"
           r"(?:(?:'m| am|'re| are)\s+[^.;:!?\n]{1,50}?\s+and)?")
"""I / we, also with a coordinated predicate before the negation: "I am an AI model and do not condone ..."."""
AGENT = (r"(?:I|we|this (?:bot|assistant|chatbot|chat|service|desk|team|line|channel)|the (?:assistant|bot|chatbot|"
         r"(?:help |service |support |front )?desk)|our (?:\w+ )?(?:team|desk|staff|agents?|service|bot|assistant|"
         r"office|department))")
"""The speaker of a relative clause: the assistant in the first person or naming itself ("this bot", "our team",
"the desk"), never the asker or a third party ("That isn't something you need to do")."""
ADVICE_VERB = (r"(?:worry|stress|sweat|bother|fret|panic|recommend|suggest|advise|expect|count on|rely on|charge|bill|"
               r"fine|penali[sz]e|hold (?:\w+ )?against|ask (?:you )?for|need|require)")
"""After "not something I'd", advice or reassurance, no decline: "That isn't something I'd worry about", "not
something we'll charge you for", "not something our team will hold against you"."""
ADVERBS = (r"(?:\s+(?:really|simply|just|absolutely|definitely|still|actually|unfortunately|currently|personally|"
           r"ethically|legally|honestly|sadly|regrettably|therefore|thus|also|even|afraid|in good conscience|"
           r"at this time|right now|here|\w+ly))*")
NEG_MODAL = alt(
    r"can't", r"cannot", r"can not", r"won't", r"will not", r"shan't", r"shall not", r"must not", r"mustn't",
    r"shouldn't", r"should not", r"couldn't possibly", r"could not possibly",
    r"(?:won't|will not|wouldn't|would not|'d not) be able to", r"(?:will|would) never", r"refuse to", r"decline to",
    r"(?:'m|am|'re|are)(?:\s+\w+ly)? (?:not|never) (?:going|able|allowed|permitted|authori[sz]ed|prepared|at liberty|"
    r"in a position|equipped|supposed|meant|willing|cleared) to",
    r"(?:'m|am|'re|are) (?:unable|not able) to",
    r"(?:don't|do not) (?:feel comfortable|think (?:I|we) (?:should|can|could|will)|want to)",
    r"(?:'m|am|'re|are)(?:\s+\w+ly)? not (?:comfortable|willing)(?= (?:with )?\w+ing\b)",
    r"(?:don't|do not) have (?:a|any) way to",
)
# Verbs after a negated modal that do not decline anything: knowing, perceiving, failing, and emphasis. Opening,
# reading or loading a kind of content ("I can't open attachments in this chat") is a limit on the task, no failure.
NOT_ACTS = (
    r"(?:know|think|find|see|locate|wait|believe|remember|recall|imagine|thank|(?:load|open|read(?! out))"
    r"(?!\s+(?:(?!the |these |those |both |all )\w+\s+)?(?:attachments|files|pdfs|documents|images|photos|"
    r"pictures|screenshots|links|urls|videos|voice (?:messages|notes)|recordings|spreadsheets|uploads|zip files)\b)|"
    r"connect|"
    r"reach|hear|understand|get it|log|tell (?:if|whether|which|what|how|from|for sure)|stop|help but|make it|"
    r"guarantee|promise|verify|confirm|be (?:sure|certain|100%)|overstate|stress|emphasi[sz]e|"
    r"say (?:for sure|for certain|exactly)|agree more|recommend (?:\w+\s+){0,4}enough|be happier|"
    r"be (?!able\b|of\b|part\b|involved\b|party\b|complicit\b|\w+ing\b))\b"
)
ANY_ACT = rf"(?:\w+ly\s+)?(?:try to\s+|be able to\s+|help you\s+)?(?!{NOT_ACTS})[a-z]{{2,}}\b"
HAND_OVER = (
    r"(?:provide|share|give(?: out)?|disclose|reveal|divulge|release|hand (?:out|over)|condone|promote|support|"
    r"encourage|endorse|advocate|engage(?: in)?|participate|assist|help(?: with| you with| people)|generate|create|"
    r"write|produce|offer|answer|discuss|comment|speculate|allow|permit|make|process|handle|accept|tolerate|"
    r"facilitate|publish|send|forward|pass on|give advice|advise|do (?:that|this|it|so)|access|log (?:in|into|on)|"
    r"sign (?:in|into)|impersonate|act on (?:your |their |his |her )?behalf)\b"
)
RESPONSE_ACT = (
    r"(?:provide|give|share|disclose|reveal|divulge|offer|supply|answer|respond|discuss|comment|speculate|help|"
    r"assist|write|create|generate|produce|draft|compose|describe|explain|detail|outline|list|suggest|recommend|"
    r"advise|encourage|promote|support|condone|endorse|engage|participate|make (?:assumptions|jokes|"
    r"generali[sz]ations|statements|judg(?:e)?ments|claims|predictions|light)|say|tell|send|release|publish|"
    r"print|display|show|do (?:that|this|so)|fulfil+|comply|grant|process|access|look up|hand (?:over|out)|"
    r"give out|instruct|teach|joke|guess|judge|rank|rate|label|categori[sz]e|stereotype)\b"
)
OWN_VIEW = (r"opinions?|views?|beliefs?|feelings|emotions|preferences|experiences|biases|prejudices|stances?|"
            r"political (?:affiliations?|views)|values|desires")
"""What an assistant disclaims having ("As an AI, I don't have personal opinions")."""
DISCLAIMER = rx(
    rf"\b(?:(?:personal|own|an?|any|my)\s+)?(?:{OWN_VIEW}|opinion|judg(?:e)?ments?)\b|"
    r"\b(?:assum\w*|generali[sz]\w*|speculat\w*|predict\w*|interpret\w*|determine|pass judg\w*|"
    r"take (?:a |any )?(?:side|stance|position)s?|speak (?:for|on behalf of))\b|"
    r"\baccess to (?:the )?(?:real-time|current|the latest|latest|up-to-date|live|the entire)\b|"
    r"\b(?:browse|surf|search|access) (?:the )?(?:internet|web)\b|"
    r"\blook (?:things|anything|it|that) up (?:live|online|in real time|on the (?:internet|web))\b|"
    r"\b(?:with (?:certainty|accuracy)|"
    r"accurately|precisely|definitively|exactly|specifically|for certain)\b"
)
"""What a decline is about when it only disclaims the assistant's own view or knowledge: an opinion, a judgement,
an assumption about people, a prediction, up-to-date data, an exact answer. Read over the decline and the words
right after it. Professional advice ("I can't diagnose that") and someone's data ("I don't have access to your
teacher's records") are not disclaimers: an agent declines its task or guards privacy with those words."""
MORAL = r"(?:appropriate|ethical|okay|ok|acceptable|right|responsible|proper|respectful|fair|legal|safe|wise)"
MORAL_NEG = r"(?:inappropriate|unethical|irresponsible|unacceptable|wrong|improper|disrespectful|illegal|unsafe)"
COORD = rf"(?:\s*,?\s*(?:or|and|nor)\s+(?:not\s+)?(?:{MORAL}|{MORAL_NEG}))*"
IT_IS = r"\b(?:it|this|that)(?:'s| is|'d be| would be| will be| was| seems)"
APOLOGY_WORD = r"\b(?:sorry|apologi[sz]e|apologies|unfortunately|regrettably|afraid|sadly|alas)\b"
RULE_NOUN = (r"(?:guidelines?|polic(?:y|ies)|principles|programming|rules|terms|instructions|values|ethics|"
             r"standards|protocols?)")
SCOPE_NOUN = r"(?:scope|remit|capabilities|permissions|role|purview|authority|mandate|responsibilit(?:y|ies)|area)"
DECLINE_NOUN = r"(?:question|topic|request|subject|area|thing|service|feature|option|information|detail|data)s?"
WITHHOLD = (r"(?:shared|disclosed|given(?: out)?|handed out|released|revealed|passed on|communicated|made available|"
            r"shown|displayed|accessible|available to (?:share|disclose|give)|sent out|forwarded|granted|visible|"
            r"viewable)")
"""Participles of handing information over: "Seller addresses aren't shared", "PINs are never shown"."""
WITHHOLD_ACT = (r"share|give out|disclose|reveal|divulge|release|surface|show|expose|pass on|hand (?:out|over)|"
                r"forward|publish")
"""Verbs of handing information over, in a relative clause the assistant never does them in ("something we never
surface"): not of offering a service ("Same-day delivery is something we don't offer" answers a question too)."""
PARTICIPLE = (r"(?:[a-z]{2,}(?:ed|en|wn)|done|made|paid|laid|held|kept|sold|told|sent|spent|lent|set|run|put|shut|"
              r"cut|bought|brought|sought|taught|dealt|met|left|lost|built|split|read)")
COPULA = r"(?:is|are|'s|'re|remains?|stays?|(?:is|are) kept)"
RESTRICTED = (r"(?:restricted|limited|reserved|exclusive|confined) to|(?:excluded|exempt) from|"
              rf"only (?:{PARTICIPLE}|visible|available|accessible|viewable|known) "
              r"(?:to|by|with|for|from|through|via|in)|"
              r"(?:non-?|in|un)(?:transferable|refundable|negotiable|exchangeable|returnable|cancell?able|changeable|"
              r"modifiable|accessible|available)")
"""What the thing asked for is when a rule keeps it from this user: reserved to others, excluded, not to be moved."""
