"""Asking for a unique value, using it, giving it back.

Claims are idempotent per claimant and key: while a claimant's claim on a key
is pending or accepted, asking again returns that claim instead of filing a
second one (which the validator would reject as taken, telling the holder its
own value is "already used"). Waiting for a decision is in `claims.waiting`.
"""

from dataclasses import dataclass
from datetime import datetime
from uuid import uuid4

from django.utils import timezone

from eventlog import codec
from eventlog.records import NewEvent, RecordedEvent
from kernel.errors import ConflictError

from . import keys, projection
from .events import ClaimEvent, ClaimReleased, ClaimRequested, ClaimUsed
from .guarded import append_if, take_transaction_id
from .models import Claim, ClaimStatus
from .streams import ACTIVE, active_claim_of, fold
from .waiting import DECIDED, wait

__all__ = [
    "DECIDED",
    "ClaimTicket",
    "HoldLostError",
    "find",
    "release",
    "request",
    "take_transaction_id",
    "use",
    "wait",
]


class HoldLostError(ConflictError):
    """The claim no longer holds its value (its hold expired and was released)."""

    title = "Claim no longer held"


@dataclass(frozen=True, kw_only=True)
class ClaimTicket:
    claim_id: str
    kind: str
    key: str
    stream_id: str


def ticket_for(kind: str, value: str, claim_id: str) -> ClaimTicket:
    key = keys.normalize(kind, value)
    return ClaimTicket(claim_id=claim_id, kind=kind, key=key, stream_id=keys.stream_id(kind, key))


def request(kind: str, value: str, claimant: str, *, claim_id: str | None = None) -> ClaimTicket:
    """This claimant's claim on `value`: its pending or accepted one, else a new ClaimRequested.

    The new claim is put in the claims projection as pending in the same
    transaction (the very row the validator's fold makes of it), so it can be
    found — `GET /api/claims/<id>` — before the validator has seen it.
    """
    ticket = ticket_for(kind, value, claim_id or str(uuid4()))
    event = ClaimRequested(claim_id=ticket.claim_id, kind=kind, key=ticket.key, claimant=claimant)

    def plan(events: list[RecordedEvent]) -> list[NewEvent]:
        return [] if active_claim_of(events, claimant) else [new_event(event, claimant)]

    read, appended = append_if(ticket.stream_id, plan, on_append=projection.apply)
    if appended:
        return ticket
    existing = active_claim_of(read, claimant)
    assert existing is not None  # the plan appends nothing only when there is one
    return ClaimTicket(claim_id=existing.claim_id, kind=kind, key=ticket.key, stream_id=ticket.stream_id)


def release(ticket: ClaimTicket, reason: str, actor: str) -> bool:
    """Give a held value back (or withdraw a claim nobody will use); False if it was no longer held."""
    release_event = new_event(ClaimReleased(claim_id=ticket.claim_id, reason=reason), actor)

    def plan(events: list[RecordedEvent]) -> list[NewEvent]:
        claim = fold(events).get(ticket.claim_id)
        return [release_event] if claim is not None and claim.status in ACTIVE else []

    return bool(append_if(ticket.stream_id, plan)[1])


def use(ticket: ClaimTicket, used_for: str, actor: str, *, causation_id: str | None = None) -> None:
    """Record that the held value is used for good; HoldLostError if it is not held any more.

    Call it in the same transaction as what uses the value (the order): the
    append at the version read serializes it with a timed release, so either
    the use or the release comes first in the claim's stream, never both.
    """
    used = new_event(ClaimUsed(claim_id=ticket.claim_id, used_for=used_for), actor, causation_id=causation_id)

    def plan(events: list[RecordedEvent]) -> list[NewEvent]:
        claim = fold(events).get(ticket.claim_id)
        if claim is not None and claim.status == ClaimStatus.USED:
            return []
        if claim is None or claim.status != ClaimStatus.ACCEPTED:
            raise HoldLostError(f"The {ticket.kind} {ticket.key!r} is no longer held by this claim.")
        return [used]

    append_if(ticket.stream_id, plan)


def find(claim_id: str) -> Claim | None:
    return Claim.objects.filter(claim_id=claim_id).first()


def new_event(
    event: ClaimEvent, actor: str, *, causation_id: str | None = None, occurred_at: datetime | None = None
) -> NewEvent:
    return codec.to_new_event(
        event,
        occurred_at=occurred_at or timezone.now(),
        metadata={
            "command_id": str(uuid4()),
            "correlation_id": event.claim_id,
            "causation_id": causation_id,
            "actor": actor,
        },
    )
