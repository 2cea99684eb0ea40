"""What the docs cite, read without importing anything: repo paths, names in them,
runnable snippets, and citations of a design document the repository no longer has.

The rules, kept simple on purpose (docs/*.md and README.md's tour follow them):

* A **path** is an inline code span that is a relative path with at least one `/`
  (`carts/handler.py`, `carts/api/`, `eventlog/migrations/0003`): word characters,
  dots and dashes only, so URLs, routes (`/api/...`), placeholders (`<id>`), globs,
  `KEY=value` and commands with arguments (`python manage.py run_relay`) are not paths;
  and its last part has an extension, or its first is a top-level entry of the repository
  (so `application/json` is not a path). Bare file names (`test_archive.py`) are
  skipped: they do not say which folder.
  A path without an extension may name a file by its prefix (`.../0003` for `0003_x.py`).
* A **name in a path** is written `path.py: name` or `path.py:name` in one span, several
  names joined by `/` or `,` (`carts/decider.py: fold_recorded/evolve`), or as two spans,
  `` `name` in `path.py` ``, or `` `Class` (`path.py`) `` for a capitalized name (a lower-case
  one in parentheses is often a field or a header, not a definition). A name is a
  function, class or assignment at the top of the module, or `Class.member`.
* A **runnable snippet** is a ```python fence whose previous non-blank line is `<!-- run -->`.
"""

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOUR = re.compile(r"<!-- section: tour -->(.*?)<!-- /section: tour -->", re.DOTALL)
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
SPAN = re.compile(r"`([^`]+)`")
PATH = r"[\w.-]+(?:/[\w.-]+)+/?"
IDENT = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
NAMED_SPAN = re.compile(rf"({PATH}\.py)\s*:\s*({IDENT}(?:\s*[/,]\s*{IDENT})*)")
NAME_BEFORE_PATH = re.compile(
    rf"`({IDENT})(?:\(\))?`\s+in\s+`({PATH}\.py)`|`([A-Z]\w*)`\s+\(`({PATH}\.py)(?:\s*:[^`]*)?`"
)
DESIGN_CITATION = re.compile(r"\bDESIGN(?:\.md\b|\s+§|\s+invariant)")
NOT_SCANNED = {".git", ".venv", "var", "staticfiles", "node_modules", "__pycache__"}


@dataclass(frozen=True)
class Reference:
    where: str  # "docs/x.md:12"
    path: str
    name: str | None = None


@dataclass(frozen=True)
class Snippet:
    where: str
    code: str


def documents() -> dict[str, str]:
    """README.md's tour section, every docs/*.md and every decision record (docs/adr/*.md), by path
    relative to the repository."""
    readme = (ROOT / "README.md").read_text()
    tour = TOUR.search(readme)
    found = {"README.md (tour)": tour.group(1) if tour else ""}
    for doc in sorted([*(ROOT / "docs").glob("*.md"), *(ROOT / "docs" / "adr").glob("*.md")]):
        found[doc.relative_to(ROOT).as_posix()] = doc.read_text()
    return found


def _without_fences(text: str) -> str:
    """Fenced blocks blanked out (their line breaks kept, so line numbers stay right)."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def references(label: str, text: str) -> Iterator[Reference]:
    text = _without_fences(text)
    for match in SPAN.finditer(text):
        where = f"{label}:{text.count(chr(10), 0, match.start()) + 1}"
        span = " ".join(match.group(1).split())
        if named := NAMED_SPAN.fullmatch(span):
            for name in re.split(r"\s*[/,]\s*", named.group(2)):
                yield Reference(where, named.group(1), name)
        elif re.fullmatch(PATH, span) and _looks_like_a_repo_path(span):
            yield Reference(where, span)
    for match in NAME_BEFORE_PATH.finditer(text):
        name, path = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        yield Reference(f"{label}:{text.count(chr(10), 0, match.start()) + 1}", path, name)


def _looks_like_a_repo_path(span: str) -> bool:
    parts = span.rstrip("/").split("/")
    if parts[0] in NOT_SCANNED:  # made by a run (var/pytest-sqlite.log), not a file of the tree
        return False
    return "." in parts[-1] or (ROOT / parts[0]).exists()


def _file_exists(path: str) -> bool:
    target = ROOT / path
    if target.exists():
        return True
    return "." not in target.name and any(target.parent.glob(f"{target.name}*"))


@cache
def _definitions(path: str) -> dict[str, set[str]]:
    """Top-level names of a module, each with the names defined directly in it (for classes)."""
    names: dict[str, set[str]] = {}
    for node in ast.parse((ROOT / path).read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names[node.name] = set()
        elif isinstance(node, ast.ClassDef):
            names[node.name] = {n for child in node.body for n in _defined_by(child)}
        else:
            names.update({name: set() for name in _defined_by(node)})
    return names


def _defined_by(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def problem(reference: Reference) -> str | None:
    """Why `reference` is wrong, or None if the file exists and defines the name."""
    if not _file_exists(reference.path):
        return f"{reference.where}: `{reference.path}` does not exist"
    if reference.name is None:
        return None
    top, _, member = reference.name.partition(".")
    defined = _definitions(reference.path)
    if top not in defined or (member and member not in defined[top]):
        return f"{reference.where}: `{reference.name}` is not defined in `{reference.path}`"
    return None


def snippets(label: str, text: str) -> Iterator[Snippet]:
    lines = text.splitlines()
    previous = ""
    for number, line in enumerate(lines):
        if line.strip() == "```python" and previous == "<!-- run -->":
            end = lines.index("```", number + 1)
            yield Snippet(f"{label}:{number + 1}", "\n".join(lines[number + 1 : end]))
        if line.strip():
            previous = line.strip()


def run(snippet: Snippet) -> None:
    exec(compile(snippet.code, snippet.where, "exec"), {"__name__": "__doc_snippet__"})


def design_citations() -> list[str]:
    """`file:line` of every line in the repository that cites the old design document."""
    found = []
    for path in sorted(_scanned_files()):
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue  # binary (screenshots, databases)
        for number, line in enumerate(text.splitlines(), start=1):
            if DESIGN_CITATION.search(line):
                found.append(f"{path.relative_to(ROOT).as_posix()}:{number}")
    return found


def _scanned_files() -> Iterator[Path]:
    stack = [ROOT]
    while stack:
        for entry in stack.pop().iterdir():
            if entry.name in NOT_SCANNED or entry.name.endswith("_cache") or entry.is_symlink():
                continue
            if entry.is_dir():
                stack.append(entry)
            else:
                yield entry
