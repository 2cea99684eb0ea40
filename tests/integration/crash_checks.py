"""What a crash must not break, checked inside a process of the app (test_crash_under_load.py).

Run with `manage.py shell -c "from tests.integration.crash_checks import main; main()"`
against the database under test: it prints one JSON object of findings, each an
empty list when all is well, so the test (whose own Django is connected to another
database) can assert on them and show what differs.
"""

import json
from itertools import groupby
from typing import Any

from carts.decider import fold_recorded, initial_state
from consumers import checkpoints
from eventlog import store
from projections import cart_view
from rebuilds import service as rebuilds

ASYNC_VIEWS = ("product_activity", "order_history")


def command_ids() -> list[str]:
    """The `command_id` of every event in the log (actor|Idempotency-Key for keyed commands)."""
    return sorted({str(e.metadata.get("command_id")) for batch in store.iter_all(0, 5000) for e in batch})


def cart_streams() -> dict[str, list[Any]]:
    events = sorted((e for batch in store.iter_all(0, 5000) for e in batch), key=lambda e: (e.stream_id, e.version))
    return {sid: list(group) for sid, group in groupby(events, key=lambda e: e.stream_id) if sid.startswith("cart-")}


def findings() -> dict[str, Any]:
    gaps, differs = [], []
    streams = cart_streams()
    for stream_id, events in streams.items():
        versions = [e.version for e in events]
        if versions != list(range(1, len(events) + 1)):
            gaps.append({"stream": stream_id, "versions": versions})
        cart_id = stream_id.removeprefix("cart-")
        row = cart_view.read(cart_id)
        if row is None or row[0] != fold_recorded(initial_state(cart_id), events):
            differs.append(cart_id)
    rebuilt = {name: [str(d) for d in rebuilds.rebuild(name, verify=True).differences] for name in ASYNC_VIEWS}
    return {
        "streams": len(streams),
        "command_ids": command_ids(),
        "version_gaps": gaps,
        "cart_view_differs_from_fold": differs,
        "async_view_differs_from_rebuild": {name: found for name, found in rebuilt.items() if found},
        # Where each view stood, and the head, when it was compared: tells "behind" from "skipped".
        "positions": {name: checkpoints.read_position(name) for name in ASYNC_VIEWS} | {"head": store.head_position()},
    }


def main() -> None:
    print(json.dumps(findings()))
