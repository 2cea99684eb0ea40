"""The invariants the lab checks now, each green (holds), red (broken) or grey (could not look).

A fault the lab switches on may delay things, never break these: every `cart_view` row equals the
fold of its stream; versions are contiguous per stream; each async view equals a rebuild to its
position (lab/mirrors.py); no claim key has two holders.
"""

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import Error as DatabaseError
from django.db import connection, transaction
from django.db.models import Count

from carts.decider import fold_recorded, initial_state
from carts.streams import stream_id
from claims.models import Claim, ClaimStatus
from eventlog import store
from projections import cart_view, registry

from . import mirrors

log = logging.getLogger(__name__)
RECENT_CARTS = 200  # the carts written last: enough to catch a fault the lab just made, cheap on a big log
EXAMPLES = 5
_one_at_a_time = threading.Lock()  # two pages refreshing at once would fill the same mirror tables


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool | None  # None: could not look now
    summary: str
    examples: list[str] = field(default_factory=list)


def check_all() -> list[Check]:
    with _one_at_a_time:
        return [_safely(name, check) for name, check in CHECKS]


def _safely(name: str, check: Callable[[], Check]) -> Check:
    try:
        return check()
    except DatabaseError as error:
        log.warning("fault lab: could not check %s: %s", name, error)
        connection.close()
        return Check(name, None, f"could not look now: {str(error).strip().splitlines()[0]}")


def cart_view_equals_fold() -> Check:
    name = "every cart_view row equals the fold of its stream"
    with transaction.atomic():
        mirrors.one_snapshot()
        carts = _recent_carts()
        differ = [cart_id for cart_id in carts if not _row_equals_fold(cart_id)]
    summary = f"{len(carts) - len(differ)} of the {len(carts)} carts written last agree"
    return Check(name, not differ, summary, differ[:EXAMPLES])


def _row_equals_fold(cart_id: str) -> bool:
    row = cart_view.read(cart_id)
    return row is not None and row[0] == fold_recorded(initial_state(cart_id), store.read_stream(stream_id(cart_id)))


def _recent_carts() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT stream_id FROM eventlog_event WHERE stream_id LIKE 'cart-%%'"
            " GROUP BY stream_id ORDER BY MAX(position) DESC LIMIT %s",
            [RECENT_CARTS],
        )
        return [row[0].removeprefix("cart-") for row in cursor.fetchall()]


def versions_contiguous() -> Check:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT stream_id, MIN(version), MAX(version), COUNT(*) FROM eventlog_event GROUP BY stream_id"
            " HAVING MIN(version) <> 1 OR MAX(version) <> COUNT(*) ORDER BY stream_id LIMIT %s",
            [EXAMPLES],
        )
        broken = [f"{s}: versions {low}..{high}, {n} events" for s, low, high, n in cursor.fetchall()]
    return Check("versions contiguous per stream", not broken, "every stream 1..n" if not broken else "gaps", broken)


def async_views_equal_a_rebuild() -> Check:
    found, positions = [], []
    for projection in registry.asynchronous():
        position, differ = mirrors.differences(projection)
        positions.append(f"{projection.NAME} at {position}")
        found += [f"{projection.NAME}: {d.key} {d.kind}" for d in differ]
    summary = ", ".join(positions) + (": each equals a rebuild to its position" if not found else "")
    return Check("each async view equals a rebuild to its position", not found, summary, found[:EXAMPLES])


def one_holder_per_claim_key() -> Check:
    holding = Claim.objects.filter(status__in=[ClaimStatus.ACCEPTED, ClaimStatus.USED])
    twice = holding.values("kind", "key").annotate(holders=Count("claim_id")).filter(holders__gt=1)
    broken = [f"{row['kind']} {row['key']}: {row['holders']} holders" for row in twice[:EXAMPLES]]
    return Check("no claim key with two holders", not broken, f"{holding.count()} keys held", broken)


CHECKS: list[tuple[str, Callable[[], Check]]] = [
    ("cart_view", cart_view_equals_fold),
    ("versions", versions_contiguous),
    ("async views", async_views_equal_a_rebuild),
    ("claims", one_holder_per_claim_key),
]
