"""The validator's rule, as a pure function: the first claim in log order wins.

`decide(holder, claim)` looks only at who holds the key now (from the claims
projection, which is itself a fold of the claim events in log order), so
replaying the claims from position 0 gives the same decisions every time.
"""

from .events import ClaimAccepted, ClaimEvent, ClaimRejected, ClaimRequested


def decide(holder: str | None, claim: ClaimRequested) -> ClaimEvent:
    """`holder` is the claim id holding the key, or None if it is free."""
    if holder is None:
        return ClaimAccepted(claim_id=claim.claim_id)
    return ClaimRejected(claim_id=claim.claim_id, reason=f"{claim.kind} {claim.key!r} is already taken")
