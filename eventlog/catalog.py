"""The event catalog (docs/events.md), generated from the registered event types.

`python manage.py event_catalog` rewrites it; `--check` fails if it is stale,
and a test runs that check, so the document cannot drift from the code.
"""

from itertools import groupby

from . import registry

HEADER = """# Event catalog

Generated from the code by `python manage.py event_catalog`; do not edit by hand.

Every event carries the same envelope: `event_id` (UUID), `stream_id`,
`version` (1, 2, 3… per stream), `position` (global order), `type`,
`schema_version`, `data`, `metadata` (`command_id`, `correlation_id`,
`causation_id`, `actor`), `occurred_at` (event time) and `recorded_at` (when
the log stored it). Older schema versions are upcast when read, never rewritten.
How to add an event, or a new schema version of one: [extending.md](extending.md).
"""


def render() -> str:
    parts = [HEADER]
    for category, types in groupby(registry.all_types(), key=lambda t: t.category):
        parts.append(f"\n## Stream `{category}-…`\n\n| type | schema | data | meaning |\n|---|---|---|---|\n")
        for event_type in types:
            fields = ", ".join(f"`{name}`" for name in event_type.fields)
            meaning = " ".join(event_type.description.split())
            parts.append(f"| `{event_type.name}` | {event_type.schema_version} | {fields} | {meaning} |\n")
    return "".join(parts)
