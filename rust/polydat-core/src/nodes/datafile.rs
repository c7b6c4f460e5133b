//! Data-file family: rows, fields and lines of CSV, JSONL and text files,
//! chosen by ordinal (taken modulo the row count). Each node reads its file
//! once, when the program is built (a path relative to the working
//! directory); a file that cannot be read, is not a regular file or holds
//! no rows is a build error, in upstream's words. CSV follows RFC 4180
//! quoting: a field that starts with `"` runs to the next lone `"` and may
//! hold commas, line breaks and `""` for a quote.

use crate::node::by_bytes::{pick_str, StrTable};
use crate::node::kit::source;
use crate::node::{konst, wire, BuildCtx, NodeDef, NodeEval, Outputs, Samples, Testing};
use crate::types::PortType::{Str, U64};
use serde_json::Value as J;
use std::sync::Arc;

/// Largest data file a node reads (1 GiB): past it the build fails rather
/// than exhausting memory.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// The text of `filename` for node `node`, or upstream's failure text.
fn read_text(node: &str, filename: &str) -> Result<String, String> {
    let failed = |e: &dyn std::fmt::Display| format!("{node}: failed to read '{filename}': {e}");
    let meta = std::fs::metadata(filename).map_err(|e| failed(&e))?;
    if !meta.is_file() {
        return Err(failed(&"not a regular file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(failed(&format!("larger than {MAX_FILE_BYTES} bytes")));
    }
    std::fs::read_to_string(filename).map_err(|e| failed(&e))
}

/// CSV text as raw records (a quoted field's line breaks stay inside its
/// record; a record ends at LF, a CR before it dropped).
pub fn csv_records(content: &str) -> Result<Vec<&str>, String> {
    let bytes = content.as_bytes();
    let mut records = Vec::new();
    let (mut start, mut line, mut quote_line) = (0, 1, 1);
    let (mut in_quotes, mut at_field_start) = (false, true);
    let mut i = 0;
    while i < bytes.len() {
        match (in_quotes, bytes[i]) {
            (true, b'"') if bytes.get(i + 1) == Some(&b'"') => i += 1,
            (true, b'"') => {
                in_quotes = false;
                at_field_start = false;
            }
            (true, b'\n') => line += 1,
            (true, _) => {}
            (false, b'"') if at_field_start => {
                in_quotes = true;
                quote_line = line;
            }
            (false, b',') => at_field_start = true,
            (false, b'\n') => {
                let end = if i > start && bytes[i - 1] == b'\r' { i - 1 } else { i };
                records.push(&content[start..end]);
                start = i + 1;
                line += 1;
                at_field_start = true;
            }
            (false, _) => at_field_start = false,
        }
        i += 1;
    }
    if in_quotes {
        return Err(format!("unterminated quoted field starting at line {quote_line}"));
    }
    if start < bytes.len() {
        records.push(&content[start..]);
    }
    Ok(records)
}

/// One CSV record's fields: unquoted ones verbatim, quoted ones unwrapped
/// with `""` read as `"`.
pub fn csv_fields(record: &str) -> Result<Vec<String>, String> {
    let bytes = record.as_bytes();
    let mut fields = Vec::new();
    let mut i = 0;
    loop {
        if bytes.get(i) == Some(&b'"') {
            let mut field = String::new();
            i += 1;
            let mut from = i;
            loop {
                match bytes.get(i) {
                    None => return Err("unterminated quoted field".into()),
                    Some(b'"') if bytes.get(i + 1) == Some(&b'"') => {
                        field.push_str(&record[from..=i]);
                        i += 2;
                        from = i;
                    }
                    Some(b'"') => {
                        field.push_str(&record[from..i]);
                        i += 1;
                        break;
                    }
                    Some(_) => i += 1,
                }
            }
            fields.push(field);
            match bytes.get(i) {
                None => return Ok(fields),
                Some(b',') => i += 1,
                Some(_) => return Err(format!("unexpected text after the closing quote of field {}", fields.len())),
            }
        } else {
            let start = i;
            while i < bytes.len() && bytes[i] != b',' {
                i += 1;
            }
            fields.push(record[start..i].to_string());
            if i == bytes.len() {
                return Ok(fields);
            }
            i += 1;
        }
    }
}

/// The value under a dot path (`user.name`, `items.0`) of a JSON value, as
/// text: strings as they are, null or a missing step as "", anything else
/// as its JSON text.
pub fn json_path_text(value: &J, path: &str) -> String {
    let mut current = value;
    for key in path.split('.') {
        let next = match current {
            J::Object(map) => map.get(key),
            J::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        match next {
            Some(v) => current = v,
            None => return String::new(),
        }
    }
    match current {
        J::String(s) => s.clone(),
        J::Null => String::new(),
        other => other.to_string(),
    }
}

/// A node answering `values[ordinal % len]`, or the build failure `empty`
/// names when there are no values.
fn by_ordinal(values: Vec<String>, empty: impl FnOnce() -> String) -> Result<Box<dyn NodeEval>, String> {
    if values.is_empty() {
        return Err(empty());
    }
    let n = values.len() as u64;
    let table: Vec<Arc<str>> = values.into_iter().map(Arc::from).collect();
    Ok(pick_str(StrTable::new(table), move |x| (x % n) as usize))
}

/// A CSV file's data records (the header skipped, blank records dropped).
fn csv_data_rows(node: &str, filename: &str) -> Result<Vec<String>, String> {
    let content = read_text(node, filename)?;
    let records = csv_records(&content).map_err(|e| format!("{node}: '{filename}': {e}"))?;
    Ok(records.into_iter().skip(1).filter(|r| !r.trim().is_empty()).map(str::to_string).collect())
}

/// `csv_field`'s table: the column (a header name, or an index) of every data record, trimmed.
fn csv_column(c: &BuildCtx<'_>) -> Result<Vec<String>, String> {
    let (filename, column) = (c.str(0), c.str(1));
    let content = read_text("csv_field", filename)?;
    let records = csv_records(&content).map_err(|e| format!("csv_field: '{filename}': {e}"))?;
    let mut records = records.into_iter();
    let header = records.next().ok_or_else(|| format!("csv_field: '{filename}' is empty"))?;
    let headers = csv_fields(header).map_err(|e| format!("csv_field: '{filename}' header: {e}"))?;
    let index = match column.parse::<usize>() {
        Ok(i) => i,
        Err(_) => headers.iter().position(|h| h.trim() == column).ok_or_else(|| {
            format!("csv_field: column '{column}' not found in '{filename}'. Available: {}", headers.join(", "))
        })?,
    };
    let mut values = Vec::new();
    for (row, record) in records.enumerate() {
        let fields = csv_fields(record).map_err(|e| format!("csv_field: '{filename}' row {}: {e}", row + 1))?;
        values.push(fields.get(index).map_or("", |f| f.trim()).to_string());
    }
    Ok(values)
}

/// The non-blank lines of a file.
fn nonblank_lines(node: &str, filename: &str) -> Result<Vec<String>, String> {
    Ok(read_text(node, filename)?.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect())
}

/// `csv_field`: one column of the CSV row at an ordinal.
pub const CSV_FIELD: NodeDef = NodeDef {
    name: "csv_field",
    category: "datafile",
    doc: "The column (header name or index \"0\", \"1\", ...) of CSV data row ordinal % rows, trimmed; the file is read when the program is built.",
    params: &[wire("ordinal", U64), konst("filename", Str), konst("column", Str)],
    outputs: Outputs::One(Str),
    build: |c| by_ordinal(csv_column(c)?, || format!("csv_field: '{}' has no data rows", c.str(0))),
    testing: Testing {
        samples: &[
            ("filename", Samples::Str(&["{data}/rows.csv"])),
            ("column", Samples::Str(&["name", "note", "1", "7"])),
        ],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `csv_row`: the CSV data record at an ordinal, as written.
pub const CSV_ROW: NodeDef = NodeDef {
    name: "csv_row",
    category: "datafile",
    doc: "CSV data row ordinal % rows as written in the file (quotes kept; the header skipped); the file is read when the program is built.",
    params: &[wire("ordinal", U64), konst("filename", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let filename = c.str(0);
        by_ordinal(csv_data_rows("csv_row", filename)?, || format!("csv_row: '{filename}' has no data rows"))
    },
    testing: Testing { samples: &[("filename", Samples::Str(&["{data}/rows.csv"]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `csv_row_count`: the number of CSV data records.
pub const CSV_ROW_COUNT: NodeDef = NodeDef {
    name: "csv_row_count",
    category: "datafile",
    doc:
        "The number of data rows of a CSV file (the header and blank rows not counted), read when the program is built.",
    params: &[konst("filename", Str)],
    build: |c| {
        let count = csv_data_rows("csv_row_count", c.str(0))?.len() as u64;
        Ok(source(move || count))
    },
    testing: Testing { samples: &[("filename", Samples::Str(&["{data}/rows.csv"]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `jsonl_field`: a field (dot path) of the JSONL line at an ordinal.
pub const JSONL_FIELD: NodeDef = NodeDef {
    name: "jsonl_field",
    category: "datafile",
    doc: "The field at a dot path (user.name, items.0) of JSONL line ordinal % lines, as text (\"\" when missing or null); the file is read when the program is built.",
    params: &[wire("ordinal", U64), konst("filename", Str), konst("path", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let (filename, path) = (c.str(0), c.str(1));
        let content = read_text("jsonl_field", filename)?;
        let mut values = Vec::new();
        for (n, line) in content.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let parsed: J =
                serde_json::from_str(line).map_err(|e| format!("jsonl_field: parse error at line {}: {e}", n + 1))?;
            values.push(json_path_text(&parsed, path));
        }
        by_ordinal(values, || format!("jsonl_field: '{filename}' has no lines"))
    },
    testing: Testing {
        samples: &[
            ("filename", Samples::Str(&["{data}/rows.jsonl"])),
            ("path", Samples::Str(&["name", "user.id", "user.id.1", "x"])),
        ],
        ..Testing::BASE
    },
    ..NodeDef::BASE
};

/// `jsonl_row`: the JSONL line at an ordinal, as written.
pub const JSONL_ROW: NodeDef = NodeDef {
    name: "jsonl_row",
    category: "datafile",
    doc: "JSONL line ordinal % lines (blank lines skipped) as written in the file; the file is read when the program is built.",
    params: &[wire("ordinal", U64), konst("filename", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let filename = c.str(0);
        by_ordinal(nonblank_lines("jsonl_row", filename)?, || format!("jsonl_row: '{filename}' has no lines"))
    },
    testing: Testing { samples: &[("filename", Samples::Str(&["{data}/rows.jsonl"]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `jsonl_row_count`: the number of non-blank JSONL lines.
pub const JSONL_ROW_COUNT: NodeDef = NodeDef {
    name: "jsonl_row_count",
    category: "datafile",
    doc: "The number of non-blank lines of a JSONL file, read when the program is built.",
    params: &[konst("filename", Str)],
    build: |c| {
        let count = nonblank_lines("jsonl_row_count", c.str(0))?.len() as u64;
        Ok(source(move || count))
    },
    testing: Testing { samples: &[("filename", Samples::Str(&["{data}/rows.jsonl"]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// `file_line_at`: the text file's line at an index.
pub const FILE_LINE_AT: NodeDef = NodeDef {
    name: "file_line_at",
    category: "string",
    doc: "Line index % lines of a text file (blank lines included); the file is read when the program is built.",
    params: &[wire("index", U64), konst("filename", Str)],
    outputs: Outputs::One(Str),
    build: |c| {
        let filename = c.str(0);
        let content = read_text("file_line_at", filename).map_err(|_| match std::fs::metadata(filename) {
            Err(e) => format!("failed to read file '{filename}': {e}"),
            Ok(_) => {
                format!("failed to read file '{filename}': not a regular text file of at most {MAX_FILE_BYTES} bytes")
            }
        })?;
        by_ordinal(content.lines().map(str::to_string).collect(), || format!("file '{filename}' has no lines"))
    },
    testing: Testing { samples: &[("filename", Samples::Str(&["{data}/lines.txt"]))], ..Testing::BASE },
    ..NodeDef::BASE
};

/// The family's nodes, in catalog order.
pub const NODES: &[NodeDef] =
    &[CSV_FIELD, CSV_ROW, CSV_ROW_COUNT, JSONL_FIELD, JSONL_ROW, JSONL_ROW_COUNT, FILE_LINE_AT];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::testing::eval1;
    use crate::types::PortType;
    use crate::value::Value;

    /// A directory of its own under the system's temporary directory,
    /// removed when dropped.
    struct Scratch(std::path::PathBuf);

    impl Scratch {
        fn new() -> Scratch {
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!("polydat-datafile-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A file of `content` in a fresh scratch directory (kept while the guard lives).
    fn file(name: &str, content: &str) -> (Scratch, String) {
        let dir = Scratch::new();
        let path = dir.0.join(name);
        std::fs::write(&path, content).unwrap();
        let path = path.to_str().unwrap().to_string();
        (dir, path)
    }

    fn text(def: &NodeDef, consts: &[&str], ordinal: u64) -> String {
        let consts: Vec<Value> = consts.iter().map(|s| Value::str(*s)).collect();
        eval1(def, &consts, &[Value::U64(ordinal)]).as_str().unwrap().to_string()
    }

    fn build_error(def: &NodeDef, consts: &[&str]) -> String {
        let consts: Vec<Value> = consts.iter().map(|s| Value::str(*s)).collect();
        match (def.build)(&BuildCtx { consts: &consts, wire_types: &[PortType::U64] }) {
            Ok(_) => panic!("{} should not build", def.name),
            Err(e) => e,
        }
    }

    #[test]
    fn csv_as_upstreams_tests_state() {
        let (_d, path) = file("people.csv", "name,age,city\nalice,30,paris\nbob,25,london\n");
        assert_eq!([text(&CSV_FIELD, &[&path, "name"], 0), text(&CSV_FIELD, &[&path, "name"], 2)], ["alice", "alice"]);
        assert_eq!(text(&CSV_FIELD, &[&path, "name"], 1), "bob");
        assert_eq!(text(&CSV_FIELD, &[&path, "1"], 0), "30");
        assert_eq!(text(&CSV_ROW, &[&path], 0), "alice,30,paris");
        assert!(eval1(&CSV_ROW_COUNT, &[Value::str(&*path)], &[]).same(&Value::U64(2)));
        let (_q, quoted) = file("q.csv", "id,note\n1,\"line one\nline two\"\n2,\"crlf\r\nhere\"\r\n3,plain\n");
        assert_eq!(text(&CSV_FIELD, &[&quoted, "note"], 0), "line one\nline two");
        assert_eq!(text(&CSV_FIELD, &[&quoted, "note"], 1), "crlf\r\nhere");
        assert_eq!(text(&CSV_ROW, &[&quoted], 1), "2,\"crlf\r\nhere\"");
        assert!(eval1(&CSV_ROW_COUNT, &[Value::str(&*quoted)], &[]).same(&Value::U64(3)));
        let (_m, mixed) = file("m.csv", "a,b,c,d\nplain,\"quoted, one\", spaced ,\"last\"\n");
        let cells: Vec<String> = ["a", "b", "c", "d"].iter().map(|c| text(&CSV_FIELD, &[&mixed, c], 0)).collect();
        assert_eq!(cells, ["plain", "quoted, one", "spaced", "last"]);
        assert_eq!(csv_fields("\"say \"\"hi\"\"\",x").unwrap(), ["say \"hi\"", "x"]);
        assert_eq!(csv_fields("a,\"\",c").unwrap(), ["a", "", "c"]);
        assert_eq!(csv_records("a,b\n1,\"open\n2,x\n").unwrap_err(), "unterminated quoted field starting at line 2");
        assert!(csv_fields("\"a\"b,c").unwrap_err().contains("after the closing quote"));
    }

    #[test]
    fn jsonl_and_lines() {
        let (_d, path) =
            file("r.jsonl", "{\"name\":\"alice\",\"user\":{\"id\":7}}\n\n{\"name\":\"bob\",\"user\":{\"id\":[1,2]}}\n");
        assert_eq!(text(&JSONL_FIELD, &[&path, "name"], 1), "bob");
        assert_eq!(text(&JSONL_FIELD, &[&path, "user.id"], 0), "7");
        assert_eq!(text(&JSONL_FIELD, &[&path, "user.id.1"], 1), "2");
        assert_eq!(text(&JSONL_FIELD, &[&path, "missing"], 0), "");
        assert_eq!(text(&JSONL_ROW, &[&path], 2), "{\"name\":\"alice\",\"user\":{\"id\":7}}");
        assert!(eval1(&JSONL_ROW_COUNT, &[Value::str(&*path)], &[]).same(&Value::U64(2)));
        let (_l, lines) = file("l.txt", "one\n\nthree\n");
        assert_eq!([text(&FILE_LINE_AT, &[&lines], 1), text(&FILE_LINE_AT, &[&lines], 5)], ["", "three"]);
    }

    #[test]
    fn unreadable_files_fail_the_build_clearly() {
        let missing = build_error(&CSV_ROW, &["/nonexistent/rows.csv"]);
        assert!(missing.starts_with("csv_row: failed to read '/nonexistent/rows.csv': "), "{missing}");
        let dir = Scratch::new();
        let not_file = build_error(&JSONL_ROW, &[dir.0.to_str().unwrap()]);
        assert!(not_file.ends_with("not a regular file"), "{not_file}");
        let (_e, empty) = file("e.csv", "header\n");
        assert_eq!(build_error(&CSV_ROW, &[&empty]), format!("csv_row: '{empty}' has no data rows"));
        let (_c, path) = file("c.csv", "a,b\n1,2\n");
        let unknown = build_error(&CSV_FIELD, &[&path, "z"]);
        assert_eq!(unknown, format!("csv_field: column 'z' not found in '{path}'. Available: a, b"));
        let (_j, bad) = file("b.jsonl", "{\"a\":1}\nnot json\n");
        assert!(build_error(&JSONL_FIELD, &[&bad, "a"]).starts_with("jsonl_field: parse error at line 2: "));
        let (_t, blank) = file("t.txt", "");
        assert_eq!(build_error(&FILE_LINE_AT, &[&blank]), format!("file '{blank}' has no lines"));
    }
}
