"""Facts on a claim stream `claim-<kind>-<key>`."""

from dataclasses import dataclass
from typing import ClassVar

from eventlog.registry import EventType, describe


@dataclass(frozen=True, kw_only=True)
class ClaimEvent:
    TYPE: ClassVar[str]
    SCHEMA_VERSION: ClassVar[int] = 1
    claim_id: str


@dataclass(frozen=True, kw_only=True)
class ClaimRequested(ClaimEvent):
    """Someone asks for a unique value: `kind` (username, coupon), its normalized `key`, and who asks."""

    TYPE = "ClaimRequested"
    kind: str
    key: str
    claimant: str


@dataclass(frozen=True, kw_only=True)
class ClaimAccepted(ClaimEvent):
    """The validator gave the value to this claim: it was the first in log order while the value was free."""

    TYPE = "ClaimAccepted"
    reason: str = "first claim while free"


@dataclass(frozen=True, kw_only=True)
class ClaimRejected(ClaimEvent):
    """The validator refused this claim: another claim holds the value."""

    TYPE = "ClaimRejected"
    reason: str


@dataclass(frozen=True, kw_only=True)
class ClaimReleased(ClaimEvent):
    """The holder gave the value back (or a claim nobody will use was withdrawn)."""

    TYPE = "ClaimReleased"
    reason: str


@dataclass(frozen=True, kw_only=True)
class ClaimUsed(ClaimEvent):
    """The holder used the value for good (an order carries the one-time coupon): no timed release applies."""

    TYPE = "ClaimUsed"
    used_for: str


EVENT_CLASSES: dict[str, type[ClaimEvent]] = {
    cls.TYPE: cls for cls in (ClaimRequested, ClaimAccepted, ClaimRejected, ClaimReleased, ClaimUsed)
}


def event_types() -> list[EventType]:
    """The registry entries for the claim streams (the event catalog is generated from these)."""
    return describe(EVENT_CLASSES.values(), category="claim")
