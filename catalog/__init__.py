"""The product catalog as a log (product streams, their decider and handler, the
product table and search index folded from them) and coupons (plain reference data)."""
