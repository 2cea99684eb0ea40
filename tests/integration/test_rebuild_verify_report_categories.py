"""`--verify` names as a row's last event only an event the projection reads.

Seen on a running shop: a row only the live `product_activity` had, with
`last_position` 1 (here: written by hand, as a bug could), was reported as
"last changed by #1 v1 ProductListed … of product-COF-001", an event of a
category the projection never reads.
"""

import pytest
from django.db import connection

from projections import product_activity
from rebuilds import service
from rebuilds.verify import report

from .rebuild_support import shop

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_live_only_row_is_not_said_to_be_changed_by_an_event_of_another_category(seeded_catalog: None) -> None:
    shop(5, seed=41)
    service.rebuild("product_activity")  # the live view as a rebuild makes it
    with connection.cursor() as cursor:
        cursor.execute("SELECT MIN(position) FROM eventlog_event WHERE stream_id LIKE 'product-%%'")
        (product_event,) = cursor.fetchone()
        cursor.execute(  # the bug's row, its last position an event of the catalog
            f"INSERT INTO {product_activity.TABLE} VALUES ('GHOST-1', 1, 0, 0, 0, 0, 0, 0, %s)", [product_event]
        )

    outcome = service.rebuild("product_activity", verify=True)

    [ghost] = outcome.differences
    assert ghost.kind == "only_live" and ghost.last is None
    assert report(product_activity, outcome.differences) == [
        "- sku=GHOST-1 (only in the live view)",
        "product_activity: 1 row(s) differ (1 only in the live view)",
    ]
