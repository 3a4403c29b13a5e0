"""ConversationLog contract, run against the in-memory and the DuckDB implementation."""

from __future__ import annotations

import pytest
from stores_helpers import at, message

from memfold.errors import DuplicateMessageError
from memfold.stores import Stores


def test_append_and_get_round_trip(stores: Stores) -> None:
    original = message("m1", "I moved to Austin", meta={"blip_caption": "a skyline"})
    stores.log.append([original])
    assert stores.log.get("ana", ["m1"]) == [original]
    assert stores.log.exists("ana", ["m1", "m9"]) == {"m1"}
    assert stores.log.count() == 1 and stores.log.count("ana") == 1 and stores.log.count("bob") == 0


def test_identical_reappend_is_a_no_op(stores: Stores) -> None:
    stores.log.append([message("m1"), message("m2", minutes=1)])
    stores.log.append([message("m1"), message("m2", minutes=1)])  # re-ingesting the same file
    assert stores.log.count("ana") == 2


def test_same_id_different_content_is_refused_and_batch_is_atomic(stores: Stores) -> None:
    stores.log.append([message("m1", "first words")])
    with pytest.raises(DuplicateMessageError):
        stores.log.append([message("m2", minutes=1), message("m1", "other words")])
    assert stores.log.exists("ana", ["m2"]) == set()
    assert stores.log.get("ana", ["m1"])[0].text == "first words"


def test_duplicate_inside_one_batch_is_refused(stores: Stores) -> None:
    with pytest.raises(DuplicateMessageError):
        stores.log.append([message("m1", "one"), message("m1", "two")])
    assert stores.log.count() == 0


def test_same_msg_id_for_two_users_is_two_messages(stores: Stores) -> None:
    stores.log.append([message("m1", "ana says", user="ana"),
                       message("m1", "bob says", user="bob")])
    assert [m.text for m in stores.log.list("bob")] == ["bob says"]
    assert [m.text for m in stores.log.list("ana")] == ["ana says"]


def test_list_keeps_turn_order_for_equal_timestamps(stores: Stores) -> None:
    turns = [message(f"t{n}", f"turn {n}") for n in (3, 1, 2)]  # same ts, insertion order wins
    stores.log.append(turns)
    assert [m.msg_id for m in stores.log.list("ana")] == ["t3", "t1", "t2"]
    assert [m.msg_id for m in stores.log.list("ana", newest_first=True)] == ["t2", "t1", "t3"]


def test_list_orders_by_time_and_filters(stores: Stores) -> None:
    stores.log.append([message("late", minutes=20, session="s2"), message("early", minutes=0),
                       message("mid", minutes=10)])
    assert [m.msg_id for m in stores.log.list("ana")] == ["early", "mid", "late"]
    assert [m.msg_id for m in stores.log.list("ana", since=at(10))] == ["mid", "late"]
    assert [m.msg_id for m in stores.log.list("ana", until=at(10))] == ["early"]
    assert [m.msg_id for m in stores.log.list("ana", session_id="s2")] == ["late"]
    assert [m.msg_id for m in stores.log.list("ana", limit=2)] == ["early", "mid"]
    assert [m.msg_id for m in stores.log.list("ana", newest_first=True, limit=1)] == ["late"]
    assert stores.log.list("ana", limit=0) == []


def test_delete_and_delete_user(stores: Stores) -> None:
    stores.log.append([message("m1"), message("m2", minutes=1), message("m1", user="bob")])
    assert stores.log.delete("ana", ["m1", "nope"]) == 1
    assert stores.log.exists("ana", ["m1", "m2"]) == {"m2"}
    assert stores.log.delete_user("ana") == 1
    assert stores.log.count("ana") == 0 and stores.log.count("bob") == 1
    assert stores.log.get("ana", []) == [] and stores.log.delete("ana", []) == 0


def test_users_lists_everyone_with_data(stores: Stores) -> None:
    stores.log.append([message("m1", user="zoe"), message("m1", user="ana")])
    assert stores.db.users() == ["ana", "zoe"]
