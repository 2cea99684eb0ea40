"""Views built from the log: each a function of events, rebuilt from position 0 at will."""
