"""Timed holds: a one-time coupon accepted for a cart that does not check out
within COUPON_HOLD_SECONDS is released (`ClaimReleased`, reason "hold expired").

Deterministic and replay-safe:
- the rule is a pure function of the claim stream and a time: a coupon claim
  accepted at event time T and neither used nor released is due at T + hold;
- the release is appended at the stream version it was decided on (a
  concurrent `ClaimUsed` from the checkout, or another release, makes it read
  again and find nothing due), so a hold is released at most once and never
  after the order that used it;
- the release carries event time T + hold, whenever the sweep happened to run.

Who runs it: `expire_holds` periodically (Celery beat, or the
`expire_coupon_holds` command), and a checkout for the same coupon on demand
(`release_expired`) just before it claims, so a lapsed hold never makes
another cart hear "already used" even if no sweep ran.
"""

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from eventlog.records import NewEvent, RecordedEvent
from kernel.principal import Principal

from .events import ClaimReleased
from .guarded import append_if
from .models import Claim, ClaimStatus
from .services import new_event
from .streams import StreamClaim, fold

ACTOR = str(Principal.process("coupon-hold-expirer"))
REASON = "hold expired"
KINDS = ("coupon",)


def hold() -> timedelta:
    return timedelta(seconds=settings.COUPON_HOLD_SECONDS)


def due(claims: Iterable[StreamClaim], now: datetime, length: timedelta) -> list[StreamClaim]:
    """The accepted, unused claims whose hold ran out by `now` (the rule, pure)."""
    return [
        c
        for c in claims
        if c.kind in KINDS
        and c.status == ClaimStatus.ACCEPTED
        and c.held_since is not None
        and c.held_since + length <= now
    ]


def release_expired(stream_id: str, now: datetime | None = None, *, sparing: str | None = None) -> list[str]:
    """Release the lapsed holds on one claim stream (not those of `sparing`); the claim ids released."""
    now = now or timezone.now()
    length = hold()

    def plan(events: list[RecordedEvent]) -> list[NewEvent]:
        lapsed = [c for c in due(fold(events).values(), now, length) if c.claimant != sparing]
        return [_release(c, length) for c in lapsed]

    _, appended = append_if(stream_id, plan)
    return [e.data["claim_id"] for e in appended]


def expire_holds(now: datetime | None = None) -> list[str]:
    """Release every lapsed hold; the claim ids released. Idempotent: run it as often as you like."""
    now = now or timezone.now()
    # The projection narrows the search to held coupons; each stream is then read and decided afresh.
    streams = (
        Claim.objects.filter(kind__in=KINDS, status=ClaimStatus.ACCEPTED).values_list("stream_id", flat=True).distinct()
    )
    return [claim_id for stream_id in sorted(streams) for claim_id in release_expired(stream_id, now)]


def _release(claim: StreamClaim, length: timedelta) -> NewEvent:
    assert claim.held_since is not None
    return new_event(
        ClaimReleased(claim_id=claim.claim_id, reason=REASON),
        ACTOR,
        causation_id=claim.accepted_event_id,
        occurred_at=claim.held_since + length,  # event time: when the hold ran out, not when the sweep ran
    )
