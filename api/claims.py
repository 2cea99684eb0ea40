"""GET /api/claims/<claim_id>: a claim and its decision.

A claim is findable from the moment it is requested (`pending`, before the
validator has seen it: the 202 of a sign-up points here), then its decision.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import examples as ex
from api.schema import problem
from claims.models import ClaimStatus
from claims.services import find
from kernel.errors import NotFoundError


class ClaimNotFoundError(NotFoundError):
    title = "Claim not found"


class ClaimOutput(serializers.Serializer):
    claim_id = serializers.CharField()
    kind = serializers.CharField()
    key = serializers.CharField()
    status = serializers.ChoiceField(choices=ClaimStatus.choices)
    reason = serializers.CharField()
    requested_position = serializers.IntegerField()
    decided_position = serializers.IntegerField(allow_null=True)


class ClaimView(APIView):
    # The claim id is an unguessable UUID handed to the claimant (the 202's Location).
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []  # a stale token sent along must not refuse it (api/catalog.py)

    @extend_schema(
        operation_id="get_claim",
        summary="A claim and its decision: pending, accepted, rejected, released or used",
        description="A claim (a username at sign-up, a one-time coupon at checkout) and the validator's decision. "
        "Poll it after a 202 from sign-up until it is no longer pending.",
        examples=ex.GET_CLAIM,
        responses={200: ClaimOutput, 404: problem("No such claim")},
    )
    def get(self, request: Request, claim_id: str) -> Response:
        claim = find(claim_id)
        if claim is None:
            raise ClaimNotFoundError("There is no claim with this id.")
        return Response(ClaimOutput(claim).data)
