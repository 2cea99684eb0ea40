"""The claims projection (`claims/projection.py`) for a hand-written log: every column of
every claim, the holder of each key and each claim's status, all literals. Both backends.
"""

from typing import Any

import pytest

from claims import projection
from claims.events import ClaimAccepted, ClaimRejected, ClaimReleased, ClaimRequested
from claims.models import Claim

from .recorded_events import recorded

pytestmark = pytest.mark.django_db

COUPON = "claim-coupon-ONCE20"
NAME = "claim-username-alice"

# ONCE20: c-1 wins, c-2 is rejected, c-1 gives it back and c-3 takes it. alice: u-1 holds
# it, u-2 is still pending. The last two events come too late to change anything: a
# rejected claim is neither accepted nor released.
CLAIM_LOG = [
    recorded(1, COUPON, 1, ClaimRequested(claim_id="c-1", kind="coupon", key="ONCE20", claimant="cart:1")),
    recorded(2, COUPON, 2, ClaimRequested(claim_id="c-2", kind="coupon", key="ONCE20", claimant="cart:2")),
    recorded(3, COUPON, 3, ClaimAccepted(claim_id="c-1")),
    recorded(4, COUPON, 4, ClaimRejected(claim_id="c-2", reason="held by c-1")),
    recorded(5, NAME, 1, ClaimRequested(claim_id="u-1", kind="username", key="alice", claimant="signup:1")),
    recorded(6, COUPON, 5, ClaimReleased(claim_id="c-1", reason="order cancelled")),
    recorded(7, COUPON, 6, ClaimRequested(claim_id="c-3", kind="coupon", key="ONCE20", claimant="cart:3")),
    recorded(8, COUPON, 7, ClaimAccepted(claim_id="c-3")),
    recorded(9, NAME, 2, ClaimAccepted(claim_id="u-1")),
    recorded(10, NAME, 3, ClaimRequested(claim_id="u-2", kind="username", key="alice", claimant="signup:2")),
    recorded(11, COUPON, 8, ClaimAccepted(claim_id="c-2")),
    recorded(12, COUPON, 9, ClaimReleased(claim_id="c-2", reason="withdrawn")),
]

FIRST = "first claim while free"
CLAIM_ROWS = [
    # claim_id, stream_id, kind, key, claimant, status, reason, requested_position, decided_position
    ("c-1", COUPON, "coupon", "ONCE20", "cart:1", "released", "order cancelled", 1, 3),
    ("c-2", COUPON, "coupon", "ONCE20", "cart:2", "rejected", "held by c-1", 2, 4),
    ("c-3", COUPON, "coupon", "ONCE20", "cart:3", "accepted", FIRST, 7, 8),
    ("u-1", NAME, "username", "alice", "signup:1", "accepted", FIRST, 5, 9),
    ("u-2", NAME, "username", "alice", "signup:2", "pending", "", 10, None),
]
COLUMNS = (
    "claim_id", "stream_id", "kind", "key", "claimant", "status", "reason", "requested_position", "decided_position",
)  # fmt: skip


def claim_rows() -> list[tuple[Any, ...]]:
    return list(Claim.objects.order_by("claim_id").values_list(*COLUMNS))


def test_claim_rows_for_a_hand_written_log() -> None:
    projection.apply(CLAIM_LOG)

    assert claim_rows() == CLAIM_ROWS


def test_claim_rows_are_the_same_when_the_log_arrives_event_by_event_and_twice() -> None:
    for event in CLAIM_LOG + CLAIM_LOG:
        projection.apply([event])

    assert claim_rows() == CLAIM_ROWS


def test_the_holder_of_each_key_is_its_accepted_claim() -> None:
    projection.apply(CLAIM_LOG)

    assert projection.holder(COUPON) == "c-3"
    assert projection.holder(NAME) == "u-1"
    assert projection.holder("claim-coupon-NOBODY") is None


def test_each_claim_reports_its_own_status() -> None:
    projection.apply(CLAIM_LOG)

    assert [projection.status(claim_id) for claim_id in ("c-1", "c-2", "c-3", "u-1", "u-2", "c-9")] == [
        "released",
        "rejected",
        "accepted",
        "accepted",
        "pending",
        None,
    ]
