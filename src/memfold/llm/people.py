"""The people a speaker has told us about, and who a later sentence is about.

A first message introduces someone ("my sister Olga's birthday is 4 june": ``family:sister =
Olga``, ``Olga.birthday``); later messages name them the way people talk: "olgas birthday is
june 14 not june 4", "dad hit 70 last week", "kenta changed his mind on sushi". Read alone,
such a sentence has no "my" and no capitalised name, so the extractors give its fact to the
speaker. ``KnownPeople`` holds the speaker's relatives from the stored profile (by name and
by relation word) and gives a fact to the person the sentence names before its value, when
no "I" or "we" comes in between (the tagger's own rule for a marked subject).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from memfold.llm.keys import relation_words
from memfold.llm.spans import find_said
from memfold.llm.tagger import CHILD_WORDS, PARTNER_WORDS, RELATION_FAMILIES, canonical_relation

# what the speaker says of themselves between a person and a value ("dad, I think, is 70"
# is not read; "dad hit 70 last week, we threw him a party" is)
# ("tiago sent me pics from his new place in curitiba": an object "me" is not the subject;
# "mom visited us in boston" may be the speaker's home, so "us" stays)
_SPEAKER_WORDS = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|we|we're|were|us|our|"
                            # ...but "she got me into freediving" is the speaker's hobby
                            r"me (?:into|onto|hooked)|introduced me|taught me)\b",
                            re.IGNORECASE)
# "me and my husband", "my sister and I": the speaker is a subject of the clause
# ("my mum rang me and she lives in leeds": "and" starts a clause about her, no pair with me)
_ME_AND = r"me and(?! (?:he|she|they|he's|she's|hes|shes|then|so)\b)"
_COORDINATED = re.compile(rf"\b(?:{_ME_AND}|and me|and i|and myself)\b", re.IGNORECASE)
# "me and my wife Sara live in Austin": the speaker is in it too
_WITH_SPEAKER = re.compile(rf"\b(?:{_ME_AND}|and me|and i|and myself|we|we're|were|us)\b", re.IGNORECASE)
_THIRD_PERSON = re.compile(r"\b(?:he|she|he's|she's|hes|shes|his|her)\b", re.IGNORECASE)
_THING_FAMILIES = frozenset({"possession", "pet", "favorite"})
# a relation's facts stay the speaker's ("my sister Ana": family:sister is the speaker's)
_SPEAKER_KEYS = ("family", "child")


@dataclass(frozen=True)
class Person:
    subject: str  # how their facts are stored: "Olga", "user's dad"
    pattern: re.Pattern[str]  # how a sentence names them
    by_name: bool
    partner: bool = False  # the speaker's partner: "new partner: sam" is not about them


def without_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _words_pattern(words: set[str]) -> re.Pattern[str]:
    return _words_pattern_of(frozenset(words))


# (a user's people change slowly: their patterns are kept, not compiled again per message)
@lru_cache(maxsize=2048)
def _words_pattern_of(words: frozenset[str]) -> re.Pattern[str]:
    # "tomas" is Tomás: names are typed without their accents
    words = words | {without_accents(w) for w in words}
    alternatives = "|".join(sorted((re.escape(w) for w in words if w), key=len, reverse=True))
    # "olga", "olga's", "olgas" (a possessive typed without its apostrophe)
    return re.compile(rf"\b(?:{alternatives})(?:'s|s)?\b", re.IGNORECASE)


_ONE_CHILD = frozenset({"son", "daughter", "stepson", "stepdaughter"})


class KnownPeople:
    """The speaker's relatives found in a stored profile ``{(subject, key): value}``."""

    def __init__(self, stored: dict[tuple[str, str], str], speaker: str) -> None:
        self.speaker = speaker
        self.people = self._named(stored, speaker) + self._unnamed(stored, speaker)
        self.subjects = {p.subject for p in self.people}
        self.pets = {value.casefold() for (subject, key), value in stored.items()
                     if subject == speaker and key.startswith("pet:")}
        # the words of the speaker's stored things ("ipads gone" names the iPad Air)
        self.things = {word for (subject, key), value in stored.items()
                       if subject == speaker and key.split(":", 1)[0] in _THING_FAMILIES
                       for word in re.findall(r"[a-z][a-z0-9-]{2,}", value.casefold())}

    @staticmethod
    def _named(stored: dict[tuple[str, str], str], speaker: str) -> list[Person]:
        people: dict[str, set[str]] = {}
        partners = set()
        for (subject, key), value in stored.items():
            family, _, relation = key.partition(":")
            if subject != speaker or family not in RELATION_FAMILIES or not value.strip():
                continue
            words = people.setdefault(value, {value.split()[0], value})
            if family == "partner":
                words |= set(PARTNER_WORDS) | {"hubby", "wifey"}
                partners.add(value)
            elif family == "family":
                words |= set(relation_words(relation.replace("_", " ")))
        if speaker == "user":
            # an assistant's user's other people whose facts are stored by name without a
            # relation ("my coworker Fernanda is a data analyst" kept Fernanda.job); in a chat
            # between named people a stored name is as likely the other speaker's
            for subject, _key in stored:
                if subject != speaker and not subject.startswith(f"{speaker}'s ") and subject[:1].isupper():
                    people.setdefault(subject, {subject.split()[0], subject})
        return [Person(name, _words_pattern(words), True, name in partners) for name, words in people.items()]

    @staticmethod
    def _unnamed(stored: dict[tuple[str, str], str], speaker: str) -> list[Person]:
        prefix = f"{speaker}'s "
        relations = {subject[len(prefix):] for subject, _ in stored if subject.startswith(prefix)}
        # ("kids lol", "the baby" say no one child; "son" and "daughter" do)
        return [Person(prefix + relation, _words_pattern(set(relation_words(relation))), False)
                for relation in sorted(relations) if relation not in CHILD_WORDS - _ONE_CHILD]

    def names_thing(self, sentence: str) -> bool:
        """Whether ``sentence`` names a stored possession, pet or favourite by a word of it."""
        return bool(self.things) and any(word.rstrip("s") in self.things or word in self.things
                                         for word in re.findall(r"[a-z][a-z0-9-]{2,}", sentence.casefold()))

    def named_in(self, sentence: str) -> bool:
        """Whether ``sentence`` names a known person ("ines quit the bank")."""
        return any(p.pattern.search(sentence) for p in self.people)

    def named_people(self, sentence: str) -> set[str]:
        """The known people ``sentence`` names ("mum moved in with us": the speaker's mom)."""
        return {p.subject for p in self.people if p.pattern.search(sentence)}

    def mention(self, subject: str, text: str) -> str:
        """How ``text`` last names the known person ``subject`` ("mom" for Linda), or ""."""
        for person in (p for p in self.people if p.subject == subject):
            found = [m.group(0) for m in person.pattern.finditer(text)]
            if found:
                return found[-1]
        return ""

    def subject_for(self, sentence: str, subject: str, key: str, value: str, before: str = "") -> str:
        """Who a fact read from ``sentence`` is about: ``subject`` unless it is the speaker
        (or an alias of a known person) and the sentence names one known person before the
        value with no "I" or "we" in between; or, for a sentence about "he" or "she", the
        ``before`` text of the message names one ("ines dumped tom!! shes with hugo now")."""
        if key.split(":", 1)[0] in _SPEAKER_KEYS:
            return subject
        start = _value_start(sentence, value)
        if subject != self.speaker and start is not None and _COORDINATED.search(sentence[:start]):
            return self.speaker  # "me and my husband just moved to lyon": the speaker moved too
        if subject != self.speaker and key.startswith("pet:") and subject.casefold() in self.pets:
            return self.speaker  # "clover died, the kids chose a new bunny, mochi": no pet owns a pet
        if not self.people:
            return subject
        if subject != self.speaker:
            return self._alias(subject)
        if start is None or _WITH_SPEAKER.search(sentence[:start]):
            return subject
        named = self._named_before(sentence, start, key, value)
        if not named and before and _THIRD_PERSON.search(sentence[:start]):
            text = f"{before} {sentence}"
            named = self._named_before(text, len(before) + 1 + start, key, value)
        return named.pop() if len(named) == 1 else subject

    def _named_before(self, text: str, start: int, key: str, value: str) -> set[str]:
        named = {p.subject for p in self.people if _names_before(p, text, start)}
        if key in ("partner", "relationship_status"):
            # "ines dumped tom, shes with hugo now": only a name says whose partner it is, and
            # "new partner: sam" is not about the partner
            named = {s for s in named if any(p.by_name and not p.partner for p in self.people if p.subject == s)}
        named.discard(value)
        return named

    def _alias(self, subject: str) -> str:
        """"Olgas" (a possessive the tagger marked) or "user's husband" (when he is Kenta)."""
        if subject in self.subjects:
            return subject
        relation = canonical_relation(subject.split()[-1]) if subject.startswith(f"{self.speaker}'s ") else ""
        probe = relation or subject
        matches = {p.subject for p in self.people if p.pattern.fullmatch(probe) and (p.by_name or not relation)}
        if not matches and not relation:  # "Abuela Rosa" is Rosa
            matches = {p.subject for p in self.people if p.by_name
                       and any(p.pattern.fullmatch(word) for word in subject.split())}
        return matches.pop() if len(matches) == 1 else subject


def _value_start(sentence: str, value: str) -> int | None:
    """Where ``value`` is said, or its first word said in the sentence ("cocoa farmer" read
    from "he farms cocoa")."""
    found = find_said(sentence, value, whole_words=False)
    if found:
        return found[0]
    words = (find_said(sentence, word) for word in _LETTER_WORD.findall(value))
    return next((span[0] for span in words if span), None)


_LETTER_WORD = re.compile(r"[^\W\d_]{3,}")


def _names_before(person: Person, sentence: str, start: int) -> bool:
    """A mention of ``person`` before ``start`` with none of the speaker's words after it."""
    mentions = [m for m in person.pattern.finditer(sentence) if m.end() <= start]
    return bool(mentions) and not _SPEAKER_WORDS.search(sentence[mentions[-1].end():start])
