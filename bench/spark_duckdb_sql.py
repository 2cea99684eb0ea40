"""The analytics and recommendations of spark_jobs/ as DuckDB SQL over the same Parquet archive.

What a single-machine user would pick instead of Spark: the same views, same
definitions (event time, UTC days, cart streams only, 30-minute sessions,
single-item also-bought rules with support, confidence and lift). DuckDB has no
FP-Growth; for single-item rules counting co-occurring pairs gives the same
figures (FP-Growth's thresholds only prune).

It reads the cart fields from the archive's typed cart columns (spark_jobs/archive_layout.py,
CART_COLUMNS), as the Spark jobs do, so neither engine parses JSON: an archive written by
spark_jobs/sample_archive.py has them in every part file.
"""

import duckdb

CART_EVENTS = """
CREATE OR REPLACE TEMP VIEW cart AS
SELECT position, stream_id AS cart_id, type, occurred_at,
       cart_owner AS owner, cart_sku AS sku, cart_quantity AS quantity, cart_total AS total, cart_lines AS lines
FROM read_parquet('{root}/events/*/*.parquet', hive_partitioning = false)
WHERE position <= {through} AND stream_id LIKE 'cart-%'
"""

CARTS = """
CREATE OR REPLACE TEMP TABLE carts AS
SELECT cart_id,
       min(occurred_at) FILTER (WHERE type = 'CartStarted') AS started_at,
       min(occurred_at) FILTER (WHERE type = 'ItemAdded') AS first_add_at,
       min(occurred_at) FILTER (WHERE type = 'CheckedOut') AS checked_out_at
FROM cart GROUP BY cart_id HAVING started_at IS NOT NULL
"""

VIEWS = {
    "summary": """
        SELECT count(*) AS carts_started, count(first_add_at) AS carts_with_items,
               count(checked_out_at) AS carts_checked_out, count(checked_out_at) / count(*) AS conversion_rate,
               (SELECT sum(total) FROM cart WHERE type = 'CheckedOut') AS revenue
        FROM carts""",
    "funnel_daily": """
        SELECT CAST(started_at AS DATE) AS day, count(*) AS carts_started, count(first_add_at) AS carts_with_items,
               count(checked_out_at) AS carts_checked_out, count(checked_out_at) / count(*) AS conversion_rate,
               (count(first_add_at) - count(checked_out_at)) / nullif(count(first_add_at), 0) AS abandonment_rate
        FROM carts GROUP BY 1 ORDER BY 1""",
    "revenue_daily": """
        SELECT CAST(occurred_at AS DATE) AS day, count(*) AS orders, sum(total) AS revenue,
               CAST(sum(total) / count(*) AS DECIMAL(12, 2)) AS average_order_value
        FROM cart WHERE type = 'CheckedOut' GROUP BY 1 ORDER BY 1""",
    "product_activity": """
        WITH adds AS (SELECT sku, count(*) AS adds FROM cart WHERE type = 'ItemAdded' GROUP BY sku),
        bought AS (
            SELECT line.sku AS sku, sum(CAST(line.quantity AS BIGINT)) AS purchased_quantity,
                   count(DISTINCT cart_id) AS orders
            FROM (SELECT cart_id, unnest(lines) AS line FROM cart WHERE type = 'CheckedOut')
            GROUP BY 1),
        removed AS (SELECT sku, count(DISTINCT cart_id) AS added_then_removed FROM cart
                    WHERE type = 'ItemRemoved' GROUP BY sku)
        SELECT sku, coalesce(adds, 0) AS adds, coalesce(purchased_quantity, 0) AS purchased_quantity,
               coalesce(orders, 0) AS orders, coalesce(added_then_removed, 0) AS added_then_removed
        FROM adds FULL JOIN bought USING (sku) FULL JOIN removed USING (sku) ORDER BY sku""",
    "checkout_time": """
        SELECT CASE WHEN s < 60 THEN 0 WHEN s < 300 THEN 1 WHEN s < 900 THEN 2 WHEN s < 3600 THEN 3
                    WHEN s < 86400 THEN 4 ELSE 5 END AS bucket, count(*) AS carts
        FROM (SELECT epoch(checked_out_at - first_add_at) AS s FROM carts WHERE checked_out_at IS NOT NULL)
        GROUP BY 1 ORDER BY 1""",
    "hourly_activity": """
        SELECT CAST(time_bucket(INTERVAL 1 HOUR, occurred_at) AS TIMESTAMP) AS window_start, count(*) AS events,
               count(DISTINCT cart_id) AS carts, count(*) FILTER (WHERE type = 'ItemAdded') AS adds,
               count(*) FILTER (WHERE type = 'CheckedOut') AS checkouts
        FROM cart GROUP BY 1 ORDER BY 1""",
    "sessions_daily": """
        WITH owned AS (
            SELECT c.occurred_at, c.type, o.owner AS shopper FROM cart c
            JOIN (SELECT cart_id, owner FROM cart WHERE type = 'CartStarted') o USING (cart_id)),
        marked AS (
            SELECT *, CASE WHEN lag(occurred_at) OVER w IS NULL
                            OR occurred_at >= lag(occurred_at) OVER w + INTERVAL 30 MINUTE THEN 1 ELSE 0 END AS new
            FROM owned WINDOW w AS (PARTITION BY shopper ORDER BY occurred_at)),
        numbered AS (SELECT *, sum(new) OVER (PARTITION BY shopper ORDER BY occurred_at
                                              ROWS UNBOUNDED PRECEDING) AS session FROM marked),
        sessions AS (SELECT shopper, session, min(occurred_at) AS first_at, max(occurred_at) AS last_at,
                            count(*) AS events, max(CAST(type = 'CheckedOut' AS INTEGER)) AS checked_out
                     FROM numbered GROUP BY shopper, session)
        SELECT CAST(first_at AS DATE) AS day, count(*) AS sessions, avg(epoch(last_at - first_at)) AS average_seconds,
               avg(events) AS average_events, sum(checked_out) AS sessions_with_checkout
        FROM sessions GROUP BY 1 ORDER BY 1""",
}

RECOMMENDATIONS = """
WITH items AS (
    SELECT DISTINCT cart_id, line.sku AS sku
    FROM (SELECT cart_id, unnest(lines) AS line FROM cart WHERE type = 'CheckedOut')),
n AS (SELECT count(DISTINCT cart_id) AS n FROM items),
item_orders AS (SELECT sku, count(*) AS orders FROM items GROUP BY sku),
pairs AS (SELECT x.sku, y.sku AS recommended_sku, count(*) AS together
          FROM items x JOIN items y ON x.cart_id = y.cart_id AND x.sku <> y.sku GROUP BY 1, 2),
rules AS (
    SELECT p.sku, p.recommended_sku, together / n AS support, together / xo.orders AS confidence,
           (together / xo.orders) / (yo.orders / n) AS lift
    FROM pairs p JOIN item_orders xo ON xo.sku = p.sku JOIN item_orders yo ON yo.sku = p.recommended_sku, n)
SELECT * FROM (
    SELECT *, row_number() OVER (PARTITION BY sku ORDER BY confidence DESC, lift DESC, recommended_sku) AS rank
    FROM rules) WHERE rank <= {top_n} ORDER BY sku, rank
"""


def connect(threads: int) -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute(f"SET threads = {threads}; SET TimeZone = 'UTC'")
    return connection


def analytics(connection: duckdb.DuckDBPyConnection, root: str, through: int) -> dict[str, list[tuple]]:
    connection.execute(CART_EVENTS.format(root=root, through=through))
    connection.execute(CARTS)
    return {name: connection.execute(sql).fetchall() for name, sql in VIEWS.items()}


def recommendations(connection: duckdb.DuckDBPyConnection, root: str, through: int, top_n: int = 4) -> list[tuple]:
    connection.execute(CART_EVENTS.format(root=root, through=through))
    return connection.execute(RECOMMENDATIONS.format(top_n=top_n)).fetchall()
