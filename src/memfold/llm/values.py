"""Normalised profile values: one spelling per value, whatever the user typed.

"my bday is june 3rd" and "Birthday: 3 June" both store ``birthday = "June 3"``; "im
vegan now" stores ``diet = "vegan"``; "my wifes name is priya" stores ``partner = "Priya"``.
A stored value is then comparable across messages (a repeat merges its evidence, a change
is a real change) and readable in the prompt.

Grounding (``router.grounding``) accepts a normalised value only when it is exactly what
:func:`normalise_value` makes of words that are in the message (the fact's ``quote``): a
model cannot pass off an unsaid value as a normalisation.
"""

from __future__ import annotations

import re

_MONTHS = ("january february march april may june july august september october november "
           "december").split()
_MONTH_ALIASES = {m[:3]: m for m in _MONTHS} | {"sept": "september"}
_MONTH = r"(?P<month>" + "|".join(sorted({*_MONTHS, *_MONTH_ALIASES}, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(?P<year>(?:19|20)\d{2}))?"
DATE_FORMS = (
    re.compile(r"\b" + _MONTH + r"\s+(?:the\s+)?" + _DAY + r"\b" + _YEAR, re.IGNORECASE),
    re.compile(r"\b(?:the\s+)?" + _DAY + r"(?:\s+of)?\s+" + _MONTH + r"\b" + _YEAR, re.IGNORECASE),
    # "12/25", "3-14-1990": month first (the US order) unless the first number cannot be a
    # month ("25/12"); a year needs four digits or a slash form ("12/25/90")
    re.compile(r"(?<![\d/.-])(?P<month>\d{1,2})(?P<sep>[/-])(?P<day>\d{1,2})"
               r"(?:(?P=sep)(?P<year>(?:19|20)?\d{2}))?(?![\d/.-]|\s*(?:%|percent|of\b|stars?\b))"),
)
DIETS = {
    "vegan": "vegan", "plant based": "vegan", "plant-based": "vegan",
    "vegetarian": "vegetarian", "veggie": "vegetarian", "pescatarian": "pescatarian",
    "pescetarian": "pescatarian", "keto": "keto", "ketogenic": "keto", "paleo": "paleo",
    "gluten free": "gluten-free", "gluten-free": "gluten-free", "celiac": "gluten-free",
    "dairy free": "dairy-free", "dairy-free": "dairy-free", "kosher": "kosher", "halal": "halal",
    "omnivore": "omnivore", "lactose free": "lactose-free", "lactose-free": "lactose-free",
    "plants only": "vegan", "only plants": "vegan", "pure veg": "vegetarian", "pure vegetarian": "vegetarian",
    # "we're the only vegans in the family"
    "vegans": "vegan", "vegetarians": "vegetarian", "pescatarians": "pescatarian",
}
NAME_KEYS = frozenset({"name", "partner"})
NAME_FAMILIES = frozenset({"child", "family"})
LOWER_FAMILIES = frozenset({"job", "team", "allergy", "health", "relationship_status"})
PLACE_KEYS = frozenset({"location", "hometown", "employer", "education", "nationality",
                        "religion", "language"})
_FILLER = re.compile(
    r"^(?:(?:a|an|the|my|our|currently|now|just|still|also|really|actually|honestly|officially|"
    r"finally|basically)\s+)+|"
    r"(?:\s+(?:now|currently|these days|nowadays|anymore|instead|too|lol|haha|tbh|ngl|btw|mostly|for me|rn|atm|"
    r"lately|way more|for now|there|over there|here|to|of|in|at|on|for|with|from|by|and|or))+$",
    re.IGNORECASE)
# a place said with how one got there or what is near it: the place is the words between
_PLACE_LEAD = re.compile(r"^(?:(?:settled|living|based|moved|relocated|now)\s+)+(?:in|to)\s+", re.IGNORECASE)
# ("a village near Bath" is a place; "near my in-laws" says who is near)
_PLACE_TAIL = re.compile(r"\s+(?:originally|for|near (?:my|our|his|her|their|the|work|family)|with|w/?|since|because|"
                         r"where|which|who|as|but|after|that|every|each|this|these|those)\b.*$",
                         re.IGNORECASE)
_AGED = re.compile(r"^\d{1,3}[- ]years?[- ]old\s+", re.IGNORECASE)
_JOB_TAIL = re.compile(r"\s+for\s+.*$", re.IGNORECASE)
_POSSESSIVE = re.compile(r"['\u2019]s$")
# the words that name a part of an organisation ("payments team", "cardiology unit"); the
# fact rules add "ward" and "desk" where a place or a home is told from a team
UNIT_WORDS = "team|department|dept|squad|division|unit"
# "the finance department of a hospital": the team is "finance"
_TEAM_WORD = re.compile(rf"\s+(?:{UNIT_WORDS})\b.*$", re.IGNORECASE)
# the departments of an organisation: "I work in HR" says a team, not a place or a job
DEPARTMENTS = ("hr|human resources|finance|accounts|accounts payable|accounts receivable|accounting|payroll|"
               "procurement|purchasing|marketing|sales|legal|compliance|it support|tech support|"
               "customer support|customer service|customer success|qa|quality assurance|r&d|research and development|"
               "operations|ops|logistics|admissions|recruitment|recruiting|talent acquisition|communications|comms|"
               "pr|public relations|facilities|risk|audit|treasury|product|engineering|infra|infrastructure|"
               "security|data|analytics|business development|partnerships|support|the front office|back office|"
               # a hospital's departments ("a nurse in surgery", "I work in paediatrics")
               "surgery|icu|a&e|emergency|oncology|pediatrics|paediatrics|maternity|radiology|cardiology|"
               "neurology|orthopedics|orthopaedics|psychiatry|intensive care|geriatrics|palliative care")
# "IT" only in capitals: "I work in it" is no department
DEPARTMENT = re.compile(r"^(?:the )?(?:(?-i:IT)|" + DEPARTMENTS + r")(?: (?:team|department|dept|division))?$",
                        re.IGNORECASE)
# fields of study: "a PhD student in physics" says what is studied, not where
STUDY_FIELD = re.compile(
    r"^(?:physics|chemistry|biology|biochemistry|math|maths|mathematics|statistics|economics|history|law|"
    r"medicine|philosophy|psychology|sociology|linguistics|literature|english|computer science|cs|"
    r"neuroscience|political science|politics|geography|geology|anthropology|architecture|education|nursing|"
    r"pharmacy|dentistry|music|fine art|art history|design|astronomy|astrophysics|ecology|genetics|"
    r"microbiology|immunology|epidemiology|public health|social work|theology|classics|journalism)\b",
    re.IGNORECASE)
# "a startup called Fernleaf Labs", "a guy named Hugo": the name is the value
_CALLED = re.compile(r"^(?:[\w'-]+\s+){1,3}(?:called|named)\s+(?P<name>\S.*)$", re.IGNORECASE)
# a job said as what one does ("I teach yoga", "Femi owns a restaurant", "I manage the café")
BUSINESSES = ("restaurant|shop|store|café|cafe|coffee shop|bakery|bar|salon|business|company|gym|studio|farm|"
              "pub|bookshop|bookstore|boutique|agency|clinic|hotel|food truck|startup|daycare|nursery|"
              "garage|brewery|winery|florist|barbershop|dental practice|practice|franchise|hostel|b&b")
# vehicles one drives for a living ("I drive buses", "my dad drives a taxi": bus driver, taxi driver)
VEHICLES = r"(?:bus|buses|taxi|taxis|cab|cabs|truck|trucks|lorry|lorries|van|vans|tram|trams|train|trains|ambulance|ambulances|forklift|forklifts|school bus|delivery van|tractor|tractors)"
HOW_MANY = r"(?:(?:like |about |around |over |nearly )?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several) )"
_AGENT = re.compile(r"^(?P<verb>teach|teaches|own|owns|manage|manages|drive|drives)(?:\s+(?:a |an |the |my own |his own |"
                    r"her own |their own |our own )?" + HOW_MANY + r"?(?:little |small |tiny )?"
                    r"(?P<what>[\w&'-]+(?: [\w&'-]+)?))?$", re.IGNORECASE)
_AGENTS = {"teach": "teacher", "teaches": "teacher", "own": "owner", "owns": "owner",
           "manage": "manager", "manages": "manager", "drive": "driver", "drives": "driver"}
_MAJOR = re.compile(r"\s+(?:major|minor)$", re.IGNORECASE)
# trailing punctuation, and emoji a casual message ends a value with ("crochet 🧶")
_TRAILING_PUNCT = re.compile(r"[\s.,!?;:'\"\u2019)\u2600-\u27bf\ufe0f\u200d\U0001f000-\U0001faff]+$")


def _one_of(things: str | None) -> str | None:
    """"4 restaurants" owned, "buses" driven: the one a job is named by (restaurant owner, bus driver)."""
    if not things or not things.lower().endswith("s") or things.lower().endswith(("ss", "us")):
        return things
    if things.lower().endswith("ies"):
        return things[:-3] + "y"
    return things[:-2] if re.search(r"(?:us|x|ch|sh)es$", things, re.IGNORECASE) else things[:-1]


# the days that fall on one date every year ("born on christmas day 1988")
_FIXED_DAYS = {"christmas day": ("december", 25), "christmas eve": ("december", 24), "new years day": ("january", 1),
               "new years eve": ("december", 31), "valentines day": ("february", 14), "halloween": ("october", 31)}
_FIXED_DAY = re.compile(r"\b(?P<day>christmas day|christmas eve|new year'?s day|new year'?s eve|valentine'?s day|halloween)\b"
                        + _YEAR, re.IGNORECASE)


def birthday(raw: str) -> str | None:
    """'june 3rd' -> 'June 3'; 'the 9th of August 1990' -> 'August 9 1990'; 'christmas day' -> 'December 25'."""
    if fixed := _FIXED_DAY.search(raw):
        month, day = _FIXED_DAYS[fixed["day"].lower().replace("'", "")]
        return f"{month.capitalize()} {day}" + (f" {fixed['year']}" if fixed["year"] else "")
    for form in DATE_FORMS:
        m = form.search(raw)
        if m is None:
            continue
        month, day = _month_and_day(m["month"], int(m["day"]))
        if month is not None and 1 <= day <= 31:
            year = f" {_full_year(m['year'])}" if m["year"] else ""
            return f"{month.capitalize()} {day}{year}"
    return None


def _month_and_day(said: str, day: int) -> tuple[str | None, int]:
    """A month said by name, or by number ("12/25"; "25/12" is day first)."""
    if not said.isdigit():
        name = said.lower().rstrip(".")
        return _MONTH_ALIASES.get(name, name), day
    number = int(said)
    if number > 12 and 1 <= day <= 12:
        number, day = day, number
    return (_MONTHS[number - 1] if 1 <= number <= 12 else None), day


def _full_year(year: str) -> str:
    """'90' -> '1990', '07' -> '2007' (a birth year two digits long is most likely past)."""
    if len(year) == 4:
        return year
    return f"20{year}" if int(year) <= 30 else f"19{year}"


# "I eat chicken and fish now" after "not vegetarian anymore": meat means no restricted diet
_EATS_MEAT = re.compile(r"\b(?:(?:eat|eating|eats|having|have)\b(?: \w+){0,3}?|back (?:on|to)(?: eating)?) (?:meat|chicken|beef|pork|"
                        r"steak|bacon|burgers?|lamb|turkey|everything|anything)\b")


# "not vegetarian anymore", "no longer doing keto", "gave up being vegan", "keto's done",
# "back to eating normally": no restricted diet
RESTRICTED_DIETS = frozenset("vegan vegetarian veggie pescatarian keto paleo".split())
_RESTRICTED = r"(?:" + "|".join(sorted(RESTRICTED_DIETS)) + r"|plant-based|plant based|low-carb|low carb)"
_DIET_GIVEN_UP = re.compile(
    r"\b(?:not|no longer|no more|stopped being|quit being|gave up being|gave up|quit|stopped|dropped)\s+"
    r"(?:(?:a|being|doing|eating|on)\s+)?(?:the\s+)?" + _RESTRICTED + r"\b"
    r"|\b" + _RESTRICTED + r"(?: s| is| was) (?:done|over|finished|dead to me)\b"
    r"|\b(?:back to eating|eating|eat|eats) (?:normally|like a normal person|carbs again)\b"
    r"|\b(?:done with|finished with|over) (?:the )?" + _RESTRICTED + r"\b|\bback to eating (?:everything|anything)\b"
    r"|\bback to (?:normal|regular) (?:food|bread|eating|meals|diet)\b")
# "not eating meat", "I don't eat meat", "stopped eating meat": the meat is denied near it
# (a "no" elsewhere in the sentence, "no more pescatarian rules", denies nothing of it);
# "t" is what is left of "don't", "didn't" once the apostrophe is gone
_MEAT_DENIALS = frozenset("no not t dont didnt doesnt cant never nor stopped quit without avoid cut".split())


def _meat_eaten(low: str) -> bool:
    m = _EATS_MEAT.search(low)
    near = low[:m.start()].split()[-3:] + m[0].split() if m else []
    return bool(m) and not _MEAT_DENIALS & set(near)


# "i eat fish now", "eating seafood again": a vegetarian's new diet (said as a change only:
# "i eat fish" alone says nothing of meat)
_EATS_FISH_NOW = re.compile(r"\b(?:eat|eating|eats)(?: \w+){0,2}? (?:fish|seafood)(?: (?:and|n) \w+)?(?: now| again| these days)\b")


# the diets' words, the longest first ("lacto-ovo vegetarian" before "vegetarian"), compiled once
_DIETS_LONGEST_FIRST = [(re.compile(rf"\b{re.escape(said)}\b"), value)
                        for said, value in sorted(DIETS.items(), key=lambda kv: -len(kv[0]))]


# "so i eat gluten again", "went back to gluten", "back on dairy now": a food a diet left out eaten again
_FOOD_BACK = re.compile(r"\b(?:(?:eat|eating|eats|having)(?: \w+)? (?:gluten|wheat|dairy|lactose)(?: \w+)? (?:again|now)|"
                        r"(?:went |going |gone |am |im )?back (?:to|on) (?:eating )?(?:gluten|wheat|dairy|lactose))\b")


def food_eaten_again(text: str) -> bool:
    """"so i eat gluten again", "went back to gluten": a food a diet left out is eaten again."""
    low = " ".join(re.findall(r"[a-z-]+", text.lower()))
    back = _FOOD_BACK.search(low)
    return back is not None and not _MEAT_DENIALS & set(low[:back.start()].split()[-2:])


def diet(raw: str) -> str | None:
    low = " ".join(re.findall(r"[a-z-]+", raw.lower()))
    if _meat_eaten(low) or low == "meat":  # (a diet of meat alone is said "back on meat"; no meat is "no meat")
        return "omnivore"
    if low == "veg":  # "pure veg since birth": a diet read as "veg" is vegetarian ("veg" in a sentence is vegetables)
        return "vegetarian"
    fish = _EATS_FISH_NOW.search(low)
    if fish and not _MEAT_DENIALS & set(low[:fish.start()].split()[-2:] + fish[0].split()):  # ("not vegan anymore, eating fish")
        return "pescatarian"
    if _DIET_GIVEN_UP.search(low):
        return "omnivore"
    if food_eaten_again(low):
        return "omnivore"
    for said, value in _DIETS_LONGEST_FIRST:
        if said.search(low):
            return value
    avoided = _AVOIDED_FOOD.fullmatch(low)
    return _AVOIDED_DIETS[avoided["food"]] if avoided else None


# a diet said as the food left out ("I don't eat meat": no meat; "gluten is a hard no";
# "dairy free btw"): the diet that leaves it out
_AVOIDED_DIETS = {"gluten": "gluten-free", "dairy": "dairy-free", "lactose": "lactose-free",
                  "meat": "vegetarian", "meat or fish": "vegetarian", "meat and fish": "vegetarian",
                  "animal products": "vegan"}
_AVOIDED_FOOD = re.compile(r"(?:no |zero |without |cutting (?:out )?|cut out |avoiding |off )?"
                           r"(?P<food>" + "|".join(sorted(_AVOIDED_DIETS, key=len, reverse=True)) + r")"
                           r"(?: free| anymore| at all)?")


_STATUS = {"divorce": "divorced", "widow": "widowed", "widower": "widowed",
           "wife": "married", "husband": "married", "spouse": "married", "fiance": "engaged",
           "fiancé": "engaged", "fiancee": "engaged", "fiancée": "engaged",
           "girlfriend": "dating", "boyfriend": "dating", "gf": "dating", "bf": "dating",
           "hubby": "married", "wifey": "married", "separation": "separated"}


# What a speaker says of their own relationship without naming the status: the title they
# give their partner ("my wife is a nurse" -> married, "my gf" -> dating, "my ex-husband" ->
# divorced, "my late wife" -> widowed) or what happened ("we tied the knot", "me and my gf
# split"). Of several, the one said last is the current one ("my boyfriend is now my husband").
_WE = r"(?:we|i|(?:me|i) and (?:my )?[\w'-]+|[\w'-]+ and (?:i|me))"
STATUS_PHRASES = tuple((re.compile(pattern, re.IGNORECASE), status) for pattern, status in (
    (r"\bmy ex[- ]?(?:wife|husband|spouse)\b", "divorced"),
    (r"\bmy late (?:wife|husband|spouse)\b|(?:\bi |^\W*)lost my (?:wife|husband|spouse)\b(?!'s|s\b)|"
     # ("my husband Arne passed from cancer"; "widowed since 2019", the speaker's own with no "I")
     r"\bmy (?:wife|husband|hubby|spouse)(?: (?-i:[A-ZÀ-Þ])[\w'-]+)? (?:passed(?: away| on)?(?! (?:his|her|the|a|an|their|all|it|my|me)\b)|died)\b|"
     r"^\W*widowed\b",
     "widowed"),
    (r"\b(?:separated|divorced) from my (?:wife|husband|spouse)\b", "separated"),
    # "divorce is final. onwards i guess": the speaker's own, said with no "my"
    (r"^\W*(?:my |our |the )?divorce (?:is|was|'s|s|went|came|has gone) (?:now |finally |officially )?"
     r"(?:final|finalised|finalized|through|done)\b", "divorced"),
    (r"\bsingle (?:mom|mum|dad|mother|father|parent)\b|\bsolo parent\b|\bsingle again\b|"
     r"\b(?:i'm|i am|im) (?:not with \w+ any ?more|no longer with \w+)\b|"
     r"\b(?:it's|its|it is) over (?:with|between)\b|\bback on the (?:dating )?apps\b|"
     r"\b(?:i'm|i am) (?:still )?not married\b", "single"),
    (r"\b" + _WE + r"(?:'ve| have)? (?:just |finally |officially )?(?:split(?: up)?|broke up|"
     r"broken up|called it off)\b", "single"),
    (r"\bmy (?:wife|wifey|husband|hubby|hubs|spouse)\b(?!-to-be)|(?<!ex-)(?<!ex )(?<!late )\b(?:wife|husband|hubby) (?:and|&) (?:i|me)\b",
     "married"),
    (r"\b" + _WE + r"(?:'ve| have)? (?:just |finally |officially )?(?:tied the knot|eloped|got hitched)\b"
     r"|\bhusband and wife\b|(?:^\W*|[.!,;]\s*)(?:we did it\W+)?(?:just |finally |officially )?(?:tied the knot|got hitched)\b"
     # "nikah was yesterday, officially married 💍": the speaker's own news, with no "we"
    r"|(?:^\W*|[.!,;]\s*)(?:now |finally |so )?officially married\b(?! to\b)"
    # "remarried last weekend!!", "i got remarried in june"
     r"|(?:^\W*|\b(?:i|we)(?:'ve| have)? )(?:just |finally |officially )?(?:got )?remarried\b"
     # "since i married Eli", "i married my best friend": the speaker's own wedding, past
     r"|\bi (?:just |finally )?married(?= my | (?-i:[A-Z])[a-z]+\b|$)",
     "married"),
    (r"\bmy fianc[eé]e?\b|\b(?:we're|we are|i'm|i am) (?:now )?getting married\b|"
     r"\b(?:he|she|my (?:bf|gf|boyfriend|girlfriend|partner)) (?:just |finally )?proposed\b(?! to (?!me\b))|\bi proposed\b.{0,80}?\bsaid yes\b|"
     r"\b(?:she|he) said yes\b.*?(?:\U0001f48d|\bring\b)|(?:\U0001f48d.*)\b(?:she|he) said yes\b|"
     r"\bproposed\b.{0,80}?\bi said yes\b", "engaged"),
    (r"\bmy (?:girlfriend|boyfriend|gf|bf)\b(?!s)|\bi(?: have|'ve got| got) an? (?:new )?"
     r"(?:girlfriend|boyfriend|gf|bf)\b|\b(?:i'm|i am|i've been) (?:now )?(?:seeing|dating) "
     r"(?:someone|somebody|a (?:guy|girl|man|woman))\b|\b(?:not|no longer) single\b|"
     # (the name is looked at, not taken: it is the partner's value, "dating" the status's)
     r"\b(?:i've been|i have been|i'm|i am) (?:now |currently )?(?:seeing|dating)"
     r"(?= (?!(?-i:Dr|Mr|Mrs|Ms|Miss|Prof)\b)(?-i:[A-Z])[a-z]+\b|$)|"
     # the "I" dropped at the start of a message: "seeing someone, early days", "taken, happily in a relationship"
     r"^\W*(?:(?:been|now|currently) )?(?:seeing|dating) (?:someone|somebody|(?:a|this) (?:guy|girl|man|woman))\b|"
     r"^\W*(?:been|now|currently) (?:seeing|dating)(?= (?!(?-i:Dr|Mr|Mrs|Ms|Miss|Prof)\b)(?-i:[A-Z])[a-z]+\b|$)|"
     r"\b(?:we've|we have|we're|we are) (?:been )?seeing each other\b|"
     r"(?:^\W*|\b(?:i'm|i am) )(?:happily |now )?(?:in a (?:relationship|committed relationship)|taken)\b|"
     r"^\W*(?:(?:i|so i) )?(?:just |finally )?met someone\b|"
     r"\b(?:we|we've|we have) (?:just |finally )?made it (?:facebook |insta |instagram )?official\b", "dating"),
    (r"^\W*(?:we're|we are|were) (?:now |officially )?engaged\b", "engaged"),
    # "SIONE PROPOSED 💍💍 ahhh", "tomas proposed last night!!": a name alone, no one proposed to
    (r"^\W*(?!(?:he|she|they|who|someone|somebody|i|we|it|nobody|everyone)\b)[^\W\d_][\w'-]* (?:just |finally |actually )?"
     r"proposed\b(?=\s*(?:$|[!.\U0001F48D\U0001F62D\U0001F97A\u2764\U0001F60D]|(?:last night|yesterday|today|this weekend|"
     r"at dinner|on the beach|omg|ahh+)\b))", "engaged"),
))


# What anyone's news says of their status, with no subject in it ("mateo is seeing someone",
# "dmitri and olga tied the knot", "hes single again"): read for a stored person the
# sentence names (``facts.status_of_stored_person``), never as the speaker's
OTHERS_STATUS = tuple((re.compile(pattern, re.IGNORECASE), status) for pattern, status in (
    (r"\b(?:is|'s|s|are) (?:now )?(?:seeing|dating) (?:someone|somebody|a (?:guy|girl|man|woman))\b|"
     r"\b(?:has|got) an? (?:new )?(?:bf|gf|boyfriend|girlfriend)\b|\b(?:no longer|not) single\b", "dating"),
    (r"\b(?:tied the knot|eloped|got hitched|got married|remarried|(?:is|are) married now)\b", "married"),
    (r"\b(?:got engaged|(?:is|are) (?:now )?engaged|popped the question)\b", "engaged"),
    (r"\b(?:called it off|broke up|split up|single again|(?:is|are) single now|got dumped)\b|"
     r"\b(?:is|are|'s|s) (?:still )?not married\b|\bunmarried\b", "single"),
    (r"\b(?:are|is) (?:divorcing|separating|getting divorced|separated)\b|\blive apart\b", "separated"),
    (r"\b(?:got divorced|divorce (?:is|was) final|(?:is|are) (?:now |officially |finally )?divorced)\b", "divorced"),
    (r"\blost (?:his|her|their) (?:wife|husband|spouse)\b|\bwidowed\b", "widowed"),
))


def others_status(text: str) -> tuple[str, str] | None:
    """The status someone's news says, and its phrase (the one said last), or None."""
    said = sorted((m.end(), m[0], status) for pattern, status in OTHERS_STATUS for m in pattern.finditer(text))
    return (said[-1][2], said[-1][1]) if said else None


def status_phrases(text: str) -> list[str]:
    """The relationship phrases of ``text``, the current one last: the one that ends last, of
    two ending together the longer ("separated from my husband" over "my husband")."""
    said = sorted((m.end(), -m.start(), m[0]) for pattern, _status in STATUS_PHRASES for m in pattern.finditer(text))
    return [phrase for _end, _start, phrase in said]


def relationship_status(raw: str) -> str | None:
    """'my wife' -> married, 'my fiancée' -> engaged (the partner's title says the status);
    'me and my gf split' -> single (the phrase said last)."""
    # ("ive been seeing someone": typed without apostrophes, as the rules read it)
    raw = re.sub(r"\b(i)(ve|m)\b", lambda m: f"{m[1]}'{m[2]}", raw, flags=re.IGNORECASE)
    said = [(m.end(), -m.start(), status) for pattern, status in STATUS_PHRASES for m in pattern.finditer(raw)]
    if said:  # as status_phrases orders them
        return max(said)[2]
    if (others := others_status(raw)) is not None and others[1].lower() == raw.strip().lower():
        return others[0]  # a phrase of someone's news, quoted as a value's evidence
    words = raw.lower().split()
    return _STATUS.get(words[-1]) if words else None


def proper(raw: str) -> str:
    """'priya' -> 'Priya', 'san jose' -> 'San Jose'; a value with capitals is kept as typed."""
    if any(ch.isupper() for ch in raw):
        return raw
    words = raw.split()
    return " ".join(word if n and word in _LOWER_IN_NAMES else word[:1].upper() + word[1:]
                    for n, word in enumerate(words))


# small words a name keeps lower case inside it ("Isle of Man", "law at Kings", "Politecnico di Milano")
_LOWER_IN_NAMES = frozenset("of in at the and upon on de di da du la le del von van y for".split())


_COUNTS = frozenset("a an one two three four five six seven eight nine ten several some many".split())


def _looks_like_name(value: str) -> bool:
    """'ana', 'Jo Ann': a name; 'three kids', '2 sisters': a count, not a name."""
    words = value.split()
    return 0 < len(words) <= 3 and words[0].lower() not in _COUNTS and not any(c.isdigit() for c in value) \
        and not {"of", "and", "with", "for"} & {w.lower() for w in words}


def _bare(raw: str) -> str:
    """Without leading articles and trailing fillers or punctuation, to a fixed point."""
    value = raw.strip()
    while True:
        called = _CALLED.match(value)
        stripped = _TRAILING_PUNCT.sub("", _FILLER.sub("", called["name"] if called else value)).strip()
        if stripped == value:
            return value
        value = stripped


# "I'm diabetic" and "I have diabetes" state one condition: the adjective's noun is stored
_CONDITIONS = {"diabetic": "diabetes", "asthmatic": "asthma", "epileptic": "epilepsy",
               "anemic": "anemia", "anaemic": "anaemia", "autistic": "autism", "dyslexic": "dyslexia",
               "arthritic": "arthritis", "intolerant": "intolerance", "dyspraxic": "dyspraxia",
               "insomniac": "insomnia", "hypertensive": "hypertension"}


def gerund(verb: str) -> str:
    """'juggle' -> 'juggling', 'swim' -> 'swimming', 'sew' -> 'sewing': the activity a verb names."""
    low = verb.lower()
    if low.endswith("ing") and len(low) > 5:
        return verb
    if low.endswith("e") and not low.endswith(("ee", "ye", "oe")) and len(low) > 2:
        return verb[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", low) and len(low) <= 4:  # swim, run, knit
        return verb + verb[-1] + "ing"
    return verb + "ing"


def condition(raw: str) -> str:
    """'type 1 diabetic' -> 'type 1 diabetes', 'lactose intolerant' -> 'lactose intolerance'."""
    words = raw.split()
    if words and words[-1].lower() in _CONDITIONS:
        words[-1] = _CONDITIONS[words[-1].lower()]
    return " ".join(words)


_UNITS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                      "thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * n for n, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split(), 0)
         if w != "_"}


def number_words(raw: str) -> str | None:
    """'twenty five' / 'twenty-six' -> '25' / '26' (an age said in words); None if not one."""
    words = re.findall(r"[a-z]+", raw.lower())
    if len(words) >= 2 and words[1] == "oh" and words[0] in _UNITS:  # "the big three-oh": 30
        return str(10 * _UNITS[words[0]])
    for n, word in enumerate(words):
        if word in _TENS:
            unit = _UNITS.get(words[n + 1], 0) if n + 1 < len(words) and _UNITS.get(words[n + 1], 10) < 10 else 0
            return str(_TENS[word] + unit)
        if word in _UNITS:
            return str(_UNITS[word])
    return None


# a nationality said as its country ("a citizen of Germany", "my Singapore citizenship"):
# stored as the demonym, as "I'm German" says it
_DEMONYM_TABLE = """
afghanistan:afghan|albania:albanian|algeria:algerian|argentina:argentinian|armenia:armenian
australia:australian|austria:austrian|bangladesh:bangladeshi|belgium:belgian|bolivia:bolivian
bosnia:bosnian|brazil:brazilian|bulgaria:bulgarian|cambodia:cambodian|cameroon:cameroonian
canada:canadian|chile:chilean|china:chinese|colombia:colombian|costa rica:costa rican
croatia:croatian|cuba:cuban|cyprus:cypriot|czechia:czech|czech republic:czech|denmark:danish
dominican republic:dominican|ecuador:ecuadorian|egypt:egyptian|england:english|estonia:estonian
ethiopia:ethiopian|finland:finnish|france:french|georgia:georgian|germany:german|ghana:ghanaian
greece:greek|guatemala:guatemalan|haiti:haitian|honduras:honduran|hong kong:hongkonger
hungary:hungarian|iceland:icelandic|india:indian|indonesia:indonesian|iran:iranian|iraq:iraqi
ireland:irish|israel:israeli|italy:italian|jamaica:jamaican|japan:japanese|jordan:jordanian
kazakhstan:kazakh|kenya:kenyan|korea:korean|south korea:south korean|kosovo:kosovar|latvia:latvian
lebanon:lebanese|lithuania:lithuanian|luxembourg:luxembourgish|malaysia:malaysian|malta:maltese
mexico:mexican|morocco:moroccan|nepal:nepali|netherlands:dutch|the netherlands:dutch|holland:dutch
new zealand:new zealander|nicaragua:nicaraguan|nigeria:nigerian|norway:norwegian|pakistan:pakistani
palestine:palestinian|panama:panamanian|paraguay:paraguayan|peru:peruvian|philippines:filipino
the philippines:filipino|poland:polish|portugal:portuguese|puerto rico:puerto rican|romania:romanian
russia:russian|rwanda:rwandan|saudi arabia:saudi|scotland:scottish|senegal:senegalese|serbia:serbian
singapore:singaporean|slovakia:slovak|slovenia:slovenian|somalia:somali|south africa:south african
spain:spanish|sri lanka:sri lankan|sudan:sudanese|sweden:swedish|switzerland:swiss|syria:syrian
taiwan:taiwanese|tanzania:tanzanian|thailand:thai|trinidad:trinidadian|tunisia:tunisian
turkey:turkish|uganda:ugandan|ukraine:ukrainian|united kingdom:british|the uk:british|uk:british
britain:british|great britain:british|united states:american|the us:american|the usa:american
usa:american|us:american|america:american|uruguay:uruguayan|venezuela:venezuelan|vietnam:vietnamese
wales:welsh|yemen:yemeni|zambia:zambian|zimbabwe:zimbabwean
suriname:surinamese|angola:angolan|mozambique:mozambican|namibia:namibian|botswana:botswanan|malawi:malawian
madagascar:malagasy|mauritius:mauritian|ivory coast:ivorian|mali:malian|eritrea:eritrean|libya:libyan
sierra leone:sierra leonean|liberia:liberian|gambia:gambian|benin:beninese|togo:togolese|congo:congolese
gabon:gabonese|cape verde:cape verdean|mongolia:mongolian|uzbekistan:uzbek|kyrgyzstan:kyrgyz|tajikistan:tajik
turkmenistan:turkmen|azerbaijan:azerbaijani|belarus:belarusian|moldova:moldovan|north macedonia:macedonian
montenegro:montenegrin|bhutan:bhutanese|myanmar:burmese|fiji:fijian|samoa:samoan|tonga:tongan
el salvador:salvadoran|belize:belizean|barbados:barbadian|bahamas:bahamian|guyana:guyanese|qatar:qatari
kuwait:kuwaiti|bahrain:bahraini|oman:omani|united arab emirates:emirati|uae:emirati|maldives:maldivian
brunei:bruneian|monaco:monegasque|papua new guinea:papua new guinean"""
DEMONYMS = dict(tuple(pair.split(":")) for pair in _DEMONYM_TABLE.replace("\n", "|").split("|") if pair)


# where a town is ("columbus ohio", "kingston, jamaica"): a country, a US state, a Canadian
# province, a UK nation or an Australian state
REGIONS = frozenset(DEMONYMS) | frozenset("""
alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho
illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota mississippi
missouri montana nebraska nevada ohio oklahoma oregon pennsylvania tennessee texas utah vermont virginia
washington wisconsin wyoming
""".split()) | frozenset({
    "new hampshire", "new jersey", "new mexico", "new york", "north carolina", "north dakota", "rhode island",
    "south carolina", "south dakota", "west virginia", "ontario", "quebec", "alberta", "manitoba",
    "saskatchewan", "british columbia", "nova scotia", "new brunswick", "newfoundland", "england", "scotland",
    "wales", "northern ireland", "queensland", "victoria", "tasmania", "new south wales", "western australia",
    "south australia", "uk", "usa"})


def _pet_name(key: str, value: str) -> bool:
    """A pet key's value that is a name, not the kind ("pet:cat = tofu", not "pet:cat = new cat")."""
    kind = key.partition(":")[2].replace("_", " ")
    words = value.lower().split()
    return 0 < len(words) <= 2 and not (kind and kind.split()[-1] in words) and _looks_like_name(value)


# "I'm a cyclist", "a morning runner", "i'm a gamer": one who does a pastime; the hobby is the pastime
HOBBY_AGENTS = {"runner": "running", "jogger": "jogging", "cyclist": "cycling", "gamer": "gaming",
                "hiker": "hiking", "climber": "climbing", "boulderer": "bouldering", "surfer": "surfing",
                "skier": "skiing", "snowboarder": "snowboarding", "swimmer": "swimming", "knitter": "knitting"}


RELIGION_NOUNS = {"islam": "Muslim", "judaism": "Jewish", "christianity": "Christian", "buddhism": "Buddhist",
                  "hinduism": "Hindu", "sikhism": "Sikh", "catholicism": "Catholic", "taoism": "Taoist",
                  "jainism": "Jain", "paganism": "Pagan", "protestantism": "Protestant", "atheism": "atheist",
                  "agnosticism": "agnostic", "orthodoxy": "Orthodox", "quakerism": "Quaker"}


def normalise_value(key: str, raw: str) -> str:
    """The stored spelling of ``raw`` under ``key`` (family before the colon)."""
    family = key.split(":", 1)[0]
    value = _bare(raw)
    if family == "birthday":
        return birthday(value) or value
    if family == "age":
        digits = re.search(r"\d{1,3}", value)
        return digits[0] if digits else number_words(value) or value
    if family == "diet":
        return diet(value) or value.lower()
    if family == "relationship_status":
        return relationship_status(raw) or relationship_status(value) or value.lower()  # 'my ex-wife'
    if key in NAME_KEYS or family in NAME_FAMILIES:  # "my son Tomas's roommate": the name is Tomas
        value = _POSSESSIVE.sub("", value) or value
    if key in NAME_KEYS or (family in NAME_FAMILIES and _looks_like_name(value)) or (
            family == "pet" and (value[:1].isupper() or _pet_name(key, value))):
        return proper(value)  # a pet's name, however typed ("a kitten called tofu": Tofu)
    agent = value.lower().split()[-1] if value.split() else ""
    if family == "hobby" and agent in HOBBY_AGENTS and len(value.split()) <= 2:  # "a morning runner"
        return HOBBY_AGENTS[agent]
    if family == "health":  # the words as said; the key is the condition's noun (llm/facts.py)
        return value.lower()
    if family == "team":  # "the web team", "legal department": the team is "web", "legal"
        value = _TEAM_WORD.sub("", value) or value
    if family == "job":  # "a 58-year-old lorry driver", "nanny for two lil boys": the job
        value = _JOB_TAIL.sub("", _AGED.sub("", value)) or value
    if family == "job" and value.lower() == "teaching":  # "I'm teaching now" (not "a teaching assistant")
        return "teacher"
    if family == "job" and (agent := _AGENT.match(value)):  # "teach yoga": yoga teacher
        what = _one_of(agent["what"]) if agent["verb"].lower() in ("own", "owns", "manage", "manages", "drive",
                                                                    "drives") else agent["what"]
        value = " ".join(filter(None, [what, _AGENTS[agent["verb"].lower()]]))
    if family in LOWER_FAMILIES:  # an acronym keeps its capitals ("IT", "HR", "QA")
        return value if len(value) > 1 and value.isupper() and len(value) <= 4 else value.lower()
    if family == "education":  # "an economics major": the subject is economics; "(I study) at Leeds": Leeds
        value = _MAJOR.sub("", re.sub(r"^at\s+", "", value, flags=re.IGNORECASE)) or value
    if family == "nationality":
        value = DEMONYMS.get(value.lower(), value)
    if family == "religion":  # "converted to islam": the believer's word, as "i'm muslim" says it
        value = RELIGION_NOUNS.get(value.lower(), value)
    if family in ("location", "hometown"):  # "settled in Chittagong near my in-laws": Chittagong
        value = _PLACE_TAIL.sub("", _PLACE_LEAD.sub("", value)) or value
        if value.lower() in ("uk", "usa", "uae"):  # "im in the uk": an initialism
            return value.upper()
    if family in PLACE_KEYS:
        return proper(value)
    return value  # likes, hobbies, possessions: as typed ("Radiohead", "blue Brompton")


# -- content words: what grounding and change detection compare ------------------------------

_STOP = frozenset(
    "a an the of to in on at for with and or but is are was were be been being am i i'm my me "
    "mine we our us you your he she his her they their them it its this that these those "
    "has have had do does did not no so as by from into about than then there here just "
    "very really also too some any all more most much many own user user's".split())
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def fold_word(word: str) -> str:
    """One stem for a word's forms: 'wife'/'wifes', 'game'/'games'/'gaming', 'box'/'boxes'
    (a final silent e is dropped, as "-ing" and "-ed" drop it)."""
    word = word.removesuffix("'s")
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for suffix in ("ies", "ing", "ed", "es", "s"):
        if suffix == "es" and not _ES_PLURAL.search(word):
            continue  # "wifes", "houses": only the "s" ("boxes", "dishes", "tomatoes": "es")
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            stem = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            # "running" is "run", "stopped" "stop": English doubles these before a suffix
            word = stem[:-1] if suffix in ("ing", "ed") and _DOUBLED.search(stem) else stem
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") and not word.endswith("ee") else word


_DOUBLED = re.compile(r"([bdgmnpt])\1$")
# irregular forms said of an injury: "tore my acl" grounds "torn ACL"
_IRREGULAR = {"broke": "break", "broken": "break", "breaking": "break", "breaks": "break",
              "tore": "tear", "torn": "tear", "tearing": "tear", "tears": "tear"}
_ES_PLURAL = re.compile(r"(?:s|x|z|ch|sh|o)es$")


def content_words(text: str) -> set[str]:
    """Its words without stop words, plural and verb endings folded ("tree nuts" = "nut tree");
    an acronym in capitals is no stop word ("IT", "US")."""
    return {fold_word(w.lower()) for w in _ANY_CASE_WORD.findall(text)
            if w.lower() not in _STOP or (len(w) > 1 and w.isupper())}


_ANY_CASE_WORD = re.compile(_WORD.pattern, re.IGNORECASE)
