"""Stock and reservations: a stock stream per product, `stock-<sku>` (docs/stock-and-reservations.md)."""
