"""A deterministic synthetic transcript for performance runs (no real data, any size).

Messages mix the kinds the router sees in practice: stable facts ("I moved to Lyon"),
dated events ("Yesterday I went hiking with Priya"), reference snippets, assistant replies
and small talk. The same (n, seed) always gives the same messages, so runs compare.

``long_conversation`` is a longer-form chat with the length mix of assistant transcripts
(short user turns, assistant replies of several paragraphs, a few pasted documents), for
benchmarks/long_history.py.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import NamedTuple

from memfold.models import Message

PEOPLE = ["Priya", "Tomas", "Aiko", "Marta", "Kwame", "Lena", "Omar", "Sofia", "Jin", "Rafael"]
CITIES = ["Lyon", "Austin", "Porto", "Osaka", "Nairobi", "Tallinn", "Calgary", "Bergen", "Cusco"]
ACTIVITIES = ["hiking", "pottery class", "a jazz concert", "the farmers market", "a chess club",
              "a cooking workshop", "the climbing gym", "a book fair", "a charity run"]
THINGS = ["a used bike", "a sourdough starter", "noise-cancelling headphones", "a ukulele",
          "a standing desk", "a tent", "a film camera", "running shoes"]
FOODS = ["ramen", "tacos", "falafel", "dumplings", "paella", "pho", "injera", "pierogi"]
JOBS = ["nurse", "data analyst", "teacher", "carpenter", "product designer", "pharmacist"]
WHEN = ["yesterday", "last weekend", "two days ago", "on Monday", "last month", "this morning"]
SMALL_TALK = ["Haha, that's funny.", "Thanks, that helps a lot!", "Hmm, let me think about it.",
              "Good morning!", "Sounds great.", "Not sure yet, we'll see.", "Okay, noted."]

FACT_TEMPLATES = [
    "I moved to {city} a while ago and I really like it there.",
    "My favourite food is {food}, I could eat it every day.",
    "I work as a {job} now, the hours are long but fine.",
    "My sister {person} lives in {city}.",
    "I'm allergic to {food}, so I always check menus.",
    "I just bought {thing} and I use it all the time.",
]
EVENT_TEMPLATES = [
    "{when} I went to {activity} with {person}.",
    "{when} {person} and I tried a new {food} place downtown.",
    "I have a dentist appointment next Tuesday at 3pm.",
    "{when} I flew to {city} for a friend's wedding.",
    "{when} I lost my keys at {activity} and {person} found them.",
]
DOC_TEMPLATES = [
    "Notes on {city}: population about {number} thousand, best visited in spring, known for {food}.",
    "Recipe for {food}: {number} grams of flour, two eggs, salt; rest the dough for an hour.",
    "Meeting notes: decided to use {thing} for the demo; {person} owns the follow-up by Friday.",
]
ASSISTANT_TEMPLATES = [
    "That sounds lovely. How did {person} like it?",
    "Noted. Do you want me to remind you about {activity}?",
    "Here is a suggestion: try {food} in {city} next time.",
]
QUERY_TEMPLATES = [
    "Where does my sister live?", "What is my favourite food?", "What do I do for work?",
    "Who did I go to {activity} with?", "When did I fly to {city}?", "What did I buy recently?",
    "What am I allergic to?", "What did we decide in the meeting?", "Where did I move to?",
    "What happened {when}?",
]


def _fill(template: str, rng: random.Random) -> str:
    return template.format(person=rng.choice(PEOPLE), city=rng.choice(CITIES),
                           activity=rng.choice(ACTIVITIES), thing=rng.choice(THINGS),
                           food=rng.choice(FOODS), job=rng.choice(JOBS),
                           when=rng.choice(WHEN).capitalize() if template.startswith("{when}")
                           else rng.choice(WHEN), number=rng.randint(10, 900))


def _utterance(rng: random.Random) -> tuple[str, str]:
    """(role, text) drawn with fixed weights."""
    roll = rng.random()
    if roll < 0.25:
        return "user", _fill(rng.choice(FACT_TEMPLATES), rng)
    if roll < 0.50:
        return "user", _fill(rng.choice(EVENT_TEMPLATES), rng)
    if roll < 0.55:
        return "document", _fill(rng.choice(DOC_TEMPLATES), rng)
    if roll < 0.80:
        return "assistant", _fill(rng.choice(ASSISTANT_TEMPLATES), rng)
    return "user", rng.choice(SMALL_TALK)


def synthetic_messages(n: int, *, user_id: str = "perf-user", seed: int = 0,
                       start: datetime = datetime(2024, 1, 1, 9, tzinfo=timezone.utc),
                       session_length: int = 40) -> Iterator[Message]:
    """``n`` messages for one user: sessions of ``session_length`` turns, a day or two apart."""
    rng = random.Random(seed)
    ts = start
    for index in range(n):
        if index and index % session_length == 0:
            ts += timedelta(days=rng.randint(1, 2), minutes=rng.randint(0, 600))
        else:
            ts += timedelta(seconds=rng.randint(20, 120))
        role, text = _utterance(rng)
        speaker = {"user": "user", "assistant": "assistant", "document": "docs"}[role]
        yield Message(msg_id=f"m{index:07d}", user_id=user_id, session_id=f"s{index // session_length}",
                      speaker=speaker, role=role, text=text, ts=ts)  # type: ignore[arg-type]


def synthetic_queries(n: int, *, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [_fill(rng.choice(QUERY_TEMPLATES), rng) for _ in range(n)]


# -- a long personal-assistant chat with a realistic length mix ---------------------------

class Topic(NamedTuple):
    label: str
    nouns: tuple[str, ...]
    actions: tuple[str, ...]


TOPICS: dict[str, Topic] = {
    "travel": Topic("travel planning", (
        "the itinerary", "a rail pass", "travel insurance", "the packing list", "a carry-on bag",
        "hotel reviews", "the visa application", "a day trip", "local transport", "the return flight",
        "a walking tour", "jet lag", "the travel budget", "a guesthouse"), (
        "book the first and last nights in advance", "pack one outfit per day plus a spare",
        "keep digital copies of your documents", "check opening hours before you go",
        "leave a free afternoon in the plan", "compare train and bus times",
        "buy tickets online the evening before", "learn a few phrases of the local language")),
    "cooking": Topic("cooking", (
        "a cast-iron pan", "the spice drawer", "meal prep", "a sharp chef's knife", "stock",
        "the oven temperature", "a weeknight curry", "fresh herbs", "a slow cooker", "leftovers",
        "the marinade", "a shopping list", "homemade bread", "seasonal vegetables"), (
        "taste and adjust the salt at the end", "prepare all the ingredients before you start",
        "cook a double batch and freeze half", "let the meat rest for ten minutes",
        "toast the spices in a dry pan", "keep a jar of pickled onions in the fridge",
        "plan three dinners around one big shop", "season in layers rather than all at once")),
    "fitness": Topic("training", (
        "a training plan", "interval runs", "the warm-up", "strength sessions", "rest days",
        "a heart-rate monitor", "mobility work", "a 10k race", "resistance bands", "running form",
        "protein intake", "the long run", "core exercises", "a foam roller"), (
        "increase the weekly distance by no more than ten percent", "stretch for five minutes after each run",
        "schedule workouts like appointments", "alternate hard and easy days",
        "log every session in a notebook", "sleep at least seven hours before a hard workout",
        "train with a friend once a week", "focus on form before adding weight")),
    "finance": Topic("personal finance", (
        "an emergency fund", "the monthly budget", "index funds", "a savings account",
        "credit card debt", "the pension plan", "subscriptions", "a spending tracker",
        "the mortgage", "tax receipts", "a sinking fund", "the grocery bill", "interest rates",
        "a side income"), (
        "pay yourself first on payday", "automate a small transfer every month",
        "review subscriptions every quarter", "pay off the highest-interest debt first",
        "keep three months of expenses in cash", "wait two days before any big purchase",
        "track spending for a full month", "set one savings goal at a time")),
    "programming": Topic("programming", (
        "unit tests", "the database schema", "a code review", "the deployment script", "type hints",
        "a memory leak", "the API client", "version control", "a refactor", "logging",
        "the build pipeline", "a flaky test", "error handling", "the configuration file"), (
        "write a failing test before fixing the bug", "commit small changes often",
        "read the error message from the bottom up", "profile before you optimise",
        "keep functions short and well named", "add logging around the slow call",
        "pin your dependency versions", "ask for a review early")),
    "gardening": Topic("gardening", (
        "the tomato plants", "compost", "a raised bed", "seedlings", "the watering schedule",
        "mulch", "aphids", "the herb patch", "potting soil", "a rain barrel", "fruit trees",
        "the lawn", "bulbs", "pruning shears"), (
        "water early in the morning", "rotate crops every season", "add compost before planting",
        "harden off seedlings for a week", "mulch to keep moisture in", "check leaves for pests weekly",
        "plant marigolds next to vegetables", "prune after flowering")),
    "health": Topic("sleep and health", (
        "a sleep schedule", "screen time", "caffeine", "a check-up", "hydration", "stress",
        "the evening routine", "posture", "vitamin D", "a short walk", "blood pressure",
        "breathing exercises", "lunch breaks", "headaches"), (
        "go to bed at the same time every night", "stop caffeine after two in the afternoon",
        "keep the bedroom cool and dark", "take a ten-minute walk after lunch",
        "drink a glass of water with every meal", "write tomorrow's tasks down before bed",
        "book a check-up once a year", "stand up every half hour")),
    "books": Topic("reading", (
        "a reading list", "the book club", "audiobooks", "a library card", "historical fiction",
        "a long novel", "short stories", "reading notes", "an e-reader", "poetry",
        "a memoir", "the sequel", "science fiction", "a classic"), (
        "read twenty pages before bed", "keep a book in your bag", "alternate fiction and non-fiction",
        "write one line about each chapter", "give up on a book that bores you",
        "join a book club for the deadlines", "listen to audiobooks on the commute",
        "reread a favourite once a year")),
    "music": Topic("music practice", (
        "the metronome", "scales", "a practice journal", "chord changes", "the guitar strings",
        "sight-reading", "a new song", "ear training", "the recital", "finger exercises",
        "a music teacher", "recordings", "rhythm", "the piano pedal"), (
        "practise slowly with a metronome", "record yourself once a week",
        "split the piece into four-bar sections", "warm up with scales for five minutes",
        "play along with a recording", "practise a little every day rather than once a week",
        "learn one new chord a week", "end each session with something you enjoy")),
    "home": Topic("home projects", (
        "the leaking tap", "a paint colour", "shelves", "the bathroom grout", "a toolbox",
        "the storage boxes", "draught excluders", "the garage", "a cordless drill",
        "the kitchen cabinets", "wallpaper", "smoke alarms", "the heating bill", "a rug"), (
        "measure twice and cut once", "test a paint sample on the wall first",
        "declutter one drawer a day", "label every storage box", "turn off the water before repairs",
        "ask a neighbour to borrow tools", "do the messy jobs before the cleaning",
        "keep receipts for everything you buy")),
    "career": Topic("your career", (
        "the job interview", "a performance review", "the CV", "a salary negotiation",
        "networking events", "a mentor", "the cover letter", "a promotion", "online courses",
        "the portfolio", "a difficult colleague", "meeting notes", "deadlines", "a career change"), (
        "prepare three stories about past projects", "ask your manager for regular feedback",
        "keep a list of your wins", "research the salary range before the call",
        "send a short thank-you note after interviews", "block an hour a week for learning",
        "reply to difficult emails the next morning", "say no to one meeting a week")),
    "pets": Topic("pet care", (
        "the dog's walks", "cat food", "a vet appointment", "flea treatment", "the litter box",
        "puppy training", "a pet sitter", "chew toys", "the aquarium", "grooming", "a harness",
        "pet insurance", "the rabbit hutch", "treats"), (
        "reward good behaviour straight away", "keep the feeding times regular",
        "brush their coat twice a week", "book the vaccinations in advance",
        "introduce new food gradually", "tire the dog out before guests arrive",
        "keep training sessions under ten minutes", "check the water bowl every morning")),
    "photography": Topic("photography", (
        "the golden hour", "a prime lens", "the tripod", "exposure", "composition",
        "photo editing", "a film roll", "portrait lighting", "the memory card", "street photography",
        "the histogram", "a camera strap", "backups", "a photo book"), (
        "shoot in the first hour after sunrise", "use the rule of thirds as a starting point",
        "back up your photos in two places", "take one photo a day for a month",
        "walk closer instead of zooming", "edit a small selection rather than everything",
        "check the horizon before each shot", "print your favourite pictures")),
    "languages": Topic("language learning", (
        "flashcards", "a language exchange", "grammar drills", "podcasts", "the vocabulary list",
        "pronunciation", "a tutor", "verb conjugations", "a phrasebook", "subtitled films",
        "the listening practice", "a language app", "a pen pal", "the exam"), (
        "review flashcards every morning", "speak out loud even when alone",
        "watch a film with subtitles in the target language", "learn phrases rather than single words",
        "keep a diary in the language", "find a conversation partner online",
        "label objects around the house", "study a little every single day")),
}
TOPIC_NAMES = list(TOPICS)

PETS = ["Biscuit", "Luna", "Pepper", "Milo", "Nori", "Olive", "Rocket"]
MONTHS = ["January", "March", "April", "June", "August", "September", "October", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ADJECTIVES = ["cheap", "flexible", "reliable", "quick", "demanding", "relaxing", "sustainable",
              "awkward", "surprisingly simple", "time-consuming", "rewarding", "fiddly"]
ADVERBS = ["quickly", "slowly", "a lot", "without warning", "gradually", "every season"]
PERIODS = ["a few weeks", "the first month", "a season", "the next quarter", "a year", "the holidays"]
OFFERS = ["put this into a weekly schedule", "make a checklist from it", "suggest a few alternatives",
          "go into more detail on any of these steps", "write a short shopping list",
          "adapt this to your budget", "set a reminder for the next step"]
REQUESTS = ["summarise it", "pull out the action items", "tell me what I missed",
            "check it for mistakes", "turn it into a to-do list", "shorten it"]
CONNECTORS = ["Also", "On top of that", "In practice", "That said", "Over time", "Either way",
              "As a rule of thumb", "For what it's worth"]
EXTRA_SMALL_TALK = ["Morning! Busy day ahead.", "Ugh, Mondays.", "Lol okay, fair enough.",
                    "That's exactly what I needed, thank you.", "Hi again!", "Brb, making coffee.",
                    "Wow, I didn't know that.", "Okay, I'll try that tonight."]

_SLOT_POOLS: dict[str, list[str]] = {
    "person": PEOPLE, "city": CITIES, "activity": ACTIVITIES, "thing": THINGS, "food": FOODS,
    "job": JOBS, "when": WHEN, "pet": PETS, "month": MONTHS, "weekday": WEEKDAYS,
    "adj": ADJECTIVES, "adv": ADVERBS, "period": PERIODS, "offer": OFFERS, "request": REQUESTS,
    "connector": CONNECTORS,
}
_NUMBER_SLOTS = {
    "number": lambda rng: str(rng.randint(10, 900)), "count": lambda rng: str(rng.randint(2, 12)),
    "weeks": lambda rng: str(rng.randint(2, 8)), "minutes": lambda rng: str(rng.choice([10, 15, 20, 30, 45])),
    "money": lambda rng: f"${rng.randint(2, 80) * 5}", "km": lambda rng: str(rng.randint(3, 25)),
    "year": lambda rng: str(rng.randint(2012, 2023)), "hour": lambda rng: f"{rng.randint(1, 11)}pm",
}

USER_FACTS = FACT_TEMPLATES + [
    "I moved to {city} {when}, and I'm still unpacking boxes.",
    "I started a new job as a {job} {when}.",
    "My dog is called {pet}, he's {count} years old and full of energy.",
    "{Person} is my best friend from school, we still talk every week.",
    "I've been vegetarian for about {count} years now.",
    "My birthday is in {month}, so that's coming up.",
    "I'm trying to save {money} a month for a trip to {city}.",
    "My partner {person} works as a {job}, so our schedules rarely match.",
]
USER_EVENTS = EVENT_TEMPLATES + [
    "{when} I finished a book about {topic} that {person} lent me.",
    "{when} I had a long call with {person} about {noun}.",
    "{when} I ran {km} kilometres without stopping, a personal best!",
    "{when} I spent the whole afternoon on {noun} and got nowhere.",
    "{when} my flight back from {city} was delayed by {count} hours.",
    "{when} {person} came over and we cooked {food} together.",
]
USER_QUESTIONS = [
    "Can you give me a few tips on {noun}?", "What's the best way to {action}?",
    "How should I handle {noun} if I only have {minutes} minutes a day?",
    "Is it worth spending {money} on {noun}, or is that overkill?",
    "Could you explain how {noun} works, in simple terms?",
    "I keep putting off {noun}. Any idea how to get started?",
    "Should I {action} first, or focus on {noun2}?",
    "What would you change in my approach to {topic}?",
    "Can you make me a short plan for {topic} for the next {weeks} weeks?",
    "Remind me, what did you say about {noun} last time?",
]
USER_CONTEXT = [
    "I have about {minutes} minutes a day for it.", "Money is a bit tight this month.",
    "My partner {person} wants to join in.", "I tried it once {when} and it didn't go well.",
    "I'm a {job}, so my schedule is all over the place.", "I live in {city} now, if that matters.",
    "Your last suggestion about {noun} actually worked.", "I'd like to keep it simple.",
    "I've never really done this before.", "It has to fit around work and {activity}.",
]

ASSISTANT_OPENINGS = [
    "Great question!", "That's a lovely plan.", "Sure, here is how I would approach it.",
    "Happy to help with that.", "Good thinking: {topic} is worth a bit of planning.",
    "That sounds like a great idea, especially with {period} ahead.",
    "I'm glad the last suggestion worked for you.", "Of course.",
    "Thanks for the context, that makes it easier.",
]
ASSISTANT_SENTENCES = [
    "A good place to start with {topic} is {noun}, because it shapes everything else.",
    "Many people find that it helps to {action}, especially at the beginning.",
    "If you have about {minutes} minutes a day, you can {action} and still have time for {noun}.",
    "One common mistake is to ignore {noun}; instead, {action}.",
    "{Connector}, keep an eye on {noun} and {noun2}, since they tend to change {adv}.",
    "Since you mentioned {city}, it is worth checking whether {noun} is easier to arrange there.",
    "Try to {action} for {weeks} weeks before you judge the results.",
    "A simple plan could look like this: first {action}, then {action2}, and finally {action3}.",
    "The trade-off is between {noun} and {noun2}: the first is {adj}, the second is {adj2}.",
    "If budget is a concern, {noun} rarely needs more than {money} to get going.",
    "Experience suggests that {noun} improves when you {action} consistently.",
    "Don't worry if {noun} feels {adj} at first; that is normal for {period}.",
    "You could also ask {person} to join you, since {topic} is easier to stick with in company.",
    "Write down what you decide about {noun} and review it every {weekday}.",
    "{Connector}, it is fine to skip {noun2} for now and come back to it after {period}.",
    "Think of {noun} as a habit rather than a project, and it becomes {adj}.",
    "A small experiment is often better than a big plan: {action} this {weekday} and see how it feels.",
    "If something goes wrong, the usual culprit is {noun}, so check that first.",
    "Most guides agree that you should {action}, although the details depend on your situation.",
    "For {topic}, consistency matters more than intensity, so {action2}.",
    "It can also be useful to set aside {money} for {noun2}, just in case.",
    "{Connector}, {count} small steps done well beat one ambitious step abandoned halfway.",
    "When you feel stuck with {noun}, go back to basics and {action}.",
    "Some people prefer to {action2} instead, and that works too if it suits your routine.",
]
ASSISTANT_LIST_INTROS = ["Here are a few options:", "A quick checklist:", "Some ideas to consider:",
                         "In short, I would focus on these:", "Here is a rough order of steps:"]
ASSISTANT_LIST_ITEMS = [
    "**{Noun}**: {action}.", "**{Noun}**: keep it {adj} and revisit it after {period}.",
    "**Budget**: plan for about {money}, mostly for {noun}.", "**Timing**: {action} every {weekday}.",
    "**{Noun}**: ask {person} for a second opinion.", "**Habit**: {action2}.",
]
ASSISTANT_CLOSINGS = [
    "Would you like me to {offer}?", "Let me know if you want me to {offer}.",
    "I hope this helps, and good luck with {noun}!", "Tell me how it goes, and we can adjust the plan.",
    "If you share a bit more about {noun}, I can tailor this further.",
]

DOCUMENT_HEADERS = {
    "note": "Notes on {topic}, {month} {year}\n\nThings to remember about {noun} and {noun2}.",
    "email": "Subject: {Noun} and next steps\nFrom: {person}\nTo: me\n\nHi,\n\n"
             "Following up on our chat about {noun}, here is everything in one place.",
    "recipe": "Recipe: {food} the way {person} makes it\n\nServes {count}. Ingredients: "
              "{count2}00 g flour, two onions, garlic, olive oil, salt, pepper, fresh herbs.",
    "log": "Journal: {topic}, week {count}\n\nA running log of what I did and how it went.",
}
DOCUMENT_PARAGRAPH_LEADS = {"note": ["", "Next point.", "Another thing."],
                            "email": ["", "Also worth saying.", "One more thing."],
                            "recipe": ["Step {count}.", "Then:", "Tip:"],
                            "log": ["{Weekday}:", "{Weekday} evening:"]}
DOCUMENT_SENTENCES = [
    "{Person} suggested that we {action} before {weekday}.",
    "The {thing} cost about {money} and took {count} days to arrive.",
    "We agreed to meet in {city} at {hour} to go over {noun} again.",
    "I spent {minutes} minutes on {noun} and it went better than expected.",
    "Need to remember: {action}, otherwise {noun2} becomes {adj}.",
    "The main open question is whether {noun} is worth {money}.",
    "Last time this took {count} hours because nobody checked {noun2}.",
    "{Connector}, {person} will handle {noun} and report back by {weekday}.",
    "Felt {adj} today; {noun} took longer than planned.",
    "Next time, start earlier and leave a margin for {noun2}.",
]
FOOTERS = {"note": "", "email": "\n\nBest,\n{person}", "recipe": "\n\nEnjoy!",
           "log": "\n\nEnd of week {count}."}
PASTE_INTROS = ["Here's the {kind} I mentioned, can you {request}?",
                "Pasting my {kind} below. Could you {request}?",
                "Found this {kind} from {when}, please {request}:"]


class _Slots(dict):  # type: ignore[type-arg]
    """Template values drawn on first use; ``{Noun}`` is ``{noun}`` capitalised, ``{noun2}`` another noun."""

    def __init__(self, rng: random.Random, topic: Topic) -> None:
        super().__init__()
        self._rng = rng
        self._pools = {**_SLOT_POOLS, "noun": list(topic.nouns), "action": list(topic.actions),
                       "topic": [topic.label]}

    def __missing__(self, key: str) -> str:
        if key[0].isupper():
            value = _capitalised(self[key[0].lower() + key[1:]])
        else:
            value = self._draw(key)
        self[key] = value
        return value

    def _draw(self, key: str) -> str:
        base = key.rstrip("0123456789")
        if base in _NUMBER_SLOTS:
            return _NUMBER_SLOTS[base](self._rng)
        pool = self._pools[base]
        taken = {value for name, value in self.items() if name.rstrip("0123456789") == base}
        return self._rng.choice([value for value in pool if value not in taken] or pool)


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _render(template: str, rng: random.Random, topic: Topic) -> str:
    return _capitalised(template.format_map(_Slots(rng, topic)))


def _deck(templates: list[str], rng: random.Random) -> Iterator[str]:
    """The templates in a shuffled order, reshuffled when used up: no sentence twice in a row."""
    while True:
        yield from rng.sample(templates, len(templates))


def _paragraph(rng: random.Random, topic: Topic, words: int, deck: Iterator[str], lead: str = "") -> str:
    sentences = [_render(lead, rng, topic)] if lead else []
    while sum(len(s.split()) for s in sentences) < words:
        sentences.append(_render(next(deck), rng, topic))
    return " ".join(sentences)


def _list_paragraph(rng: random.Random, topic: Topic) -> str:
    items = [_render(rng.choice(ASSISTANT_LIST_ITEMS), rng, topic) for _ in range(rng.randint(3, 6))]
    return "\n".join([rng.choice(ASSISTANT_LIST_INTROS), *(f"- {item}" for item in items)])


def _assistant_reply(rng: random.Random, topic: Topic) -> str:
    """1-6 paragraphs, 100-700 words (log-normal, median ~270 words), sometimes a bullet list."""
    target = int(min(600, max(90, rng.lognormvariate(math.log(270), 0.42))))
    count = min(6, max(1, round(target / 110)))
    deck = _deck(ASSISTANT_SENTENCES, rng)
    paragraphs = [_paragraph(rng, topic, target // count, deck) for _ in range(count)]
    if count > 2 and rng.random() < 0.4:
        paragraphs[rng.randrange(1, count - 1)] = _list_paragraph(rng, topic)
    paragraphs[0] = f"{_render(rng.choice(ASSISTANT_OPENINGS), rng, topic)} {paragraphs[0]}"
    paragraphs[-1] = f"{paragraphs[-1]} {_render(rng.choice(ASSISTANT_CLOSINGS), rng, topic)}"
    return "\n\n".join(paragraphs)


def _user_turn(rng: random.Random, topic: Topic) -> str:
    """Small talk, a question with context, or a fact / dated event with a follow-up (~180 chars)."""
    roll = rng.random()
    if roll < 0.08:
        return rng.choice(SMALL_TALK + EXTRA_SMALL_TALK)
    if roll < 0.45:
        parts = [*rng.sample(USER_CONTEXT, rng.randint(1, 3)), rng.choice(USER_QUESTIONS)]
    else:
        opener = rng.choice(USER_FACTS if roll < 0.70 else USER_EVENTS)
        parts = [opener, *rng.sample(USER_CONTEXT, rng.randint(1, 2)), rng.choice(USER_QUESTIONS)]
    if rng.random() < 0.3:
        parts.insert(0, rng.choice(SMALL_TALK + EXTRA_SMALL_TALK))
    return " ".join(_render(part, rng, topic) for part in parts)


def _document(rng: random.Random, topic: Topic) -> tuple[str, str]:
    """(kind, text): a note, email, recipe or journal of 600-2,500 words in paragraphs."""
    kind = rng.choice(list(DOCUMENT_HEADERS))
    topic = TOPICS["cooking"] if kind == "recipe" else topic
    target = int(math.exp(rng.uniform(math.log(600), math.log(2500))))
    paragraphs = [_render(DOCUMENT_HEADERS[kind], rng, topic)]
    deck = _deck(DOCUMENT_SENTENCES + ASSISTANT_SENTENCES, rng)
    while sum(len(p.split()) for p in paragraphs) < target:
        lead = rng.choice(DOCUMENT_PARAGRAPH_LEADS[kind])
        paragraphs.append(_paragraph(rng, topic, rng.randint(60, 170), deck, lead))
    return kind, "\n\n".join(paragraphs) + _render(FOOTERS[kind], rng, topic)


def _next_role(previous: str, rng: random.Random) -> str:
    """user -> assistant (90%) or a follow-up; assistant -> user; 5% pasted documents anywhere."""
    if rng.random() < 0.05:
        return rng.choice(["document", "pasted"])
    if previous == "assistant" or rng.random() < 0.1:
        return "user"
    return "assistant"


def _turn_text(role: str, rng: random.Random, topic: Topic) -> str:
    if role == "assistant":
        return _assistant_reply(rng, topic)
    if role == "user":
        return _user_turn(rng, topic)
    kind, text = _document(rng, topic)
    if role == "document":
        return text
    intro = _render(rng.choice(PASTE_INTROS).replace("{kind}", kind), rng, topic)
    return f"{intro}\n\n{text}"


def _session_start(day: int, rng: random.Random) -> datetime:
    """Day ``day`` after 2024-01-01 (UTC), between 07:00 and 20:59."""
    return (datetime(2024, 1, 1, tzinfo=timezone.utc)
            + timedelta(days=day, hours=rng.randint(7, 20), minutes=rng.randint(0, 59)))


def long_conversation(n: int, *, user_id: str = "long-user", seed: int = 11) -> Iterator[Message]:
    """``n`` turns of a personal-assistant chat over many sessions; the same (n, seed), the same turns.

    Length mix, modelled on long assistant transcripts (LongMemEval-like, no content from any
    dataset): ~49% user turns (small talk, questions with a line of context, facts about
    themselves such as "I moved to Porto", dated events such as "yesterday I ..."; median
    ~180 characters); ~46% assistant replies of 1-6 paragraphs and 100-700 words written
    from sentence templates over 14 topics (travel, cooking, fitness, finance, programming,
    gardening, health, books, ...; median ~1,600 characters, mean ~1,700, the longest
    3,000-4,500); ~5% pasted documents (a note, email, recipe or journal of 600-2,500 words
    with paragraph breaks), half as role "document", half as a user turn pasting it.

    A new ``session_id`` every 8-14 turns, one session a day from 2024-01-01 (UTC), turns
    20-300 s apart: 10,000 turns reach about mid-2026 (memfold refuses timestamps more than
    a day in the future). ``msg_id`` is ``t{index}``.
    """
    rng = random.Random(seed)
    session, turns_left, previous = -1, 0, "assistant"
    ts, topic = _session_start(0, rng), TOPICS[TOPIC_NAMES[0]]  # replaced at the first turn
    for index in range(n):
        if turns_left == 0:
            session, turns_left, previous = session + 1, rng.randint(8, 14), "assistant"
            ts, topic = _session_start(session, rng), TOPICS[rng.choice(TOPIC_NAMES)]
        else:
            ts += timedelta(seconds=rng.randint(20, 300))
        role = _next_role(previous, rng)
        if role == "user" and rng.random() < 0.3:
            topic = TOPICS[rng.choice(TOPIC_NAMES)]
        text = _turn_text(role, rng, topic)
        stored_role = "user" if role == "pasted" else role
        turns_left, previous = turns_left - 1, stored_role
        yield Message(msg_id=f"t{index}", user_id=user_id, session_id=f"session-{session}",
                      speaker=stored_role.capitalize(), role=stored_role, text=text,  # type: ignore[arg-type]
                      ts=ts)
