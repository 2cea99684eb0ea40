"""A rebuild folds batch n+1 while its writer thread writes batch n (rebuilds.writer), and
still ends with the rows the live view holds; a write that fails stops the rebuild at the
last batch that committed, and the next rebuild resumes from there.

Both backends. The log interleaves carts, so a cart continues from the batch
still being written (the folded states handed over), from an older batch's row
in the shadow, or starts in the batch itself, at every batch size here.
"""

import gc
import random

import pytest

from carts import services
from carts.handler import Context, load
from kernel.principal import Principal
from projections import cart_view
from rebuilds import collector, service, shadow
from rebuilds.models import RebuildRun
from tests.log_helpers import wait_until_readable

from .rebuild_support import rows, skus

pytestmark = pytest.mark.django_db(transaction=True)


def interleaved_carts(carts: int, rounds: int, seed: int) -> None:
    """`carts` carts started together, then shopped in turns, some checked out at the end."""
    rng, catalog = random.Random(seed), skus()
    context = Context(actor=Principal.parse("user:1"))
    ids = [services.start_cart(context).state.cart_id for _ in range(carts)]
    for _ in range(rounds):
        for cart_id in rng.sample(ids, len(ids) // 2 + 1):
            sku = rng.choice(catalog)
            services.add_to_cart(context, cart_id, sku, rng.randint(1, 3))
            if rng.random() < 0.3:
                services.update_quantity(context, cart_id, sku, rng.randint(1, 5))
    for cart_id in ids[::3]:
        if load(cart_id).item_count:
            services.checkout(context, cart_id)
    wait_until_readable()  # else a busy server's older transactions hold events back for the swap's lock to take


@pytest.mark.parametrize("batch_size", [1, 2, 3, 7, 50])
def test_a_rebuild_in_batches_of_any_size_swaps_in_the_live_rows(seeded_catalog: None, batch_size: int) -> None:
    interleaved_carts(6, 8, seed=batch_size)
    live = rows(cart_view.TABLE, cart_view.KEY)

    outcome = service.rebuild("cart_view", batch_size=batch_size)

    assert outcome.status == "swapped"
    assert rows(cart_view.TABLE, cart_view.KEY) == live


def test_a_failed_write_stops_the_rebuild_at_the_last_commit_and_the_next_one_resumes(
    seeded_catalog: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    interleaved_carts(5, 6, seed=3)
    live = rows(cart_view.TABLE, cart_view.KEY)
    real_write, writes = cart_view.write_folded, []

    def second_write_fails(folded: cart_view.Folded, table: str = cart_view.TABLE, **kwargs: str) -> None:
        writes.append(len(folded))
        if len(writes) == 2:
            raise RuntimeError("the database went away")
        real_write(folded, table, **kwargs)

    monkeypatch.setattr(cart_view, "write_folded", second_write_fails)
    with pytest.raises(RuntimeError, match="went away"):
        service.rebuild("cart_view", batch_size=4)
    failed = RebuildRun.objects.get(projection="cart_view")
    assert failed.status == "failed" and failed.events_done == 4  # the first batch of 4 committed, the second not
    assert failed.error == "RuntimeError: the database went away"
    assert rows(failed.shadow_table, cart_view.KEY) != live  # the rest is still to come
    monkeypatch.setattr(cart_view, "write_folded", real_write)

    outcome = service.rebuild("cart_view", batch_size=4)

    assert outcome.run_id == failed.id and outcome.status == "swapped"
    assert RebuildRun.objects.get(id=failed.id).error == ""  # the staff page showed the old error beside "swapped"
    assert rows(cart_view.TABLE, cart_view.KEY) == live
    assert not shadow.exists(failed.shadow_table)


def test_collections_are_back_to_normal_once_the_rebuild_ends(seeded_catalog: None) -> None:
    interleaved_carts(2, 2, seed=1)
    before = gc.get_threshold()

    service.rebuild("cart_view", batch_size=3)

    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    with collector.fewer_collections(), collector.fewer_collections():
        assert gc.get_threshold() == collector.THRESHOLDS
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
