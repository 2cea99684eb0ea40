"""The shop's pages, one module per area: catalog, cart, checkout, account, history."""
