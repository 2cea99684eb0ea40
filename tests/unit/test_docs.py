"""The docs stay true: the files and names they cite exist, their marked snippets run,
and nothing cites the design document the repository no longer has. No database; the
snippets of the real docs run in tests/integration/test_doc_snippets.py. The rules for
what counts as a reference are in tests/doc_checks.py.
"""

from pathlib import Path

import pytest

from tests import doc_checks
from tests.doc_checks import Reference, Snippet

FIXTURE = Path(__file__).parent / "fixtures" / "snippets.md"
AFTER_THE_MOVES = "docs updated after the issue-10 moves"


def refs(text: str) -> list[tuple[str, str | None]]:
    return [(r.path, r.name) for r in doc_checks.references("t.md", text)]


def test_paths_and_names_are_read_from_code_spans() -> None:
    text = (
        "`carts/handler.py` runs, `carts/api/` holds views, see `eventlog/migrations/0003`;\n"
        "`carts/decider.py: fold_recorded/evolve`, `consumers/registry.py:FACTORIES`,\n"
        "`decide` in `carts/decider.py`, the command `AddToCart` (`carts/commands.py`)."
    )

    assert refs(text) == [
        ("carts/handler.py", None),
        ("carts/api/", None),
        ("eventlog/migrations/0003", None),
        ("carts/decider.py", "fold_recorded"),
        ("carts/decider.py", "evolve"),
        ("consumers/registry.py", "FACTORIES"),
        ("carts/decider.py", None),
        ("carts/commands.py", None),
        ("carts/decider.py", "decide"),
        ("carts/commands.py", "AddToCart"),
    ]


def test_commands_routes_urls_media_types_bare_names_and_fenced_code_are_not_references() -> None:
    text = (
        "`python manage.py run_relay`, `/api/carts/<id>`, `http://localhost:8000`, `application/json`,\n"
        "`application/problem+json`, `test_archive.py`, `spark_jobs/<job>.py`, `tests/test_*.py`,\n"
        "`var/pytest-sqlite.log` (a run makes it),\n"
        "`schema_version` (`relay/messages.py: to_message`) names a header, not a definition.\n"
        "```python\n`not/in/a/span.py`\n```\n"
    )

    assert refs(text) == [("relay/messages.py", "to_message")]


def test_a_reference_is_wrong_when_its_file_or_name_is_missing() -> None:
    def problem(path: str, name: str | None = None) -> str | None:
        return doc_checks.problem(Reference("t.md:1", path, name))

    assert problem("carts/decider.py", "evolve") is None
    assert problem("carts/decider.py", "CartState.total") is None
    assert problem("eventlog/migrations/0003") is None
    assert problem("carts/gone.py") == "t.md:1: `carts/gone.py` does not exist"
    assert problem("carts/decider.py", "nothing") == "t.md:1: `nothing` is not defined in `carts/decider.py`"
    assert problem("carts/decider.py", "CartState.nothing") == (
        "t.md:1: `CartState.nothing` is not defined in `carts/decider.py`"
    )


def test_every_file_and_name_the_tour_and_docs_cite_exists() -> None:
    problems = [
        problem
        for label, text in doc_checks.documents().items()
        for reference in doc_checks.references(label, text)
        if (problem := doc_checks.problem(reference))
    ]

    assert problems == []


def test_only_python_blocks_marked_run_are_snippets() -> None:
    found = list(doc_checks.snippets("snippets.md", FIXTURE.read_text()))

    assert [snippet.where for snippet in found] == ["snippets.md:6", "snippets.md:29"]
    for snippet in found:
        doc_checks.run(snippet)


def test_a_failing_snippet_raises_with_where_it_is_written() -> None:
    with pytest.raises(ZeroDivisionError) as raised:
        doc_checks.run(Snippet("docs/x.md:7", "1 / 0"))

    assert str(raised.traceback[-1].path) == "docs/x.md:7"


def test_no_file_cites_the_old_design_document() -> None:
    assert doc_checks.design_citations() == []
