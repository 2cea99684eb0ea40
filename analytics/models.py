"""The read tables the Spark jobs fill: one table per view, replaced whole on every run.

Every row carries `computed_at` (when the run loaded it) and `covers_position`
(the last log position the jobs read), so a reader can tell how fresh a figure is
and which events it includes.
"""

from django.db import models


class SparkView(models.Model):
    computed_at = models.DateTimeField()
    covers_position = models.BigIntegerField()

    class Meta:
        abstract = True


class Summary(SparkView):
    """One row: the whole log's funnel and revenue (GET /api/analytics/summary)."""

    carts_started = models.BigIntegerField()
    carts_with_items = models.BigIntegerField()
    carts_checked_out = models.BigIntegerField()
    conversion_rate = models.FloatField()
    abandonment_rate = models.FloatField()
    revenue = models.DecimalField(max_digits=18, decimal_places=2)
    average_order_value = models.DecimalField(max_digits=12, decimal_places=2)

    class Meta:
        verbose_name_plural = "summaries"


class FunnelDay(SparkView):
    """Carts by the day they were started: how many got items, how many checked out."""

    day = models.DateField(unique=True)
    carts_started = models.BigIntegerField()
    carts_with_items = models.BigIntegerField()
    carts_checked_out = models.BigIntegerField()
    conversion_rate = models.FloatField()
    abandonment_rate = models.FloatField()

    class Meta:
        ordering = ["day"]


class RevenueDay(SparkView):
    day = models.DateField(unique=True)
    orders = models.BigIntegerField()
    revenue = models.DecimalField(max_digits=18, decimal_places=2)
    average_order_value = models.DecimalField(max_digits=12, decimal_places=2)

    class Meta:
        ordering = ["day"]


class ProductStats(SparkView):
    """Per SKU, what the Spark jobs counted over the whole log (GET /api/analytics/products)."""

    sku = models.CharField(max_length=40, unique=True)
    name = models.CharField(max_length=200, null=True)  # null: a SKU no longer in the catalog
    category = models.CharField(max_length=80, null=True)
    adds = models.BigIntegerField()
    purchased_quantity = models.BigIntegerField()
    orders = models.BigIntegerField()
    added_then_removed = models.BigIntegerField(help_text="carts where it was added and then removed")

    class Meta:
        verbose_name_plural = "product stats"
        ordering = ["sku"]


class CheckoutTime(SparkView):
    """Checked-out carts by time from their first add to checkout, one row per bucket."""

    bucket = models.PositiveSmallIntegerField(unique=True)
    label = models.CharField(max_length=40)
    lower_seconds = models.BigIntegerField()
    upper_seconds = models.BigIntegerField(null=True)  # null: open-ended
    carts = models.BigIntegerField()

    class Meta:
        ordering = ["bucket"]


class HourlyActivity(SparkView):
    window_start = models.DateTimeField(unique=True)
    events = models.BigIntegerField()
    carts = models.BigIntegerField()
    adds = models.BigIntegerField()
    checkouts = models.BigIntegerField()

    class Meta:
        verbose_name_plural = "hourly activity"
        ordering = ["window_start"]


class SessionDay(SparkView):
    """Shopping sessions (a shopper's events with no pause over 30 minutes) by the day they began."""

    day = models.DateField(unique=True)
    sessions = models.BigIntegerField()
    average_seconds = models.FloatField()
    average_events = models.FloatField()
    sessions_with_checkout = models.BigIntegerField()

    class Meta:
        ordering = ["day"]


class Recommendation(SparkView):
    """ "Customers who bought `sku` also bought `recommended_sku`", ranked per SKU."""

    sku = models.CharField(max_length=40)
    rank = models.PositiveSmallIntegerField()
    recommended_sku = models.CharField(max_length=40)
    support = models.FloatField()
    confidence = models.FloatField()
    lift = models.FloatField()
    source = models.CharField(max_length=20, help_text="fp_growth or co_occurrence (the fallback)")

    class Meta:
        ordering = ["sku", "rank"]
        constraints = [models.UniqueConstraint(fields=["sku", "rank"], name="recommendation_sku_rank_unique")]


class AbandonedCartBatch(SparkView):
    """A cart abandoned at the end of the archive, found in batch (the live view: projections.AbandonedCart)."""

    cart_id = models.CharField(max_length=64)
    value = models.DecimalField(max_digits=12, decimal_places=2)
    last_activity_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "abandoned cart batches"
        ordering = ["-value", "cart_id"]


class Abandonment(SparkView):
    """One row: how many carts the batch job finds abandoned, their value, the recoveries, its watermark."""

    carts = models.BigIntegerField()
    value = models.DecimalField(max_digits=14, decimal_places=2)
    recovered = models.BigIntegerField()
    watermark = models.DateTimeField(null=True)
