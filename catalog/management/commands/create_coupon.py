"""`python manage.py create_coupon CODE --percent P [--once]`: add or update a coupon."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.models import Coupon


class Command(BaseCommand):
    help = "Add a coupon; --once makes it one-time (claimed at checkout, usable by one order)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("code")
        parser.add_argument("--percent", type=int, required=True, help="discount in percent, 1 to 100")
        parser.add_argument("--once", action="store_true", help="one-time: the first order in log order wins it")

    def handle(self, *args: Any, **options: Any) -> None:
        code = options["code"].strip().upper()
        if not code or not code.replace("-", "").replace("_", "").isalnum():
            raise CommandError("A coupon code holds letters, digits, - and _ only.")
        if not 1 <= options["percent"] <= 100:
            raise CommandError("--percent must be between 1 and 100.")
        coupon, created = Coupon.objects.update_or_create(
            code=code, defaults={"percent": options["percent"], "once": options["once"], "active": True}
        )
        self.stdout.write(f"{'created' if created else 'updated'} coupon {coupon}")
