"""Examples for the analytics endpoints (api/analytics.py): one row of each view, and the refusals."""

from .examples import MIN_POSITION_REFUSALS, NOT_AUTHENTICATED, NOT_STAFF, refusal, response

FRESH = {"covers_position": 1840, "computed_at": "2026-03-02T11:00:04Z"}
STAFF_ONLY = [NOT_AUTHENTICATED, NOT_STAFF, *MIN_POSITION_REFUSALS]

ANALYTICS_SUMMARY = [
    response("Summary", {"carts_started": 120, "carts_with_items": 96, "carts_checked_out": 41, "conversion_rate": 0.34,
                         "abandonment_rate": 0.57, "revenue": "17011.30", "average_order_value": "414.91", **FRESH,
                         "log_head": 1912, "run_in_progress": False}),
    NOT_AUTHENTICATED,
    *MIN_POSITION_REFUSALS,
]  # fmt: skip
ANALYTICS_FUNNEL = [
    response("A day", {"day": "2026-03-02", "carts_started": 30, "carts_with_items": 24, "carts_checked_out": 10,
                       "conversion_rate": 0.33, "abandonment_rate": 0.58, **FRESH}),
    *STAFF_ONLY,
]  # fmt: skip
ANALYTICS_REVENUE = [
    response("A day", {"day": "2026-03-02", "orders": 10, "revenue": "412.50", "average_order_value": "41.25",
                       **FRESH}),
    *STAFF_ONLY,
]  # fmt: skip
ANALYTICS_CHECKOUT_TIME = [
    response("A bucket", {"bucket": 1, "label": "1-5 min", "lower_seconds": 60, "upper_seconds": 300, "carts": 17,
                          **FRESH}),
    *STAFF_ONLY,
]  # fmt: skip
ANALYTICS_HOURLY = [
    response("An hour", {"window_start": "2026-03-02T10:00:00Z", "events": 212, "carts": 18, "adds": 64, "checkouts": 6,
                         **FRESH}),
    *STAFF_ONLY,
]  # fmt: skip
ANALYTICS_SESSIONS = [
    response("A day", {"day": "2026-03-02", "sessions": 25, "average_seconds": 412.5, "average_events": 7.2,
                       "sessions_with_checkout": 9, **FRESH}),
    *STAFF_ONLY,
]  # fmt: skip
ANALYTICS_TOP_PRODUCTS = [
    response("A product", {"sku": "COF-001", "name": "Ethiopian Yirgacheffe Beans 250g", "category": "Coffee & Tea",
                           "adds": 58, "purchased_quantity": 71, "orders": 30, "added_then_removed": 4, **FRESH}),
    refusal(400, "Unknown ranking", "by must be one of adds, purchases, removed"),
    *STAFF_ONLY,
]  # fmt: skip
ANALYTICS_RECOMMENDATIONS = [
    response("A recommendation", {"sku": "COF-001", "rank": 1, "recommended_sku": "KIT-001", "support": 0.12,
                                  "confidence": 0.4, "lift": 2.1, "source": "fp_growth", **FRESH}),
    NOT_AUTHENTICATED,
    *MIN_POSITION_REFUSALS,
]  # fmt: skip
ANALYTICS_ABANDONED = [
    response("Two carts gone quiet", {
        "carts": [{"cart_id": "6f1c0d2e-5a47-4a8e-9d0b-3c2f1e7a9b10", "value": "58.40",
                   "last_activity_at": "2026-03-02T09:12:00Z"},
                  {"cart_id": "0b9e3a71-2c4d-4f6e-8a1b-5d7c9e0f2a34", "value": "12.90",
                   "last_activity_at": "2026-03-02T09:40:00Z"}],
        "value": "71.30", "recovered": 3, "recovery_rate": 0.6, "watermark": "2026-03-02T10:25:00Z",
        "covers_position": 1840}),
    *STAFF_ONLY,
]  # fmt: skip
