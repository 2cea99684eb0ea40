"""The product catalog and coupons: plain reference data, not event-sourced."""
