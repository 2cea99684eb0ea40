"""LOG_FORMAT=json: one JSON object per line (ops/logs.py)."""

import json
import logging

from ops.logs import JsonFormatter


def test_a_record_becomes_one_json_object_with_its_extras() -> None:
    record = logging.makeLogRecord(
        {"name": "relay", "levelname": "WARNING", "msg": "lag %d", "args": (3,), "consumer": "product_activity"}
    )
    line = JsonFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert (entry["level"], entry["logger"], entry["message"]) == ("WARNING", "relay", "lag 3")
    assert entry["consumer"] == "product_activity"
