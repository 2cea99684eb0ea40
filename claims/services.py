"""Asking for a unique value, giving it back, and waiting for the validator's word."""

import time
from dataclasses import dataclass
from uuid import uuid4

from django.conf import settings
from django.utils import timezone

from eventlog import codec
from eventlog.records import NewEvent

from . import keys
from .appending import append_any_version
from .events import ClaimReleased, ClaimRequested
from .models import Claim

DECIDED = {"accepted", "rejected", "released"}


@dataclass(frozen=True, kw_only=True)
class ClaimTicket:
    claim_id: str
    kind: str
    key: str
    stream_id: str


def request(kind: str, value: str, claimant: str, *, claim_id: str | None = None) -> ClaimTicket:
    """Append a ClaimRequested for `value`; the validator decides later, in log order."""
    key = keys.normalize(kind, value)
    ticket = ClaimTicket(claim_id=claim_id or str(uuid4()), kind=kind, key=key, stream_id=keys.stream_id(kind, key))
    event = ClaimRequested(claim_id=ticket.claim_id, kind=kind, key=key, claimant=claimant)
    append_any_version(ticket.stream_id, _new_event(event, claimant))
    return ticket


def release(ticket: ClaimTicket, reason: str, actor: str) -> None:
    """Give a held value back (or withdraw a claim nobody will use)."""
    append_any_version(ticket.stream_id, _new_event(ClaimReleased(claim_id=ticket.claim_id, reason=reason), actor))


def find(claim_id: str) -> Claim | None:
    return Claim.objects.filter(claim_id=claim_id).first()


def wait(claim_id: str, timeout: float | None = None, *, poll: float = 0.02) -> Claim | None:
    """The claim once decided, or as it stands when `timeout` runs out (None if not yet seen)."""
    deadline = time.monotonic() + (settings.CLAIM_WAIT_SECONDS if timeout is None else timeout)
    while True:
        claim = find(claim_id)
        if (claim and claim.status in DECIDED) or time.monotonic() >= deadline:
            return claim
        time.sleep(poll)


def held_by(kind: str, value: str, claimant: str) -> ClaimTicket | None:
    """The claim this claimant holds (or still waits for) on a value, if any."""
    key = keys.normalize(kind, value)
    stream = keys.stream_id(kind, key)
    claim = Claim.objects.filter(stream_id=stream, claimant=claimant, status__in=["pending", "accepted"]).first()
    if claim is None:
        return None
    return ClaimTicket(claim_id=claim.claim_id, kind=kind, key=key, stream_id=stream)


def _new_event(event: ClaimRequested | ClaimReleased, actor: str) -> NewEvent:
    command_id = str(uuid4())
    return codec.to_new_event(
        event,
        occurred_at=timezone.now(),
        metadata={"command_id": command_id, "correlation_id": event.claim_id, "causation_id": None, "actor": actor},
    )
