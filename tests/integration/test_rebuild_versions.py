"""Versioned projections: a VERSION above the live table's makes run_consumers rebuild it, blue/green.

The first look adopts the running code's version (a fresh install rebuilds
nothing); a bump then rebuilds the view into a shadow while the old table
serves, swaps it in, and records the new version (on the consumer's
checkpoint too, for an async view).
"""

import threading
from collections.abc import Iterator

import pytest
from django.core.management import call_command

from carts.handler import load
from consumers import registry as consumer_registry
from consumers import runner
from consumers.models import Checkpoint
from consumers.transports import TableTransport
from projections import cart_view
from rebuilds import background, code_versions, shadow
from rebuilds.models import RebuildRun

from .rebuild_support import drain_consumers, drop_tables, register_item_counts, rows, shop

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def item_counts(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    module = register_item_counts(monkeypatch)
    yield module
    drop_tables(module.TABLE, shadow.shadow_name(module.TABLE))


def test_a_fresh_install_adopts_the_code_versions_and_rebuilds_nothing(
    seeded_catalog: None, item_counts: object
) -> None:
    shop(5)
    call_command("run_consumers", "--once")

    assert code_versions.stored("cart_view") == cart_view.VERSION
    assert not RebuildRun.objects.exists()


def test_a_version_bump_makes_run_consumers_rebuild_and_swap(
    seeded_catalog: None, item_counts: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shop(20, seed=2)
    call_command("run_consumers", "--once")
    monkeypatch.setattr(cart_view, "VERSION", cart_view.VERSION + 1)
    monkeypatch.setattr(item_counts, "VERSION", 2)

    call_command("run_consumers", "--once")

    out = capsys.readouterr().out
    assert "cart_view: rebuilt with its new version" in out and "test_item_counts: rebuilt" in out
    assert code_versions.stored("cart_view") == cart_view.VERSION
    assert RebuildRun.objects.get(projection="cart_view").status == "swapped"
    assert Checkpoint.objects.get(name="test_item_counts").projection_version == 2
    assert background.rebuild_outdated() == []  # up to date now


def test_the_background_rebuild_runs_beside_live_consumers(
    seeded_catalog: None, item_counts: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    shop(20, seed=4)
    drain_consumers()
    code_versions.outdated(cart_view)
    monkeypatch.setattr(cart_view, "VERSION", cart_view.VERSION + 1)
    stop = threading.Event()
    threads = runner.run(consumer_registry.projection_consumers(), TableTransport, stop)
    rebuilder = background.start(stop)[0]
    shop(10, seed=6)  # the shop keeps writing into the old table meanwhile
    rebuilder.join(timeout=60)
    stop.set()
    runner.wait(threads, stop)

    assert code_versions.stored("cart_view") == cart_view.VERSION
    for cart_id, row in rows(cart_view.TABLE, cart_view.KEY).items():
        assert cart_view.from_row(row) == load(cart_id)
