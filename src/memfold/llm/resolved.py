"""Things said to be over: a stored health condition or allergy that healed, cleared or
was outgrown, a goal reached, a pastime or taste given up and an aversion that went keep their
key and take how it ended, in the speaker's words, as their value.

"Tobi has outgrown the peanut allergy" after "my son Tobi is allergic to peanuts" gives
``Tobi / allergy:peanuts = outgrown`` (the changelog keeps "peanuts"). Keeping the key, rather
than deleting it, is what an assistant needs: it should neither warn about peanuts nor forget
that there was an allergy. Only a condition already in the profile is resolved, named by a word
of it ("egg" for "eggs", "wrist" for "broken wrist"), or, for "in remission", the one condition
stored for a person the message names.

The same holds for pursuits: "PASSED N3!!!" after "my goal is JLPT N3" gives
``goal:jlpt_n3 = passed``, "gave up the radios" gives ``hobby:restoring_old_valve_radios =
gave up``, "coriander grew on me" gives ``dislikes:coriander = grew on me``: the assistant
should stop suggesting study plans, radio parts or coriander-free recipes, and still know.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memfold.llm.keys import CHILD_WORDS, PARTNER_WORDS, RELATION_WORDS, relation_words
from memfold.llm.spans import find_said
from memfold.llm.values import content_words
from memfold.models import FactExtraction, Message

RESOLVED_FAMILIES = ("health", "allergy")
# the resolution's words, as they become the value ("is normal now": "normal")
_RESOLUTION = re.compile(
    r"\b(?:(?:is|are|was|s|'s|back)\s+(?:(?P<back>to)\s+)?)?(?:finally\s+)?(?P<v>(?:(?:fully|completely|totally|all|basically|"
    r"pretty much|100%)\s+)?"
    r"(?:outgrew|outgrown|grew out of|grown out of|in remission|healed|cured|cleared up|cleared|clear|resolved|"
    r"repaired|fixed|(?:cancer|seizure|pain|symptom)[- ]free|"
    r"gone|went away|normal|recovered|under control|(?:walking|doing|feeling)\s+fine|"
    # "im fine with cats now" (after allergy shots): the allergy is over, said with what it was to
    r"(?:(?<=\bim )|(?<=\bi'm )|(?<=\bi am ))fine (?:with|around) (?:[\w'-]+ ){0,2}?[\w'-]+(?= now\b| these days\b| again\b)|fine|ruled out|"
    # a test that disproved it ("shellfish came back negative")
    r"(?<=came back )negative|(?<=tested )negative|(?<=test was )negative|"
    # "foot is finally better", "Jarrah is all better now", "his back is all good now": better
    # alone is only getting there ("a bit better today")
    r"(?<=all )better|(?<=all )good(?= now\b)|(?<=finally )better|good as new|back to normal)"
    r"(?:\s+(?:again|fully|completely|for good))?|"
    # an allergy a test disproved or that went ("no longer allergic to sulfa"): allergies only
    r"(?:no longer|not actually|not really|not) allergic(?= to\b| anymore\b| any more\b))\b", re.IGNORECASE)
# not over yet, or only hoped or asked about ("hasnt outgrown", "hoping it clears", "almost gone")
_NOT_SAID_OVER = re.compile(
    r"\b(?:not|no|never|hasnt|hasn't|havent|haven't|isnt|isn't|wasnt|wasn't|didnt|didn't|doesnt|doesn't|"
    r"wont|won't|hope|hoping|hopefully|might|may|could|would|will|if|whether|until|almost|nearly|"
    r"yet|partly|partially|mostly)\b", re.IGNORECASE)
# the words that would name any condition, not one ("the allergy is gone")
_ANY_CONDITION = content_words("allergy allergic allergies intolerance intolerant condition diagnosis problem issue")
_FIRST_PERSON = re.compile(r"\b(?:i|im|i'm|my|me|ive|i've|mine)\b", re.IGNORECASE)
_THIRD_PERSON = re.compile(r"\b(?:he|his|him|hes|he's|she|her|hers|shes|she's|they|their|them)\b", re.IGNORECASE)
_SAYS_WHAT = re.compile(r"\s+(?:that|to|how|why|what|whether|into|out)\b", re.IGNORECASE)
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
_RELATIVE_SAID = re.compile(rf"\b(?:my|our)\s+(?:{'|'.join(sorted(map(re.escape, RELATION_WORDS)))})\b", re.I)
_OBJECT_ENDS = re.compile(r"\b(?:so|and|but|because|cause|cuz|coz|when|then|to|since|after|as|while|which|"
                          r"at|in|on|for|with|from|of|by|near|into)\b", re.I)
_CONJUNCTIONS = re.compile(r"\b(?:and|but|so|because|cause|though|although|while)\b", re.IGNORECASE)
_ANYMORE = re.compile(r"\b(?:anymore|any more)\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\s+but\s+|;\s*")


# a resolution of "it": the condition is named in a sentence before
_IT_OVER = re.compile(r"\b(?:outgrown|outgrew|grew out of|grown out of|healed|cured|cleared|resolved)\s+it\b|"
                      r"\b(?:it's|its|it is|it has)\s+(?:all\s+|completely\s+|fully\s+)?(?:gone|cleared|healed|resolved)\b",
                      re.IGNORECASE)


def resolved_conditions(text: str, message: Message,
                        current: dict[tuple[str, str], str]) -> list[FactExtraction]:
    """Updates giving each stored condition ``text`` says is over its resolution as value."""
    out: dict[tuple[str, str], FactExtraction] = {}
    earlier = ""
    for sentence in _SENTENCES.split(text):
        resolved = _first_resolution(sentence, current)
        if not resolved and _IT_OVER.search(sentence):  # "theo can eat eggs now! allergist said hes outgrown it"
            resolved = _first_resolution(f"{earlier} {sentence}", current)
        earlier = f"{earlier} {sentence}"
        for subject, key, said in resolved:
            out.setdefault((subject, key), FactExtraction(
                action="update", subject=subject, key=key, value=said, evidence_msg_id=message.msg_id,
                reason=f"condition said to be over: {said!r}", subject_quote=_named_as(subject, text, current)))
    return list(out.values())


def _first_resolution(sentence: str, current: dict[tuple[str, str], str]) -> list[tuple[str, str, str]]:
    """The stored conditions ``sentence`` resolves and how: the first resolution whose own
    clause names one ("sugar is normal now, diabetes is in remission": "in remission"), else
    the first one any word of the sentence names ("mums scans came back clear, shes in
    remission": "clear" names none, "in remission" the one she has)."""
    said_in = list(_resolutions_said(sentence))
    for naming in ("clause", "sentence"):
        for said, clause in said_in:
            meant = _conditions_meant(_part_saying(said, clause) if naming == "clause" else sentence,
                                      said, clause, current)
            if meant:
                return [(subject, key, said) for subject, key in meant]
    return []


# how a pursuit ended, by family: the verb before the thing ("quit pottery", "passed my
# driving test") or the thing before the phrase ("coriander grew on me", "deposit saved")
_REACHED = ("goal", "skill")
_GIVEN_UP = ("hobby", "likes")
_ENDINGS: tuple[tuple[tuple[str, ...], re.Pattern[str] | None, re.Pattern[str] | None], ...] = (
    (_REACHED, re.compile(r"\b(?P<v>achieved|reached|passed|finished|completed|opened|hit|smashed|nailed)\b", re.I),
     re.compile(r"\b(?P<v>done|achieved|reached|passed|finished|completed|opened|saved|smashed|nailed it)\b", re.I)),
    (_GIVEN_UP, re.compile(r"\b(?P<v>quit|gave up(?: on)?|given up(?: on)?|packed in|packed up|jacked in|stopped|dropped|done with|no more|"
                          r"(?<=\bim )over|(?<=\bi'm )over|(?<=\bam )over|so over|totally over)\b", re.I),
     re.compile(r"\b(?:is|are|s|'s|was)\s+(?P<v>over|done(?=\s+for\s+me\b))\b", re.I)),
    (("dislikes", "fear"), re.compile(r"\b(?P<v>changed my mind|(?:don't|dont|do not|doesn't|doesnt|does not|no longer) (?:hate|mind|dislike)"
                               r"(?=(?:\s+[\w'-]+){1,3}\s+any ?more\b))\b(?:\s+(?:about|on)\b)?", re.I),
     # ... or is fine now ("olives are fine now lol, my tastebuds changed")
     re.compile(r"\b(?:(?:has|have|s|'s|ve|'ve)\s+)?(?P<v>(?:(?<=\bis )|(?<=\bare )|(?<='s ))(?:fine|ok|okay|alright)"
                r"(?=\s+(?:now|these days)\b)|grew on me|grown on me|won me over|changed my mind|"
                r"(?:doesn't|doesnt|does not|don't|dont|do not) bother me any ?more)\b", re.I)),
    # a goal given up ("gave up on the divemaster thing, too expensive"); "quit" is left out, as
    # quitting can be the goal ("quit smoking")
    (("goal",), re.compile(r"\b(?P<v>gave up(?: on)?|given up(?: on)?|abandoned|scrapped|shelved)\b", re.I), None),
    # a skill said to have faded or grown ("my welding is rusty now", "my german has completely
    # gone", "im fluent in italian finally")
    (("skill",), re.compile(r"\b(?:i'm|im|i am|am|now|finally|became|got)\s+(?:(?:now|finally|basically|properly)\s+)?"
                            r"(?P<v>fluent) in\b", re.I),
     re.compile(r"\b(?:is|s|'s|has)\s+(?:(?:pretty|really|so|very|now|a bit|kinda)\s+)*"
                r"(?P<v>(?:completely |totally |basically )?(?:rusty|gone|fluent))\b", re.I)),
    # a skill forgotten ("forgot all my italian, only ciao left")
    (("skill",), re.compile(r"\b(?P<v>forgot|forgotten)\b(?= (?:all |most |nearly all |almost all )?(?:of )?my\b)", re.I), None),
    # a like gone sour ("went off sushi after that food poisoning", "pineapple on pizza is gross")
    (("likes",), re.compile(r"\b(?P<v>went off|gone off|(?:fell|falling) out of love with)\b", re.I),
     re.compile(r"\b(?:is|are|s|'s)\s+(?:now\s+|actually\s+|honestly\s+|just\s+)?(?P<v>gross|disgusting|overrated|dead to me)\b",
                re.I)),
)
# a goal ended without naming it ("did it!!!", "goal achieved"): the one stored goal, or the
# one a word of the message names
_DONE_WITHOUT_THE_GOAL = frozenset({"did it", "nailed it"})
_GOAL_DONE = re.compile(r"\b(?:(?:goal|dream)\s+(?P<g>achieved|reached|smashed|done)|(?P<d>did it|nailed it))\b", re.I)
# a plan or a wish is not an ending ("want to quit", "gonna give up")
_NOT_ENDED = re.compile(r"\b(?:want|wanna|gonna|going|plan|planning|thinking|think|should|shall|try|trying|"
                        r"almost|nearly)\b", re.I)
# words of a goal or pastime too plain to name one ("get", "learn": "learn to swim")
_PLAIN = content_words("get make learn run go do have take start become try new old more less one k "
                       "good better first own big")


def ended_pursuits(text: str, message: Message,
                   current: dict[tuple[str, str], str]) -> list[FactExtraction]:
    """Updates giving each stored goal, skill, pastime, like or dislike ``text`` says is
    reached, given up or over how it ended as value."""
    out: dict[tuple[str, str], FactExtraction] = {}
    # ("hit 100 boards 🙌 goal smashed": the goal's own word for how it ended comes first; "did it"
    # comes after the words of the goal itself: "DID IT. oslo marathon done")
    done = _goal_done(text, current)
    for subject, key, said in done:
        if said not in _DONE_WITHOUT_THE_GOAL:
            out[(subject, key)] = _ended(subject, key, said, message)
    for sentence in _SENTENCES.split(text):
        for families, said, part, before in _endings_said(sentence):
            for subject, key in _pursuits_meant(part, before, said, families, current):
                out.setdefault((subject, key), _ended(subject, key, said, message).model_copy(
                    update={"subject_quote": _named_as(subject, text, current)}))
    for subject, key, said in done:
        out.setdefault((subject, key), _ended(subject, key, said, message))
    return list(out.values())


def _as_written(said: str, text: str) -> str:
    """``said`` as the message spells it: read from its standard spelling, "doesn't" may be
    typed "doesnt" (a value is grounded in the message's own words)."""
    words = []
    for word in said.split():
        found = re.search(r"(?<!\w)" + re.escape(word).replace("'", "'?") + r"(?!\w)", text, re.IGNORECASE)
        words.append(found[0].casefold() if found else word)
    return " ".join(words)


def _ended(subject: str, key: str, said: str, message: Message) -> FactExtraction:
    said = _as_written(said, message.text)
    return FactExtraction(action="update", subject=subject, key=key, value=said,
                          evidence_msg_id=message.msg_id, reason=f"said to be over: {said!r}")


def _endings_said(sentence: str) -> list[tuple[tuple[str, ...], str, str, str]]:
    """(families, the ending's words, the part naming the thing, the clause before the
    ending) for each ending ``sentence`` states and does not ask, hope, plan or deny."""
    found = []
    for families, verb_first, thing_first in _ENDINGS:
        for pattern, thing_after in ((verb_first, True), (thing_first, False)):
            for match in pattern.finditer(sentence) if pattern else ():
                before, after = sentence[:match.start()].split(",")[-1], sentence[match.end():].split(",")[0]
                if _NOT_SAID_OVER.search(before) or _NOT_ENDED.search(before) or _asked(sentence, after):
                    continue
                said = " ".join(match["v"].split()).casefold()
                if families[0] == "dislikes" and said.split()[0] in ("don't", "dont", "do", "doesn't", "doesnt", "does", "no") \
                        and not _ANYMORE.search(said):
                    said += " anymore"  # "i dont hate cilantro anymore": "dont hate" alone denies a dislike
                found.append((families, said, _object_of(after) if thing_after else " ".join(before.split()[-2:]),
                              before))
    return found


# how a question opens; a statement that ends "??" without one is surprise ("i dont hate
# cilantro anymore??"), not a question
_QUESTION_OPENING = re.compile(r"^\W*(?:do|does|did|is|are|was|were|am|can|could|should|shall|would|will|have|has|"
                               r"had|what|whats|how|hows|why|when|where|which|who|whose)\b", re.I)


def _asked(sentence: str, after: str) -> bool:
    """Whether the words after an ending ask rather than say it ("is she over it?")."""
    end = after.rstrip()
    if not end.endswith("?"):
        return False
    return not end.endswith(("??", "?!", "!?")) or bool(_QUESTION_OPENING.match(sentence))


def _object_of(after: str) -> str:
    """The words after an ending verb up to a preposition or a new clause, which say what
    ended ("quit [the salsa classes] so i ..."), not a later clause's or phrase's ("the rain
    stopped so we played chess", "dropped the kids at football")."""
    return " ".join(_OBJECT_ENDS.split(after, maxsplit=1)[0].split()[:4])


def _pursuits_meant(part: str, before: str, said: str, families: tuple[str, ...],
                    current: dict[tuple[str, str], str]) -> list[tuple[str, str]]:
    """The stored pursuits of ``families`` a word of ``part`` names, when they are the
    pursuits of one person, the one ``before`` (the words before the ending) speaks of."""
    words = content_words(part) - content_words(said) - _PLAIN
    # (a pursuit of plain words is named by all of them: "gave up running")
    named = [(s, k) for (s, k), v in current.items()
             if k.split(":", 1)[0] in families and v and ((condition_words(k, v) - _PLAIN) & words
                                                          or find_said(part, v) is not None)]
    others = {w for s, _ in current if s != "user" for w in _person_words(s)}
    named = [(s, k) for s, k in named if _ended_by(s, before, others) or _named_as(s, before, current)]
    return named if len({s for s, _ in named}) == 1 else []


def _ended_by(subject: str, before: str, others: set[str]) -> bool:
    """Whether the words before an ending can name ``subject`` as who ended it: the speaker
    when no one else is named there ("my sister quit pottery" is the sister's), anyone else
    by their name or a third-person pronoun (or the word of their stored relation:
    ``_named_as``)."""
    words = content_words(before)
    if subject != "user":
        return _person_named(subject, words) or bool(_THIRD_PERSON.search(before))
    return not (_THIRD_PERSON.search(before) or others & words or _RELATIVE_SAID.search(before)
                or any(_someone_named(word) for word in _NAME.findall(before)))


def _someone_named(word: str) -> bool:
    """A capitalised word that can name a person ("Ravi"), not an opening word ("Finally")."""
    return bool(content_words(word)) and not word.casefold().endswith("ly") and not _FIRST_PERSON.fullmatch(word)


def _goal_done(text: str, current: dict[tuple[str, str], str]) -> list[tuple[str, str, str]]:
    """A goal said to be reached without its words ("goal achieved!!", "did it!!! 3:52 at the
    marathon"): the speaker's one stored goal, or the one goal a word of ``text`` names."""
    # ("DID IT 🏃 finished manchester, goal achieved": "goal achieved" says which goal, "did it" may not)
    match = max(_GOAL_DONE.finditer(text), key=lambda m: bool(m["g"]), default=None)
    if match is None or _NOT_SAID_OVER.search(text[:match.start()]) or _NOT_ENDED.search(text[:match.start()]):
        return []
    goals = [(k, v) for (s, k), v in current.items() if s == "user" and k.startswith("goal") and v]
    words = content_words(text) - _PLAIN
    named = [(k, v) for k, v in goals if (condition_words(k, v) - _PLAIN) & words]
    chosen = named if named else goals if match["g"] else []
    said = (match["g"] or match["d"]).casefold()
    return [("user", chosen[0][0], said)] if len(chosen) == 1 else []


def _part_saying(said: str, clause: str) -> str:
    """The part of ``clause`` between conjunctions that says ``said`` ("the lupus is in
    remission" of "levels are normal and the lupus is in remission")."""
    parts = _CONJUNCTIONS.split(clause)
    return next((part for part in parts if said.split()[-1] in part.casefold()), clause)


def _resolutions_said(sentence: str) -> Iterator[tuple[str, str]]:
    """Each resolution ``sentence`` states and the clause saying it (none asked, hoped or
    negated)."""
    for match in _RESOLUTION.finditer(sentence):
        if match["v"].casefold().split()[0] in ("normal", "fine") and not match[0].casefold().startswith(
                ("is", "are", "was", "s", "'s", "back", "fine with", "fine around")):
            continue  # "normal" or "fine" alone is no resolution ("normal hearing", "fine print")
        before, after = sentence[:match.start()].split(",")[-1], sentence[match.end():].split(",")[0]
        if _SAYS_WHAT.match(after) and not match["v"].casefold().endswith("allergic"):
            continue  # "it's clear that my asthma is worse", "gone to the clinic": no resolution
        if _NOT_SAID_OVER.search(before) or _asked(sentence, after):
            continue
        value = " ".join(match["v"].split()).casefold()
        if value.startswith("not ") and _ANYMORE.search(after):
            value += " anymore"  # "not allergic to cats anymore": "not allergic" alone is a denial
        yield (f"back to {value}" if match["back"] else value), before + match[0] + after


def _conditions_meant(sentence: str, said: str, clause: str,
                      current: dict[tuple[str, str], str]) -> list[tuple[str, str]]:
    """The stored conditions ``sentence`` names (by a word of the condition), narrowed to the
    person its ``clause`` speaks of; for "in remission" alone, a named person's one stored condition."""
    # ("cancer free" names the condition it is free of)
    # (and "fine with cats" the thing it is fine with)
    words = content_words(sentence) - content_words(re.sub(r"^\w+[- ](?=free$)|(?<=^fine) (?:with|around) .*", "", said))
    families = ("allergy",) if said.endswith("allergic") else RESOLVED_FAMILIES
    stored = [(subject, key, value) for (subject, key), value in current.items()
              if key.split(":", 1)[0] in families and value]
    named = [(s, k) for s, k, v in stored if _names_condition(condition_words(k, v), words)]
    if not named and (said == "in remission" or said in _RECOVERED):
        named = [(s, k) for s, k, v in stored if k.startswith("health") and _person_named(s, words)]
        if len({s for s, _ in named}) != 1 or len(named) != 1:
            return []
    others = {w for s, _ in current if s != "user" for w in _person_words(s)}
    if not _names_anyone(clause, others):  # "Haruto can eat eggs now, the allergy is gone": Haruto's
        clause = sentence
    named = [(s, k) for s, k in named if _spoken_of(s, clause, content_words(clause), others)]
    return named if len({s for s, _ in named}) == 1 else []


# a person named as recovered, no condition named: their one stored condition ("Jarrah is all better now")
_RECOVERED = frozenset({"all better", "all good", "fully recovered", "recovered", "good as new", "back to normal"})


def _names_anyone(clause: str, others: set[str]) -> bool:
    return bool(_FIRST_PERSON.search(clause) or _THIRD_PERSON.search(clause) or others & content_words(clause)
                or any(_someone_named(word) for word in _NAME.findall(clause.lstrip()[1:])))


def _names_condition(condition: set[str], words: set[str]) -> bool:
    """A word of the condition is said, or a long word it ends with ("the arthritis is gone"
    for osteoarthritis)."""
    return bool(condition & words) or any(len(w) >= 7 and c.endswith(w) for c in condition for w in words)


# the other words a condition goes by: its short form ("TB") and the part of the body it is of
# ("knee is 100% healed" after a torn ACL); general anatomy, read both ways for short forms
_ALSO_NAMED = {
    "acl": "knee", "mcl": "knee", "meniscus": "knee", "kneecap": "knee",
    "patella": "knee", "disc": "back spine", "sciatica": "back", "lumbago": "back", "spine": "back",
    "rotator": "shoulder", "cuff": "shoulder", "achilles": "ankle heel", "plantar": "foot heel",
    "fasciitis": "foot heel", "carpal": "wrist hand", "tennis elbow": "elbow", "hamstring": "leg",
    "stone": "kidney", "kidney": "stone", "pneumonia": "lung chest", "bronchitis": "chest",
    "urinary tract infection": "uti", "irritable bowel syndrome": "ibs", "glandular fever": "mono",
    "mononucleosis": "mono", "shingles": "rash", "conjunctivitis": "eye", "tonsillitis": "throat",
}
_SHORT_FORMS = {"tb": "tuberculosis", "uti": "urinary tract infection", "ibs": "irritable bowel syndrome",
                "bp": "blood pressure"}


def condition_words(key: str, value: str) -> set[str]:
    # a hyphenated word is typed joined too ("k-dramas", "kdramas")
    joined = content_words(" ".join(word.replace("-", "") for word in value.split() if "-" in word))
    words = (content_words(value) | joined | content_words(key.partition(":")[2].replace("_", " "))) - _ANY_CONDITION
    if key.partition(":")[0] not in RESOLVED_FAMILIES:
        return words
    said = " ".join([value, key.partition(":")[2].replace("_", " ")]).casefold()
    also = [other for name, other in _ALSO_NAMED.items() if re.search(rf"\b{name}s?\b", said)]
    also += [other for short, other in _SHORT_FORMS.items() if re.search(rf"\b{short}\b", said)]
    also += [short for short, other in _SHORT_FORMS.items() if re.search(rf"\b{other}\b", said)]
    return words | content_words(" ".join(also)) - _ANY_CONDITION


def _named_as(subject: str, text: str, current: dict[tuple[str, str], str]) -> str:
    """The word of ``text`` that names a person stored by name, when it is not their name:
    the relation the speaker stored them under ("dads hip" for Lars, the stored dad)."""
    words = content_words(text)
    if "'s " in subject or subject == "user" or content_words(subject) <= words:
        return ""
    said = [word for (owner, key), value in current.items() if owner == "user" and value == subject
            for word in _relation_words_of(key)]
    return next((word for word in said if content_words(word) and content_words(word) <= words), "")


def _relation_words_of(key: str) -> tuple[str, ...]:
    family, _, thing = key.partition(":")
    if family == "family":
        return relation_words(thing.replace("_", " "))
    return tuple(PARTNER_WORDS) if family == "partner" else tuple(CHILD_WORDS) if family == "child" else ()


def _person_words(subject: str) -> set[str]:
    """How a message names a subject: a person by name, a relative by any word for the
    relation ("user's mom": "mom", "mum", "mother" ...)."""
    if "'s " not in subject:
        return content_words(subject)
    return content_words(" ".join(relation_words(subject.rpartition("'s ")[2])))


def _person_named(subject: str, words: set[str]) -> bool:
    return bool(_person_words(subject) & words)


def _spoken_of(subject: str, clause: str, words: set[str], others: set[str]) -> bool:
    """Whether ``clause`` can be about ``subject``: the speaker needs a first-person word or
    no one else spoken of (no third-person word, known person or name after the first word:
    ``_someone_named``), anyone else their name, their relation's word or a third-person pronoun."""
    if subject == "user":  # "wrist is healed" is the speaker's, "Tobi's wrist is healed" is not
        return bool(_FIRST_PERSON.search(clause)) or not _names_anyone(clause, others)
    return _person_named(subject, words) or bool(_THIRD_PERSON.search(clause))
