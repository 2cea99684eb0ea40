"""The validator: a consumer that decides every claim, in log order.

For each claim event in the batch it first folds the event into the claims
projection (its state); for a `ClaimRequested` still pending it asks the pure
`decide` who wins and appends the decision to the same stream, in the same
transaction as its state and checkpoint. A claim that is no longer pending
(redelivery, a restart after the commit) is never decided again.
"""

from collections.abc import Sequence
from uuid import uuid4

from eventlog import codec
from eventlog.records import NewEvent, RecordedEvent

from . import projection
from .appending import append_any_version
from .decider import decide
from .events import ClaimEvent, ClaimRequested
from .guarded import take_transaction_id
from .models import ClaimStatus

NAME = "claim_validator"


class Validator:
    name = NAME
    categories = ("claim",)

    def handle(self, events: Sequence[RecordedEvent]) -> None:
        # A batch may append several decisions, and a request may have put the claim row in
        # already (so the fold writes nothing first): take the slow path from the start.
        take_transaction_id()
        for event in events:
            projection.apply([event])
            claim = event.domain_event
            if isinstance(claim, ClaimRequested) and projection.status(claim.claim_id) == ClaimStatus.PENDING:
                decision = decide(projection.holder(event.stream_id), claim)
                projection.apply([append_any_version(event.stream_id, as_new_event(decision, event))])


def as_new_event(decision: ClaimEvent, cause: RecordedEvent) -> NewEvent:
    return codec.to_new_event(
        decision,
        # The decision happens "when" the claim was made: event time stays deterministic on replay.
        occurred_at=cause.occurred_at,
        metadata={
            "command_id": str(uuid4()),
            "correlation_id": cause.metadata.get("correlation_id") or str(cause.event_id),
            "causation_id": str(cause.event_id),
            "actor": "claim-validator",
        },
    )


def replay_decisions(events: Sequence[RecordedEvent]) -> dict[str, str]:
    """What a fresh validator would decide for each claim, from the claim events alone.

    Folds requests and releases in log order and decides each request when it is
    met, ignoring the recorded decisions: comparing this with the log proves
    that the decisions are reproducible (invariant 7).
    """
    holders: dict[str, str] = {}
    decisions: dict[str, str] = {}
    used: set[str] = set()  # a used value is never given back (the projection ignores such a release too)
    for event in events:
        claim = event.domain_event
        if isinstance(claim, ClaimRequested) and claim.claim_id not in decisions:
            decided = decide(holders.get(event.stream_id), claim)
            decisions[claim.claim_id] = decided.TYPE
            if decided.TYPE == "ClaimAccepted":
                holders[event.stream_id] = claim.claim_id
        elif event.type == "ClaimUsed":
            used.add(event.data["claim_id"])
        elif event.type == "ClaimReleased" and _frees(holders.get(event.stream_id), event.data["claim_id"], used):
            del holders[event.stream_id]
    return decisions


def _frees(holder: str | None, released: str, used: set[str]) -> bool:
    """A release frees the key if it is the holder's, and the holder has not used it for good."""
    return holder == released and released not in used


def consumers() -> list[Validator]:
    return [Validator()]
