"""The write side of a cart: commands, events, the decider, and the handler."""
