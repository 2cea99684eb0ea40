"""A schema-driven fuzzer over /api/schema/ (issue 11, item 8): no 5xx, no response outside its schema.

Schemathesis reads the OpenAPI document the app serves and sends what it
generates from it (valid and invalid bodies, parameters, headers) to the app
in-process over WSGI, as a signed-in user with a knox token. The seed is fixed
and the examples per operation bounded, so a run is repeatable and short; a
failure names the request that found it, which `case.as_curl_command()` would
replay. Runs on SQLite and PostgreSQL alike.
"""

from collections.abc import Callable, Iterator
from decimal import Decimal

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, seed, settings
from schemathesis import CheckContext, Response
from schemathesis.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.result import Err
from schemathesis.openapi import from_wsgi

EXAMPLES = 15  # per operation, ~25 operations: 20 s on a quiet 2-core machine, 40-80 s on a busy one


@schemathesis.check
def no_server_error_but_a_documented_503(ctx: CheckContext, response: Response, case: schemathesis.Case) -> None:
    """Like `not_a_server_error`, except a 503 the operation documents: a read that asked for a log
    position its view has not reached yet (api/freshness.py) is answered 503 with Retry-After, by design."""
    documented = case.operation.definition.raw.get("responses", {})
    if response.status_code >= 500 and not (response.status_code == 503 and "503" in documented):
        raise AssertionError(f"{response.status_code} from {case.method} {case.formatted_path}: {response.text[:500]}")


CHECKS = [
    no_server_error_but_a_documented_503,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture
def api_schema(db: None, settings) -> Iterator[schemathesis.BaseSchema]:  # type: ignore[no-untyped-def]
    from catalog.models import Coupon, Product

    settings.MIN_POSITION_WAIT_SECONDS = 0.05  # a fuzzed min_position is never reached: do not wait for it

    Product.objects.create(sku="COF-001", name="Beans", category="Coffee", price=Decimal("12.50"))
    Coupon.objects.create(code="WELCOME10", percent=10)
    # As Django's test client does: a request must not close the connection the test's transaction is on.
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        yield from_wsgi("/api/schema/", get_wsgi_application())
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)


@pytest.fixture
def new_token(db: None) -> Callable[[], str]:
    """A fresh user and token for each request: the fuzzer revokes the token it sends to
    DELETE /api/auth/token, and forgets (deactivates) the user it sends to DELETE /api/accounts/me."""
    from itertools import count

    from django.contrib.auth.models import User
    from knox.models import AuthToken

    numbers = count(1)

    def token() -> str:
        user = User.objects.create(username=f"fuzzer{next(numbers)}")  # no password: no hashing per request
        return str(AuthToken.objects.create(user=user)[1])

    return token


def fuzz(operation: schemathesis.APIOperation, new_token: Callable[[], str]) -> None:
    @seed(20261123)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(case=operation.as_strategy())
    def run(case: schemathesis.Case) -> None:
        case.call_and_validate(headers={"Authorization": f"Token {new_token()}"}, checks=CHECKS)

    run()


# Schemathesis's own pytest plugin (`schemathesis.pytest.from_fixture`) does not run under pytest 9,
# so each operation is fuzzed by Hypothesis directly, and every failing operation is reported.
def test_no_request_the_schema_allows_or_forbids_gets_a_5xx_or_an_answer_outside_the_schema(
    api_schema: schemathesis.BaseSchema, new_token: Callable[[], str]
) -> None:
    failures: dict[str, str] = {}
    operations = 0
    for result in api_schema.get_all_operations():
        if isinstance(result, Err):  # the schema itself is broken here: a failure of its own
            failures[f"schema {len(failures)}"] = str(result.err())
            continue
        operation = result.ok()
        operations += 1
        try:
            fuzz(operation, new_token)
        except Exception as error:  # collected: one report of every failing operation
            failures[operation.label] = str(error)[:2000]
    assert operations > 20
    assert failures == {}, "\n\n".join(f"{label}:\n{text}" for label, text in failures.items())
