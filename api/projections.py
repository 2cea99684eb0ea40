"""GET /api/projections: each projection and consumer, its checkpoint, lag and state (staff only).

`Cartlog-Position` is the lowest position the async projections cover: with
`?min_position=P` the answer waits until every one of them has applied P.
"""

from collections.abc import Callable

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import examples as ex
from api.freshness import MIN_POSITION_ERRORS, MIN_POSITION_PARAMETERS, covered, stamped
from api.schema import problem
from consumers import coverage, status
from projections import registry as projections
from rebuilds.status import summary as rebuild_summary


class ProjectionStatusOutput(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=["inline projection", "async projection", "consumer"])
    transport = serializers.CharField(help_text="inline, table or kafka")
    checkpoint = serializers.IntegerField(help_text="the last log position it has applied")
    head = serializers.IntegerField(help_text="the last position in the log")
    lag_events = serializers.IntegerField()
    lag_seconds = serializers.FloatField(help_text="how long the oldest unapplied event has waited")
    running = serializers.BooleanField(help_text="a heartbeat in the last 15 seconds")
    waiting = serializers.CharField(
        allow_null=True,
        help_text="a consumer that writes in batches (the archiver): what its next write waits for, "
        "'waiting for N events or <time> UTC' (N more events, or the first one delivered after that time)",
    )
    failing = serializers.CharField(
        allow_null=True,
        help_text="while its batches fail and are retried: the last error and since when, "
        "'<error> (since <time> UTC)'; null once a batch succeeds",
    )
    rebuild = serializers.JSONField(
        allow_null=True,
        help_text="code/live versions and the latest rebuild run; on a consumer that keeps a projection as its "
        "state, that projection's (claim_validator: claims)",
    )


class ProjectionsView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        operation_id="list_projections",
        summary="Every projection and consumer: checkpoint, head, lag, running (staff only)",
        description="For each projection and consumer: the last log position it applied, the log's head, its lag in "
        "events and seconds, whether its heartbeat is fresh, and its rebuild state. Staff only.",
        examples=ex.LIST_PROJECTIONS,
        parameters=MIN_POSITION_PARAMETERS,
        responses={200: ProjectionStatusOutput(many=True), 401: problem("Not logged in"), 403: problem("Not staff"),
                   **MIN_POSITION_ERRORS},
    )  # fmt: skip
    def get(self, request: Request) -> Response:
        covers = covered(request, "async projections", async_covers())
        return stamped(Response(ProjectionStatusOutput(overview(), many=True).data), covers)


def async_covers() -> Callable[[], int]:
    """Reads the lowest position the async projections cover."""
    readers = [coverage.reader(p.NAME) for p in projections.asynchronous()]
    return lambda: min((read() for read in readers), default=0)


def overview() -> list[dict[str, object]]:
    """The consumers' status with each projection's rebuild state beside it: on a consumer's row, that
    of the projection it keeps as its state (`claim_validator`: `claims`), which has no row of its own."""
    inline = [p.NAME for p in projections.inline()]
    rows = status.overview(inline, [p.NAME for p in projections.asynchronous()])
    rebuilds = rebuild_summary()
    return [{**row, "rebuild": rebuilds.get(projections.kept_by(row["name"]) or row["name"])} for row in rows]
