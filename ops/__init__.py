"""Operations endpoints: Prometheus metrics at /metrics, liveness and readiness at /health/ (docs/scaling.md)."""
