"""Every ```python block marked `<!-- run -->` in README.md and docs/*.md runs without
raising, with Django set up and a database (rolled back after each). The rule and the
finder are tested in tests/unit/test_docs.py.
"""

from pathlib import Path

import pytest

from tests import doc_checks

DOCS = {"README.md": (doc_checks.ROOT / "README.md").read_text()} | {
    doc.relative_to(doc_checks.ROOT).as_posix(): doc.read_text()
    for doc in sorted(Path(doc_checks.ROOT, "docs").glob("*.md"))
}
SNIPPETS = [snippet for label, text in DOCS.items() for snippet in doc_checks.snippets(label, text)]


@pytest.mark.django_db
@pytest.mark.parametrize("snippet", SNIPPETS, ids=[snippet.where for snippet in SNIPPETS])
def test_a_marked_snippet_runs(snippet: doc_checks.Snippet) -> None:
    doc_checks.run(snippet)
