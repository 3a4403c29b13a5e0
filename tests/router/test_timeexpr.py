"""Relative dates are resolved against the message / query time, never the wall clock."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memfold.timeexpr import (
    EARLIEST,
    find_time_expressions,
    resolve_event_time,
    resolve_query_range,
    sentence_tense,
)

UTC = timezone.utc
MON = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday (LoCoMo-style "1:56 pm on 8 May, 2023")
SUN = datetime(2023, 7, 16, 20, 0, tzinfo=UTC)  # a Sunday
JAN = datetime(2024, 1, 10, 9, 0, tzinfo=UTC)  # a Wednesday early in the year


def d(text: str) -> date:
    return date.fromisoformat(text)


# (text, reference, expected occurred_at date, granularity, interval start, interval end)
EVENT_CASES = [
    ("I went to a support group yesterday", MON, "2023-05-07", "day", "2023-05-07", "2023-05-08"),
    ("We painted the fence last week", MON, "2023-05-01", "week", "2023-05-01", "2023-05-08"),
    ("I ran a 5k two days ago", MON, "2023-05-06", "day", "2023-05-06", "2023-05-07"),
    ("We met 3 weeks ago", MON, "2023-04-17", "week", "2023-04-17", "2023-04-24"),
    ("I adopted a cat last month", MON, "2023-04-01", "month", "2023-04-01", "2023-05-01"),
    ("I graduated last year", MON, "2022-01-01", "year", "2022-01-01", "2023-01-01"),
    ("I visited Lisbon in March", MON, "2023-03-01", "month", "2023-03-01", "2023-04-01"),
    ("I visited Lisbon in June", MON, "2022-06-01", "month", "2022-06-01", "2022-07-01"),
    ("I will visit Lisbon in June", MON, "2023-06-01", "month", "2023-06-01", "2023-07-01"),
    ("On Friday I painted a sunrise", MON, "2023-05-05", "day", "2023-05-05", "2023-05-06"),
    ("last Friday we had a picnic", MON, "2023-05-05", "day", "2023-05-05", "2023-05-06"),
    ("I'm going to the concert on Friday", MON, "2023-05-12", "day", "2023-05-12", "2023-05-13"),
    ("next Friday is my recital", MON, "2023-05-12", "day", "2023-05-12", "2023-05-13"),
    ("I baked bread this morning", MON, "2023-05-08", "day", "2023-05-08", "2023-05-08"),
    ("Tonight I'm cooking risotto", MON, "2023-05-08", "day", "2023-05-08", "2023-05-09"),
    ("We went camping last weekend", MON, "2023-05-06", "day", "2023-05-06", "2023-05-08"),
    ("We went camping last weekend", SUN, "2023-07-08", "day", "2023-07-08", "2023-07-10"),
    ("We start the new job next month", MON, "2023-06-01", "month", "2023-06-01", "2023-07-01"),
    ("The race was on 8 May 2023", SUN, "2023-05-08", "day", "2023-05-08", "2023-05-09"),
    ("It happened on the 20th of April, 2022", MON, "2022-04-20", "day", "2022-04-20",
     "2022-04-21"),
    ("I signed the lease on May 3", MON, "2023-05-03", "day", "2023-05-03", "2023-05-04"),
    ("I signed the lease on May 30", MON, "2022-05-30", "day", "2022-05-30", "2022-05-31"),
    ("Deadline moved to 2023-05-08", JAN, "2023-05-08", "day", "2023-05-08", "2023-05-09"),
    ("We moved there in March 2022", MON, "2022-03-01", "month", "2022-03-01", "2022-04-01"),
    ("I called her a few days ago", MON, "2023-05-05", "week", "2023-05-01", "2023-05-08"),
    ("I saw it a couple of weeks ago", MON, "2023-04-24", "week", "2023-04-24", "2023-05-01"),
    ("I couldn't sleep last night", MON, "2023-05-07", "day", "2023-05-07", "2023-05-08"),
    ("I bumped into Tom the other day", MON, "2023-05-05", "week", "2023-05-01", "2023-05-08"),
    ("We got married last December", JAN, "2023-12-01", "month", "2023-12-01", "2024-01-01"),
    ("I quit smoking last year", JAN, "2023-01-01", "year", "2023-01-01", "2024-01-01"),
    ("I finished the course yesterday", JAN, "2024-01-09", "day", "2024-01-09", "2024-01-10"),
    ("a year ago I lived in Oslo", MON, "2022-05-08", "year", "2022-01-01", "2023-01-01"),
    ("I was born in 1990", MON, "1990-01-01", "year", "1990-01-01", "1991-01-01"),
    ("This past weekend I hiked", SUN, "2023-07-08", "day", "2023-07-08", "2023-07-10"),
    ("We had sushi the day before yesterday", MON, "2023-05-06", "day", "2023-05-06",
     "2023-05-07"),
    ("I moved here in Dec", MON, "2022-12-01", "month", "2022-12-01", "2023-01-01"),
]


@pytest.mark.parametrize(("text", "ref", "occurred", "granularity", "start", "end"), EVENT_CASES)
def test_resolve_event_time(text: str, ref: datetime, occurred: str, granularity: str,
                            start: str, end: str) -> None:
    resolved = resolve_event_time(text, ref)
    assert resolved is not None, text
    assert resolved.occurred_at.date() == d(occurred)
    assert resolved.granularity == granularity
    assert resolved.start.date() == d(start)
    assert resolved.end.date() == d(end)
    assert resolved.start <= resolved.occurred_at < resolved.end or resolved.start == resolved.end
    assert resolved.expression.lower() in text.lower()
    assert resolved.occurred_at.tzinfo is not None


@pytest.mark.parametrize("text", [
    "I love hiking", "recently I started knitting", "My sister is a nurse", "Thanks!",
    "I may go, I may not", "Lately I've been tired", "What a great idea",
])
def test_no_event_time(text: str) -> None:
    assert resolve_event_time(text, MON) is None


def test_hours_ago_is_an_instant() -> None:
    resolved = resolve_event_time("I got home 5 hours ago", MON)
    assert resolved is not None
    assert resolved.granularity == "instant"
    assert resolved.occurred_at == MON - timedelta(hours=5)


def test_naive_reference_is_taken_as_utc() -> None:
    resolved = resolve_event_time("yesterday", datetime(2023, 5, 8, 1, 0))
    assert resolved is not None and resolved.occurred_at == datetime(2023, 5, 7, tzinfo=UTC)


def test_reference_in_another_zone_uses_the_utc_day() -> None:
    # 2023-05-08 01:00 at UTC+5 is 2023-05-07 20:00 UTC: "yesterday" is 6 May in UTC terms.
    ref = datetime(2023, 5, 8, 1, 0, tzinfo=timezone(timedelta(hours=5)))
    resolved = resolve_event_time("yesterday", ref)
    assert resolved is not None and resolved.occurred_at.date() == d("2023-05-06")


def test_leftmost_expression_wins_and_all_are_found() -> None:
    found = find_time_expressions("Yesterday I booked the flight for next month", MON)
    assert [f.expression.lower() for f in found] == ["yesterday", "next month"]


QUERY_CASES = [
    ("what did I do last week", MON, "2023-05-01", "2023-05-08"),
    ("what did I do in May 2023", JAN, "2023-05-01", "2023-06-01"),
    ("what happened two days ago", MON, "2023-05-06", "2023-05-07"),
    ("what did Caroline do yesterday", MON, "2023-05-07", "2023-05-08"),
    ("what have I read this year", MON, "2023-01-01", "2024-01-01"),
    ("where did I go last month", MON, "2023-04-01", "2023-05-01"),
    ("what did I buy in 2022", MON, "2022-01-01", "2023-01-01"),
    ("what have I cooked since March", MON, "2023-03-01", "2023-05-09"),
    ("what did we decide before June", MON, "1900-01-01", "2023-06-01"),
    ("what did I do in the past two weeks", MON, "2023-04-24", "2023-05-09"),
    ("anything new recently?", MON, "2023-04-08", "2023-05-09"),
    ("what did I do after April 2023", MON, "2023-05-01", "2023-05-09"),
    ("how often did I run over the last year", MON, "2022-05-08", "2023-05-09"),
    ("what did we do last weekend", SUN, "2023-07-08", "2023-07-10"),
    ("what did I do since last week", MON, "2023-05-01", "2023-05-09"),
    ("what was planned for next week", MON, "2023-05-15", "2023-05-22"),
    ("what did I eat on Friday", MON, "2023-05-05", "2023-05-06"),
    ("what happened on 8 May 2023", JAN, "2023-05-08", "2023-05-09"),
    ("what did I do in March", JAN, "2023-03-01", "2023-04-01"),
    ("what did I do last year", JAN, "2023-01-01", "2024-01-01"),
    ("what happened in the last 3 days", MON, "2023-05-05", "2023-05-09"),
    ("what did I do until 2023-03-01", MON, "1900-01-01", "2023-03-02"),
    ("what did I do this week", MON, "2023-05-08", "2023-05-15"),
    ("what did I do this morning", MON, "2023-05-08", "2023-05-08"),
]


@pytest.mark.parametrize(("text", "now", "start", "end"), QUERY_CASES)
def test_resolve_query_range(text: str, now: datetime, start: str, end: str) -> None:
    resolved = resolve_query_range(text, now)
    assert resolved is not None, text
    lo, hi = resolved
    assert lo.date() == d(start)
    assert hi.date() == d(end)
    assert lo < hi
    assert lo.tzinfo is not None and hi.tzinfo is not None


@pytest.mark.parametrize("text", ["when did I move to Austin", "what is my dog's name",
                                  "who is Caroline's mentor"])
def test_query_without_time_has_no_range(text: str) -> None:
    assert resolve_query_range(text, MON) is None


def test_before_range_starts_at_earliest() -> None:
    resolved = resolve_query_range("what did I do before 2020", MON)
    assert resolved == (EARLIEST, datetime(2020, 1, 1, tzinfo=UTC))


@given(st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1),
                    timezones=st.just(UTC)),
       st.sampled_from(["yesterday", "last week", "3 weeks ago", "last month", "last year",
                        "last weekend", "on Friday", "a few days ago", "in March",
                        "last night", "2 days ago"]))
def test_past_expressions_never_point_after_the_reference(ref: datetime, text: str) -> None:
    resolved = resolve_event_time(f"I did it {text}", ref)
    assert resolved is not None
    assert resolved.occurred_at <= ref
    assert resolved.start <= resolved.occurred_at < resolved.end


# Bare dates follow the tense of their sentence: past -> the latest one not after the
# reference, future / scheduled present -> the next one on or after it, unclear -> nearest.
TUE = datetime(2025, 9, 16, 8, 30, tzinfo=UTC)  # a Tuesday in mid September
TENSE_CASES = [
    # month + day, no year
    ("We fly to Reykjavik on October 2.", TUE, "2025-10-02", "future"),
    ("Our train leaves on 3 October.", TUE, "2025-10-03", "future"),
    ("The workshop starts on August 30.", TUE, "2026-08-30", "future"),
    ("I'm presenting at the expo on September 20.", TUE, "2025-09-20", "future"),
    ("We are going to paint the kitchen on Sept 28.", TUE, "2025-09-28", "future"),
    ("My dentist appointment is on January 14.", TUE, "2026-01-14", "future"),
    ("I plan to submit the grant by November 1.", TUE, "2025-11-01", "future"),
    ("We went hiking on October 2.", TUE, "2024-10-02", "past"),
    ("She had her surgery on 12 September.", TUE, "2025-09-12", "past"),
    ("The roof was repaired on August 30.", TUE, "2025-08-30", "past"),
    ("I finished the manuscript on September 16.", TUE, "2025-09-16", "past"),
    ("September 19 sounds fine to me.", TUE, "2025-09-19", "unclear"),
    ("What a day, March 3.", TUE, "2026-03-03", "unclear"),
    ("Pictures from September 2 are lovely.", TUE, "2025-09-02", "unclear"),
    # weekdays
    ("I'm seeing my cousin on Thursday.", TUE, "2025-09-18", "future"),
    ("They arrive on Monday.", TUE, "2025-09-22", "future"),
    ("On Sunday I cleaned the garage.", TUE, "2025-09-14", "past"),
    ("We met for lunch on Wednesday.", TUE, "2025-09-10", "past"),
    ("Thursday then!", TUE, "2025-09-18", "unclear"),
    ("Saturday, the usual place.", TUE, "2025-09-13", "unclear"),
    # bare month
    ("We're moving to Ghent in February.", TUE, "2026-02-01", "future"),
    ("I changed jobs in February.", TUE, "2025-02-01", "past"),
    ("Vienna in October, perfect.", TUE, "2025-10-01", "unclear"),
]


@pytest.mark.parametrize(("text", "ref", "expected", "tense"), TENSE_CASES)
def test_bare_dates_follow_the_tense(text: str, ref: datetime, expected: str,
                                     tense: str) -> None:
    assert sentence_tense(text) == tense
    resolved = resolve_event_time(text, ref)
    assert resolved is not None, text
    assert resolved.occurred_at.date() == d(expected)
    assert resolved.granularity == ("month" if "in " in resolved.expression.lower() else "day")


def test_each_sentence_has_its_own_tense() -> None:
    found = find_time_expressions(
        "We went to the lake on Saturday. We're driving back there on Saturday too.", TUE)
    assert [f.occurred_at.date() for f in found] == [d("2025-09-13"), d("2025-09-20")]


def test_a_leading_reply_does_not_change_the_tense() -> None:
    resolved = resolve_event_time("Really good. On Friday Lea ran her first marathon.", TUE)
    assert resolved is not None and resolved.occurred_at.date() == d("2025-09-12")


@given(st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1),
                    timezones=st.just(UTC)),
       st.sampled_from(["on Friday", "on March 3", "on 29 February", "in June", "on Sunday"]),
       st.sampled_from(["We fly out {}", "I'm meeting them {}", "It starts {}"]))
def test_plans_never_point_before_the_reference_day(ref: datetime, when: str,
                                                    template: str) -> None:
    resolved = resolve_event_time(template.format(when), ref)
    if resolved is None:  # 29 February with no leap year within a year of ref
        return
    assert resolved.end > ref


def test_a_weekly_routine_is_not_a_date() -> None:
    assert resolve_event_time("The choir rehearses on Tuesday evenings.", TUE) is None


@pytest.mark.parametrize(("text", "expected"), [
    ("The report is due on the 15th.", date(2026, 12, 15)),  # ahead: this month's 15th
    ("I will see her on the 3rd.", date(2027, 1, 3)),  # this month's 3rd has passed: next month's
    ("We met on the 28th.", date(2026, 11, 28)),  # past tense: the last 28th
])
def test_a_bare_day_of_the_month_follows_the_tense(text: str, expected: date) -> None:
    ref = datetime(2026, 12, 10, 12, tzinfo=timezone.utc)
    resolved = resolve_event_time(text, ref)
    assert resolved is not None and resolved.occurred_at.date() == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("the roofer is coming the 4th to do the slates", date(2027, 1, 4)),
    ("moving day is the 30th!!", date(2026, 12, 30)),
    ("rent due the 15th", date(2026, 12, 15)),
    ("it is the 4th floor", None),
    ("this is the 3rd time", None),
])
def test_a_day_of_the_month_after_a_verb_of_arriving_or_falling_due(text: str, expected: date | None) -> None:
    resolved = resolve_event_time(text, datetime(2026, 12, 10, 12, tzinfo=timezone.utc))
    assert (resolved.occurred_at.date() if resolved else None) == expected
