"""Property-based fuzzing of the REST API from its own OpenAPI document (schemathesis):
whatever a client sends that the document allows (and much that it does not), the server
answers without a 5xx, and its answers match the response schemas it declares."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup

from memfold.service.app import create_app
from memfold.service.server import running_in_thread

from .conftest import msg, open_store


@pytest.fixture(scope="module")
def fuzz_url(tmp_path_factory) -> Iterator[str]:
    memory = open_store(tmp_path_factory.mktemp("fuzz"))
    # a store with something in it, so reads exercise real rows, not only empty answers
    memory.ingest_many([msg("m1", "I moved to Lisbon and I work as a nurse.", user="ana"),
                        msg("m2", "Tomorrow I have a dentist appointment at 9.", user="ana", minutes=1)])
    with running_in_thread(create_app(memory)) as url:
        yield url
    memory.close()


def _fuzz(operation, base_url: str) -> None:
    @given(case=operation.as_strategy())
    @settings(max_examples=30, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    def run(case) -> None:
        case.call_and_validate(base_url=base_url, checks=[not_a_server_error])

    run()


def test_no_input_makes_the_server_fail(fuzz_url):
    # the pytest plugin's lazy schemas do not load under this pytest; the same engine is
    # driven here directly: one Hypothesis run per operation of the live document
    schema = schemathesis.openapi.from_url(f"{fuzz_url}/openapi.json")
    failures = {}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20
    for operation in operations:
        try:
            _fuzz(operation, fuzz_url)
        except (AssertionError, FailureGroup) as exc:  # how schemathesis reports a failed check
            failures[operation.label] = str(exc)[:2000]
    assert not failures, "\n\n".join(f"{label}:\n{text}" for label, text in failures.items())
