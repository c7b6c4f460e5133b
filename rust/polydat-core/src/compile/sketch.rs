//! A tiny text form of graph IR for Rust tests, fusion witnesses and
//! benchmarks (the real frontend is the Python DSL). One statement per line:
//!
//! ```text
//! input cycle: u64              # a coordinate (declare coordinates first)
//! extern seed: u64 = 7          # an extern, with an optional default
//! h := hash(cycle)              # a binding: a call, a name or a literal
//! const volatile shared x := …  # modifiers before the name
//! shared n: u64 := 0            # a cell of a pinned type (later reads see the cell)
//! free region                   # a free name (read, never bound): an
//!                               # inferred input the compiler may resolve
//!                               # in an outer scope (auto-extern)
//! ```
//!
//! Expressions are calls `op(arg, ...)`, names of inputs or earlier bindings,
//! and literals: integers (`-5` is i64), floats (`2.5`, `1e9`), strings
//! (`"key"`), decimals (`0.01d`, `-2.5d`) and `true`/`false`. Literals land as IR constants, so the
//! resolver decides (as for the DSL) whether they are construction constants
//! or anonymous literal nodes. Spans are the 1-based line and column.

use crate::ir::{ArgIr, ConstIr, GraphIr, InputIr, InputKind, Modifier, NodeIr, OutputIr, Span, WireIr};
use crate::nodes::convert::LITERAL_OP;
use crate::types::PortType;
use std::collections::HashMap;

/// Parses the sketch `text` into graph IR.
pub fn parse(text: &str) -> Result<GraphIr, String> {
    let mut sketch = Sketch::default();
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        let code = line.split('#').next().unwrap_or("");
        if code.trim().is_empty() {
            continue;
        }
        sketch.statement(code, line_no).map_err(|e| format!("line {line_no}: {e}"))?;
    }
    Ok(sketch.ir)
}

#[derive(Default)]
struct Sketch {
    ir: GraphIr,
    names: HashMap<String, WireIr>,
}

impl Sketch {
    fn statement(&mut self, code: &str, line: u32) -> Result<(), String> {
        let indent = code.len() - code.trim_start().len();
        let code = code.trim();
        let col = indent as u32 + 1;
        let span = Span { line, col };
        if let Some(name) = code.strip_prefix("free ") {
            let name = name.trim().to_string();
            self.names.insert(name.clone(), WireIr::Input(self.ir.inputs.len()));
            self.ir.inputs.push(InputIr {
                name,
                ty: PortType::U64,
                kind: InputKind::Coordinate,
                default: None,
                default_span: None,
                span,
                inferred: true,
                cell: false,
                origin: Default::default(),
            });
            return Ok(());
        }
        for (word, kind) in [("input ", InputKind::Coordinate), ("extern ", InputKind::Extern)] {
            if let Some(rest) = code.strip_prefix(word) {
                return self.input(rest, kind, span);
            }
        }
        let (lhs, rhs) = code.split_once(":=").ok_or("expected `name := expr`, `input` or `extern`")?;
        // `shared name: T := ...` pins the cell's type.
        let (lhs, pinned) = match lhs.split_once(':') {
            Some((l, t)) => {
                let ty = PortType::from_keyword(t.trim()).ok_or_else(|| format!("unknown type '{}'", t.trim()))?;
                (l, Some(ty))
            }
            None => (lhs, None),
        };
        let mut words: Vec<&str> = lhs.split_whitespace().collect();
        let name = words.pop().ok_or("missing binding name")?.to_string();
        let modifiers = words
            .iter()
            .map(|w| match *w {
                "const" => Ok(Modifier::Const),
                "shared" => Ok(Modifier::Shared),
                "volatile" => Ok(Modifier::Volatile),
                other => Err(format!("unknown modifier '{other}'")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let rhs_col = col + (code.len() - rhs.trim_start().len()) as u32;
        let mut cursor = Cursor { text: rhs.trim(), pos: 0, line, col: rhs_col };
        let wire = match self.expr(&mut cursor)? {
            Arg::Wire(w) => w,
            Arg::Const(c) => self.node(LITERAL_OP, vec![ArgIr::Const(c)], Span { line, col: rhs_col }),
        };
        cursor.skip_ws();
        if cursor.pos != cursor.text.len() {
            return Err(format!("unexpected text after expression: '{}'", &cursor.text[cursor.pos..]));
        }
        let cell = match pinned {
            Some(ty) if modifiers.contains(&Modifier::Shared) => Some(ty),
            Some(_) => return Err("a type annotation is only allowed on a shared binding".into()),
            None => None,
        };
        self.names.insert(name.clone(), wire);
        self.ir.outputs.push(OutputIr { name: name.clone(), wire, modifiers, span });
        if let Some(ty) = cell {
            // As the frontend does: the binding's cell slot, which later reads see.
            self.names.insert(name.clone(), WireIr::Input(self.ir.inputs.len()));
            self.ir.inputs.push(InputIr {
                name,
                ty,
                kind: InputKind::Extern,
                default: None,
                default_span: None,
                span,
                inferred: false,
                cell: true,
                origin: Default::default(),
            });
        }
        Ok(())
    }

    fn input(&mut self, rest: &str, kind: InputKind, span: Span) -> Result<(), String> {
        let (decl, default) = match rest.split_once('=') {
            Some((d, v)) => (d, Some(v.trim())),
            None => (rest, None),
        };
        let (name, ty) = decl.split_once(':').ok_or("expected `name: type`")?;
        let ty = PortType::from_keyword(ty.trim()).ok_or_else(|| format!("unknown type '{}'", ty.trim()))?;
        let default = match default {
            Some(text) => Some(literal(text).ok_or_else(|| format!("bad default '{text}'"))?),
            None => None,
        };
        let name = name.trim().to_string();
        self.names.insert(name.clone(), WireIr::Input(self.ir.inputs.len()));
        self.ir.inputs.push(InputIr {
            name,
            ty,
            kind,
            default,
            default_span: None,
            span,
            inferred: false,
            cell: false,
            origin: Default::default(),
        });
        Ok(())
    }

    fn node(&mut self, op: &str, args: Vec<ArgIr>, span: Span) -> WireIr {
        self.ir.nodes.push(NodeIr { op: op.to_string(), args, span, arg_spans: Vec::new() });
        WireIr::Node { node: self.ir.nodes.len() - 1, port: 0 }
    }

    fn expr(&mut self, c: &mut Cursor) -> Result<Arg, String> {
        c.skip_ws();
        let start = c.pos;
        let span = c.span();
        if c.peek() == Some('"') {
            let end = c.text[start + 1..].find('"').ok_or("unterminated string")? + start + 1;
            c.pos = end + 1;
            return Ok(Arg::Const(ConstIr::Str(c.text[start + 1..end].to_string())));
        }
        while c.peek().is_some_and(|ch| ch.is_alphanumeric() || "_.-+".contains(ch)) {
            c.pos += 1;
        }
        let token = &c.text[start..c.pos];
        if token.is_empty() {
            return Err(format!("expected an expression at '{}'", &c.text[start..]));
        }
        c.skip_ws();
        if c.peek() == Some('(') {
            c.pos += 1;
            let mut args = Vec::new();
            loop {
                c.skip_ws();
                if c.peek() == Some(')') {
                    c.pos += 1;
                    break;
                }
                args.push(match self.expr(c)? {
                    Arg::Wire(w) => ArgIr::Wire(w),
                    Arg::Const(k) => ArgIr::Const(k),
                });
                c.skip_ws();
                match c.peek() {
                    Some(',') => c.pos += 1,
                    Some(')') => {}
                    _ => return Err(format!("expected ',' or ')' in call to {token}")),
                }
            }
            return Ok(Arg::Wire(self.node(token, args, span)));
        }
        if let Some(k) = literal(token) {
            return Ok(Arg::Const(k));
        }
        self.names.get(token).map(|w| Arg::Wire(*w)).ok_or_else(|| format!("unknown name '{token}'"))
    }
}

enum Arg {
    Wire(WireIr),
    Const(ConstIr),
}

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    line: u32,
    col: u32,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }
    fn span(&self) -> Span {
        Span { line: self.line, col: self.col + self.pos as u32 }
    }
}

fn literal(token: &str) -> Option<ConstIr> {
    if let Some(text) = token.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        return Some(ConstIr::Str(text.to_string()));
    }
    match token {
        "true" => return Some(ConstIr::Bool(true)),
        "false" => return Some(ConstIr::Bool(false)),
        _ => {}
    }
    if let Some(integer) = token.parse::<i128>().ok().and_then(ConstIr::integer) {
        return Some(integer);
    }
    // A decimal literal: digits with an optional point and sign, then `d`.
    if let Some(digits) = token.strip_suffix('d') {
        let body = digits.strip_prefix('-').unwrap_or(digits);
        if body.starts_with(|c: char| c.is_ascii_digit()) && body.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return Some(ConstIr::Decimal(digits.to_string()));
        }
    }
    let starts_numeric = token.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.');
    match token.parse::<f64>() {
        Ok(v) if starts_numeric || matches!(token, "inf" | "NaN") => Some(ConstIr::F64(v.to_bits())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bindings_calls_and_literals() {
        let ir = parse(
            "input cycle: u64
             extern seed: u64 = 7
             h := hash(u64_add(cycle, seed))  # comment
             const volatile k := lerp(unit_interval(h), -2.5, 1e3)
             s := __probe(h, \"key\")
             n := 5",
        )
        .unwrap();
        assert_eq!(ir.inputs.len(), 2);
        assert_eq!(ir.inputs[1].default, Some(ConstIr::U64(7)));
        assert_eq!(ir.nodes.len(), 6);
        assert_eq!(ir.nodes[0].op, "u64_add");
        assert_eq!(ir.nodes[0].span, Span { line: 3, col: 24 });
        assert!(matches!(ir.nodes[3].args[1], ArgIr::Const(ConstIr::F64(b)) if f64::from_bits(b) == -2.5));
        assert_eq!(ir.outputs[1].modifiers, vec![Modifier::Const, Modifier::Volatile]);
        assert_eq!(ir.nodes[5].op, LITERAL_OP);
    }

    #[test]
    fn errors_name_the_line() {
        assert!(parse("input x: u64\ny := nope(z)").unwrap_err().starts_with("line 2"));
        assert!(parse("input x: u65").is_err());
    }
}
