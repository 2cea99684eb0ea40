"""Reads of the Spark-built views that the shop and the API show.

The recommendation view lands here with the Spark jobs (issue 5); until it has
rows, `also_bought` answers with an empty list and pages hide the section.
"""

from typing import Any


def also_bought(sku: str, limit: int = 4) -> list[dict[str, Any]]:
    """Products bought together with `sku`: [{sku, name, price, confidence, lift, support}]."""
    return []
