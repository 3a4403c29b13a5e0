"""The hallucination filter: an extracted fact must be said in the message it cites.

A value is grounded when every content word of it (stop words dropped, plural/verb
endings folded) appears in the message text; a deleted value when one of its words does,
or the extractor quotes the words that retire it unnamed ("new goal is"). A named subject other than the speaker
must appear in the text too, by name or as the extractor quotes it ("mom" for Linda, when
the profile says the user's mom is Linda). A changed value may keep words of the value the same
decision retires ("canada plan is dead, aiming for australia": "move to Australia" retires "move to
Canada"), once one of its own words is said. Offline extractions copy words from the text, so they pass
by construction; a model that "infers" a fact the user never stated does not.
"""

from __future__ import annotations

import re

from memfold.llm.keys import speaker_subject
from memfold.llm.spelling import corrected
from memfold.llm.values import content_words, normalise_value
from memfold.models import FactExtraction, Message

_DIGITS_THEN_LETTERS = re.compile(r"\b(\d+)([a-z]+)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:no longer|anymore|any more|not|don't|do not|never|stopped|quit|"
                       r"gave up|no more|isn't|aren't|wasn't|ex-)\b", re.IGNORECASE)


def _normalised_quote(fact: FactExtraction, said: set[str]) -> bool:
    """The value is the normalised spelling of words the message says ('June 3' for 'june 3rd')."""
    # (the quote may restore the apostrophes the message left out: "ive" quoted as "i've")
    words = (content_words(fact.quote), content_words(fact.quote.replace("'", "").replace("\u2019", "")))
    return bool(fact.quote) and any(w <= said for w in words) and \
        normalise_value(fact.key, fact.quote) == fact.value


def _quoted(fact: FactExtraction, message: Message) -> bool:
    """The extractor quotes the words of the message that retire the value unnamed ("new goal
    is", "moved on to")."""
    return _said_verbatim(fact.quote, message)


def _said_verbatim(phrase: str, message: Message) -> bool:
    """``phrase`` (longer than three letters) is the message's own words, whole words at each end."""
    words = " ".join(phrase.split()).casefold()
    text = " ".join(message.text.split()).casefold()
    return len(words) > 3 and re.search(rf"(?<!\w){re.escape(words)}(?!\w)", text) is not None


def grounding_problem(fact: FactExtraction, message: Message, retired: str = "") -> str | None:
    """Why ``fact`` is not supported by ``message``'s words, or None when it is. Words of
    ``retired`` (the value the same decision retires for it) count as said for an added
    value that keeps them, as long as one word of the value is the message's own."""
    # a word the router read as meant ("my ssiter camila": sister) is said too
    said = content_words(message.indexed_text()) | content_words(corrected(message.indexed_text()))
    said |= content_words(_DIGITS_THEN_LETTERS.sub(r"\1 \2", message.text))  # "17m": 17 is said
    if fact.action != "delete" and content_words(fact.value) & said:
        said |= content_words(retired)
    value_words = content_words(fact.value)
    if fact.action == "delete":
        # a retired value is named by a word of it ("wrist is healed" retires "broken wrist")
        if value_words and not value_words & said and not _quoted(fact, message):
            return f"deleted value {fact.value!r} is not named in the message"
        if not value_words and not _NEGATION.search(message.text):
            return "delete without any negation in the message"
    elif not value_words and not _said_verbatim(fact.value, message):
        # (a value of function words alone stands only as the message's own words: "no
        # more", "did it" for how a pastime or a goal ended)
        return f"value {fact.value!r} has no content words"
    elif not value_words <= said and not _normalised_quote(fact, said):
        missing = sorted(value_words - said)
        return f"value words {missing} are not in the message"
    speaker = speaker_subject(message)
    if fact.subject not in (speaker, "user") and not fact.subject.startswith(f"{speaker}'s "):
        named = content_words(fact.subject) <= said or (
            bool(fact.subject_quote) and content_words(fact.subject_quote) <= said)
        if not named:
            return f"subject {fact.subject!r} is not named in the message"
    return None
