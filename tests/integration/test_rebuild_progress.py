"""What an operator watching a rebuild sees at its end: the bar at the head, the run at 100 %.

A projection that reads a few categories (`products` reads the product events, at the start of
the log) used to end its bar at "position 0/142" (the bar was drawn before the last batch
committed), and its finished run showed `progress` 0.31 (its last event's position over the
head) in GET /api/projections and on the staff page, though it had swapped in.
"""

from io import StringIO

import pytest
from rich.console import Console

from eventlog import store
from eventlog.models import Event
from rebuilds import service, status
from rebuilds.progress import Bar

from .rebuild_support import shop

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_rebuild_of_the_first_events_ends_its_bar_and_its_run_at_the_head(seeded_catalog: None) -> None:
    shop(10)
    head = store.head_position()
    last_product_event = Event.objects.filter(stream_id__startswith="product-").order_by("-position")[0].position
    assert last_product_event < head - 20  # the carts came after the catalog: the case shown above
    shown = StringIO()

    outcome = service.rebuild("products", progress=Bar(Console(file=shown, width=200, force_terminal=False)))

    assert outcome.position == last_product_event  # where the shadow stands: its last event
    final_bar = shown.getvalue().strip().splitlines()[-1]
    assert f"position {head:,}/{head:,}" in final_bar, shown.getvalue()
    assert f"{outcome.events_done:,} events" in final_bar
    run = status.summary()["products"]["rebuild"]
    assert (run["status"], run["progress"], run["position"]) == ("swapped", 1.0, last_product_event)
