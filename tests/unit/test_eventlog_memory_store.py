"""The event store's contract (tests/store_contract.py) on the in-memory store: no database."""

from typing import Any

import pytest

from eventlog.stores import MemoryStore
from tests.store_contract import EventStoreContract


class TestMemoryStore(EventStoreContract):
    memory: MemoryStore

    @pytest.fixture(autouse=True)
    def _store(self) -> None:
        self.store = self.memory = MemoryStore()

    def stored_rows(self, stream_id: str) -> list[tuple[int, str, int, dict[str, Any]]]:
        return [(e.version, e.type, e.schema_version, e.data) for e in self.memory._streams.get(stream_id, [])]
