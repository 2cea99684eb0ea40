"""Personal data: each person's data key, kept outside the log, and the sealed boxes events carry."""
