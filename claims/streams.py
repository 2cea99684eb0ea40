"""One claim stream folded into the claims on it, straight from the log.

The claims projection is the validator's state and is only as fresh as the
validator; a claimant that must not file a second claim, or a hold that must
not be released twice, reads the stream itself (the truth) and appends at the
version it read, so a concurrent writer makes it read again.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from eventlog.records import RecordedEvent

from .models import ClaimStatus

ACTIVE = (ClaimStatus.PENDING, ClaimStatus.ACCEPTED)  # the claimant still has (or may still get) the value


@dataclass(frozen=True, kw_only=True)
class StreamClaim:
    claim_id: str
    kind: str
    key: str
    claimant: str
    status: ClaimStatus
    held_since: datetime | None = None  # event time of the acceptance
    accepted_event_id: str | None = None


# Which statuses each event moves a claim from, and to: the same rules as claims/projection.py.
_MOVES: dict[str, tuple[tuple[ClaimStatus, ...], ClaimStatus]] = {
    "ClaimAccepted": ((ClaimStatus.PENDING,), ClaimStatus.ACCEPTED),
    "ClaimRejected": ((ClaimStatus.PENDING,), ClaimStatus.REJECTED),
    "ClaimReleased": (ACTIVE, ClaimStatus.RELEASED),
    "ClaimUsed": ((ClaimStatus.ACCEPTED,), ClaimStatus.USED),
}


def fold(events: Iterable[RecordedEvent]) -> dict[str, StreamClaim]:
    """Every claim on the stream by id, as the events in version order leave it."""
    claims: dict[str, StreamClaim] = {}
    for event in events:
        claim_id = event.data["claim_id"]
        if event.type == "ClaimRequested":
            data = event.data
            claims.setdefault(
                claim_id,
                StreamClaim(
                    claim_id=claim_id,
                    kind=data["kind"],
                    key=data["key"],
                    claimant=data["claimant"],
                    status=ClaimStatus.PENDING,
                ),
            )
            continue
        claim = claims.get(claim_id)
        if claim is None or event.type not in _MOVES or claim.status not in _MOVES[event.type][0]:
            continue
        claims[claim_id] = replace(claim, status=_MOVES[event.type][1])
        if event.type == "ClaimAccepted":
            claims[claim_id] = replace(
                claims[claim_id], held_since=event.occurred_at, accepted_event_id=str(event.event_id)
            )
    return claims


def active_claim_of(events: Sequence[RecordedEvent], claimant: str) -> StreamClaim | None:
    """The claim this claimant has pending or accepted on the stream, if any."""
    return next((c for c in fold(events).values() if c.claimant == claimant and c.status in ACTIVE), None)
