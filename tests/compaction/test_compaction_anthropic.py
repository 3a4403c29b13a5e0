"""AnthropicCompactor through the real SDK and AnthropicBackend, over a mock HTTP transport.

anthropic 2.x rejects `httpx` objects and takes `httpx2` ones (same API), so the mock
transport comes from httpx2.
"""

from __future__ import annotations

import json
import logging

import anthropic
import httpx2 as httpx  # anthropic 2.x ships its own fork of httpx
import pytest
from compaction_helpers import COUNTER, message

from memfold.compaction.anthropic import AnthropicCompactor
from memfold.compaction.base import FoldSettings
from memfold.compaction.manager import ConversationManager
from memfold.compaction.offline import OfflineCompactor
from memfold.errors import BackendRateLimitError
from memfold.llm.anthropic import AnthropicBackend
from memfold.models import Episode, Note, SemanticMemory

SETTINGS = FoldSettings()
TURNS = [message(0, "We decided to use Postgres because it supports JSONB."),
         message(1, "Great, thanks."),
         message(2, "The staging database lives in Frankfurt and holds 40 GB."),
         message(3, "Should we enable point-in-time recovery for the Frankfurt database?")]


def _reply(text: str) -> dict:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 10}}


class FakeAPI:
    """Answers each request with the next canned text; records the request bodies."""

    def __init__(self, *texts: str, status: int = 200) -> None:
        self.texts = list(texts)
        self.status = status
        self.requests: list[dict] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        if self.status != 200:
            return httpx.Response(self.status, json={"type": "error", "error": {
                "type": "rate_limit_error", "message": "slow down"}})
        return httpx.Response(200, json=_reply(self.texts.pop(0)))


def _compactor(api: FakeAPI) -> AnthropicCompactor:
    client = anthropic.Anthropic(api_key="test", max_retries=0,
                                 http_client=httpx.Client(transport=httpx.MockTransport(api.handler)))
    backend = AnthropicBackend(client, model="claude-haiku-4-5")
    return AnthropicCompactor(backend, fallback=OfflineCompactor(SETTINGS, COUNTER))


def _compact(compactor: AnthropicCompactor) -> Episode:
    return compactor.compact_episode(TURNS, episode_id=3, turn_range=(30, 33), user_id="u1")


EPISODE_JSON = json.dumps({
    "summary": "The team chose Postgres for JSONB; the staging database is in Frankfurt (40 GB).",
    "decisions": [{"decision": "Use Postgres", "reason": "it supports JSONB", "constraint": ""}],
    "eliminated": [{"approach": "Use a quantum ledger", "why": "invented by the model"}],
    "open_questions": ["Enable point-in-time recovery for the Frankfurt database?"],
    "tool_results": {}})


def test_episode_request_uses_the_spec_prompt_and_quotes_turns_as_data() -> None:
    api = FakeAPI(EPISODE_JSON)
    episode = _compact(_compactor(api))
    request = api.requests[0]
    assert request["model"] == "claude-haiku-4-5"
    assert "You are an episode compactor" in request["system"]
    assert "Do not infer or extrapolate" in request["system"]
    content = request["messages"][0]["content"]
    assert content.startswith("<turns>") and "[m2] Bob (user, " in content
    assert episode.summary.startswith("The team chose Postgres")
    assert episode.decisions[0].decision == "Use Postgres" and episode.decisions[0].sources == ["m0"]
    assert episode.eliminated == []  # grounded in no turn: dropped as unsupported
    assert episode.open_questions and set(episode.sources) <= {"m0", "m2", "m3"}
    pinned = [n for n in episode.notes if "40 GB" in n.text]
    assert pinned and pinned[0].pinned  # the extractive pinned notes ride along


def test_invalid_json_gets_one_retry_then_the_offline_episode(caplog: pytest.LogCaptureFixture) -> None:
    api = FakeAPI("not json at all", "still {not json")
    with caplog.at_level(logging.WARNING):
        episode = _compact(_compactor(api))
    offline = OfflineCompactor(SETTINGS, COUNTER).compact_episode(
        TURNS, episode_id=3, turn_range=(30, 33), user_id="u1")
    assert len(api.requests) == 2 and "not valid JSON" in api.requests[1]["messages"][0]["content"]
    assert episode == offline
    assert any("offline" in r.getMessage() or "fallback" in r.getMessage() for r in caplog.records)


def test_a_retry_that_succeeds_is_used() -> None:
    api = FakeAPI("```json\n{oops", EPISODE_JSON)
    episode = _compact(_compactor(api))
    assert len(api.requests) == 2 and episode.summary.startswith("The team chose Postgres")


def test_api_errors_surface_as_memfold_errors() -> None:
    with pytest.raises(BackendRateLimitError):
        _compact(_compactor(FakeAPI(status=429)))


def _sem_reply(**fields: object) -> str:
    base: dict[str, object] = {"facts": [], "decisions": [], "eliminated_approaches": [], "patterns": []}
    base.update(fields)
    return json.dumps(base)


def test_distil_merges_with_existing_and_keeps_contradicted_fact_in_history() -> None:
    existing = SemanticMemory(user_id="u1", facts=[
        Note(text="Ann: My rent is 1200 euros per month.", sources=["m1"], importance=0.85)])
    episode = Episode(episode_id=0, user_id="u1", turn_range=(10, 19), summary="",
                      notes=[Note(text="Ann: My rent is 1450 euros per month.", sources=["m15"],
                                  importance=0.85)], sources=["m15"])
    api = FakeAPI(_sem_reply(facts=["Ann's rent is 1450 euros per month.",
                                    "Ann owns a yacht named Poseidon."]))
    sem = _compactor(api).distil([episode], existing)
    request = api.requests[0]
    assert "semantic memory extractor" in request["system"]
    payload = request["messages"][0]["content"]
    assert "1200 euros" in payload and "1450 euros" in payload  # existing L3 is sent to merge
    texts = [f.text for f in sem.facts]
    assert "Ann's rent is 1450 euros per month." in texts
    assert not any("Poseidon" in x for x in texts)  # unsupported: no evidence, dropped
    assert [h.text for h in sem.history] == ["Ann: My rent is 1200 euros per month."]


def test_distil_restores_pinned_notes_the_model_left_out() -> None:
    episode = Episode(episode_id=0, user_id="u1", turn_range=(0, 9), summary="",
                      notes=[Note(text="Bob: The vault code changes on 3 March 2031.",
                                  sources=["m4"], importance=0.9)], sources=["m4"])
    sem = _compactor(FakeAPI(_sem_reply())).distil([episode], SemanticMemory(user_id="u1"))
    assert [f.text for f in sem.facts] == ["Bob: The vault code changes on 3 March 2031."]


def test_manager_runs_with_the_anthropic_compactor() -> None:
    api = FakeAPI(*([EPISODE_JSON] * 5))
    manager = ConversationManager(_compactor(api), SETTINGS, COUNTER)
    turns = [message(i, TURNS[i % 4].text) for i in range(20)]
    outcome = manager.add(manager.new_state("u1"), turns)
    assert outcome.folds == 1 and len(api.requests) == 1
    assert outcome.episodes[0].summary.startswith("The team chose Postgres")
    assert set(outcome.episodes[0].sources) <= {f"m{i}" for i in range(10)}



def test_summarize_strategy_keeps_the_model_summary() -> None:
    settings = FoldSettings(strategy="summarize")
    client = anthropic.Anthropic(api_key="test", max_retries=0, http_client=httpx.Client(
        transport=httpx.MockTransport(FakeAPI(*([EPISODE_JSON] * 5)).handler)))
    compactor = AnthropicCompactor(AnthropicBackend(client), fallback=OfflineCompactor(settings, COUNTER))
    manager = ConversationManager(compactor, settings, COUNTER)
    outcome = manager.add(manager.new_state("u1"), [message(i, TURNS[i % 4].text) for i in range(20)])
    assert "The team chose Postgres" in outcome.state.summary
    assert "40 GB" in outcome.state.summary  # the pinned extractive note rides along
