"""The shopper simulator: a seeded plan of sessions (`plan`, `shopper`), played through
the command layer (`run_commands`) or decided in memory and appended in bulk (`run_bulk`);
`simulate.simulate` ties them together for `manage.py simulate_shoppers`."""
