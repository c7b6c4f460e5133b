"""The canonical layout of a Polydat source (``polydat fmt``).

:func:`format_source` parses a source (:func:`polydat.dsl.parser.parse_layout`:
the tree, every comment and each statement's extent) and prints it again in
one style, so that formatting twice gives what formatting once gave and the
printed program binds to the same graph as the source. The style:

* one statement per line, indented by four spaces per block (``for`` bodies,
  module bodies, ``init { ... }`` blocks); a block's ``{`` ends its header
  line and its ``}`` has a line of its own;
* blank lines between statements are kept, collapsed to one; none at the
  start or end of a file or block;
* one space around binary operators, ``:=``, ``=``, ``->`` and ``as``, after
  ``,`` and ``:`` and none inside brackets; no space after a unary ``-`` or ``!``;
* parentheses only where the precedence table (:mod:`polydat.dsl.grammar`)
  needs them, and around a block ``if`` that is an operand;
* strings in double quotes with the escapes ``\\\\ \\" \\n \\t`` and nothing else
  escaped; raw strings ``r"..."`` and heredocs ``<<< ... >>>`` as written;
  an interpolated string with each ``{expr}`` printed in this style;
* numbers, type names, ``for`` comprehension headers and tile bodies as
  written (their text is part of the program's meaning);
* ``a.b`` field reads as written (``a.b`` or ``a__b``);
* ``init x = v`` as ``init x := v``; a tuple ``input (a, b)`` stays one line;
  the modifiers in the order ``const shared volatile``; a module's outputs
  always in parentheses;
* comments kept in order: a comment on a statement's last line stays at the
  end of that line (two spaces before it); a comment on a line of its own
  stays on a line of its own, before the statement that follows it; a
  comment inside a statement that prints on one line moves to a line of its
  own just before it. ``///`` docs are comments too and stay before the
  statement they document; a stray one inside a statement becomes ``//``
  (moved before the statement, it would document it).

Expressions are printed with an explicit stack (a chain of 5000 ``+`` is a
tree 5000 levels deep), as the parser builds them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from . import ast
from .diagnostics import SourceFile
from .grammar import BINARY_PRECEDENCE, RIGHT_ASSOCIATIVE
from .lexer import Comment
from .parser import Layout, parse_layout

__all__ = ["format_source", "PRINTED_NODES", "INDENT"]

INDENT = "    "
"""One level of indentation."""

#: The AST classes this module prints (a test checks every class of :mod:`polydat.dsl.ast` is here).
PRINTED_NODES: frozenset[type] = frozenset({
    ast.Name, ast.IntLit, ast.FloatLit, ast.DecimalLit, ast.StrLit, ast.BoolLit, ast.ArrayLit, ast.Arg,
    ast.Call, ast.BinOp, ast.UnaryOp, ast.Cast, ast.IfExpr, ast.ForExpr, ast.TileExpr, ast.InputDecl,
    ast.ExternDecl, ast.Target, ast.Binding, ast.Param, ast.ModuleDef, ast.Pragma, ast.ForStmt, ast.Program,
    ast.Span,
})

_ESCAPED = re.compile(r'[\\"\n\t]')
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_INIT = re.compile(r"init\b")
_TILE = re.compile(r"tile\b")
_CURSOR_SLICE = "__cursor_slice"
_CURSOR_DEFAULT_OVER = "0..100%"


def format_source(source: str, path: str | None = None) -> str:
    """``source`` in the canonical layout (see the module doc).

    Raises the :class:`~polydat.errors.CompileError` of a source that does not
    parse (every lexical and syntax error of it)."""
    layout = parse_layout(SourceFile(source, path))
    return _Printer(layout).program()


def quote_string(value: str) -> str:
    """``value`` as a canonical double-quoted literal (only ``\\ " newline tab`` escaped)."""
    return '"' + _ESCAPED.sub(lambda m: _ESCAPES[m.group()], value) + '"'


class _Printer:
    """Prints one parsed file: statements with their comments, then expressions."""

    def __init__(self, layout: Layout):
        self.layout = layout
        self.text = layout.program.source
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        self.comments: Sequence[Comment] = layout.comments
        self.next_comment = 0
        self.stray = self.stray_docs()
        self.lines: list[str] = []
        self.trailing: dict[int, str] = {}
        """The comments that end printed lines, by line index (see :func:`_aligned`)."""
        self.last_line = 0
        """The source line the output has reached (for keeping blank lines)."""

    # -- positions -----------------------------------------------------------

    def offset(self, span: ast.Span) -> int:
        """The source offset of a 1-based (line, column)."""
        return self.line_starts[span.line - 1] + span.col - 1

    def line_of(self, offset: int) -> int:
        """The 1-based line of a source offset."""
        return bisect_right(self.line_starts, offset)

    def extent(self, statement: ast.Statement) -> tuple[int, int]:
        return self.layout.extents[id(statement)]

    def source_extent(self, statement: ast.Statement) -> tuple[int, int]:
        return self.layout.sources[id(statement)]

    def stray_docs(self) -> set[int]:
        """The offsets of the ``///`` docs that document nothing: followed (past
        spaces and comments) by something other than a statement's first
        token, a block's closing ``}`` or the end of the text. A doc goes to
        the token after it, and a comment inside a statement moves before
        the statement: such a doc would document the statement."""
        starts = {lo for lo, _ in self.layout.extents.values()} | {lo for lo, _ in self.layout.sources.values()}
        closers = set()
        pending: list[ast.Statement] = list(self.layout.program.statements)
        while pending:
            statement = pending.pop()
            if isinstance(statement, (ast.ForStmt, ast.ModuleDef)):
                closers.add(self.extent(statement)[1] - 1)
                pending.extend(statement.body)
            elif self._init_form([statement], self.source_extent(statement)[0]) == "block":
                closers.add(self.source_extent(statement)[1] - 1)
        stray = set()
        comments = self.comments
        for index, comment in enumerate(comments):
            if not _is_doc(comment):
                continue
            after = comment.offset + len(comment.text)
            following = index + 1
            while True:
                while after < len(self.text) and self.text[after] in " \t\r\f\v\n":
                    after += 1
                if following < len(comments) and comments[following].offset == after:
                    after += len(comments[following].text)
                    following += 1
                    continue
                break
            if after < len(self.text) and after not in starts and after not in closers:
                stray.add(comment.offset)
        return stray

    def comment_text(self, comment: Comment) -> str:
        """A comment as printed: as written, trailing spaces dropped (a
        ``///`` doc's kept: they are its text), a stray doc (:meth:`stray_docs`)
        made a plain ``//`` comment."""
        if _is_doc(comment):
            return "//" + comment.text[3:] if comment.offset in self.stray else comment.text
        return comment.text.rstrip()

    # -- output --------------------------------------------------------------

    def emit(self, depth: int, text: str, first_line: int, block_start: bool) -> None:
        """One printed item starting at source line ``first_line``: a blank line
        before it when the source had one (not first in a block)."""
        if not block_start and self.lines and first_line > self.last_line + 1:
            self.lines.append("")
        self.lines.append(INDENT * depth + text if text else "")

    def comments_before(self, offset: int, depth: int, block_start: bool,
                        skip: Sequence[tuple[int, int]] = ()) -> bool:
        """Emit the comments before ``offset`` on lines of their own (those
        inside a ``skip`` range are printed with their verbatim text); whether
        the next item still starts its block."""
        comments = self.comments
        while self.next_comment < len(comments) and comments[self.next_comment].offset < offset:
            comment = comments[self.next_comment]
            self.next_comment += 1
            if any(lo <= comment.offset < hi for lo, hi in skip):
                continue
            self.emit(depth, self.comment_text(comment), comment.line, block_start)
            block_start = False
            self.last_line = comment.line + comment.text.count("\n")
        return block_start

    def end_line(self, end: int, limit: int) -> None:
        """End the last printed line, a statement's that ends at source offset
        ``end``: the comments after it on its source line (before offset
        ``limit``) join it, to be aligned with their neighbours'."""
        suffix = self.trailing_comments(end, limit)
        if suffix:
            self.trailing[len(self.lines) - 1] = suffix

    def trailing_comments(self, end: int, limit: int) -> str:
        """The comments after ``end`` (before ``limit``) on the line where ``end`` is, joined by spaces."""
        comments = self.comments
        line = self.line_of(max(end - 1, 0))
        found: list[str] = []
        while self.next_comment < len(comments):
            comment = comments[self.next_comment]
            if comment.offset >= limit or comment.line != line or comment.offset < end:
                break
            found.append(self.comment_text(comment))
            self.next_comment += 1
            line = comment.line + comment.text.count("\n")
        self.last_line = max(self.last_line, line)
        return " ".join(found)

    # -- statements ----------------------------------------------------------

    def program(self) -> str:
        statements = self.layout.program.statements
        self.block(statements, 0, len(self.text))
        self.comments_before(len(self.text) + 1, 0, not self.lines)
        lines = _aligned(self.lines, self.trailing)
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines) + "\n" if lines else ""

    def block(self, statements: Sequence[ast.Statement], depth: int, limit: int) -> None:
        """Print a block's statements, source statement by source statement,
        with the comments among them (up to source offset ``limit``)."""
        groups: list[list[ast.Statement]] = []
        for statement in statements:
            if groups and self.source_extent(groups[-1][0]) == self.source_extent(statement):
                groups[-1].append(statement)
            else:
                groups.append([statement])
        block_start = True
        for index, group in enumerate(groups):
            start, end = self.source_extent(group[0])
            following = self.source_extent(groups[index + 1][0])[0] if index + 1 < len(groups) else limit
            block_start = self.comments_before(start, depth, block_start)
            self.statement_group(group, depth, start, end, following, block_start)
            block_start = False

    def statement_group(self, group: list[ast.Statement], depth: int, start: int, end: int, following: int,
                        block_start: bool) -> None:
        first = group[0]
        first_line = self.line_of(start)
        if isinstance(first, (ast.ForStmt, ast.ModuleDef)) or self._init_form(group, start) == "block":
            self.braced(group, depth, start, end, following, block_start)
            return
        text, verbatim = self.one_statement(group, start, end)
        block_start = self.comments_before(end, depth, block_start, verbatim)
        self.emit(depth, text, first_line, block_start)
        self.end_line(end, following)

    def braced(self, group: list[ast.Statement], depth: int, start: int, end: int, following: int,
               block_start: bool) -> None:
        """A statement with a block: its header line, the block, the closing brace."""
        first = group[0]
        skip: list[tuple[int, int]] = []
        body: Sequence[ast.Statement]
        if isinstance(first, ast.ForStmt):
            at = self.offset(first.text_span)
            skip.append((at, at + len(first.text)))
            header = f"for {first.text} {{"
            body = first.body
        elif isinstance(first, ast.ModuleDef):
            header = self.module_header(first) + " {"
            body = sorted((*first.body, *first.pragmas), key=lambda s: self.extent(s)[0])
        else:
            header = "init {"
            body = group
        body_start = min((self.extent(s)[0] for s in body), default=end)
        first_line = self.line_of(start)
        # Comments inside the header: on the header's first line, after it; else before it.
        header_suffix: list[str] = []
        comments = self.comments
        pending = []
        while self.next_comment < len(comments) and comments[self.next_comment].offset < body_start:
            comment = comments[self.next_comment]
            if comment.offset >= end:
                break
            self.next_comment += 1
            if any(lo <= comment.offset < hi for lo, hi in skip):
                continue
            if comment.line == first_line:
                header_suffix.append(self.comment_text(comment))
            else:
                pending.append(comment)
        self.emit(depth, header, first_line, block_start)
        if header_suffix:
            self.trailing[len(self.lines) - 1] = " ".join(header_suffix)
        self.last_line = first_line
        for comment in pending:
            self.emit(depth + 1, self.comment_text(comment), comment.line, False)
            self.last_line = comment.line + comment.text.count("\n")
        if isinstance(first, ast.Binding):
            self._init_block(body, depth + 1, end)
        else:
            self.block(body, depth + 1, end)
        self.comments_before(end - 1, depth + 1, False)
        self.lines.append(INDENT * depth + "}")
        self.end_line(end, following)

    def _init_block(self, bindings: Sequence[ast.Statement], depth: int, limit: int) -> None:
        """The bindings of an ``init { ... }`` block, printed without their
        ``const`` and each placed by its own extent (not the block's)."""
        printed = [_without_const(b) for b in bindings]
        for copy, original in zip(printed, bindings):
            self.layout.extents[id(copy)] = self.layout.sources[id(copy)] = self.extent(original)
        self.block(printed, depth, limit)

    def _init_form(self, group: list[ast.Statement], start: int) -> str | None:
        """``"block"`` for an ``init { ... }`` block, ``"line"`` for ``init x = v``, else None."""
        first = group[0]
        if not isinstance(first, ast.Binding) or _INIT.match(self.text, start) is None:
            return None
        if self.offset(first.span) == start:  # a binding named `init`
            return None
        # A block's bindings were parsed as statements of their own, so have extents of their own.
        return "block" if self.extent(first) != self.source_extent(first) else "line"

    def one_statement(self, group: list[ast.Statement], start: int, end: int) -> tuple[str, list[tuple[int, int]]]:
        """A statement printed on one line (a tile or heredoc may continue on
        more), and the source ranges it prints verbatim."""
        first = group[0]
        if isinstance(first, ast.InputDecl):
            decls = [self.input_decl(d) for d in group if isinstance(d, ast.InputDecl)]
            return ("input " + (decls[0] if len(decls) == 1 else "(" + ", ".join(decls) + ")")), []
        if isinstance(first, ast.ExternDecl):
            text = f"extern {first.name}: {_type(first.type_name)}"
            if first.default is not None:
                text += " = " + self.expression(first.default)
            return text, []
        if isinstance(first, ast.Pragma):
            return "pragma " + first.name + ("" if first.value is None else " " + quote_string(first.value)), []
        assert isinstance(first, ast.Binding)
        value = first.value
        if isinstance(value, ast.Call) and value.func == _CURSOR_SLICE and len(group) in (3, 4):
            return self.cursor(group), []
        if isinstance(value, ast.TileExpr):
            at = self.offset(value.span)
            if _TILE.match(self.text, start):  # `tile name ... := body`: all of it as written
                return self.text[start:end], [(start, end)]
            return self.binding_head(first, init=False) + self.text[at:end], [(at, end)]
        head = self.binding_head(first, self._init_form(group, start) == "line")
        if isinstance(value, ast.ForExpr):
            at = self.offset(value.text_span)
            return head + "for " + value.text, [(at, at + len(value.text))]
        return head + self.expression(value), []

    def binding_head(self, binding: ast.Binding, init: bool) -> str:
        """``[modifiers] target[: type] := `` (``init target := ``)."""
        if binding.tuple_form:
            targets = "(" + ", ".join(t.name for t in binding.targets) + ")"
        else:
            targets = binding.targets[0].name
        if binding.type_name is not None:
            targets += ": " + _type(binding.type_name)
        if init:
            return f"init {targets} := "
        return "".join(m + " " for m in binding.modifiers) + targets + " := "

    def input_decl(self, decl: ast.InputDecl) -> str:
        return decl.name if decl.type_name is None else f"{decl.name}: {_type(decl.type_name)}"

    def cursor(self, group: list[ast.Statement]) -> str:
        """``cursor name = range(start, end) [over spec]`` from the bindings it became."""
        slice_binding, named = group[0], group[2]
        assert isinstance(slice_binding, ast.Binding) and isinstance(named, ast.Binding)
        call = slice_binding.value
        assert isinstance(call, ast.Call)
        _name, over, low, high, _partition = (arg.value for arg in call.args)
        text = f"cursor {named.targets[0].name} = range({self.expression(low)}, {self.expression(high)})"
        default = isinstance(over, ast.StrLit) and over.value == _CURSOR_DEFAULT_OVER and over.span == named.span
        return text if default else text + " over " + self.expression(over)

    def module_header(self, module: ast.ModuleDef) -> str:
        """``name(params) -> (outputs) :=`` (no name when the file names it)."""
        params = ", ".join(self.param(p) for p in module.params)
        outputs = ", ".join(self.param(p) for p in module.outputs)
        anonymous = self.text.startswith("(", self.offset(module.span))
        name = "" if anonymous else module.name
        return f"{name}({params}) -> ({outputs}) :="

    def param(self, param: ast.Param) -> str:
        return param.name if param.type_name is None else f"{param.name}: {_type(param.type_name)}"

    # -- expressions ---------------------------------------------------------

    def expression(self, root: ast.Expr) -> str:
        """``root`` printed (iteratively: trees may be arbitrarily deep)."""
        out: list[str] = []
        stack: list[str | ast.Expr] = [root]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
            else:
                stack.extend(reversed(self.pieces(item)))
        return "".join(out)

    def pieces(self, node: ast.Expr) -> list[str | ast.Expr]:
        """``node`` as text and subexpressions still to print, in order."""
        if isinstance(node, ast.Name):
            return [self.name(node)]
        if isinstance(node, (ast.IntLit, ast.FloatLit)):
            return [node.text]
        if isinstance(node, ast.DecimalLit):
            return [node.value + "d"]
        if isinstance(node, ast.StrLit):
            return [self.string(node)]
        if isinstance(node, ast.BoolLit):
            return ["true" if node.value else "false"]
        if isinstance(node, ast.ArrayLit):
            return ["[", *_joined(list(node.elements)), "]"]
        if isinstance(node, ast.Call):
            if node.interpolated:
                return [self.interpolation(node)]
            args: list[str | ast.Expr] = []
            for i, arg in enumerate(node.args):
                if i:
                    args.append(", ")
                if arg.name is not None:
                    args.append(arg.name + ": ")
                args.append(arg.value)
            return [node.func, "(", *args, ")"]
        if isinstance(node, ast.BinOp):
            return [*self.operand(node.left, node, "left"), f" {node.op} ", *self.operand(node.right, node, "right")]
        if isinstance(node, ast.UnaryOp):
            return [node.op, *self.operand(node.operand, node, "")]
        if isinstance(node, ast.Cast):
            return [*self.operand(node.operand, node, ""), " as ", _type(node.type_name)]
        if isinstance(node, ast.IfExpr):
            if not node.block_form:
                return ["if(", node.cond, ", ", node.then, ", ", node.otherwise, ")"]
            cond = self.expression(node.cond)
            if cond.startswith("("):  # `if (a) + b {` would read `if(a)` as a call
                cond = f"({cond})"
            other = node.otherwise
            if isinstance(other, ast.IfExpr) and other.block_form:
                return ["if ", cond, " { ", node.then, " } else ", other]
            return ["if ", cond, " { ", node.then, " } else { ", other, " }"]
        if isinstance(node, ast.ForExpr):
            return ["for " + node.text]
        if isinstance(node, ast.TileExpr):  # only a binding's whole value (see one_statement)
            raise AssertionError("a tile is printed with its binding")
        raise AssertionError(f"no printer for {type(node).__name__}")

    def operand(self, child: ast.Expr, parent: ast.Expr, side: str) -> list[str | ast.Expr]:
        """``child`` as an operand of ``parent``, parenthesised when the grammar needs it."""
        if _needs_parens(child, parent, side):
            return ["(", child, ")"]
        return [child]

    def name(self, node: ast.Name) -> str:
        """A name as written: ``a.b.c`` stays dotted (it reads the wire ``a__b__c``)."""
        if "__" in node.name and node.span.line > 0:
            found = _DOTTED.match(self.text, self.offset(node.span))
            if found is not None and found.group().replace(".", "__") == node.name:
                return found.group()
        return node.name

    def string(self, node: ast.StrLit) -> str:
        """A string literal: raw strings and heredocs as written, others canonical."""
        if node.span.line > 0:
            at = self.offset(node.span)
            head = self.text[at:at + 3]
            if head[:2] in ('r"', "r'") and self.text.startswith(node.value, at + 2):
                return head[:2] + node.value + head[1]
            if head == "<<<" and not node.value.endswith("\r"):
                return "<<<\n" + node.value + "\n>>>"
        return quote_string(node.value)

    def interpolation(self, node: ast.Call) -> str:
        """An interpolated string: its ``printf`` format's text with each ``{}``
        replaced by ``{expr}``, quoted canonically."""
        first = node.args[0].value
        assert isinstance(first, ast.StrLit)
        fmt = first.value
        holes = iter(arg.value for arg in node.args[1:])
        decoded: list[str] = []
        i = 0
        while i < len(fmt):
            pair = fmt[i:i + 2]
            if pair in ("{{", "}}"):
                decoded.append(pair)
                i += 2
            elif pair == "{}":
                decoded.append("{" + self.expression(next(holes)) + "}")
                i += 2
            else:
                decoded.append(fmt[i])
                i += 1
        return quote_string("".join(decoded))


def _needs_parens(child: ast.Expr, parent: ast.Expr, side: str) -> bool:
    """Whether ``child`` must be parenthesised as ``parent``'s operand on ``side``
    (``left``/``right`` of a binary operator; ``""`` for unary operators and casts)."""
    if isinstance(child, ast.IfExpr) and child.block_form:
        return True
    if isinstance(parent, ast.BinOp):
        if not isinstance(child, ast.BinOp):
            return False
        outer, inner = BINARY_PRECEDENCE[parent.op], BINARY_PRECEDENCE[child.op]
        if inner != outer:
            return inner < outer
        right_assoc = parent.op in RIGHT_ASSOCIATIVE
        return right_assoc if side == "left" else not right_assoc
    if isinstance(parent, ast.UnaryOp):
        return isinstance(child, ast.BinOp)
    return isinstance(child, (ast.BinOp, ast.UnaryOp))  # a cast's operand


def _aligned(lines: list[str], trailing: dict[int, str]) -> list[str]:
    """``lines`` with their trailing comments: the comments of consecutive
    lines start in one column, two spaces after the longest of those lines
    (a line that is not one line of its own source text, like a tile's, ends a run)."""
    out = list(lines)
    index = 0
    while index < len(lines):
        if index not in trailing:
            index += 1
            continue
        run_end = index
        while run_end + 1 in trailing and "\n" not in lines[run_end + 1]:
            run_end += 1
        width = max(len(lines[i].rsplit("\n", 1)[-1]) for i in range(index, run_end + 1))
        for i in range(index, run_end + 1):
            last = lines[i].rsplit("\n", 1)[-1]
            out[i] = lines[i] + " " * (width - len(last) + 2) + trailing[i]
        index = run_end + 1
    return out


def _type(name: str) -> str:
    """A type name: ``decimal(15, 2)`` with its space (the parser keeps ``decimal(15,2)``)."""
    return name.replace(",", ", ")


def _joined(items: list[ast.Expr]) -> list[str | ast.Expr]:
    out: list[str | ast.Expr] = []
    for i, item in enumerate(items):
        if i:
            out.append(", ")
        out.append(item)
    return out


def _is_doc(comment: Comment) -> bool:
    """Whether ``comment`` is a ``///`` doc comment (``////`` is a plain one)."""
    return comment.text.startswith("///") and not comment.text.startswith("////")


def _without_const(statement: ast.Statement) -> ast.Statement:
    """A binding of an ``init { ... }`` block as written there (no modifier)."""
    if isinstance(statement, ast.Binding):
        return ast.Binding(statement.targets, statement.value, statement.span, (), statement.type_name,
                           statement.type_span, statement.tuple_form, statement.doc)
    return statement
