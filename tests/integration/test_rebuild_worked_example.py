"""The worked example of docs/rebuilding.md, replayed: a bug, its fix, --verify, the rebuild.

The bug: a cart_view whose fold drops ItemQuantityChanged, so a changed
quantity never reaches the row (its lines, item count and total keep the old
quantity). The shop runs with the bug, the fix is deployed, `--verify` reports
exactly the carts the bug touched, with the events behind each, and the
rebuild swaps in a view where every row is the fold of its whole stream.
"""

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from carts.decider import fold_recorded, initial_state
from carts.handler import load
from eventlog import store
from eventlog.records import RecordedEvent
from projections import cart_view
from rebuilds import service

from .rebuild_support import rows, shop

pytestmark = pytest.mark.django_db(transaction=True)

FIXED_APPLY = cart_view.apply  # the code as it is: the fix


def apply_ignoring_quantity_changes(
    events: Sequence[RecordedEvent], table: str = cart_view.TABLE, *, using: str = "default", **_: Any
) -> None:
    """The bug (as docs/rebuilding.md shows it): quantity changes never reach the row."""
    FIXED_APPLY([_ignored(event) for event in events], table, using=using)


def _ignored(event: RecordedEvent) -> RecordedEvent:
    return replace(event, type="Ignored") if event.type == "ItemQuantityChanged" else event


def touched_by_the_bug(cart_ids: list[str]) -> dict[str, list[int]]:
    """Cart id -> positions of its quantity changes, for carts whose row the bug gets wrong."""
    touched = {}
    for cart_id in cart_ids:
        events = store.read_stream(f"cart-{cart_id}")
        if fold_recorded(initial_state(cart_id), [_ignored(e) for e in events]) != load(cart_id):
            touched[cart_id] = [e.position for e in events if e.type == "ItemQuantityChanged"]
    return touched


def test_the_worked_example(seeded_catalog: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # 1. The shop runs with the bug deployed.
    monkeypatch.setattr(cart_view, "apply", apply_ignoring_quantity_changes)
    cart_ids = shop(40, seed=5)
    monkeypatch.undo()  # 2. The fix is deployed.
    expected = touched_by_the_bug(cart_ids)
    assert 0 < len(expected) < len(cart_ids)

    # 3. --verify: exactly the rows the bug affects, each with its stream and events; exit status 1.
    outcome = service.rebuild("cart_view", verify=True)
    assert {d.key for d in outcome.differences} == set(expected)
    for difference in outcome.differences:
        assert difference.kind == "differs" and "lines" in difference.fields
        events = difference.streams[f"cart-{difference.key}"]
        assert set(expected[difference.key]) <= {e.position for e in events}
        assert [e.event_id for e in events] == [str(e.event_id) for e in store.read_stream(f"cart-{difference.key}")]
    with pytest.raises(CommandError) as failed:
        call_command("rebuild_projection", "cart_view", "--verify", "--no-progress")
    assert failed.value.returncode == 1

    # 4. The rebuild swaps the fixed view in; 5. the result: nothing differs, every row is its stream's fold.
    assert service.rebuild("cart_view").status == "swapped"
    assert service.rebuild("cart_view", verify=True).differences == []
    for cart_id, row in rows(cart_view.TABLE, cart_view.KEY).items():
        assert cart_view.from_row(row) == load(cart_id)
