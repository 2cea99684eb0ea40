"""`python manage.py list_existing_products`: put products that predate the log on it.

Run once after upgrading a database whose product table was edited in place:
each product row without a stream gets `ProductListed` (and `ProductWithdrawn`
if inactive), as the row is now. Products already on the log are left alone.
"""

from typing import Any

from django.core.management.base import BaseCommand

from catalog.services import list_existing_products


class Command(BaseCommand):
    help = "Append ProductListed for every product row that has no product stream yet (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        listed = list_existing_products(actor="list_existing_products")
        self.stdout.write(f"{len(listed)} products put on the log" + (f": {', '.join(listed)}" if listed else ""))
