"""What a rebuild leaves for the swap's lock is bounded by LOCKED_TAIL, not by its batch size.

The swap holds every append while it takes the events the passes left behind
(rebuilds/finish.py), so the passes go on while more than LOCKED_TAIL events are
left, however large the batches (rebuilds/build.py). Here the shop appends events
while the first pass runs, one batch of 10,000 that comes back short.
"""

import pytest

from carts import services
from carts.handler import Context
from eventlog import store
from kernel.principal import Principal
from projections import cart_view, registry
from rebuilds import build, finish, runs
from rebuilds.models import RebuildRun
from rebuilds.progress import Silent

from .rebuild_support import rows, skus

pytestmark = pytest.mark.django_db(transaction=True)

CONTEXT = Context(actor=Principal.parse("user:1"))


class ShopDuringTheFirstPass(Silent):
    """Appends `events` cart events (a start, then adds) when the first batch is done."""

    def __init__(self, events: int) -> None:
        self.events, self.shopped = events, False

    def update(self, run: RebuildRun, scanned: int = 0) -> None:
        if self.shopped:
            return
        self.shopped = True
        cart_id = services.start_cart(CONTEXT).state.cart_id
        for _ in range(self.events - 1):
            services.add_to_cart(CONTEXT, cart_id, skus()[0], 1)


def shop_before() -> None:
    for sku in skus()[:3]:
        cart_id = services.start_cart(CONTEXT).state.cart_id
        services.add_to_cart(CONTEXT, cart_id, sku, 2)


@pytest.mark.parametrize(
    ("appended", "left_for_the_lock"),
    [
        (8, 0),  # 8 left after the first pass, more than LOCKED_TAIL: a second pass takes them
        (3, 3),  # 3 left, fewer: the lock takes them
    ],
)
def test_the_passes_leave_the_lock_at_most_locked_tail_events_with_batches_of_10000(
    seeded_catalog: None, monkeypatch: pytest.MonkeyPatch, appended: int, left_for_the_lock: int
) -> None:
    monkeypatch.setattr(build, "LOCKED_TAIL", 5)
    shop_before()
    projection = registry.get("cart_view")
    run = runs.resume_or_start(projection)

    assert build.catch_up(run, projection, 10_000, ShopDuringTheFirstPass(appended))

    assert store.head_position() - run.position == left_for_the_lock
    live = rows(cart_view.TABLE, cart_view.KEY)
    assert finish.swap(run, projection) == store.head_position()
    assert rows(cart_view.TABLE, cart_view.KEY) == live
