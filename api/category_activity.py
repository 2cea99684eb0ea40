"""GET /api/analytics/category-activity: the live stream-table join (staff only).

Per category, items added, items removed and units checked out, each cart
event counted under the category its product had at that event's position
(`projections/category_activity.py`). `covers_position` is the consumer's
checkpoint; `?min_position=` waits for it like every async view.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.examples import MIN_POSITION_REFUSALS, NOT_AUTHENTICATED, NOT_STAFF, response
from api.freshness import MIN_POSITION_ERRORS, MIN_POSITION_PARAMETERS, consumer_view, stamped
from api.schema import problem
from projections import category_activity

EXAMPLES = [
    response(
        "Busiest first",
        {
            "categories": [
                {"category": "Kitchen", "items_added": 41, "items_removed": 6, "units_checked_out": 52},
                {"category": "Coffee & Tea", "items_added": 38, "items_removed": 4, "units_checked_out": 61},
            ],
            "covers_position": 1840,
        },
    ),
    NOT_AUTHENTICATED,
    NOT_STAFF,
    *MIN_POSITION_REFUSALS,
]


class CategoryRowOutput(serializers.Serializer):
    category = serializers.CharField()
    items_added = serializers.IntegerField(help_text="ItemAdded events for products of this category then")
    items_removed = serializers.IntegerField(help_text="ItemRemoved events")
    units_checked_out = serializers.IntegerField(help_text="units in CheckedOut lines")


class CategoryActivityOutput(serializers.Serializer):
    categories = CategoryRowOutput(many=True)
    covers_position = serializers.IntegerField(help_text="the last log position the consumer applied")


class CategoryActivityView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        operation_id="category_activity",
        summary="Cart activity per category, as the categories were at each event (staff only)",
        description="A live view kept by a consumer: each cart event is counted under the category its product "
        "had at that event's log position, not the category it has now. Busiest category first.",
        examples=EXAMPLES,
        parameters=MIN_POSITION_PARAMETERS,
        responses={200: CategoryActivityOutput, 401: problem("Not logged in"), 403: problem("Not staff"),
                   **MIN_POSITION_ERRORS},
    )  # fmt: skip
    def get(self, request: Request) -> Response:
        covers = consumer_view(request, category_activity.NAME)
        body = {"categories": category_activity.rows(), "covers_position": covers}
        return stamped(Response(CategoryActivityOutput(body).data), covers)
