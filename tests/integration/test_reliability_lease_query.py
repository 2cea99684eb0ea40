"""docs/reliability.md's operator query "who holds a lease" names the holder only, not a process standing by."""

import os
import re
from pathlib import Path

import pytest
from django.db import connection

from consumers.lease import Lease

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

DOC = Path(__file__).resolve().parents[2] / "docs" / "reliability.md"


def documented_query() -> str:
    """The SQL in backticks right after "Who holds a lease", as an operator would paste it."""
    found = re.search(r"Who holds a lease[^`]*`(SELECT [^`]+)`", DOC.read_text())
    assert found is not None, "docs/reliability.md lost its lease query"
    return found.group(1)


def test_the_documented_lease_query_names_the_holder_and_not_the_spare_standing_by() -> None:
    """Two relays, as compose's `relay` beside run_consumers' relay thread: the old query listed both
    (the spare keeps a `cartlog-lease consumer:relay pid=N` session while it waits)."""
    holder, spare = Lease("consumer:relay"), Lease("consumer:relay")
    try:
        assert holder.acquire()
        assert not spare.acquire()  # it stands by, its session open
        with connection.cursor() as cursor:
            cursor.execute(documented_query())
            names = [row[0] for row in cursor.fetchall()]
        assert names == [f"cartlog-lease consumer:relay pid={os.getpid()}"]  # one row, however many spares
    finally:
        holder.release()
        spare.release()
