"""`claims`: every claim and its decision so far — the validator's state.

A pure fold of the claim events in log order. Each event moves a claim
forward only (pending -> accepted | rejected, accepted or pending ->
released, accepted -> used), so applying an event twice, or a decision the
validator already applied itself, changes nothing (invariant 6). A request
puts its own claim in as pending when it appends it (claims.services.request):
the same row, so the validator's fold of it changes nothing either.
"""

from collections.abc import Sequence
from typing import Any

from django.db import connections

from eventlog.records import RecordedEvent

NAME = "claims"
VERSION = 1
TABLE = "projection_claims"
KEY = "claim_id"
CATEGORIES: tuple[str, ...] = ("claim",)


def apply(events: Sequence[RecordedEvent], table: str = TABLE, *, using: str = "default") -> None:
    with connections[using].cursor() as cursor:
        for event in events:
            for sql, params in _statements(event, table):
                cursor.execute(sql, params)


def _statements(event: RecordedEvent, table: str) -> list[tuple[str, list[Any]]]:
    data = event.data
    if event.type == "ClaimRequested":
        return [
            (
                f"INSERT INTO {table} (claim_id, stream_id, kind, key, claimant, status, reason,"
                " requested_position, decided_position) VALUES (%s, %s, %s, %s, %s, 'pending', '', %s, NULL)"
                " ON CONFLICT (claim_id) DO NOTHING",
                [data["claim_id"], event.stream_id, data["kind"], data["key"], data["claimant"], event.position],
            )
        ]
    if event.type in ("ClaimAccepted", "ClaimRejected"):
        status = "accepted" if event.type == "ClaimAccepted" else "rejected"
        return [
            (
                f"UPDATE {table} SET status = %s, reason = %s, decided_position = %s"
                " WHERE claim_id = %s AND status = 'pending'",
                [status, data.get("reason", ""), event.position, data["claim_id"]],
            )
        ]
    if event.type == "ClaimUsed":
        return [(f"UPDATE {table} SET status = 'used' WHERE claim_id = %s AND status = 'accepted'", [data["claim_id"]])]
    if event.type == "ClaimReleased":
        return [
            (
                f"UPDATE {table} SET status = 'released', reason = %s"
                " WHERE claim_id = %s AND status IN ('pending', 'accepted')",
                [data.get("reason", ""), data["claim_id"]],
            )
        ]
    return []


def holder(stream_id: str, table: str = TABLE, *, using: str = "default") -> str | None:
    """The claim id that holds this claim stream's key now, or None if it is free."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"SELECT claim_id FROM {table} WHERE stream_id = %s AND status IN ('accepted', 'used')", [stream_id]
        )
        row = cursor.fetchone()
    return str(row[0]) if row else None


def status(claim_id: str, table: str = TABLE, *, using: str = "default") -> str | None:
    with connections[using].cursor() as cursor:
        cursor.execute(f"SELECT status FROM {table} WHERE claim_id = %s", [claim_id])
        row = cursor.fetchone()
    return str(row[0]) if row else None
