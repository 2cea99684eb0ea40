"""The worked example of docs/rebuilding.md, replayed: a bug, its fix, --verify, the rebuild.

The bug: a cart_view that writes a cart's number of lines as its item count,
instead of the units in them. The shop runs with the bug, the fix is deployed,
`--verify` reports exactly the carts the bug touched, with the events behind
each, and the rebuild swaps in a view where every row is the fold of its whole
stream.
"""

from typing import Any

import pytest
from django.core.management import CommandError, call_command

from carts.decider import CartState, fold_recorded, initial_state
from carts.handler import load
from eventlog import store
from projections import cart_view
from rebuilds import service

from .rebuild_support import rows, shop

pytestmark = pytest.mark.django_db(transaction=True)

FIXED_VALUES = cart_view._values  # the code as it is: the fix
ITEM_COUNT = cart_view.COLUMNS.index("item_count")


def values_counting_lines(state: CartState, last_position: object, updated_at: object) -> list[Any]:
    """The bug (as docs/rebuilding.md shows it): the item count is the number of lines."""
    values = FIXED_VALUES(state, last_position, updated_at)
    values[ITEM_COUNT] = len(state.lines)
    return values


def touched_by_the_bug(cart_ids: list[str]) -> set[str]:
    """The carts whose row the bug gets wrong: some line holds more than one unit. Worked
    out from each stream's whole fold, not from the view."""
    touched = set()
    for cart_id in cart_ids:
        state = fold_recorded(initial_state(cart_id), store.read_stream(f"cart-{cart_id}"))
        if any(line.quantity > 1 for line in state.lines):
            touched.add(cart_id)
    return touched


def test_the_worked_example(seeded_catalog: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # 1. The shop runs with the bug deployed.
    monkeypatch.setattr(cart_view, "_values", values_counting_lines)
    cart_ids = shop(40, seed=5)
    monkeypatch.undo()  # 2. The fix is deployed.
    expected = touched_by_the_bug(cart_ids)
    assert 0 < len(expected) < len(cart_ids)

    # 3. --verify: exactly the rows the bug affects, each with its stream and events; exit status 1.
    outcome = service.rebuild("cart_view", verify=True)
    assert {d.key for d in outcome.differences} == expected
    for difference in outcome.differences:
        assert difference.kind == "differs" and set(difference.fields) == {"item_count"}
        events = difference.streams[f"cart-{difference.key}"]
        assert [e.event_id for e in events] == [str(e.event_id) for e in store.read_stream(f"cart-{difference.key}")]
    with pytest.raises(CommandError) as failed:
        call_command("rebuild_projection", "cart_view", "--verify", "--no-progress")
    assert failed.value.returncode == 1

    # 4. The rebuild swaps the fixed view in; 5. the result: nothing differs, every row is its stream's fold.
    assert service.rebuild("cart_view").status == "swapped"
    assert service.rebuild("cart_view", verify=True).differences == []
    for cart_id, row in rows(cart_view.TABLE, cart_view.KEY).items():
        assert cart_view.from_row(row) == load(cart_id)
