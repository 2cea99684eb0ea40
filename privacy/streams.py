"""The names of person streams, `person-<principal>`: built and parsed here and nowhere else."""

CATEGORY = "person"
PREFIX = f"{CATEGORY}-"


def stream_id(person: str) -> str:
    return PREFIX + person


def person(stream_id: str) -> str:
    if not stream_id.startswith(PREFIX):
        raise ValueError(f"{stream_id!r} is not a person stream")
    return stream_id[len(PREFIX) :]
