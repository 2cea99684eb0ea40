"""The claim rules as pure functions: keys, and the first claim in log order wins."""

from datetime import UTC, datetime
from uuid import uuid4

from claims.decider import decide
from claims.events import ClaimAccepted, ClaimRejected, ClaimRequested
from claims.keys import normalize, stream_id
from claims.validator import replay_decisions
from eventlog.records import RecordedEvent


def test_usernames_collide_across_case_and_unicode_forms() -> None:
    assert normalize("username", "Alice") == normalize("username", "ALICE") == normalize("username", "\uff21lice")
    assert normalize("coupon", " vip30 ") == "VIP30"


def test_stream_ids_are_safe_and_bounded() -> None:
    assert stream_id("username", "a b/c") == "claim-username-a%20b%2Fc"
    assert len(stream_id("username", "x" * 500)) < 100


def test_a_free_key_is_accepted_and_a_held_key_rejected() -> None:
    claim = ClaimRequested(claim_id="c2", kind="username", key="alice", claimant="signup:c2")
    assert decide(None, claim) == ClaimAccepted(claim_id="c2")
    assert isinstance(decide("c1", claim), ClaimRejected)


def recorded(position: int, stream: str, type_: str, data: dict[str, str]) -> RecordedEvent:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return RecordedEvent(
        position=position, event_id=uuid4(), stream_id=stream, version=position, type=type_, schema_version=1,
        data=data, metadata={}, occurred_at=now, recorded_at=now,
    )  # fmt: skip


def test_replaying_claims_decides_first_in_log_order_and_frees_released_keys() -> None:
    def req(position: int, claim_id: str) -> RecordedEvent:
        data = {"claim_id": claim_id, "kind": "coupon", "key": "X", "claimant": claim_id}
        return recorded(position, "claim-coupon-X", "ClaimRequested", data)

    events = [
        req(1, "a"),
        req(2, "b"),
        recorded(3, "claim-coupon-X", "ClaimReleased", {"claim_id": "a", "reason": "done"}),
        req(4, "c"),
    ]
    assert replay_decisions(events) == {"a": "ClaimAccepted", "b": "ClaimRejected", "c": "ClaimAccepted"}
