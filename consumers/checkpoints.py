"""Checkpoints: how far each consumer has read, moved only together with its work."""

from django.db import connection
from django.utils import timezone

from projections.models import Checkpoint


class CheckpointMovedError(Exception):
    """Another runner advanced this checkpoint under us; our batch was rolled back."""


def position(name: str) -> int:
    checkpoint, _ = Checkpoint.objects.get_or_create(name=name)
    return checkpoint.position


def advance(name: str, from_position: int, to_position: int) -> None:
    """Compare-and-set, inside the caller's transaction: refuse if someone else moved it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE projection_checkpoint SET position = %s, updated_at = %s WHERE name = %s AND position = %s",
            [to_position, timezone.now(), name, from_position],
        )
        if cursor.rowcount != 1:
            raise CheckpointMovedError(f"checkpoint {name!r} is no longer at {from_position}")
