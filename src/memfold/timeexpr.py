"""Relative and absolute time expressions, resolved against a reference time.

Pure functions, no I/O, no clock: every relative expression is resolved against the
time the caller passes (a message's ``ts`` when routing, the query's ``now`` when
recalling), never against the wall clock. Plain Python and regular expressions only.

Conventions (all documented choices, kept deliberately simple):

* Calendar arithmetic is done in UTC: a naive reference time is taken as UTC. "Yesterday"
  said at 2023-05-08T13:56Z is the UTC day 2023-05-07.
* Weeks are ISO weeks (Monday 00:00 to the next Monday). "last week" is the previous
  ISO week; "last weekend" is the Saturday and Sunday of the previous ISO week (so on a
  Sunday it means the weekend before, not the day before); "this weekend" is the
  weekend of the current ISO week.
* ``occurred_at`` is the start of the covered interval, except for "N <units> ago",
  where it is the reference moved back N units (start of that day), inside the calendar
  week/month/year the interval covers.
* Bare month or weekday names ("in March", "on Friday", "April 10") are resolved by the
  tense of the sentence they are in (``sentence_tense``): past tense ("went", "had", "was",
  "-ed" verbs) gives the most recent occurrence not after the reference (a weekday:
  strictly before the reference day); future or scheduled present ("will", "going to",
  "plan to", "we fly", "it starts", "is on", "we're leaving", "next") gives the next
  occurrence on or after it (a weekday: strictly after the reference day); when the tense
  is unclear, the nearest occurrence (ties go to the past). Queries default to the past.
* Vague expressions: "a few days ago" / "the other day" mean about three days back with
  week granularity; "recently" / "lately" give no event time (``None``); in a query,
  "recently" / "lately" cover the last 30 days.
* Day parts: "this morning" covers 06:00-12:00 of the reference day, "this afternoon"
  12:00-18:00, "this evening"/"tonight" 18:00-24:00, "last night" 18:00 of the day before
  to 06:00 of the reference day.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import Literal

from pydantic import BaseModel, ConfigDict

from memfold.models import Granularity

UTC = timezone.utc
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)  # open start of "before X" query ranges

MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}
WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
            "saturday": 5, "sunday": 6}
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3,
}
_VAGUE_COUNTS = {"a few", "few", "several"}

_MONTH_RE = (r"(?P<month>january|february|march|april|may|june|july|august|september|october|"
             r"november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)")
_MONTH_FULL_RE = (r"(?P<month>january|february|march|april|may|june|july|august|september|"
                  r"october|november|december)")
_WEEKDAY_RE = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_COUNT_RE = (r"(?P<count>\d{1,3}|a couple of|a couple|couple of|a few|few|several|an|a|one|two|"
             r"three|four|five|six|seven|eight|nine|ten|eleven|twelve)")
_UNIT_RE = r"(?P<unit>minute|hour|day|week|month|year)s?"
_DAY_RE = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR_RE = r"(?P<year>(?:19|20)\d\d)"

# Irregular simple-past forms (shared with the router's event cues).
IRREGULAR_PAST = (
    "went|saw|got|took|made|had|met|ran|bought|brought|came|did|drove|ate|drank|flew|found|gave|"
    "grew|heard|held|kept|knew|left|lost|paid|put|read|rode|sang|sat|sent|slept|spent|spoke|"
    "stood|swam|taught|thought|told|threw|won|wrote|began|broke|built|caught|chose|fell|felt|"
    "fought|forgot|hung|hit|hurt|led|lent|let|lit|quit|rang|rose|sold|shot|shut|stole|struck|"
    "took|tore|understood|woke|wore|became|bit|blew|dug|drew|fed|froze|hid|laid|meant|overcame|"
    "beat|bet|cut|set|spread|split|shut|upset|forgave|bent|bled|bred|clung|dealt|fled|flung|"
    "ground|knelt|leapt|lent|shook|slid|sought|sank|sprang|stung|swore|swept|swung|wept|wound"
)
Tense = Literal["past", "future", "unclear"]

# past forms that are also present forms ("I read", "we cut") say nothing about tense
_SAME_AS_PRESENT = frozenset(
    "read put set cut hit let quit shut spread split bet beat hurt upset ground wound".split())
_PAST_WORDS = "|".join(w for w in IRREGULAR_PAST.split("|") if w not in _SAME_AS_PRESENT)
_PAST_CUE = re.compile(
    r"\b(?:was|were|wasn't|weren't|had|hadn't|did|didn't|ago|yesterday|used to|" + _PAST_WORDS
    + r")\b", re.IGNORECASE)
# "-ed" verbs, unless a form of "be"/"get" makes them an adjective or passive ("I'm excited",
# "it's scheduled") or they follow a noun as a participle ("a dog named Rex")
_ED_VERB = re.compile(
    r"(?<!\bis )(?<!\bare )(?<!\bam )(?<!'m )(?<!'re )(?<!'s )(?<!\bbe )(?<!\bget )"
    r"(?<!\bgetting )\b(?!(?:named|called|based|titled|located|need|feed|speed|indeed|"
    r"interested|excited|tired|scheduled|planned|supposed|booked|used)\b)[a-z]{3,}ed\b",
    re.IGNORECASE)
_FUTURE_CUE = re.compile(
    r"\b(?:will|won't|shall|going to|gonna|plan(?:ning|s)? (?:to|on)|about to|upcoming|"
    r"coming up|can't wait|looking forward|tomorrow|next|this coming|scheduled|planned|"
    r"booked (?:for|on)|due (?!to)|hope to|want to|need to|have to|intend to)\b|\w'll\b|"
    r"\b(?:is|are|'s|'re|am|'m) (?:on|set for|booked|coming|happening)\b",
    re.IGNORECASE)
# present progressive ("we're flying", "I'm seeing her"): with a date, an arrangement
_PROGRESSIVE = re.compile(
    r"\b(?:am|'m|are|'re|is|'s)\s+(?:\w+ly\s+|also\s+|still\s+)?"
    r"(?!(?:\w*thing|morning|evening|during|interesting|amazing|exciting|boring|annoying|"
    r"confusing|relaxing|tiring|surprising|stunning|charming|wedding|building|ceiling)\b)"
    r"[a-z]{2,}ing\b", re.IGNORECASE)
# present simple with a date is a timetable: "we fly on April 10", "the course starts Monday"
_SCHEDULED_PRESENT = re.compile(
    r"\b(?:i|we|you|they)\s+(?:fly|leave|go|head|travel|arrive|depart|start|begin|meet|move|"
    r"return|come back|get back|land|visit|see|have|host|play|perform|drive|sail|check in)\b|"
    r"\b(?:flies|leaves|goes|heads|travels|arrives|departs|starts|begins|meets|moves|returns|"
    r"comes back|gets back|lands|visits|opens|closes|ends|finishes|runs|takes place|kicks off|"
    r"hosts|plays|performs|launches|expires)\b", re.IGNORECASE)


_APPOINTMENT = re.compile(  # "a table for Friday", "booked for 12 May", "done by March"
    r"\b(?:for|until|till|by) (?:the |this )?(?:\d|" + _MONTH_RE.replace("?P<month>", "?:")
    + r"\b|" + _WEEKDAY_RE.replace("?P<weekday>", "?:") + r")", re.IGNORECASE)


def sentence_tense(text: str) -> Tense:
    """'past', 'future' (incl. scheduled present) or 'unclear' for one sentence.

    A vote: future cues and a present-simple timetable against past forms. Explicit
    futures ("will", "going to", "next") outweigh a past verb in the same sentence
    ("I booked a table for next Friday"); "for <date>" marks an appointment.
    """
    future = 2 * len(_FUTURE_CUE.findall(text)) + 2 * len(_PROGRESSIVE.findall(text))
    future += len(_SCHEDULED_PRESENT.findall(text)) + 2 * len(_APPOINTMENT.findall(text))
    past = 2 * len(_PAST_CUE.findall(text)) + 2 * len(_ED_VERB.findall(text))
    if future > past:
        return "future"
    if past > future:
        return "past"
    return "unclear"


class TimeRef(BaseModel):
    """A resolved time expression: a point estimate and the interval it covers."""

    model_config = ConfigDict(frozen=True)

    occurred_at: datetime
    granularity: Granularity
    expression: str
    start: datetime
    end: datetime  # exclusive


@dataclass(frozen=True)
class _Ctx:
    ref: datetime  # aware, UTC
    tense: Tense

    @property
    def future(self) -> bool:
        return self.tense == "future"

    @property
    def past(self) -> bool:
        return self.tense == "past"

    @property
    def day(self) -> date:
        return self.ref.date()


# -- calendar helpers ---------------------------------------------------------------------

def _at(day: date, hour: int = 0) -> datetime:
    return datetime.combine(day, time(hour), tzinfo=UTC)


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, _days_in_month(year, month + 1)))


def _days_in_month(year: int, month: int) -> int:
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return (nxt - date(year, month, 1)).days


def _week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _span(start: date, end: date, granularity: Granularity, expr: str,
          occurred: datetime | None = None) -> TimeRef:
    start_dt, end_dt = _at(start), _at(end)
    return TimeRef(occurred_at=occurred or start_dt, granularity=granularity, expression=expr,
                   start=start_dt, end=end_dt)


def _day_ref(day: date, expr: str) -> TimeRef:
    return _span(day, day + timedelta(days=1), "day", expr)


def _week_ref(monday: date, expr: str, occurred: datetime | None = None) -> TimeRef:
    return _span(monday, monday + timedelta(days=7), "week", expr, occurred)


def _month_ref(year: int, month: int, expr: str, occurred: datetime | None = None) -> TimeRef:
    first = date(year, month, 1)
    return _span(first, _add_months(first, 1), "month", expr, occurred)


def _year_ref(year: int, expr: str, occurred: datetime | None = None) -> TimeRef:
    return _span(date(year, 1, 1), date(year + 1, 1, 1), "year", expr, occurred)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _which(word: str | None) -> str:
    """Normalise 'last/past/previous/this past' -> last, 'next/this coming' -> next."""
    word = re.sub(r"\s+", " ", (word or "").lower())
    if word in ("last", "past", "previous", "this past"):
        return "last"
    if word in ("next", "this coming"):
        return "next"
    return word


# -- handlers: (match, ctx) -> TimeRef | None -----------------------------------------------

def _h_iso(m: re.Match[str], ctx: _Ctx) -> TimeRef | None:
    day = _safe_date(int(m["y"]), int(m["m"]), int(m["d"]))
    return _day_ref(day, m[0]) if day else None


def _h_day_month(m: re.Match[str], ctx: _Ctx) -> TimeRef | None:
    month, dom = MONTHS[m["month"].lower()], int(m["day"])
    if m["year"]:
        day = _safe_date(int(m["year"]), month, dom)
    else:
        day = _nearest_month_day(month, dom, ctx)
    return _day_ref(day, m[0]) if day else None


def _nearest_month_day(month: int, dom: int, ctx: _Ctx) -> date | None:
    """The date with this month and day the tense points to: the most recent one not after
    the reference (past), the next one on or after it (future), else the nearest."""
    candidates = [day for year in (ctx.day.year - 1, ctx.day.year, ctx.day.year + 1)
                  if (day := _safe_date(year, month, dom)) is not None]
    if not candidates:
        return None
    if ctx.past:
        return max((day for day in candidates if day <= ctx.day), default=None)
    if ctx.future:
        return min((day for day in candidates if day >= ctx.day), default=None)
    return min(candidates, key=lambda day: (abs((day - ctx.day).days), day > ctx.day))


def _h_day_of_month(m: re.Match[str], ctx: _Ctx) -> TimeRef | None:
    """'due on the 15th': that day of this month, the next or the previous, as the tense says."""
    dom = int(m["dom"])
    months = [_add_months(ctx.day.replace(day=1), step) for step in (-1, 0, 1)]
    candidates = [day for first in months if (day := _safe_date(first.year, first.month, dom))]
    if not candidates:
        return None
    if ctx.past:
        day = max((d for d in candidates if d <= ctx.day), default=None)
    elif ctx.future:
        day = min((d for d in candidates if d >= ctx.day), default=None)
    else:
        day = min(candidates, key=lambda d: (abs((d - ctx.day).days), d > ctx.day))
    return _day_ref(day, m[0]) if day else None


def _h_day_due(m: re.Match[str], ctx: _Ctx) -> TimeRef | None:
    """'moving day is the 30th': said of what is coming or falls due, the next such day
    unless the sentence is in the past tense."""
    return _h_day_of_month(m, ctx if ctx.past else _Ctx(ctx.ref, "future"))


def _h_month_year(m: re.Match[str], ctx: _Ctx) -> TimeRef:
    return _month_ref(int(m["year"]), MONTHS[m["month"].lower()], m[0])


def _h_month(m: re.Match[str], ctx: _Ctx) -> TimeRef:
    """'in March', 'last March', 'next March', 'this March'."""
    month, which = MONTHS[m["month"].lower()], _which(m["which"])
    year = ctx.day.year
    if which == "this" or (m["prep"] or "").lower() in ("before", "until", "by"):
        pass  # 'before June' bounds the current year's June
    elif which == "last":
        year -= 1 if month >= ctx.day.month else 0
    elif which == "next" or ctx.future:
        year += 1 if month < ctx.day.month or (which == "next" and month == ctx.day.month) else 0
    elif ctx.past:
        year -= 1 if month > ctx.day.month else 0
    else:  # unclear: the nearest month of that name (ties go to the past)
        year = min((ctx.day.year - 1, ctx.day.year, ctx.day.year + 1),
                   key=lambda y: (abs((y - ctx.day.year) * 12 + month - ctx.day.month), y))
    return _month_ref(year, month, m[0])


def _h_year(m: re.Match[str], ctx: _Ctx) -> TimeRef:
    return _year_ref(int(m["year"]), m[0])


def _h_named_day(m: re.Match[str], ctx: _Ctx) -> TimeRef:
    word = re.sub(r"\s+", " ", m["named"].lower())
    offsets = {"today": 0, "earlier today": 0, "yesterday": -1, "the day before yesterday": -2,
               "tomorrow": 1, "the day after tomorrow": 2}
    return _day_ref(ctx.day + timedelta(days=offsets[word]), m[0])


def _h_day_part(m: re.Match[str], ctx: _Ctx) -> TimeRef:
    part = re.sub(r"\s+", " ", m["part"].lower())
    hours = {"this morning": (0, 6, 12), "this afternoon": (0, 12, 18),
             "this evening": (0, 18, 24), "tonight": (0, 18, 24), "last night": (-1, 18, 30),
             "yesterday morning": (-1, 6, 12), "yesterday afternoon": (-1, 12, 18),
             "yesterday evening": (-1, 18, 24), "tomorrow morning": (1, 6, 12)}
    offset, lo, hi = hours[part]
    base = _at(ctx.day + timedelta(days=offset))
    start, end = base + timedelta(hours=lo), base + timedelta(hours=hi)
    return TimeRef(occurred_at=start, granularity="day", expression=m[0], start=start, end=end)


def _h_ago(m: re.Match[str], ctx: _Ctx) -> TimeRef | None:
    count_word, unit = m["count"].lower(), m["unit"].lower()
    count = int(count_word) if count_word.isdigit() else NUMBER_WORDS[count_word]
    vague = count_word in _VAGUE_COUNTS
    if unit in ("minute", "hour"):
        moment = ctx.ref - timedelta(**{unit + "s": count})
        return TimeRef(occurred_at=moment, granularity="instant", expression=m[0],
                       start=moment, end=moment + timedelta(hours=1))
    if unit == "day":
        day = ctx.day - timedelta(days=count)
        if vague:
            return _span(ctx.day - timedelta(days=7), ctx.day, "week", m[0], _at(day))
        return _day_ref(day, m[0])
    if unit == "week":
        day = ctx.day - timedelta(weeks=count)
        return _week_ref(_week_start(day), m[0], _at(day))
    if unit == "month":
        day = _add_months(ctx.day, -count)
        return _month_ref(day.year, day.month, m[0], _at(day))
    day = _add_months(ctx.day, -12 * count)
    return _year_ref(day.year, m[0], _at(day))


def _h_relative_unit(m: re.Match[str], ctx: _Ctx) -> TimeRef:
    """'last/this/next week|month|year|weekend'."""
    which, unit = _which(m["which"]), m["unit"].lower()
    shift = {"last": -1, "this": 0, "next": 1}[which]
    if unit in ("week", "weekend"):
        monday = _week_start(ctx.day) + timedelta(weeks=shift)
        if unit == "weekend":
            saturday = monday + timedelta(days=5)
            return _span(saturday, saturday + timedelta(days=2), "day", m[0])
        return _week_ref(monday, m[0])
    if unit == "month":
        day = _add_months(ctx.day, shift)
        return _month_ref(day.year, day.month, m[0])
    return _year_ref(ctx.day.year + shift, m[0])


def _h_weekday(m: re.Match[str], ctx: _Ctx) -> TimeRef:
    """'last Friday', 'on Friday', 'next Friday', 'this Friday'.

    Past: the latest such day strictly before the reference day; future ('next', or an
    upcoming 'this'): the first one strictly after it; unclear: the nearer of the two.
    """
    target, which = WEEKDAYS[m["weekday"].lower()], _which(m["which"])
    back = ctx.day - timedelta(days=(ctx.day.weekday() - target) % 7 or 7)
    ahead = ctx.day + timedelta(days=(target - ctx.day.weekday()) % 7 or 7)
    if which == "last" or (which != "next" and ctx.past):
        return _day_ref(back, m[0])
    if which in ("next", "this") or ctx.future:
        return _day_ref(ahead, m[0])
    nearer = back if ctx.day - back <= ahead - ctx.day else ahead
    return _day_ref(nearer, m[0])


def _h_other_day(m: re.Match[str], ctx: _Ctx) -> TimeRef:
    day = ctx.day - timedelta(days=3)
    return _span(ctx.day - timedelta(days=7), ctx.day, "week", m[0], _at(day))


def _h_now(m: re.Match[str], ctx: _Ctx) -> TimeRef:
    return TimeRef(occurred_at=ctx.ref, granularity="instant", expression=m[0],
                   start=ctx.ref, end=ctx.ref + timedelta(minutes=1))


_Handler = Callable[[re.Match[str], _Ctx], TimeRef | None]


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + pattern + r"(?![\w-])", re.IGNORECASE)


# Order matters only for ties (same start): longer, more specific patterns come first.
_RULES: list[tuple[re.Pattern[str], _Handler]] = [
    (_rx(r"(?P<y>(?:19|20)\d\d)[-/](?P<m>[01]?\d)[-/](?P<d>[0-3]?\d)"), _h_iso),
    (_rx(_DAY_RE + r"(?: of)? " + _MONTH_RE + r"\.?,?(?: " + _YEAR_RE + r")?"), _h_day_month),
    (_rx(_MONTH_RE + r"\.? " + _DAY_RE + r"(?:,? " + _YEAR_RE + r")?"), _h_day_month),
    (_rx(_MONTH_FULL_RE + r",? " + _YEAR_RE), _h_month_year),
    (_rx(r"(?P<named>the day before yesterday|the day after tomorrow|earlier today|yesterday|"
         r"today|tomorrow)(?! (?:morning|afternoon|evening))"), _h_named_day),
    (_rx(r"(?P<part>this morning|this afternoon|this evening|tonight|last night|"
         r"yesterday morning|yesterday afternoon|yesterday evening|tomorrow morning)"),
     _h_day_part),
    (_rx(_COUNT_RE + r" " + _UNIT_RE + r" (?:ago|back|earlier)"), _h_ago),
    (_rx(r"(?P<which>this past|this coming|last|past|previous|this|next) "
         r"(?P<unit>weekend|week|month|year)"), _h_relative_unit),
    # "on Thursday evenings" is a routine, not a date
    (_rx(r"(?:(?P<which>last|this|next|on|this past|this coming) )?" + _WEEKDAY_RE
         + r"(?! (?:mornings|afternoons|evenings|nights))"), _h_weekday),
    (_rx(r"(?:(?P<which>last|next|this) |(?P<prep>in|during|since|before|after|until|by|"
         r"early|late|mid) |mid-)" + _MONTH_RE + r"(?!\.?,? \d)"), _h_month),
    (_rx(r"(?:in|during|since|before|after|until|of|back in) " + _YEAR_RE), _h_year),
    (_rx(r"(?:on|by|before|until|for) the (?P<dom>[0-3]?\d)(?:st|nd|rd|th)(?! of\b)"), _h_day_of_month),
    # "the roofer is coming the 4th", "moving day is the 30th!!", "rent due the 1st": a day
    # after a verb of arriving or falling due, as long as no noun follows ("the 4th floor")
    (_rx(r"(?:is|are|coming|comes|due|arrives?|arriving|starts?|starting|ends?|ending|back|till|til|"
         r"from) the (?P<dom>[0-3]?\d)(?:st|nd|rd|th)(?=\s*(?:$|[^\w\s]|(?:to|at|and|so|but|or|then|in|lol|pls|"
         r"please|morning|afternoon|evening|night)\b))"), _h_day_due),
    (_rx(r"the other day"), _h_other_day),
    (_rx(r"just now|right now|a moment ago"), _h_now),
]


def _aware_utc(value: datetime) -> datetime:
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _matches(text: str, ctx: _Ctx) -> list[tuple[int, int, TimeRef]]:
    found: list[tuple[int, int, TimeRef]] = []
    for pattern, handler in _RULES:
        for match in pattern.finditer(text):
            try:
                resolved = handler(match, ctx)
            except (OverflowError, ValueError):  # "yesterday" on 0001-01-01: no such date
                resolved = None
            if resolved is not None:
                found.append((match.start(), -(match.end() - match.start()), resolved))
    found.sort(key=lambda item: (item[0], item[1]))
    return found


_CLAUSE_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+")


def _sentence_spans(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) pairs: the tense of a date is read from its own sentence."""
    spans, offset = [], 0
    for part in _CLAUSE_SPLIT.split(text):
        start = text.index(part, offset)
        spans.append((start, part))
        offset = start + len(part)
    return spans


def find_time_expressions(text: str, ref: datetime) -> list[TimeRef]:
    """Every time expression in ``text``, leftmost first (overlapping matches dropped).

    Bare dates ("on Friday", "April 10") follow the tense of the sentence they are in.
    """
    aware = _aware_utc(ref)
    found: list[tuple[int, int, TimeRef]] = []
    for offset, sentence in _sentence_spans(text):
        ctx = _Ctx(ref=aware, tense=sentence_tense(sentence))
        found += [(offset + start, neg_len, resolved)
                  for start, neg_len, resolved in _matches(sentence, ctx)]
    out: list[TimeRef] = []
    taken_until = -1
    for start, neg_len, resolved in found:
        if start >= taken_until:
            out.append(resolved)
            taken_until = start - neg_len
    return out


def resolve_event_time(text: str, ref: datetime) -> TimeRef | None:
    """When the event told in ``text`` happened, resolved against the message time ``ref``.

    Returns the leftmost time expression, or None when the text has none (or only a vague
    one like "recently"). The caller defaults to the message time with day granularity.
    """
    if not _QUICK_FILTER.search(text):
        return None
    found = find_time_expressions(text, ref)
    return found[0] if found else None


# A cheap pre-filter: most chat turns carry no time words, and the router runs per message.
_QUICK_FILTER = re.compile(
    r"\d|\b(?:ago|back|earlier|minutes?|hours?|yesterday|today|tomorrow|tonight|morning|"
    r"afternoon|evening|night|week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|other day|just now|"
    r"right now|moment)\b",
    re.IGNORECASE)

_RANGE_RE = re.compile(
    r"\b(?:in |during |over |within )?the (?:past|last|previous) (?:" + _COUNT_RE + r" )?"
    + _UNIT_RE,
    re.IGNORECASE)
_RECENT_RE = re.compile(r"\b(?:recently|lately|these days|of late)\b", re.IGNORECASE)
_SINCE_RE = re.compile(r"\b(?P<op>since|after|from|before|until|till|prior to|by)\s+$", re.I)


def _unit_delta(count: int, unit: str) -> timedelta:
    days = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1, "week": 7, "month": 30.4375,
            "year": 365.25}[unit]
    return timedelta(days=days * count)


def resolve_query_range(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The half-open UTC range [start, end) a question refers to, or None.

    "last week" is the previous ISO week (Monday to Monday); "in the past two weeks" is
    [now - 14 days, end of today); "since March" is [1 March, end of today); "before June"
    is [1900-01-01, 1 June); "recently" is the last 30 days. Open-ended ranges end at the
    start of the day after ``now`` so that everything said today is covered.
    """
    now = _aware_utc(now)
    end_of_today = _at(now.date() + timedelta(days=1))
    rolling = _RANGE_RE.search(text)
    if rolling:
        count_word = (rolling["count"] or "1").lower()
        count = int(count_word) if count_word.isdigit() else NUMBER_WORDS[count_word]
        return now - _unit_delta(count, rolling["unit"].lower()), end_of_today
    tense = sentence_tense(text)
    ctx = _Ctx(ref=now, tense="past" if tense == "unclear" else tense)  # questions look back
    for start, _neg_len, resolved in _matches(text, ctx):
        bounded = _bounded_range(text[:start], resolved, end_of_today)
        if bounded is not None:
            return bounded
    if _RECENT_RE.search(text):
        return now - timedelta(days=30), end_of_today
    return None


def _bounded_range(prefix: str, resolved: TimeRef,
                   end_of_today: datetime) -> tuple[datetime, datetime] | None:
    """Apply 'since/after/before/until' found just before (or inside) the expression."""
    op_match = _SINCE_RE.search(prefix)
    expr_op = re.match(r"(since|after|before|until)\b", resolved.expression, re.I)
    op = (op_match["op"] if op_match else expr_op[1] if expr_op else "").lower()
    if op in ("since", "from"):
        return resolved.start, max(end_of_today, resolved.end)
    if op == "after":
        return resolved.end, max(end_of_today, resolved.end)
    if op in ("before", "prior to"):
        return EARLIEST, resolved.start
    if op in ("until", "till", "by"):
        return EARLIEST, resolved.end
    return resolved.start, resolved.end
