"""What staff, the seed and checkouts ask of a product's stock, in the imperative. Each carries its time."""

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, kw_only=True)
class ReceiveStock:
    sku: str
    at: datetime
    quantity: int


@dataclass(frozen=True, kw_only=True)
class AdjustStock:
    sku: str
    at: datetime
    by: int
    reason: str


@dataclass(frozen=True, kw_only=True)
class Reserve:
    sku: str
    at: datetime
    reservation: str
    quantity: int
    expires_at: datetime


@dataclass(frozen=True, kw_only=True)
class Release:
    sku: str
    at: datetime
    reservation: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class Confirm:
    sku: str
    at: datetime
    reservation: str
    order_id: str


@dataclass(frozen=True, kw_only=True)
class ReleaseExpired:
    """The sweep's command: release every reservation whose time ran out by `at`."""

    sku: str
    at: datetime


StockCommand = ReceiveStock | AdjustStock | Reserve | Release | Confirm | ReleaseExpired
