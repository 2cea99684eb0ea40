"""Write a benchmark's results into its block of docs/benchmarks.md.

Only the text between `<!-- results: NAME -->` and `<!-- /results: NAME -->`
is replaced; the prose of the section around it is written by hand.
"""

import re
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def write_results(name: str, markdown: str, doc: Path = DOC) -> bool:
    """Replace the results block `name`; False if the document has no such block."""
    text = doc.read_text()
    pattern = re.compile(rf"(<!-- results: {name} -->\n).*?(<!-- /results: {name} -->)", re.S)
    if not pattern.search(text):
        return False
    doc.write_text(pattern.sub(lambda m: m.group(1) + markdown.rstrip() + "\n" + m.group(2), text, count=1))
    return True
