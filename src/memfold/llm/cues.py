"""Lexical cues for routing: cheap regular-expression features of one utterance.

Each ``*_cues`` function returns ``(score, reasons)`` for one class; the offline backend
adds them to the embedding-prototype similarity. Weights are on one scale: 3 is "this
alone decides", 1 is "a hint". They were set by reasoning about the classes (see the
spec's ROUTE_PROMPT) and checked against the development split only, never the
evaluation set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memfold.llm.keys import RELATION_CANON, RELATION_WORDS
from memfold.models import Message
from memfold.timeexpr import IRREGULAR_PAST, sentence_tense

# -- shared vocabulary -------------------------------------------------------------------

# -ed words that usually describe a state, not an action, right after "I"/"we"
_STATIVE_ED = frozenset(
    "used supposed based named called interested excited tired married engaged divorced born "
    "retired scared bored worried stressed obsessed related allergic pleased surprised "
    "amazed thrilled blessed convinced exhausted overwhelmed inspired motivated determined "
    "need needed love loved like liked prefer preferred".split())
_ADVERB = (r"(?:just |finally |recently |also |actually |really |already |even |once |then |"
           r"all |both )?")
_PAST_ACTION = re.compile(
    r"\b(?:i|we|he|she|they|(?:my|our|your|his|her|their) \w+|"
    r"(?:grand)?(?:ma|pa|mum|mom|dad|mother|father|"
    r"grandma|grandpa))\s+" + _ADVERB + r"(?P<verb>" + IRREGULAR_PAST + r"|[a-z]+ed)\b")
_NAME = r"[A-Z\u00c0-\u00de][^\W\d_]+"  # a capitalised word, accents included ("Tom\u00e1s")
_NAMED_PAST = re.compile(
    r"\b" + _NAME + r"\s+" + _ADVERB + r"(?P<verb>" + IRREGULAR_PAST + r"|[a-z]+ed)\b")
_PERFECT = re.compile(
    r"\b(?:i|we)(?:'ve| have| had|'d)\s+" + _ADVERB +
    r"(?:been to|been going|been working on|gone|done|seen|met|finished|started|tried|visited|"
    r"taken|made|got|gotten|bought|won|lost|signed|booked|joined|completed|adopted|moved|"
    r"been [a-z]+ing\b|[a-z]+ed\b)")
# "your parcel was delivered", "our flight got cancelled": something happened to someone's thing
_PASSIVE_PAST = re.compile(
    r"\b(?:my|our|your|his|her|their) \w+(?: \w+)? (?:was|were|got) (?:just |finally |already )?"
    r"(?P<verb>[a-z]{3,}ed)\b")
_PERSONAL_CLAUSE = re.compile(r"(?<![-\w])(?:i|we)(?:'m|'re|'ll| am| are| will)?\s+[a-z]{2,}")


def is_personal_plan(content: list[str]) -> bool:
    """'We fly to Oslo on May 2', 'I leave on Friday': a first-person sentence in the
    future or the timetable present (the caller checks that its date lies ahead)."""
    return any(_PERSONAL_CLAUSE.search(s.lower()) and sentence_tense(s) == "future"
               for s in content)
_PAST_PROGRESSIVE = re.compile(r"\b(?:i|we|he|she|they) (?:was|were) [a-z]+ing\b")
# weak on their own ("I'll let you know", "I'm doing my best"); with a date they make an event
_FUTURE_OR_ONGOING = re.compile(
    r"\b(?:i|we)(?:'ll| will| shall) (?!be |have |let |see |try |keep |think )[a-z]+|"
    r"\b(?:i'm|i am|we're|we are)(?: currently| now| still| also)? [a-z]+ing\b")
# someone else's plan ("Biscuit will stay with Ana", "my mum is visiting next weekend")
_THIRD_PERSON_PLAN = re.compile(
    r"(?:^|[,;]\s*|\b(?:and|then|so)\s+)(?P<subj>(?i:my|our) [a-z]+(?: " + _NAME + r")?|"
    + _NAME + r"(?: and " + _NAME + r")?|(?i:he|she|they))"
    r"(?:(?:'ll| will| is going to| are going to)\s+(?:also |still |probably |finally )?"
    r"(?!(?:be|have|is|a|an|the|so|very|really|not|always|never)\b)[a-z]+\b|"
    r"(?: is| are|'s|'re)\s+(?:also |still |finally )?(?!(?:boring|amazing|interesting|exciting|"
    r"annoying|confusing|relaxing|tiring|stunning|charming|missing|lacking)\b)[a-z]{2,}ing\b)")
_DIARY_PAST = re.compile(
    r"^(?:just |finally |also )?(?:" + IRREGULAR_PAST + r"|[a-z]+ed) (?:my|a|an|the|some|our|"
    r"up|out|off|to|in|on|with|by|at)\b")
_PLAN = re.compile(
    r"\b(?:i'm|i am|we're|we are|i'll|we'll|i will|we will)\s+(?:going to|gonna|planning|"
    r"about to|heading|flying|leaving|starting|moving|having|hosting|getting|taking|visiting|"
    r"running|attending|meeting)\b|\b(?:i|we) (?:plan|decided|signed up|booked|registered|"
    r"scheduled)\b|\bmy (?:flight|appointment|interview|exam|surgery|trip|wedding|party) is\b|"
    r"\b(?:am|are|is|'m|'re) (?:going|heading|flying|off|travell?ing|driving) to\b")
# -- NONE ----------------------------------------------------------------------------------

_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|yo|good (?:morning|afternoon|evening|night)|morning|bye|goodbye|"
    r"see (?:you|ya)|take care|thanks|thank you|thx|ty|cheers|ok|okay|k|sure|yes|yeah|yep|"
    r"no|nope|nah|cool|nice|great|awesome|wow|lol|haha+|hmm+|got it|sounds good|will do|"
    r"no worries|np|congrats|congratulations|that's (?:great|awesome|amazing|cool|wonderful|"
    r"so cool|fantastic|incredible|nice|lovely|sweet|good)|perfect|exactly|right|agreed|"
    r"same|me too|oh|aww+|omg|(?:really|pretty|very|quite|so|not (?:too|that|so)) (?:well|good|"
    r"bad|great)|not bad|all good|doing (?:well|good|great|fine|ok|okay)|going (?:well|great))"
    r"\b(?:[\s!.,:;)(\-']+[\w']+){0,3}[\s!.,:;)(\-']*$")
# words that open a sentence without carrying anything ("Oh, I held a game last week.")
_INTERJECTION = re.compile(
    r"^(?:(?:oh|ah|yeah|yep|yes|yup|no|nope|nah|wow|well|so|hey|hi|hello|haha+|lol|ok|okay|"
    r"sure|aww+|omg|hmm+|ooh|whoa|honestly|actually|anyway|btw|also|and|but|just)\b[\s,!.:;-]*)+")
_CLAUSE_AFTER_REACTION = re.compile(r"(?:[,;:\-]\s*|\s+)(?:i|we|my|our)\b")
_REACTION = re.compile(
    r"^(?:wow|oh|aww+|omg|haha+|lol|that's|that is|sounds|so|what a|how|congrats|nice|great|"
    r"awesome|cool|amazing|glad|sorry|thanks|thank you|yay|good for you|you're|you are|"
    r"i'm (?:so )?(?:glad|happy|sorry|proud) (?:for|to hear|that you|of you))\b")
# "were you there?" asks; "were engaged, wedding next year" is "we're" typed without its
# apostrophe: a question's "were" is followed by who or what it asks about
WERE_ASKS = (r"were(?! the only\b)(?= (?:you|they|we|there|the|these|those|i|he|she|it|all|any|my|your|his|her|their|our|"
             r"both|not|u|ya|people|things)\b)")
# "can't handle horror anymore", "don't eat pork", "didn't get the job": a negative verb
# opens a statement, not a question
_QUESTION_START = re.compile(
    # ("was a plumber for 10 yrs": a statement whose subject was dropped)
    r"^(?:what|who|where|when|why|how|which|whose|is|are|was(?! (?:a|an)\b)|" + WERE_ASKS + r"|will|any|anything|tell me|"
    r"remind me|any idea|got any|(?:can|could|would|should)(?!n?['\u2019]?t\b)|"
    # "did a proper allergy test", "have a 2 yr old": a verb whose subject was dropped opens a statement
    r"(?:do|does|did)(?!n?['\u2019]?t\b)(?! (?:a|an|some|two|three|four|five|\d+)\b)"
    # "did my masters at UCL", "did my BBA at IBA": a degree done, not "did my parcel arrive"
    r"(?! my (?:phd|masters|master's|mba|bba|bsc|msc|mlis|llb|llm|mbbs|gcses?|a levels|o levels|degree|diploma|"
    r"apprenticeship|residency|internship|undergrad|postgrad|training)\b)|"
    # "have you seen", "has the parcel come": asked of someone or something; "have mild asthma",
    # "have one pickup": what the speaker has, the subject dropped
    r"(?:have|has)(?= (?:you|u|ya|we|they|i|he|she|it|there|any|anyone|anybody|everyone|someone|somebody|people|"
    r"the|your|my|our|their|his|her|that|this|these|those)\b))\b")
_REQUEST = re.compile(
    r"^(?:please |pls |can you |could you |would you |will you )?(?:remind|tell|show|give|"
    r"help|explain|summari[sz]e|translate|write|draft|list|find|recommend|suggest|check|"
    r"look up|search|calculate|convert|fix|make|set|book|play)\b")


# no break after an initial or a title ("Fontaines D.C. are my favourite band", "J.P. Morgan",
# "Dr. Osei"): the rest of the sentence would be read, or dropped, on its own
_EMOJI = "\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F"
# an emoji ends a statement before a question as a full stop would ("went full vegan 😭 vegan mac n cheese
# that doesnt suck?": not one question), unless the next word carries the sentence on ("i love 🍕 and pasta?");
# between two statements it is left alone (what one says the next may lean on: "kiwi flew off 😢 got a new one")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])(?<![\s.(][A-Za-z]\.)(?<!\b(?:Mr|Ms|Dr|St|Jr|Sr)\.)(?<!\bMrs\.)(?<!\b(?:mr|ms|dr)\.)(?<!\b(?:Dra|Sra|Drs|dra)\.)(?<!\bmrs\.)(?<!\b[Pp]rof\.)\s+|\n+"
                             r"|(?<=[" + _EMOJI + r"])\s+(?=\w[^.!?\n]*\?)(?!(?i:and|or|but|with|w|for|to|in|on|at|of|because|"
                             r"cause|cuz|lol|lmao|haha|too|as well)\b)")


def sentences(text: str) -> list[str]:
    parts = _SENTENCE_BREAK.split(text.strip())
    return [p.strip() for p in parts if p.strip()]


_LEAD = r"^(?:(?:hey|hi|ok|okay|so|also|oh|and|btw|fyi|one more thing|quick one)[,!:]?\s+)*"
_ASK = r"(?:(?:can|could|would|will) (?:you|u)\s+(?:just\s+|also\s+)?)?(?:please\s+|pls\s+|plz\s+)?"
_REQUESTS_TO_KEEP = (r"(?:remember|note|keep in mind|bear in mind|make a note|take a note|note down|jot down|"
                     r"write down|save|store|log|add to my notes|keep track of|make a note of|take note of|"
                     r"hang on to|hold on to|hold onto|hang onto)")
# "can you remember that my wife's name is Priya?": the request wraps a statement
_MEMORY_REQUEST = re.compile(
    _LEAD + _ASK + _REQUESTS_TO_KEEP + r"(?: (?:this|that|for later|"
    r"for the future))?[,:]?(?: that\b| the fact that\b)?[,:]?\s+(?P<rest>(?!(?:what|who|where|when|which|how|"
    r"if|whether|to)\b).+?)[?.!\s]*$", re.IGNORECASE)
# "can you remember my cat's name? it's Tofu": the request names the thing, the answer follows
_ASKED_TO_KEEP = re.compile(_LEAD + r"(?:" + _ASK + _REQUESTS_TO_KEEP + r"\s+|(?:hm+|um+|uh+|oh)?[,.]*\s*)"
                            r"(?P<what>(?:my|our) [^?.!]+?)\s*\?$", re.IGNORECASE)
_SAYS_ITS_VALUE = re.compile(r"\b(?:is|are|was|were)\b", re.IGNORECASE)
_ANSWER = re.compile(r"^(?:it's|its|it is|that's|thats|that is|she's|shes|he's|hes|they're|theyre|"
                     r"they are)\s+(?P<value>.+)$", re.IGNORECASE)
# "remind me to call mom on Sunday", "don't let me forget the report is due on the 15th":
# a future event the user asks to be reminded of (not "remind me what my wife's name is")
_REMINDER_REQUEST = re.compile(
    _LEAD + _ASK + r"(?:remind me|don'?t let me forget|dont let me forget|do not let me forget|"
    r"make sure i|ping me|nudge me|set (?:a|an) (?:reminder|alarm)|add (?:a reminder|it to my "
    r"calendar))\b(?!\s+(?:what|who|where|which|how|whether|if|of my)\b)", re.IGNORECASE)


# "can you call me dani from now on?": the name asked for is a statement of it
# "can you use my full name katarzyna from now on", "use olumide in full": a name to be called by
_CALL_ME = re.compile(_LEAD + r"(?:actually,? |from now on,? )?" + _ASK
                      + r"(?:call me|use my (?:full |real |proper |legal )?name,?|use(?= \w+ in full\b)) (?P<name>(?!(?:a|an|the|back|later|when|if|tomorrow|tonight|at|on|"
                      r"in|after|before|now|asap|please|pls|plz|up|out|sometime|whenever|anytime|first|again)\b)"
                      r"[^\W\d_][\w'-]*)\b(?: in full\b)?(?P<rest>[^?]*)\?*\s*$", re.IGNORECASE)


def unwrap_request(sentence: str) -> str:
    """The statement a request to remember wraps ("remember that X?" -> "X.")."""
    m = _MEMORY_REQUEST.match(sentence.strip())
    if m:
        return f"{m['rest']}."
    called = _CALL_ME.match(sentence.strip())
    return f"call me {called['name']}{called['rest']}." if called else sentence


def is_reminder_request(sentence: str) -> bool:
    return _REMINDER_REQUEST.match(sentence.strip()) is not None


def as_plan(sentence: str) -> str:
    """'remind me to call mom on Sunday' -> 'I will call mom on Sunday': the user's own
    plan, so its date resolves forward and its subject is the speaker."""
    m = _REMINDER_REQUEST.match(sentence.strip())
    if m is None:
        return sentence
    rest = re.sub(r"^\s*(?:to|that|about|of)\s+", "", sentence.strip()[m.end():])
    return f"I will {rest}" if rest else sentence


@dataclass
class Cues:
    """Per-class lexical scores and the reasons behind them."""

    scores: dict[str, float] = field(default_factory=lambda: dict.fromkeys(
        ("FACT", "EVENT", "DOCUMENT", "NONE"), 0.0))
    reasons: list[str] = field(default_factory=list)
    pasted_text: bool = False  # "check this paragraph: ...": what follows is not the speaker's

    def add(self, kind: str, weight: float, reason: str) -> None:
        self.scores[kind] += weight
        self.reasons.append(f"{kind}+{weight:g}: {reason}")


# "hi im mohammed", "hey its Chris": a greeting that says who is speaking is content
SELF_INTRODUCTION = re.compile(
    r"^\W*(?:hi+|hey+|hello|hiya|heya|yo|hola|morning|evening)[,!.\s]+(?:i'm|im|i am|it's|its|this is)\s+"
    r"(?P<v>(?!(?:back|here|me|new|good|fine|ok|okay|just|so|not|sorry|bored|tired|home|done|the|a|an|"
    r"still|also|really|very|great|well|late|early|cold|hot|sunny|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|christmas|my)\b)(?![\w'-]{3,}ing\b)[^\W\d_][\w'-]+(?! (?:here|again)\b)|(?-i:[A-Z])[\w'-]+(?= here\b| again\b))(?: here| again)?\W*$", re.IGNORECASE)


# "hello po, Rosario here, retired nurse, 67": a greeting, then who is speaking and what they say
# a hello, in the languages people greet an assistant in ("Bonjour, Salma here")
GREETING_WORDS = (
    r"hi+|hey+|hello|hiya|heya|yo|g'day|morning|evening|good (?:morning|afternoon|evening)|bonjour|bonsoir|hola|buenas|"
    r"ciao|salam|salaam|salaam alaikum|assalamu alaikum|namaste|namaskar|hallo|moin|ola|olá|oi|kia ora|salut|merhaba|"
    r"jambo|habari|sawubona|konnichiwa|annyeong|ni hao|shalom|privet|czesc|cześć|dzien dobry|dzień dobry|ahoj|hej|"
    r"god morgen|goedemorgen|mabuhay|kumusta|sat sri akal|vanakkam|marhaba|ahlan")
_GREETING_THEN_HERE = re.compile(r"^\W*(?:" + GREETING_WORDS + r")\b[\w ]{0,12}?"
                                 r"[,!.]+\s*(?:it's |its |this is )?[^\W\d_][\w'-]+ here\b,? \w")


def is_content_sentence(sentence: str) -> bool:
    """False for questions, greetings and reactions: sentences that carry no memory.

    A leading interjection ("Oh,", "Yeah,") is ignored, and a reaction followed by a
    first-person clause ("That's so cool, I went there last year") is content.
    """
    low = sentence.lower().strip()
    if SELF_INTRODUCTION.match(sentence.strip()) or _GREETING_THEN_HERE.match(low):  # "its Mike here" needs the capital
        return True
    rest = _INTERJECTION.sub("", low)
    if low.endswith("?") or _QUESTION_START.match(low) or (_GREETING.match(low) and not _STATED_AFTER.match(rest)):
        return False
    if _IF_THEN_ASKS.match(rest):
        return False
    if not rest or _GREETING.match(rest) or _QUESTION_START.match(rest):
        return False
    if _REACTION.match(rest) and len(rest.split()) <= 8:
        return _CLAUSE_AFTER_REACTION.search(rest) is not None or _APOLOGY_THEN_STATEMENT.match(rest) is not None
    return True


# "if i won the lottery tomorrow would it be smarter to ...": a condition, then a question asked
# without its question mark (the main clause's verb before its subject)
_IF_THEN_ASKS = re.compile(
    r"^(?:hypothetically,? |just curious,? |(?:so|ok|okay),? )?(?:even )?if\b[^.!?;]*?,?\s"
    r"(?:would|should|could|can|will|do|does|is|are|am)(?:n'?t)? (?:i|we|it|you|u|they|that|there|he|she|my|the)\b")


# "oh and hes pescatarian", "yeah shes 12 now": a statement after an interjection, however short
_STATED_AFTER = re.compile(r"^(?:i'm|im|i've|ive|he's|hes|she's|shes|they're|theyre|we're)\s+\w")


# "sorry the cat is Nori, not Noodle", "Sorry, it's the 23rd": an apology before a statement
# (a correction), not "sorry to hear that" or "sorry for the late reply"
_APOLOGY_THEN_STATEMENT = re.compile(
    r"^sorry[\s,!.:;-]+(?!(?:to|for|about|that|you|u|ur|we|again|guys|man|mate|dude|babe|hun)\b)"
    r"[\w'-]+(?:[\s,]+[\w'-]+){2,}")


_CODE_LINE = re.compile(r"^\s*(?:def |class |import |from \w+ import|function |SELECT |#include|"
                        r"public |const |let |var )", re.M)
_LIST_LINE = re.compile(r"\s*(?:[-*\u2022]|\d+[.)])\s+")
_NUMBER = re.compile(r"\b\d+(?:[.,:/]\d+)*\b")
_DOC_NOUNS = (r"(?:article|text|email|e-mail|letter|recipe|list|paragraph|code|snippet|notes?|"
              r"document|doc|page|poem|lyrics|description|review|summary|report|message|menu|"
              r"transcript|excerpt|quote|specs?|abstract|contract|clause|listing|itinerary|"
              r"schedule|timetable|programme|program|instructions|manual|guide|rules|policy|"
              r"setlist|newsletter|minutes|agenda|invoice|receipt|statement|essay|draft|cv|"
              r"resume|post|thread|definition|output|log|error|table|results?)")
_FRAMING = re.compile(
    r"\b(?:here(?:'s| is| are) (?:the|my|an?|some|this)(?: [\w'-]+){0,3} " + _DOC_NOUNS +
    r"|pasting|pasted|copied|for reference|excerpt|according to|abstract|section \d|chapter)\b")
# ...not a chat's own label ("Small update: I changed into project management")
_LABELLED = re.compile(r"\s*(?!(?i:(?:small |quick |little |big |life |status |minor )?(?:update|news|correction|"
                       r"fyi|ps|p\.s|btw|edit|heads up))\s*:)[A-Z][\w' .-]{1,30}:\s")
_QUOTED_BLOCK = re.compile(r":\s+(?:\S+\s+){14,}")
_EDIT_REQUEST = re.compile(
    r"\b(?:proofread|translate|summari[sz]e|rewrite|edit|check|review|correct|improve|shorten|"
    r"format|paraphrase)\b[^.?!:]{0,40}\b(?:this|these|the following|it)\b", re.I)


def document_cues(message: Message, text: str, cues: Cues) -> None:
    """Reference content: its role, its shape (code, lists, length) and how it is framed."""
    if message.role in ("tool", "document"):
        cues.add("DOCUMENT", 4.0, f"role={message.role}")
    words = len(text.split())
    _shape_cues(text, words, cues)
    _framing_cues(text, words, cues)


def _shape_cues(text: str, words: int, cues: Cues) -> None:
    lines = [line for line in text.splitlines() if line.strip()]
    if "```" in text or _CODE_LINE.search(text):
        cues.add("DOCUMENT", 3.5, "code")
    listed = sum(bool(_LIST_LINE.match(line)) for line in lines)
    if listed >= 3:
        cues.add("DOCUMENT", 2.5, f"{listed} list lines")
    if len(lines) >= 5:
        cues.add("DOCUMENT", 1.5, f"{len(lines)} lines")
    if words >= 300:  # nobody chats in 300-word turns: a pasted text or a long story to chunk
        cues.add("DOCUMENT", 5.5, f"{words} words")
    elif words >= 120:
        cues.add("DOCUMENT", 2.5, f"{words} words")
    elif words >= 70:
        cues.add("DOCUMENT", 1.0, f"{words} words")
    if "http://" in text or "https://" in text or "www." in text:
        cues.add("DOCUMENT", 1.0, "url")
    numbers = len(_NUMBER.findall(text))
    if numbers >= 5:
        cues.add("DOCUMENT", 1.5, f"{numbers} numbers")
    if words >= 40 and not _FIRST_PERSON.search(text.lower()):
        cues.add("DOCUMENT", 1.5, "impersonal long text")


def _framing_cues(text: str, words: int, cues: Cues) -> None:
    head = text[:200].lower()
    if _FRAMING.search(head):
        framed_block = re.search(r":\s*(?:\n|\S)", head) is not None and words >= 15
        cues.add("DOCUMENT", 2.5 if framed_block else 1.5, "reference framing")
    if words >= 10 and _LABELLED.match(text):
        cues.add("DOCUMENT", 2.0, "labelled block ('Recipe: ...')")
    if _QUOTED_BLOCK.search(text) and not text.rstrip().endswith("?"):
        cues.add("DOCUMENT", 1.5, "quoted block after a colon")
    if words >= 20 and _EDIT_REQUEST.search(text[:120]):
        cues.add("DOCUMENT", 2.0, "request with a pasted text")
        cues.pasted_text = True


def _answers_joined(said: list[str]) -> list[str]:
    """'Can you remember my cat's name? It's Tofu.' -> "my cat's name is Tofu."; 'i have a
    gecko!! his name is gary' -> 'i have a gecko named Gary' (one statement)."""
    out: list[str] = []
    for sentence in (part for whole in said for part in _naming_clause_apart(whole)):
        asked = _ASKED_TO_KEEP.match(out[-1]) if out else None
        # "remember my grandma's name is teresa? shes 90": the question said the value itself
        answer = _ANSWER.match(sentence) if asked and not _SAYS_ITS_VALUE.search(asked["what"]) else None
        named = _NAMED_NEXT.match(sentence) if out and _GOT_ONE.search(out[-1]) else None
        if asked and answer:
            out[-1] = f"{asked['what']} is {answer['value']}"
        elif named:  # the name capitalised, as the pet rules read names
            out[-1] = f"{out[-1].rstrip('!.🐱🐶 ')} named {named['name'][:1].upper()}{named['name'][1:]}"
        else:
            out.append(sentence)
    return out


def _naming_clause_apart(sentence: str) -> list[str]:
    """'we adopted a new pup, her name is kiwi': the naming clause as a sentence of its own,
    so that it joins the pet it names as one that follows it would."""
    head, comma, tail = sentence.rpartition(",")
    if comma and _GOT_ONE.search(head) and _NAMED_NEXT.match(tail.strip()):
        return [head, tail.strip()]
    return [sentence]


# "we got a kitten!! named her pudding", "got a corn snake!! calling her Marigold"
_GOT_ONE = re.compile(r"\b(?:i|we)?\s*(?:just |finally )?(?:have|got|adopted|'ve got|bought|rescued) (?:an? |a new )"
                      r"[\w -]{2,30}[!.]*\W*$", re.IGNORECASE)
_NAMED_NEXT = re.compile(r"^(?:(?:his|her|its|their) names?(?: is|'s)?|(?:he|she|it)(?:'s| is) called|"
                         r"(?:calling|named|called) (?:him|her|it))\s+(?P<name>[^\W\d_][\w'-]*)\W*$",
                         re.IGNORECASE)


# "my son Amir is 9 and obsessed with dinosaurs, any museum ideas?", "i live in Cape Town,
# best day hikes?": the question's lead is a statement (a sentence with a question mark is
# no content of its own); the tail is a question word or request, or a few words after a comma
_QUESTION_TAIL = re.compile(
    r"(?:[,;]|\s[-\u2013\u2014]|\s(?:so|but|and)\b|[\U0001F300-\U0001FAFF\u2600-\u27BF]+)\s*"
    r"(?:(?:so|and|but|then)\s+)?(?:(?:[\w'-]+\s+){0,2}?(?:ideas?|tips|suggestions|recommendations)\b[^.!?]*|"
    r"(?:is|are|can|could|should|would|will|do|does|did|how|what|whats|any|which|where|when|why|"
    r"who|ideas?|tips|suggestions|recommendations|thoughts|recommend|suggest|tell me|give me|help me|know|anyone|anybody|"
    r"pls|please|plan|swap|find|write|make|explain|check|show|list|draft|pick|choose|create|translate|"
    r"convert|fix|best|good|cheap|cheapest|easiest|quickest)\b[^.!?]*|(?<=[,;])\s*[\w'-]+(?:\s+[\w'-]+){0,4})\?\W*$",
    re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|ive|my|we|we're|our)\b", re.IGNORECASE)


# "can u give me gym ideas, im 45 and have a bad knee": a request, then a statement
_STATEMENT_AFTER_REQUEST = re.compile(
    r"^[^,?]{3,80}[,;]\s*(?P<statement>(?!(?:i'm|im|i am) (?:good|fine|ok|okay|great|well|alright|doing|not bad|"
    r"so|just|sorry|glad|happy|sure|curious|wondering|asking|trying|thinking|looking)\b)"
    r"(?:i'm|im|i am|i have|i've|ive|my|we're|we have|we've|(?:i|we) (?:live|work|study|teach|grew up|was born|"
    r"were born|moved|speak|own|drive)|i'm from|im from|"
    # ... or one whose "I" is dropped before what happened to the speaker's body or things
    # ("can u suggest low impact cardio, tore my acl last year")
    r"(?:just |recently |finally )?(?:tore|broke|sprained|injured|fractured|dislocated|twisted|lost|sold|bought|"
    r"adopted|quit|left|started|finished|passed) (?:my|our)\b)\b[^?]+)[.!]*$",
    re.IGNORECASE)


# "can you suggest a gift for my wife Lena, she loves pottery": a request naming one of the
# speaker's people, then a statement about them by "she" or "he"
_THEIR_STATEMENT_AFTER_REQUEST = re.compile(
    r"^(?P<request>[^,?]{3,80})[,;]\s*(?P<pronoun>she|he)(?P<verb>'s|\u2019s|s| is|)\s+(?P<rest>[^?]{3,})[.!]*$",
    re.IGNORECASE)
_MY_PERSON = re.compile(r"\bmy (?:(?:new|little|big|older|younger|baby|twin) )?(?P<rel>(?:best|closest) (?:friend|mate)|"
                        r"[a-z][\w-]*)(?: (?-i:[A-Z])[\w-]+)?", re.IGNORECASE)
_PRONOUN_LEAD = re.compile(r"^(?P<pronoun>she|he)(?P<verb>'s|\u2019s|s| is|)\s+(?P<rest>\S.{2,})$", re.IGNORECASE)


def _people_named(text: str) -> list[str]:
    """The speaker's people ``text`` names as "my sister Ana", "my new neighbour Rosa"."""
    return [m[0] for m in _MY_PERSON.finditer(text)
            if RELATION_CANON.get(m["rel"].lower(), m["rel"].lower().split()[-1]) in RELATION_WORDS]


def _said_of(person: str, pronoun_clause: str) -> str | None:
    """"my sister Ana works as a nurse" from "she works as a nurse" said of "my sister Ana"."""
    m = _PRONOUN_LEAD.match(pronoun_clause.strip())
    if m is None:
        return None
    verb = " is" if m["verb"].strip() else ""
    return f"{person}{verb} {m['rest'].strip()}"


def _their_statement(sentence: str) -> str | None:
    """"my wife Lena loves pottery" from "can you suggest a gift for my wife Lena, she loves
    pottery": the pronoun is the one person the request names."""
    m = _THEIR_STATEMENT_AFTER_REQUEST.match(sentence)
    people = _people_named(m["request"]) if m else []
    if m is None or len(people) != 1:
        return None
    return _said_of(people[0], sentence[m.start("pronoun"):])


def _pronouns_resolved(statements: list[str]) -> list[str]:
    """"met my new neighbour Rosa today. shes a retired teacher": a statement opening with
    "she" or "he" right after one that names one of the speaker's people is about them."""
    out = list(statements)
    for n in range(1, len(out)):
        people = _people_named(statements[n - 1])
        # another name in that sentence ("my kid goes by Rowan now, not Rose") may be who is meant
        others = people and _another_name(statements[n - 1].replace(people[0], " "))
        # ("oh and hes pescatarian": the interjection before the pronoun is no part of it)
        said = _said_of(people[0], _INTERJECTION_CASED.sub("", statements[n])) if len(people) == 1 and not others \
            else None
        out[n] = said or out[n]
    return out


_CAPITALISED = re.compile(r"(?P<before>\w+)\s+(?P<word>[A-Z][a-z]+)\b")
_PLACE_PREPOSITIONS = frozenset("in to at from near for of".split())


def _another_name(text: str) -> bool:
    """A capitalised word past the first that is no place ("moved to Oslo") or "I"."""
    return any(m["before"].lower() not in _PLACE_PREPOSITIONS and m["word"] not in ("I", "Im")
               for m in _CAPITALISED.finditer(text))


def statements_in_questions(text: str) -> list[str]:
    """The statement leads of ``text``'s questions ("i live in Cape Town, best day hikes?"),
    and statements after a request ("can u give me gym ideas, im 45"; "a gift for my wife
    Lena, she loves pottery": my wife Lena loves pottery)."""
    out = []
    for sentence in sentences(text):
        tail = _QUESTION_TAIL.search(sentence) if sentence.rstrip().endswith("?") or "?" in sentence[-3:] else None
        lead = sentence[:tail.start()].strip() if tail else ""
        after = _STATEMENT_AFTER_REQUEST.match(sentence) if not tail and not is_content_sentence(sentence) else None
        lead = after["statement"].strip() if after else lead
        if not tail and not after and not is_content_sentence(sentence):
            lead = _their_statement(sentence) or lead
        if len(lead.split()) >= 2 and is_content_sentence(lead):
            out.append(lead)
    return out


# "check the grammar: We was closed on friday", "translate to yoruba: welcome to our shop": the
# words after the colon are the text to work on, not what the speaker tells the assistant
_TEXT_TASK = re.compile(
    r"^(?:(?:hey|hi|ok|okay|pls|please|plz|can you|could you|would you|can u|could u)[,!]?\s+)*"
    r"(?:(?:check|fix|correct)(?: the| my)? (?:grammar|spelling|punctuation|wording|tone|english|typos)|"
    r"proofread|translate|rewrite|re-write|rephrase|reword|paraphrase|summari[sz]e|shorten|polish|"
    r"make (?:this|it|that|my \w+|an? \w+)(?: \w+)? (?:sound|more|less|shorter|longer|clearer|friendlier|politer))"
    r"\b[^:\n]{0,70}:", re.IGNORECASE)


def content_sentences(text: str) -> list[str]:
    """The statements of ``text``: its sentences minus questions, greetings and reactions;
    a request to remember counts as the statement it wraps, a reminder request as content;
    none in a text given to edit or translate."""
    if _TEXT_TASK.match(text.strip()):
        return []
    out = []
    for sentence in _answers_joined(sentences(text)):
        sentence = unwrap_request(sentence)
        if is_reminder_request(sentence):
            out.append(sentence)
        elif is_content_sentence(sentence):  # "write a card for my dad, hes turning 70": his age
            out.append(_REQUEST.match(sentence.lower()) and _their_statement(sentence) or sentence)
        elif _FIRST_PERSON.search(sentence):  # a first-person lead of a question is content
            out.extend(statements_in_questions(sentence))
    return _pronouns_resolved(out)


def none_cues(message: Message, text: str, content: list[str], cues: Cues) -> None:
    low = text.lower().strip()
    words = len(low.split())
    cues.add("NONE", 1.0, "prior")
    if not content:
        cues.add("NONE", 2.0, "only questions/greetings/reactions")
    if words <= 4:
        cues.add("NONE", 1.0, "very short")
    if _REQUEST.match(low) or low.endswith("?"):
        cues.add("NONE", 1.0, "request or question")
    if message.role == "assistant":
        cues.add("NONE", 0.5, "assistant turn")


def event_cues(content: list[str], cues: Cues) -> None:
    joined = " ".join(content)
    low = joined.lower()
    if not low:
        return
    past = [m["verb"] for m in _PAST_ACTION.finditer(low) if m["verb"] not in _STATIVE_ED]
    past += [m["verb"] for m in _NAMED_PAST.finditer(joined) if m["verb"] not in _STATIVE_ED]
    if past:
        cues.add("EVENT", 2.0, f"past action '{past[0]}'")
    if _PERFECT.search(low):
        cues.add("EVENT", 1.5, "present perfect")
    passive = [m["verb"] for m in _PASSIVE_PAST.finditer(low) if m["verb"] not in _STATIVE_ED]
    if passive and not past:
        cues.add("EVENT", 1.5, f"passive past 'was {passive[0]}'")
    if _PAST_PROGRESSIVE.search(low):
        cues.add("EVENT", 1.5, "past progressive")
    if any(_DIARY_PAST.match(_INTERJECTION.sub("", s.lower())) for s in content):
        cues.add("EVENT", 1.5, "subjectless past ('Twisted my knee ...')")
    if _FUTURE_OR_ONGOING.search(low):
        cues.add("EVENT", 0.75, "future or ongoing action")
    if _PLAN.search(low):
        cues.add("EVENT", 1.5, "plan or scheduled action")
    elif any(_is_plan_subject(m["subj"]) for s in content
             for m in _THIRD_PERSON_PLAN.finditer(_INTERJECTION.sub("", s))):
        cues.add("EVENT", 1.5, "someone's plan ('she is visiting', 'Ana will ...')")


# capitalised words that open a sentence without naming anyone
_NOT_SUBJECT_NAMES = frozenset(
    "the this that these those it there here what which who whom whose where when why how a an "
    "he she they we i you yesterday today tomorrow tonight then also so but and or if maybe "
    "everything nothing something someone everyone nobody anyone life things everybody "
    "last next on in at after before during since once now well oh yes no please thanks "
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "may june july august september october november december".split())


def _is_plan_subject(subject: str) -> bool:
    first = subject.split()[0].lower()
    return first in ("my", "our", "he", "she", "they") or first not in _NOT_SUBJECT_NAMES


_LEADING_TIME = re.compile(
    r"^(?:(?:yesterday|today|tonight|tomorrow|earlier|later|this (?:morning|afternoon|evening|"
    r"week|weekend|month|year)|(?:last|next|this past|this coming) \w+|on \w+day|in \w+|"
    r"(?:a|one|two|three|a few|a couple of|\d+) \w+ (?:ago|later)|the other day|over the "
    r"weekend)(?: (?:morning|afternoon|evening|night))?[,:]?\s+)+", re.IGNORECASE)
_LABEL = re.compile(r"^[\w' ]{1,25}:\s+")  # "Big news: I moved ...", "Update: ..."
_CLAUSE_SUBJECT = re.compile(
    r"^(?:(?P<you>[Yy]ou(?:r)?)\b|"
    r"(?P<rel_owner>[Mm]y|[Oo]ur) (?P<rel>[a-z]+)(?: (?P<rel_name>" + _NAME + r"))?|"
    r"(?P<name>" + _NAME + r")(?P<with> and (?:I|me|" + _NAME + r"))?)\b(?!')"
    r"(?!\s*[,!:])")  # "Mel, I went ...": a name addressed, not the subject


def event_subject(content: list[str], speaker: str, addressee: str | None = None) -> str:
    """Who an event is about: the subject of its first statement.

    "Yesterday Tom\u00e1s played a concert" -> "Tom\u00e1s"; "My mum is visiting" ->
    "<speaker>'s mum"; "My sister Ana moved" -> "Ana"; "I", "we", "Ana and I" and anything
    unclear -> the speaker; "you"/"your ..." -> ``addressee`` (when known).
    """
    for sentence in content[:3]:
        clause = _INTERJECTION_CASED.sub("", _LABEL.sub("", sentence.strip()))
        clause = _LEADING_TIME.sub("", clause)
        m = _CLAUSE_SUBJECT.match(clause)
        if m is None:
            continue
        if m["you"]:
            return addressee or speaker
        if m["rel"]:
            if m["rel"] in _OWNED_NOT_PEOPLE:
                return speaker
            return m["rel_name"] or f"{speaker}'s {m['rel']}"
        if m["with"] and m["with"].split()[-1] in ("I", "me"):
            return speaker
        if m["name"].lower() not in _NOT_SUBJECT_NAMES:
            return m["name"] + (m["with"] or "")
        return speaker
    return speaker


_INTERJECTION_CASED = re.compile(_INTERJECTION.pattern, re.IGNORECASE)
# "my day was long", "my flight leaves at 9": the speaker's own things, not another person
_OWNED_NOT_PEOPLE = frozenset(
    "day week weekend flight trip train car house flat apartment job work team company "
    "plan plans appointment interview exam class course meeting phone laptop back knee "
    "head leg arm birthday wedding party garden kitchen project talk presentation "
    "thesis book paper shift".split())


# an assistant confirming its own bookkeeping ("Saved the list.", "Noted.", "I'll remember that")
_BOOKKEEPING = re.compile(
    r"^(?:(?:ok(?:ay)?|sure|done|great|got it|all set|perfect|of course)[,.!:]?\s*)*"
    r"(?:(?:i(?:'ve| have)|i'll|i will|i just)\s+)?(?:saved|noted|updated|added|stored|recorded|"
    r"logged|remembered|deleted|removed|changed|created|made a note|taken note|noted down|"
    r"set (?:up|a reminder)|scheduled a reminder|filed|archived|bookmarked|tagged|renamed|"
    r"remember|keep (?:that|this|it) in mind|make a note|note (?:that|this|it)|save|update|add)\b"
    r"|^(?:noted|done|saved|updated|got it|will do)[.!]*$", re.IGNORECASE)


def is_bookkeeping(content: list[str], text: str) -> bool:
    """True when an assistant turn only confirms what it stored or will remember."""
    first = content[0] if content else text.strip()
    return bool(_BOOKKEEPING.match(first.strip()))


# a tool's "nothing found" or "done": a result with nothing in it to keep
_EMPTY_RESULT = re.compile(
    r"^\W*(?:(?:no|0|zero) (?:results?|matches|items|events|messages|records|entries|files)\b[^\n]{0,60}|"
    r"(?:search|query) returned (?:no|0|zero) results?\b[^\n]{0,60}|nothing (?:found|to show)|not found|"
    r"ok|okay|success(?:ful)?|done|sent|deleted|saved|created|updated|"
    r"(?:reminder|event|message|note|task|alarm|timer) (?:created|set|saved|sent|added|deleted|updated))\W*$",
    re.IGNORECASE)
# the fields of an acknowledgement ('{"status": "ok", "message_id": "wamid.HB...", "delivered": true}'):
# flags, counts and ids, no words
# (an empty list or object is nothing found: '"results": []')
_ACK_VALUE = re.compile(r"^(?:true|false|null|-?\d+(?:\.\d+)?|\[\s*\]|\{\s*\}|\"(?:ok|okay|success|sent|delivered|done|created|deleted|"
                        r"saved|queued|accepted|completed|[\w.:/-]{0,40}\d[\w.:/-]{0,40})\")$", re.IGNORECASE)
_JSON_FIELD = re.compile(r"\"[\w-]+\"\s*:\s*(\"[^\"\n]*\"|[^,}\n]+)")


def is_acknowledgement(text: str) -> bool:
    """A tool's output says it did something or found nothing, and holds nothing else."""
    stripped = text.strip()
    if _EMPTY_RESULT.match(stripped):
        return True
    if not (stripped.startswith("{") and stripped.endswith("}")) or len(stripped) > 400:
        return False
    fields = _JSON_FIELD.findall(stripped)
    return bool(fields) and len(fields) <= 6 and all(_ACK_VALUE.match(value.strip()) for value in fields)
