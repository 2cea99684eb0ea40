"""Reads for pages that show claims beside what they were for (a cart's coupon claims)."""

from eventlog import store
from eventlog.records import RecordedEvent

from .keys import normalize
from .models import Claim, ClaimStatus


def events_for_claimant(claimant: str) -> list[RecordedEvent]:
    """Every claim event (request, decision, release) of the claims `claimant` made, in log order."""
    claims = Claim.objects.filter(claimant=claimant).values_list("claim_id", "stream_id")
    ids = {claim_id for claim_id, _ in claims}
    events = [e for stream in {s for _, s in claims} for e in store.read_stream(stream) if e.data["claim_id"] in ids]
    return sorted(events, key=lambda e: e.position)


def username_claim_events(username: str) -> list[RecordedEvent]:
    """The events of the claim that gave this account its name (request, acceptance)."""
    key = normalize("username", username)
    claim = Claim.objects.filter(kind="username", key=key, status=ClaimStatus.ACCEPTED).first()
    if claim is None:
        return []
    return [e for e in store.read_stream(claim.stream_id) if e.data["claim_id"] == claim.claim_id]
