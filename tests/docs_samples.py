"""Reading the code samples of the documentation (``docs/*.md``, ``README.md``).

The conventions are those ``docs/development.md`` states ("Every sample
runs"): a fenced block's language, and an HTML comment on the line just
before it (``<!-- sample: ... -->``) saying what the block is. Used by
``tests/test_docs_samples.py``, which runs them, and by the tests that read
one particular sample.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

FENCE = re.compile(r"^```(\w*)[^`]*$")
DIRECTIVE = re.compile(r"^<!-- sample: (.+?) -->$")
KNOWN_DIRECTIVES = re.compile(
    r"^(rows|run|comments show row 0|same as \S+|save as \S+|library_path=\S+)$"
)


@dataclass(frozen=True)
class Block:
    """A fenced code block: its language, text, 1-based line and directive."""

    page: Path
    line: int
    lang: str
    text: str
    directive: str | None


@dataclass(frozen=True)
class Table:
    """A Markdown table marked ``<!-- sample: rows -->``: header and cells."""

    page: Path
    line: int
    header: list[str]
    rows: list[list[str]]


def pages() -> list[Path]:
    """Every page whose samples run: the site's Markdown and the README."""
    return sorted(DOCS.rglob("*.md")) + [ROOT / "README.md"]


def _cells(line: str) -> list[str]:
    """A table row's cells, ``\\|`` read as a literal bar."""
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", inner)]


def samples(page: Path) -> list[Block | Table]:
    """The page's fenced blocks and marked tables, in page order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block | Table] = []
    i = 0
    while i < len(lines):
        before = DIRECTIVE.match(lines[i - 1].strip()) if i else None
        directive = before.group(1) if before else None
        fence = FENCE.match(lines[i])
        if fence:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            found.append(Block(page, i + 1, fence.group(1), "\n".join(lines[i + 1:end]) + "\n", directive))
            i = end + 1
            continue
        if directive == "rows" and lines[i].startswith("|"):
            end = i
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            rows = [_cells(line) for line in lines[i:end]]
            found.append(Table(page, i + 1, rows[0], rows[2:]))
            i = end
            continue
        i += 1
    return found


def blocks(page: Path, lang: str) -> list[Block]:
    """The page's blocks of one language."""
    return [s for s in samples(page) if isinstance(s, Block) and s.lang == lang]


def block_after(page: Path, text: str, lang: str) -> str:
    """The text of the first ``lang`` block after ``text`` on ``page``."""
    content = page.read_text(encoding="utf-8")
    rest = content[content.index(text):]
    match = re.search(rf"^```{lang}\n(.*?)^```", rest, re.S | re.M)
    assert match, f"no ```{lang} block after {text!r} in {page}"
    return match.group(1)


def shown_value(comment: str) -> tuple[bool, object]:
    """``(True, value)`` when ``comment`` starts with a Python literal (the
    longest prefix that is one), else ``(False, None)``."""
    text = comment.strip()
    for end in range(len(text), 0, -1):
        try:
            return True, ast.literal_eval(text[:end])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return False, None


def comments_by_line(source: str) -> dict[int, str]:
    """The ``#`` comment of each line of ``source`` (1-based), without the ``#``."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = token.string[1:]
    return found


def shown_values(source: str) -> list[tuple[ast.stmt, tuple[bool, object]]]:
    """Each top-level statement of ``source``, with the value its comment
    shows when it is an expression: the comment on its last line (for the
    line's last statement) or, when there is none, a comment line right
    after it."""
    tree = ast.parse(source)
    comments = comments_by_line(source)
    lines = source.splitlines()
    result = []
    for k, stmt in enumerate(tree.body):
        shown: tuple[bool, object] = (False, None)
        following = tree.body[k + 1] if k + 1 < len(tree.body) else None
        shares_its_line = following is not None and following.lineno == stmt.end_lineno
        if isinstance(stmt, ast.Expr) and not shares_its_line:
            last = stmt.end_lineno or stmt.lineno
            comment = comments.get(last)
            if comment is None and last < len(lines) and lines[last].lstrip().startswith("#"):
                comment = comments.get(last + 1)
            if comment is not None:
                shown = shown_value(comment)
        result.append((stmt, shown))
    return result
