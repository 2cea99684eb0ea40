"""Benchmarks (issue 2 and later): run them with scripts/bench.sh; results go to docs/benchmarks.md."""
