"""Read tables of the projections, and the checkpoints of consumers.

Projection rows are written by their projection module with plain SQL against
a table name (so a rebuild can fill a shadow table with the same code); the
models here give the ORM a way to read them and Django a way to migrate them.
"""

from django.db import models


class CartView(models.Model):
    """`cart_view`: one row per cart, written inline with each append (read-your-writes)."""

    cart_id = models.CharField(max_length=64, primary_key=True)
    owner = models.CharField(max_length=200)
    status = models.CharField(max_length=20)
    lines = models.JSONField(default=list)  # [{sku, quantity, unit_price}] in the order added
    item_count = models.PositiveIntegerField(default=0)
    subtotal = models.DecimalField(max_digits=12, decimal_places=2)
    discount = models.DecimalField(max_digits=12, decimal_places=2)
    total = models.DecimalField(max_digits=12, decimal_places=2)
    coupon = models.CharField(max_length=40, null=True)
    order_id = models.CharField(max_length=64, null=True)
    version = models.PositiveIntegerField()  # the stream version this row reflects
    last_position = models.BigIntegerField()  # the log position of that event
    updated_at = models.DateTimeField()  # event time of that event (deterministic on rebuild)

    class Meta:
        db_table = "projection_cart_view"
        # A shopper's carts are found by owner, with `=` (shop/current.py, shop/queries.py). An index
        # declared here is that B-tree alone; `db_index=True` on a CharField also gave PostgreSQL a
        # varchar_pattern_ops copy for LIKE, which no query runs and every new row paid for
        # (migration 0007 drops it, and the primary key's).
        indexes = [models.Index(fields=["owner"], name="cart_view_owner")]


class ProductActivity(models.Model):
    """`product_activity`: what shoppers did with each SKU, counted from every cart event."""

    sku = models.CharField(max_length=40, primary_key=True)
    times_added = models.PositiveIntegerField(default=0)
    times_removed = models.PositiveIntegerField(default=0)
    times_raised = models.PositiveIntegerField(default=0)
    times_lowered = models.PositiveIntegerField(default=0)
    times_bought = models.PositiveIntegerField(default=0)
    units_sold = models.PositiveIntegerField(default=0)
    revenue = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    last_position = models.BigIntegerField(default=0)

    class Meta:
        verbose_name_plural = "product activity"
        db_table = "projection_product_activity"


class OrderHistory(models.Model):
    """`order_history`: every order, under the account that owned the cart when it was placed."""

    order_id = models.CharField(max_length=64, primary_key=True)
    account = models.CharField(max_length=200, db_index=True)
    cart_id = models.CharField(max_length=64)
    lines = models.JSONField(default=list)
    subtotal = models.DecimalField(max_digits=12, decimal_places=2)
    discount = models.DecimalField(max_digits=12, decimal_places=2)
    total = models.DecimalField(max_digits=12, decimal_places=2)
    coupon = models.CharField(max_length=40, null=True)
    shipping = models.JSONField(null=True)  # the sealed box as the event carries it: ciphertext, never clear
    placed_at = models.DateTimeField()
    position = models.BigIntegerField()

    class Meta:
        verbose_name_plural = "order history"
        db_table = "projection_order_history"


class CategoryActivity(models.Model):
    """`category_activity`: cart activity per category, joined with the category as it was then."""

    category = models.CharField(max_length=80, primary_key=True)
    items_added = models.PositiveIntegerField(default=0)
    items_removed = models.PositiveIntegerField(default=0)
    units_checked_out = models.PositiveIntegerField(default=0)
    last_position = models.BigIntegerField(default=0)

    class Meta:
        verbose_name_plural = "category activity"
        db_table = "projection_category_activity"


class AbandonedCart(models.Model):
    """`abandoned_carts`: each cart's last activity in event time, its value, and whether it is abandoned now."""

    cart_id = models.CharField(max_length=64, primary_key=True)
    lines = models.JSONField(default=list)  # [[sku, quantity, unit_price]]
    open = models.BooleanField(default=True)
    item_count = models.PositiveIntegerField(default=0)
    value = models.DecimalField(max_digits=12, decimal_places=2)
    last_activity_at = models.DateTimeField(db_index=True)  # event time (occurred_at), never the clock
    abandoned = models.BooleanField(default=False)
    recoveries = models.PositiveIntegerField(default=0)  # times the shopper came back after a quiet period
    version = models.PositiveIntegerField()  # the cart stream's version this row reflects
    last_position = models.BigIntegerField()

    class Meta:
        db_table = "projection_abandoned_carts"
