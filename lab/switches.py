"""The lab's switches as a learner sees them: what each does, what to watch, where the doc explains it.

The page and `manage.py lab` flip them through `turn_on`/`turn_off`; the consumer runner
obeys them (consumers/faults.py owns the table), the holder holds (lab/holder.py).
"""

from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from consumers import heartbeat, registry
from consumers.faults import Fault, switches, turn
from consumers.models import FaultSwitch

GUIDE = "docs/fault-lab.md"
DEFAULT_CONSUMER = "order_history"  # of a switch that takes one, when none is named


class LabError(Exception):
    """A switch the lab refuses to flip: the lab is disabled, or the switch cannot work here."""


@dataclass(frozen=True)
class Switch:
    fault: Fault
    title: str
    explanation: str  # two lines: what it does, what to watch; `{refused_by}`: what drops a repeat (REFUSED_BY)
    anchor: str  # the section of docs/fault-lab.md
    takes_consumer: bool = False

    def explained(self, transport: str) -> str:
        """The explanation for a consumer on `transport` ("table" or "kafka")."""
        return self.explanation.format(refused_by=REFUSED_BY[transport])


# What refuses a batch delivered twice, per transport: they differ, and the guide shows each.
REFUSED_BY = {
    "table": "by the checkpoint: its compare-and-set from the batch's old position fails",
    "kafka": "by the consumer's progress per partition: the broker delivers it again and every event at or below it "
    "is dropped",
}


CATALOG = (
    Switch(Fault.PAUSE, "Pause a consumer",
           "The consumer reads nothing while paused; commands still succeed.\n"
           "Watch its position stand still and its lag grow; switch off and it catches up.",
           "pause-a-consumer", takes_consumer=True),
    Switch(Fault.CRASH, "Crash a consumer mid-batch",
           "Every batch fails after the handler ran, before its commit: the transaction rolls back.\n"
           "Watch the position stay put and the view unchanged; switch off and the same batch applies once.",
           "crash-a-consumer-mid-batch", takes_consumer=True),
    Switch(Fault.DUPLICATE, "Deliver the next batch twice",
           "The next batch is handed to the consumer a second time (fires once, then turns itself off).\n"
           "Watch the view: the repeat is refused {refused_by}, and changes nothing.",
           "deliver-the-next-batch-twice", takes_consumer=True),
    Switch(Fault.HOLD, "Hold a transaction open",
           "An item is added to a cart and its transaction kept open (PostgreSQL only); other orders commit after it.\n"
           "Watch every position stop before the held event and the lag grow; switch off and nothing was skipped.",
           "hold-a-transaction-open"),
    Switch(Fault.RELAY, "Stop the relay",
           "Nothing new reaches Kafka; the shop still commits, the log is the outbox.\n"
           "Watch the relay's position stop; switch off and it sends everything after it.",
           "stop-the-relay"),
    Switch(Fault.VALIDATOR, "Stop the claim validator",
           "Claims wait undecided: a sign-up answers 202 and its status says pending.\n"
           "Switch off and the validator decides them in log order; the sign-ups resolve.",
           "stop-the-claim-validator"),
)  # fmt: skip
BY_NAME = {switch.fault.value: switch for switch in CATALOG}


def enabled() -> bool:
    return bool(settings.LAB_ENABLED)


@dataclass(frozen=True)
class SwitchState:
    switch: Switch
    row: FaultSwitch  # on/off, its consumer, how often it fired, what it did last
    doc: str
    transport: str  # of the consumer it acts on (or would): what its explanation is about

    @property
    def explanation(self) -> str:
        return self.switch.explained(self.transport)


def state() -> list[SwitchState]:
    rows = switches()
    return [
        SwitchState(s, rows[s.fault], doc=f"{GUIDE}#{s.anchor}", transport=transport_of(rows[s.fault].consumer))
        for s in CATALOG
    ]


def transport_of(consumer: str) -> str:
    """The transport `consumer` reads from as its last heartbeat says; the default one before it has beaten."""
    beat = heartbeat.running(consumer or DEFAULT_CONSUMER)[1]
    return beat if beat in REFUSED_BY else registry.default_transport()


def consumer_names() -> list[str]:
    return sorted(consumer.name for consumer in registry.all_consumers())


def turn_on(name: str, consumer: str = "") -> Switch:
    switch = _known(name)
    if reason := impossible_here(switch, connection.vendor, settings.KAFKA_BOOTSTRAP_SERVERS):
        raise LabError(reason)
    if switch.takes_consumer:
        consumer = consumer or DEFAULT_CONSUMER
        if consumer not in consumer_names():
            raise LabError(f"unknown consumer {consumer!r} ({', '.join(consumer_names())})")
    elif consumer:  # it would be ignored: say so rather than let a learner think it applies
        raise LabError(f"{switch.fault} is not about one consumer; leave out --consumer {consumer}")
    turn(switch.fault, True, consumer if switch.takes_consumer else "")
    return switch


def impossible_here(switch: Switch, vendor: str, broker: str) -> str | None:
    """Why `switch` cannot show what it claims on this database and broker (`""`: none), or None."""
    # SQLite has one writer at a time: a held write transaction would block every command (the
    # shop would freeze) instead of showing a reader waiting at a gap, which only PostgreSQL has.
    if switch.fault is Fault.HOLD and vendor != "postgresql":
        return (
            "holding a transaction open needs PostgreSQL: on SQLite a held write blocks every other "
            "command, and positions commit in order, so there is no gap for a reader to wait at"
        )
    # Without a broker nothing runs a relay (run_relay refuses to start, run_consumers starts no relay
    # thread, make run's demo has none): the switch would be on and change nothing a learner can see.
    if switch.fault is Fault.RELAY and not broker:
        return (
            "stopping the relay needs Kafka (KAFKA_BOOTSTRAP_SERVERS): without a broker there is no relay "
            "to stop, and the consumers read the event table itself"
        )
    return None


def turn_off(name: str) -> Switch:
    switch = _known(name)
    turn(switch.fault, False)
    return switch


def _known(name: str) -> Switch:
    if not enabled():
        raise LabError("the fault lab is disabled (LAB_ENABLED; CARTLOG_LAB=1 turns it on)")
    try:
        return BY_NAME[name]
    except KeyError:
        raise LabError(f"no switch {name!r} ({', '.join(BY_NAME)})") from None
