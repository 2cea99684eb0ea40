"""Read your writes on the views updated after the command: `?min_position=P`.

A command answers with `Cartlog-Position: P`, the log position of its last
event. A read of an async view (`/api/orders`, `/api/analytics/*`,
`/api/projections`) may ask for `min_position=P` (query, or the header
`Cartlog-Min-Position`): it waits, at most `MIN_POSITION_WAIT_SECONDS`, until
the view covers P, and answers 503 with the position it does cover otherwise.
Every answer says the position its view covers (`Cartlog-Position`).

A position the log has not reached yet (over its head) is answered 503 at once,
without the wait: no command has answered with it, so no client can be owed it,
and waiting for it only held a server thread (docs/security.md).
"""

from collections.abc import Callable

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from api.schema import LARGEST_NUMBER, problem, whole_number
from consumers import coverage
from eventlog import store
from kernel.digits import is_number
from kernel.errors import UnavailableError

POSITION = "Cartlog-Position"
MIN_POSITION = "Cartlog-Min-Position"
MAX_DIGITS = 18
POSITIONS = whole_number(0, LARGEST_NUMBER)  # what min_position accepts (MAX_DIGITS), for the OpenAPI document


class ViewBehindError(UnavailableError):
    """The view did not reach the asked position within the wait; the same read may succeed later."""

    title = "View not caught up yet"

    def __init__(self, view: str, covers: int, wanted: int) -> None:
        super().__init__(f"The {view} view covers log position {covers}, not yet {wanted}; retry shortly.")
        # Extension members of the problem document and headers (api/problems.py adds both).
        self.problem_members = {"view": view, "covers_position": covers, "min_position": wanted}
        self.headers = {POSITION: str(covers)}


def min_position(request: Request) -> int | None:
    raw = request.query_params.get("min_position") or request.headers.get(MIN_POSITION)
    if raw is None or raw == "":
        return None
    text = raw.strip()
    if not is_number(text, MAX_DIGITS):
        raise ValidationError(
            {"min_position": ["min_position must be a log position: a whole number from 0, at most 18 digits."]}
        )
    return int(text)


def covered(request: Request, view: str, read: Callable[[], int]) -> int:
    """The position `view` covers, after waiting for the request's min_position if it asks for one."""
    wanted = min_position(request)
    if wanted is None:
        return read()
    reached = read()
    if reached < wanted and worth_waiting(wanted, store.head_position()):
        reached = coverage.wait_for(read, wanted, settings.MIN_POSITION_WAIT_SECONDS)
    if reached < wanted:
        raise ViewBehindError(view, reached, wanted)
    return reached


def worth_waiting(wanted: int, head: int) -> bool:
    """Whether a view may still reach `wanted`: only a position the log has reached. Past the head
    every request waited the whole MIN_POSITION_WAIT_SECONDS on a server thread, so a dozen requests
    with `min_position=999999999` held every thread of a web container for that long, again and again."""
    return wanted <= head


def consumer_view(request: Request, consumer: str) -> int:
    """`covered` for a view that a consumer (`order_history`, ...) keeps."""
    return covered(request, consumer, coverage.reader(consumer))


def stamped(response: Response, position: int) -> Response:
    response[POSITION] = str(position)
    return response


MIN_POSITION_PARAMETERS = [
    OpenApiParameter(
        "min_position",
        POSITIONS,
        description="Wait (a few seconds at most) until the view covers this log position, e.g. the "
        "`Cartlog-Position` of your last command; 503 if it does not in time.",
    ),
    OpenApiParameter(MIN_POSITION, POSITIONS, OpenApiParameter.HEADER, description="The same as `min_position`."),
    OpenApiParameter(
        POSITION,
        OpenApiTypes.INT,
        OpenApiParameter.HEADER,
        response=[200],
        description="The last log position this view covers.",
    ),
]
BEHIND = {503: problem("The view did not cover min_position in time (`covers_position`, `Retry-After`)")}
MIN_POSITION_ERRORS = {400: problem("min_position is not a whole number"), **BEHIND}
