"""`python manage.py simulate_shoppers --carts N --seed S`: realistic shopping sessions for demos and benchmarks."""

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from simulator.shopper import Association
from simulator.simulate import simulate


class Command(BaseCommand):
    help = (
        "Drive simulated shoppers through the command layer over days of event time: browsing, adding, "
        "changing quantities, removing, abandoning and checking out, with planted buying associations. "
        "The same seed gives the same events (bar ids)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--carts", type=int, required=True, help="how many carts (sessions) to simulate")
        parser.add_argument("--seed", type=int, default=1, help="random seed: same seed, same sessions")
        parser.add_argument("--days", type=int, default=30, help="days of event time the sessions spread over")
        parser.add_argument("--start", type=date.fromisoformat, default=date(2026, 1, 1), help="first day, YYYY-MM-DD")
        parser.add_argument(
            "--bulk", action="store_true", help="decide in memory and append many carts per transaction (fast)"
        )
        parser.add_argument(
            "--association", action="append", default=None, metavar="SKU_A:SKU_B:P",
            help="buyers of SKU_A also add SKU_B with probability P (repeatable; replaces the default "
            "BOK-001:BOK-006:0.7 and KIT-001:KIT-002:0.6)",
        )  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        if options["carts"] < 0 or options["days"] < 1:
            raise CommandError("--carts must be >= 0 and --days >= 1")
        try:
            associations = [Association.parse(a) for a in options["association"]] if options["association"] else None
            result = self._run(options, associations)
        except ValueError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"simulated {result.carts} carts: {result.events} events ({result.rejected} rejected) in "
            f"{result.seconds:.1f} s = {result.events_per_second:,.0f} events/s ({result.mode}, {result.backend})"
        )
        planted = ", ".join(f"{a.sku} -> {a.also} ({a.probability:g})" for a in result.associations)
        self.stdout.write(f"planted associations: {planted or 'none'}")

    def _run(self, options: dict[str, Any], associations: list[Association] | None) -> Any:
        columns = (TextColumn("shoppers"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, disable=options["verbosity"] == 0) as bar:
            task = bar.add_task("shoppers", total=options["carts"])
            return simulate(
                carts=options["carts"], seed=options["seed"], days=options["days"], start=options["start"],
                associations=associations, bulk=options["bulk"],
                progress=lambda done: bar.update(task, completed=done),
            )  # fmt: skip
