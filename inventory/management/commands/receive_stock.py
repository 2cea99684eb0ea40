"""`python manage.py receive_stock SKU QUANTITY [--adjust --reason WHY]`: units arrived, or a correction."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from kernel.errors import DomainError

from ...services import adjust_stock, receive_stock


class Command(BaseCommand):
    help = "Append StockReceived (QUANTITY units arrived) to stock-SKU; with --adjust, StockAdjusted by QUANTITY (+/-)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("sku")
        parser.add_argument("quantity", type=int)
        parser.add_argument("--adjust", action="store_true", help="correct the units on hand by QUANTITY (may be < 0)")
        parser.add_argument("--reason", default="", help="why, for --adjust (a count, breakage)")

    def handle(self, *args: Any, **options: Any) -> None:
        sku, quantity = options["sku"], options["quantity"]
        try:
            if options["adjust"]:
                outcome = adjust_stock(sku, quantity, options["reason"], actor="receive_stock")
            else:
                outcome = receive_stock(sku, quantity, actor="receive_stock")
        except DomainError as error:
            # A receipt of fewer than one unit is most often a correction typed without its flag.
            hint = " To take units off, use --adjust --reason WHY." if not options["adjust"] and quantity < 0 else ""
            raise CommandError(error.detail + hint) from None
        state = outcome.state
        self.stdout.write(f"{sku}: {state.on_hand} on hand, {state.reserved} reserved, {state.available} available")
