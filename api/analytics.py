"""GET /api/analytics/...: the Spark-built views, as the last run of `run_spark_jobs` left them.

Who may read: the summary and the recommendations, any logged-in user (the
product pages show recommendations to everyone anyway); the detailed views
(funnel, revenue, products, time to checkout, hourly activity, sessions), staff
only. Every response carries `covers_position` (the last log position the jobs
read) and `computed_at`, on the summary and on each row, and the header
`Cartlog-Position` (the same position); `?min_position=` waits for a run that covers it.
"""

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analytics import models, queries
from api import analytics_examples as ex
from api.freshness import MIN_POSITION_ERRORS, MIN_POSITION_PARAMETERS, consumer_view, covered, stamped
from api.schema import problem
from kernel.errors import InvalidInputError
from projections import abandoned_carts

NOT_LOGGED_IN = problem("Not logged in")
NOT_STAFF = problem("Not staff")
FRESHNESS = ("covers_position", "computed_at")


class SummaryOutput(serializers.Serializer):
    carts_started = serializers.IntegerField()
    carts_with_items = serializers.IntegerField()
    carts_checked_out = serializers.IntegerField()
    conversion_rate = serializers.FloatField(help_text="carts checked out / carts started")
    abandonment_rate = serializers.FloatField(help_text="carts with items not checked out / carts with items")
    revenue = serializers.DecimalField(max_digits=18, decimal_places=2)
    average_order_value = serializers.DecimalField(max_digits=12, decimal_places=2)
    covers_position = serializers.IntegerField(help_text="the last log position the jobs read (0: never run)")
    computed_at = serializers.DateTimeField(allow_null=True, help_text="when the views were loaded")
    log_head = serializers.IntegerField(
        help_text="the log's last position now: log_head - covers_position events are not in these figures yet"
    )
    run_in_progress = serializers.BooleanField(help_text="a run is refreshing the figures now (the pipeline lock)")


def _rows(model: type[models.SparkView], *fields: str) -> type[serializers.ModelSerializer]:
    meta = type("Meta", (), {"model": model, "fields": (*fields, *FRESHNESS)})
    return type(f"{model.__name__}Output", (serializers.ModelSerializer,), {"Meta": meta})


FunnelOutput = _rows(models.FunnelDay, "day", "carts_started", "carts_with_items", "carts_checked_out",
                     "conversion_rate", "abandonment_rate")  # fmt: skip
RevenueOutput = _rows(models.RevenueDay, "day", "orders", "revenue", "average_order_value")
ProductOutput = _rows(models.ProductStats, "sku", "name", "category", "adds", "purchased_quantity", "orders",
                      "added_then_removed")  # fmt: skip
CheckoutTimeOutput = _rows(models.CheckoutTime, "bucket", "label", "lower_seconds", "upper_seconds", "carts")
HourlyOutput = _rows(models.HourlyActivity, "window_start", "events", "carts", "adds", "checkouts")
SessionOutput = _rows(models.SessionDay, "day", "sessions", "average_seconds", "average_events",
                      "sessions_with_checkout")  # fmt: skip
RecommendationOutput = _rows(models.Recommendation, "sku", "rank", "recommended_sku", "support", "confidence", "lift",
                             "source")  # fmt: skip


def spark_covers(request: Request) -> int:
    """The position the last Spark run covers, once it reaches the request's min_position."""
    return covered(request, "analytics", lambda: int(queries.summary()["covers_position"]))


class UnknownRankingError(InvalidInputError):
    title = "Unknown ranking"


class SummaryView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="analytics_summary",
        summary="The funnel and revenue over the whole log, from the last Spark run",
        description="Carts started, with items and checked out, conversion, abandonment, revenue and average order "
        "value, as the last `run_spark_jobs` computed them; `covers_position` says how much of the log they cover, "
        "`log_head` where the log is now, and `run_in_progress` whether a run is refreshing them.",
        examples=ex.ANALYTICS_SUMMARY,
        parameters=MIN_POSITION_PARAMETERS,
        responses={200: SummaryOutput, 401: NOT_LOGGED_IN, **MIN_POSITION_ERRORS},
    )
    def get(self, request: Request) -> Response:
        # One read of the Summary row answers both Cartlog-Position and the body (the last one read, where
        # min_position waits): read again for the body, a run loading in between made the two disagree.
        summary: dict[str, Any] = {}

        def read() -> int:
            summary.update(queries.summary())
            return int(summary["covers_position"])

        covers = covered(request, "analytics", read)
        # The head after the figures: read the other way round, a run loading in between could cover more than the
        # head said.
        return stamped(Response(SummaryOutput({**summary, **queries.run_state()}).data), covers)


def _list_view(
    model: type[models.SparkView], output: type[serializers.ModelSerializer], operation: str, text: str
) -> type[APIView]:
    class RowsView(APIView):
        permission_classes = [IsAdminUser]

        @extend_schema(
            operation_id=operation,
            summary=f"{text} (staff only)",
            description=f"{text}, one row each, as the last Spark run loaded them. Staff only.",
            examples=getattr(ex, operation.upper()),
            parameters=MIN_POSITION_PARAMETERS,
            responses={200: output(many=True), 401: NOT_LOGGED_IN, 403: NOT_STAFF, **MIN_POSITION_ERRORS},
        )
        def get(self, request: Request) -> Response:
            covers = spark_covers(request)
            return stamped(Response(output(model._default_manager.all(), many=True).data), covers)

    RowsView.__name__ = RowsView.__qualname__ = f"{model.__name__}View"
    return RowsView


FunnelView = _list_view(models.FunnelDay, FunnelOutput, "analytics_funnel",
                        "Carts started, with items, checked out per day started; conversion, abandonment")  # fmt: skip
RevenueView = _list_view(models.RevenueDay, RevenueOutput, "analytics_revenue",
                         "Orders, revenue and average order value per checkout day")  # fmt: skip
CheckoutTimeView = _list_view(models.CheckoutTime, CheckoutTimeOutput, "analytics_checkout_time",
                              "Checked-out carts by time from first add to checkout")  # fmt: skip
HourlyView = _list_view(models.HourlyActivity, HourlyOutput, "analytics_hourly",
                        "Cart events, carts, adds and checkouts per hour (tumbling windows)")  # fmt: skip
SessionsView = _list_view(models.SessionDay, SessionOutput, "analytics_sessions",
                          "Shopping sessions (session windows, 30-minute gap) per day")  # fmt: skip


class TopProductsView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        operation_id="analytics_top_products",
        summary="Products ranked by adds, purchases or added-then-removed (staff only)",
        description="The top `limit` products by `by`, from the last Spark run. Staff only.",
        examples=ex.ANALYTICS_TOP_PRODUCTS,
        parameters=[
            OpenApiParameter("by", OpenApiTypes.STR, enum=list(queries.PRODUCT_RANKINGS), description="default: purchases"),  # noqa: E501
            OpenApiParameter("limit", OpenApiTypes.INT, description="a whole number from 1; default 10, at most 100"),
            *MIN_POSITION_PARAMETERS,
        ],
        responses={200: ProductOutput(many=True), 401: NOT_LOGGED_IN, 403: NOT_STAFF, **MIN_POSITION_ERRORS,
                   400: problem("Unknown ranking, or limit or min_position is not a whole number")},
    )  # fmt: skip
    def get(self, request: Request) -> Response:
        by = request.query_params.get("by", "purchases")
        if by not in queries.PRODUCT_RANKINGS:
            raise UnknownRankingError(f"by must be one of {', '.join(queries.PRODUCT_RANKINGS)}")
        limit = _limit(request.query_params.get("limit"))
        covers = spark_covers(request)
        return stamped(Response(ProductOutput(queries.top_products(by, limit), many=True).data), covers)


class RecommendationsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="analytics_recommendations",
        summary="Also-bought recommendations: top N per SKU with support, confidence and lift",
        description="Pairs bought together more often than chance (lift > 1), ranked per SKU, from the last "
        "Spark run (association rules, source `fp_growth`: the rules FP-Growth gives, from the pair counts; "
        "or co-occurrence counts as the fallback).",
        examples=ex.ANALYTICS_RECOMMENDATIONS,
        parameters=[OpenApiParameter("sku", OpenApiTypes.STR, description="only this product's"),
                    *MIN_POSITION_PARAMETERS],
        responses={200: RecommendationOutput(many=True), 401: NOT_LOGGED_IN, **MIN_POSITION_ERRORS},
    )  # fmt: skip
    def get(self, request: Request) -> Response:
        covers = spark_covers(request)
        rows: Any = queries.recommendations(request.query_params.get("sku"))
        return stamped(Response(RecommendationOutput(rows, many=True).data), covers)


def _limit(raw: str | None) -> int:
    """`?limit=`: 10 when absent, at most 100 (the documented ceiling); anything but a whole number from 1 is
    refused, not replaced by the default: a report's typo must not come back as a plausible top 10."""
    if raw is None:
        return 10
    if not raw.isascii() or not raw.isdigit() or int(raw) < 1:  # the same 400 as a malformed min_position
        raise ValidationError({"limit": [f"limit must be a whole number from 1 to 100, not {raw!r}."]})
    return min(int(raw), 100)


class AbandonedCartOutput(serializers.Serializer):
    cart_id = serializers.CharField()
    value = serializers.DecimalField(max_digits=12, decimal_places=2, help_text="what its lines are worth")
    last_activity_at = serializers.DateTimeField(help_text="event time of its last event")


class AbandonedOutput(serializers.Serializer):
    carts = AbandonedCartOutput(many=True)
    value = serializers.DecimalField(max_digits=14, decimal_places=2, help_text="the abandoned carts' value")
    recovered = serializers.IntegerField(help_text="times a shopper came back to a cart after a quiet period")
    recovery_rate = serializers.FloatField(help_text="recovered / (recovered + abandoned now)")
    watermark = serializers.DateTimeField(allow_null=True, help_text="latest event time seen minus the lateness")
    covers_position = serializers.IntegerField(help_text="the last log position the view has applied")


class AbandonedView(APIView):
    """Live, from the abandoned_carts consumer (not from Spark): event time and a watermark."""

    permission_classes = [IsAdminUser]

    @extend_schema(
        operation_id="analytics_abandoned",
        summary="Carts abandoned now, detected live in event time (staff)",
        description="Open carts with items whose last activity lies ABANDONED_CART_AFTER_SECONDS or more before "
        "the watermark (the latest event time seen minus ABANDONED_CART_LATENESS_SECONDS), most valuable first, "
        "from the abandoned_carts consumer; `recovered` counts shoppers who came back after such a quiet period. "
        "Send `min_position` to wait until the view covers a command of yours.",
        examples=ex.ANALYTICS_ABANDONED,
        parameters=MIN_POSITION_PARAMETERS,
        responses={200: AbandonedOutput, 401: NOT_LOGGED_IN, 403: NOT_STAFF, **MIN_POSITION_ERRORS},
    )
    def get(self, request: Request) -> Response:
        covers = consumer_view(request, abandoned_carts.NAME)
        body = AbandonedOutput({**abandoned_carts.abandoned_now(), "covers_position": covers}).data
        return stamped(Response(body), covers)
