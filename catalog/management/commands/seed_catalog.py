"""`python manage.py seed_catalog`: list the demo catalog on the log and load the coupons (idempotent)."""

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from catalog.seeding import STEPS


class Command(BaseCommand):
    help = "List the demo products (as ProductListed events) and load the coupons. Running it again appends nothing."

    def handle(self, *args: Any, **options: Any) -> None:
        for step in STEPS:
            with transaction.atomic():
                said = step()
            self.stdout.write(f"catalog: {said}")
