"""The fault lab: switches that break the consumers on purpose, and a panel that shows the invariants hold."""
