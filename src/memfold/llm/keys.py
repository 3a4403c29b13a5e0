"""The normalised profile key vocabulary shared by every backend.

Single-valued keys (``location``, ``job``, ``diet``...) hold one current value: a new value
overwrites the old one and the store writes an ``update`` changelog row (the spec's
"overwrite + keep a changelog"). Multi-valued keys (``likes``, ``hobby``, ``pet``,
``allergy``, ``preference``...) hold many values, so each value gets its own key,
``likes:jazz``: loving jazz never overwrites loving hiking, and "I don't like jazz anymore"
deletes exactly ``likes:jazz``.
"""

from __future__ import annotations

import re
import unicodedata

from memfold.models import Message

SINGLE_VALUED = frozenset({
    "name", "age", "birthday", "location", "hometown", "nationality", "job", "employer",
    "education", "diet", "partner", "relationship_status", "identity", "religion", "language",
    "team",
})
MULTI_VALUED = frozenset({
    "likes", "dislikes", "hobby", "pet", "allergy", "family", "goal", "health", "skill",
    "possession", "trait", "plan", "preference", "child",
})
# keyed by a thing, one current value each: favorite:coffee, possession:car, pet:dog, child:mia
KEYED_FAMILIES = frozenset({"favorite", "possession", "pet", "child", "family"})
FALLBACK_KEY = "fact"

_SYNONYMS = {
    "full_name": "name", "nickname": "name", "first_name": "name",
    "home": "location", "city": "location", "home_city": "location", "lives_in": "location",
    "residence": "location",
    "current_city": "location", "address": "location", "country": "location",
    "from": "hometown", "origin": "hometown", "birthplace": "hometown", "grew_up": "hometown",
    "occupation": "job", "profession": "job", "role": "job", "work": "job", "career": "job",
    "job_title": "job", "title": "job",
    "company": "employer", "workplace": "employer", "works_at": "employer",
    "school": "education", "university": "education", "degree": "education",
    "studies": "education", "major": "education", "college": "education",
    "diet_preference": "diet", "dietary_restriction": "diet", "food_preference": "diet",
    "allergies": "allergy", "pets": "pet", "spouse": "partner", "husband": "partner",
    "wife": "partner", "girlfriend": "partner", "boyfriend": "partner",
    "hobbies": "hobby", "interest": "hobby", "interests": "hobby", "activity": "hobby",
    "preferences": "preference", "like": "likes", "favourite": "favorite", "fav": "favorite",
    "loves": "likes", "dislike": "dislikes", "hates": "dislikes",
    "goals": "goal", "aspiration": "goal", "ambition": "goal",
    "sibling": "family", "siblings": "family",
    "gender": "identity", "pronouns": "identity", "gender_identity": "identity",
    "marital_status": "relationship_status", "languages": "language",
    "health_condition": "health", "medical": "health", "skills": "skill",
    "birth_date": "birthday", "date_of_birth": "birthday", "bday": "birthday",
    "department": "team", "squad": "team", "son": "child", "daughter": "child",
    "children": "child", "kids": "child", "car": "possession:car", "bike": "possession:bike",
}

# one spelling per relation where people use several words for it (the guide: "mum" is mom);
# a manager is the boss, a bestie the best friend ("best" is what the tagger marks of it)
RELATION_CANON = {"mum": "mom", "mother": "mom", "mommy": "mom", "mama": "mom", "ma": "mom",
                  "father": "dad", "daddy": "dad", "papa": "dad", "pa": "dad", "bro": "brother",
                  "sis": "sister", "hubby": "husband", "grandmother": "grandma", "granny": "grandma",
                  "nana": "grandma", "nan": "grandma", "nanna": "grandma", "nonna": "grandma", "oma": "grandma",
                  "abuela": "grandma", "grandmum": "grandma", "nonno": "grandpa", "opa": "grandpa", "abuelo": "grandpa",
                  "gran": "grandma", "grandfather": "grandpa", "grandad": "grandpa",
                  # grandparents by the words of the family's language ("we moved babcia to wrocław")
                  "babcia": "grandma", "babička": "grandma", "bubbe": "grandma", "bubby": "grandma",
                  "savta": "grandma", "dadi": "grandma", "yiayia": "grandma",
                  "mormor": "grandma", "farmor": "grandma",
                  "halmeoni": "grandma", "obaachan": "grandma", "vovó": "grandma", "avó": "grandma",
                  "dziadek": "grandpa", "zayde": "grandpa", "zaide": "grandpa",
                  "nanaji": "grandpa", "dadaji": "grandpa", "pappou": "grandpa", "papou": "grandpa",
                  "morfar": "grandpa", "farfar": "grandpa",
                  "harabeoji": "grandpa", "ojiichan": "grandpa", "vovô": "grandpa", "avô": "grandpa",
                  "granddad": "grandpa", "gramps": "grandpa", "gf": "girlfriend", "bf": "boyfriend",
                  # parents by the family's own words ("my amma only speaks tamil")
                  "amma": "mom", "ammi": "mom", "ammu": "mom", "umma": "mom", "mami": "mom", "mamá": "mom",
                  "maman": "mom", "mam": "mom", "mãe": "mom", "pai": "dad", "appa": "dad", "abba": "dad", "abbu": "dad", "baba": "dad", "papá": "dad",
                  "better half": "partner", "other half": "partner",
                  "manager": "boss", "bestie": "best_friend", "bff": "best_friend",
                  "mate": "friend", "buddy": "friend", "pal": "friend",
                  "aunty": "aunt", "auntie": "aunt",
                  "best": "best_friend", "best friend": "best_friend", "best mate": "best_friend",
                  "neighbour": "neighbor", "roomie": "roommate", "gp": "doctor", "physician": "doctor",
                  "co worker": "coworker", "workmate": "coworker", "work colleague": "colleague",
                  # a role said by its verb ("Marta coaches our running club", "Prof Mensah
                  # supervises my thesis"): the agent noun, never the verb stem "coache"
                  "coaches": "coach", "supervises": "supervisor", "teaches": "teacher", "mentors": "mentor",
                  "trains": "trainer", "tutors": "tutor",
                  "step dad": "stepdad", "step father": "stepdad", "stepfather": "stepdad",
                  "step mum": "stepmom", "step mom": "stepmom", "stepmother": "stepmom", "stepmum": "stepmom",
                  "personal trainer": "trainer", "pt": "trainer", "team leader": "team lead",
                  "line manager": "boss", "work buddy": "coworker", "work bestie": "coworker"}

def relation_words(relation: str) -> tuple[str, ...]:
    """"mum" or "mom" -> ("mom", "mum", "mother", ...): the relation, every word the guide
    folds into it and its one spelling, so a relative is found by whichever word a message uses."""
    canon = RELATION_CANON.get(relation, relation)
    return tuple(dict.fromkeys([relation, *(word for word, c in RELATION_CANON.items() if c == canon), canon]))


PARTNER_WORDS = frozenset("wife husband partner girlfriend boyfriend fiance fiancee fiancé fiancée "
                          "spouse hubby missus".split())
CHILD_WORDS = frozenset("son daughter kid child boy girl baby stepson stepdaughter toddler".split())
# the words for the speaker's people, as the tagger and the cues read them ("my sister", "my landlord")
RELATION_WORDS = frozenset({*RELATION_CANON.values(), *PARTNER_WORDS, *CHILD_WORDS, *(
    "sister brother aunt uncle cousin niece nephew grandma grandpa friend boss manager coworker "
    "colleague bestie bff "
    "roommate flatmate neighbor neighbour stepmom stepdad mother-in-law father-in-law sister-in-law "
    "brother-in-law son-in-law daughter-in-law parents-in-law parents grandparents teacher coach landlord landlady").split()})
# the relations said in two words, of which the tagger may mark one ("my team lead is geoff")
TWO_WORD_RELATIONS = frozenset({"team lead", "team leader", "best friend", "best mate", "personal trainer",
                                "line manager", "twin brother", "twin sister", "step dad", "step mom",
                                "step mum", "work buddy", "work bestie", "better half", "other half"})
# one word per kind of pet ("pup" and "puppy" are a dog, a beagle is a dog: the key is the
# kind of animal, so "we adopted a beagle called Waffles" replaces the dog who died)
PET_CANON = {"puppy": "dog", "pup": "dog", "doggo": "dog", "doggy": "dog", "doggie": "dog",
             "kitten": "cat", "kitty": "cat", "bunny": "rabbit",
             **dict.fromkeys((
                 "retriever", "labrador", "lab", "poodle", "beagle", "pug", "husky", "dachshund",
                 "sausage dog", "corgi", "collie", "shepherd", "alsatian", "terrier", "spaniel",
                 "bulldog", "frenchie", "chihuahua", "pit bull", "pitbull", "boxer", "rottweiler",
                 "doberman", "greyhound", "whippet", "lurcher", "schnauzer", "shih tzu", "maltese",
                 "pomeranian", "dalmatian", "great dane", "mastiff", "akita", "shiba", "shiba inu",
                 "samoyed", "malamute", "vizsla", "weimaraner", "setter", "pointer", "cockapoo",
                 "labradoodle", "goldendoodle", "doodle", "cavapoo", "cavoodle", "cavachon", "maltipoo",
                 "spoodle", "groodle", "bernedoodle", "sheepadoodle", "cavalier", "yorkie",
                 "staffie", "staffy", "jack russell", "basset", "bloodhound", "newfoundland",
                 "bernese", "st bernard", "saint bernard", "havanese", "bichon", "mutt", "golden", "pit",
                 "kelpie", "heeler", "cattle dog", "sheepdog", "border collie", "springer", "cocker", "weiner dog",
                 "ridgeback", "basenji", "shar pei", "chow", "chow chow", "lhasa apso", "pekingese", "papillon",
                 "boerboel", "aspin", "pariah", "indie"), "dog"),
             **dict.fromkeys((
                 "tabby", "siamese", "persian", "ragdoll", "maine coon", "coon", "bengal",
                 "sphynx", "shorthair", "calico", "tortie", "tortoiseshell", "moggy", "burmese",
                 "abyssinian", "birman", "russian blue", "scottish fold"), "cat"),
             **dict.fromkeys(("african grey", "cockatoo", "macaw", "lovebird", "conure", "parakeet"), "parrot")}

# one word per kind of favourite ("favourite colour" and "fave color", "tv show" and "show",
# "film" and "movie", "football team" and "team": the new favourite replaces the old one)
FAVORITE_CANON = {"colour": "color", "tv show": "show", "tv": "show", "series": "show", "tv series": "show",
                  "television show": "show", "film": "movie", "football team": "team", "footy team": "team",
                  "soccer team": "team", "sports team": "team", "football club": "team", "club": "team",
                  "footy club": "team", "writer": "author", "novelist": "author", "shoes brand": "shoe brand",
                  "clothes brand": "clothing brand"}
# words after a favourite's thing that say when or which kind of it ("fav band atm", "favourite
# coffee order", "ice cream flavour"): the thing is the same
_FAVORITE_TAIL = re.compile(r"(?: (?:atm|rn|now|lately|currently|ever|order|flavour|flavor))+$")

# what a possession is, from its brand or product line when no noun says it ("i got a tesla
# model y", "I'm on a ThinkPad now", "sony a7 iv arrived"): one key per thing, so the new car
# replaces the old one. Words that name several kinds of thing (Sony, Apple, Samsung's
# Galaxy Tab) are left out or matched in pairs first.
PRODUCT_KINDS = {
    **dict.fromkeys((
        "toyota", "corolla", "camry", "prius", "rav4", "yaris", "honda", "civic", "accord", "ford",
        "fiesta", "mustang", "tesla", "volkswagen", "vw", "golf", "passat", "bmw", "audi",
        "mercedes", "volvo", "subaru", "outback", "forester", "mazda", "miata", "nissan", "hyundai",
        "ioniq", "kia", "jeep", "wrangler", "chevy", "chevrolet", "fiat", "peugeot", "renault",
        "citroen", "skoda", "lada", "niva", "rivian", "porsche", "lexus", "jaguar", "dacia", "chery",
        "tiggo", "byd", "polestar", "mini cooper", "range rover", "land rover", "model 3",
        "model y", "model s", "c-class", "e-class"), "car"),
    **dict.fromkeys((
        "iphone", "pixel", "nokia", "xiaomi", "redmi", "oneplus", "motorola", "huawei", "oppo",
        "fairphone", "blackberry", "galaxy"), "phone"),
    "galaxy watch": "watch", "galaxy buds": "headphones",
    **dict.fromkeys(("macbook", "thinkpad", "xps", "chromebook", "zenbook", "vivobook",
                     "framework laptop"), "laptop"),
    **dict.fromkeys(("ipad", "galaxy tab"), "tablet"),
    **dict.fromkeys(("kindle", "kobo"), "e_reader"),
    **dict.fromkeys(("brompton", "trek", "cannondale", "canyon", "bianchi", "cervelo", "tern",
                     "vanmoof", "cowboy"), "bike"),
    **dict.fromkeys(("yamaha", "ducati", "triumph", "harley", "kawasaki", "ktm"), "motorbike"),
    **dict.fromkeys(("vespa",), "scooter"),
    **dict.fromkeys(("canon", "nikon", "fujifilm", "leica", "gopro"), "camera"),
    **dict.fromkeys(("seiko", "casio", "rolex", "omega", "garmin", "fitbit", "swatch", "tissot",
                     "apple watch"), "watch"),
    **dict.fromkeys(("ps4", "ps5", "playstation", "xbox", "nintendo switch", "steam deck"), "console"),
    **dict.fromkeys(("airpods",), "headphones"),
}


# model numbers of makers of many kinds of thing: Samsung's A/S/Z phones, Sony's Alpha cameras
_PRODUCT_LINES = ((re.compile(r"\bsamsung (?:galaxy )?(?:[asz]\d{1,2}|note ?\d{1,2}|flip|fold)"), "phone"),
                  (re.compile(r"\bsony (?:alpha |a)\d"), "camera"),
                  (re.compile(r"\bapple watch\b"), "watch"))


def product_kind(value: str) -> str | None:
    """The kind of thing ``value`` names by its brand or product line ("Tesla Model Y" ->
    car, "pixel 8a" -> phone), pairs of words first; None when no word says it."""
    if line := next((kind for pattern, kind in _PRODUCT_LINES if pattern.search(value.lower())), None):
        return line
    words = re.findall(r"[a-z0-9-]+", value.lower())
    pairs = [f"{a} {b}" for a, b in zip(words, words[1:])]
    singles = [w for w in words if w not in ("sony", "apple", "samsung")]
    return next((PRODUCT_KINDS[w] for w in [*pairs, *singles] if w in PRODUCT_KINDS), None)


def canonical_key(key: str) -> str:
    """``pet:puppy`` -> ``pet:dog``, ``family:mum`` -> ``family:mom``, ``family:therapists`` ->
    ``family:therapist``, ``favorite:colour`` -> ``favorite:color``: one key per thing."""
    family, _, thing = key.partition(":")
    table = {"pet": PET_CANON, "family": RELATION_CANON, "favorite": FAVORITE_CANON}.get(family)
    if table is None or not thing:
        return key
    words = " ".join(re.findall(r"[a-z0-9]+", thing.lower()))  # "brother-in-law" -> "brother in law"
    if family == "favorite":
        words = _FAVORITE_TAIL.sub("", words) or words
    if family == "family" and words.endswith(" in"):  # "my brother in law kenji": the tagger's "brother in"
        words += " law"
    if family in ("family", "favorite") and words not in table:
        words = _singular(words)  # "switched therapists, seeing Maren now": one person, one relation
    elif words not in table and words.split()[-1:] and words.split()[-1] in table:
        words = words.split()[-1]  # "golden retriever" is a retriever, so a dog
    return f"{family}:{table.get(words, words).replace(' ', '_')}"


_RELATIVE_SUBJECT = re.compile(r"^(?P<owner>.+?)'s (?P<relation>[a-z]+(?: [a-z]+){0,2}|[a-z]+-in-law)$", re.IGNORECASE)


def canonical_subject(subject: str) -> str:
    """``user's grandad`` -> ``user's grandpa``: a relative by the one spelling the router
    stores (``RELATION_CANON``), so a lookup by another word for them finds their facts;
    an in-law by its hyphenated spelling (``user's mother in law`` -> ``user's mother-in-law``)."""
    m = _RELATIVE_SUBJECT.match(subject.strip())
    relation = " ".join(m["relation"].lower().split()) if m else ""
    if m and relation.endswith(" in law") and relation.replace(" ", "-") in RELATION_WORDS:
        return f"{m['owner']}'s {relation.replace(' ', '-')}"
    if not m or relation not in RELATION_CANON:
        return subject
    return f"{m['owner']}'s {RELATION_CANON[relation]}"


def _singular(words: str) -> str:
    if " " not in words and len(words) > 4 and words.endswith("s") and not words.endswith(("ss", "us")):
        return words[:-1]
    return words


_NON_KEY = re.compile(r"[^a-z0-9_]+")


def slug(text: str, *, max_words: int = 4) -> str:
    """Lower-case snake_case of the first few words (for per-value keys); accents are
    dropped, not the letters that carry them ("Tomás" -> ``tomas``, not ``tom_s``)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", plain.lower())
    return "_".join(words[:max_words]) or "value"


def normalise_key(raw: str) -> str:
    """Map a free-form key onto the vocabulary ('Occupation' -> 'job'); keep unknown keys."""
    head, sep, tail = raw.strip().lower().partition(":")
    base = _NON_KEY.sub("_", head.strip()).strip("_")
    base = _SYNONYMS.get(base, base) or FALLBACK_KEY
    return f"{base}:{slug(tail)}" if sep and tail.strip() else base


def fact_key(base: str, value: str) -> str:
    """The storage key for ``base`` = ``value``: per-value for multi-valued keys."""
    base = normalise_key(base)
    if ":" in base or base not in MULTI_VALUED and base != FALLBACK_KEY:
        return base
    return f"{base}:{slug(value)}"


def speaker_subject(message: Message) -> str:
    """Who "I" is in ``message``: its speaker's name, or "user" for an unnamed user.

    A user talking to an assistant has speaker "user" (the default): facts about them use
    subject "user". In a chat between named people (speaker "Caroline"), "I" is Caroline.
    """
    speaker = message.speaker.strip()
    if not speaker or speaker.lower() in ("user", "me", "human"):
        return "user"
    return speaker
