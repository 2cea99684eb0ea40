"""`python manage.py lab list|status|on NAME [--consumer C]|off NAME`: the fault lab's switches from a shell."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from consumers import status
from consumers.faults import Fault
from projections import registry

from ... import invariants, switches


class Command(BaseCommand):
    help = "The fault lab (docs/fault-lab.md): list the switches, flip one, or show positions and invariants."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["list", "status", "on", "off"])
        parser.add_argument("name", nargs="?", help=f"a switch: {', '.join(switches.BY_NAME)}")
        parser.add_argument("--consumer", default="", help="the consumer for pause, crash, duplicate")

    def handle(self, *args: Any, **options: Any) -> None:
        action, name = options["action"], options["name"]
        if action in {"on", "off"} and not name:
            raise CommandError(f"which switch? {', '.join(switches.BY_NAME)}")
        try:
            if action == "on":
                switch = switches.turn_on(name, options["consumer"])
                on = next(entry for entry in switches.state() if entry.switch == switch)
                self.stdout.write(f"{switch.fault}: on. {on.explanation}")
            elif action == "off":
                self.stdout.write(f"{switches.turn_off(name).fault}: off")
            elif action == "list":
                self._list()
            else:
                self._status()
        except switches.LabError as error:
            raise CommandError(str(error)) from None

    def _list(self) -> None:
        for entry in switches.state():
            switch, row = entry.switch, entry.row
            state = f"on ({row.consumer})" if row.on and row.consumer else "on" if row.on else "off"
            self.stdout.write(f"{switch.fault:<10} {state:<22} {switch.title}")
            for line in entry.explanation.splitlines():
                self.stdout.write(f"{'':<11}{line}")
            self.stdout.write(f"{'':<11}{entry.doc}")

    def _status(self) -> None:
        if not switches.enabled():
            raise switches.LabError("the fault lab is disabled (LAB_ENABLED; CARTLOG_LAB=1 turns it on)")
        for entry in switches.state():
            row = entry.row
            if row.on or row.fired:
                # Who it acts on; how often it fired, only once it has (pause, relay and validator never fire).
                state = "on" if row.on else "off"
                target = f" ({row.consumer})" if row.consumer else ""
                fired = f", fired {row.fired} {'time' if row.fired == 1 else 'times'}" if row.fired else ""
                note = f": {row.note}" if row.note else ""
                self.stdout.write(f"switch {row.name}: {state}{target}{fired}{note}{refused(entry)}")
        rows = status.overview([p.NAME for p in registry.inline()], [p.NAME for p in registry.asynchronous()])
        for view in rows:
            failing = f", failing: {view['failing']}" if view["failing"] else ""
            self.stdout.write(
                f"{view['name']:<20} position {view['checkpoint']}/{view['head']}, lag {view['lag_events']}{failing}"
            )
        for check in invariants.check_all():
            mark = "ok  " if check.ok else "??  " if check.ok is None else "FAIL"
            self.stdout.write(f"{mark} {check.name} ({check.summary}) {' '.join(check.examples)}")


def refused(entry: switches.SwitchState) -> str:
    """After a duplicate that fired: what refused the repeat, on its consumer's transport."""
    if entry.switch.fault is not Fault.DUPLICATE or not entry.row.fired:
        return ""
    return f"; the repeat was refused {switches.REFUSED_BY[entry.transport]} ({entry.transport} transport)"
