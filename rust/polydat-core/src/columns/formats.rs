//! The output formats rows are written in, in one registry ([`FORMATS`]).
//! Per format: its name (what the command line's `--format` and the
//! binding's `encode=` take), its aliases, its file extensions, a line
//! saying what it is, and the [`Writer`] that writes it (which says whether
//! it is binary or text).
//!
//! Everything that knows formats reads this: the binding's batch encodings
//! (`polydat-python`'s `run.rs`), and in Python (through `_core.formats()`,
//! `polydat.dsl.corerules.formats`) the command line's `--format` choices
//! and the format `-o PATH`'s extension implies, and the stream writers. A
//! new format is an entry here and its writer: a [`TextEncoding`] for a
//! text format, else a new [`Writer`] that the binding and the Python
//! layer write.

use super::text::TextEncoding;

/// What writes a format's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// The core's text encoder: each batch of rows becomes text
    /// ([`TextEncoding`]), appended to the output as it comes.
    Text(TextEncoding),
    /// A Parquet writer (the host's: pyarrow's), fed Arrow record batches
    /// shaped for it: a column of picks among literal strings as a
    /// dictionary array, a field no row can hold `None` in non-nullable.
    Parquet,
    /// An Arrow IPC stream writer (the host's: pyarrow's), fed plain Arrow
    /// record batches.
    ArrowIpc,
}

impl Writer {
    /// Every writer (a test checks that each writes some format).
    pub const ALL: [Writer; 4] =
        [Writer::Text(TextEncoding::Csv), Writer::Text(TextEncoding::Jsonl), Writer::Parquet, Writer::ArrowIpc];

    /// The writer's name, as the host sees it (`_core.formats()`).
    pub fn name(self) -> &'static str {
        match self {
            Writer::Text(TextEncoding::Csv) => "csv_text",
            Writer::Text(TextEncoding::Jsonl) => "jsonl_text",
            Writer::Parquet => "parquet",
            Writer::ArrowIpc => "arrow_ipc",
        }
    }

    /// True when what it writes is binary (never shown on a terminal),
    /// false for text.
    pub fn binary(self) -> bool {
        !matches!(self, Writer::Text(_))
    }
}

/// One output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Its name (`--format`, `encode=`).
    pub name: &'static str,
    /// Other names it is asked for by.
    pub aliases: &'static [&'static str],
    /// The file extensions that name it (lowercase, with the dot); the
    /// first is the one a file written in it is named with.
    pub extensions: &'static [&'static str],
    /// What it is, in a few words (for help texts).
    pub about: &'static str,
    /// What writes it.
    pub writer: Writer,
}

impl Format {
    /// True for a binary format, false for a text one (see [`Writer::binary`]).
    pub fn binary(&self) -> bool {
        self.writer.binary()
    }
}

/// Every output format, in the order help texts list them.
pub const FORMATS: &[Format] = &[
    Format {
        name: "csv",
        aliases: &[],
        extensions: &[".csv"],
        about: "CSV text, a header line first",
        writer: Writer::Text(TextEncoding::Csv),
    },
    Format {
        name: "jsonl",
        aliases: &[],
        extensions: &[".jsonl", ".ndjson"],
        about: "JSON Lines text, an object per row",
        writer: Writer::Text(TextEncoding::Jsonl),
    },
    Format {
        name: "parquet",
        aliases: &[],
        extensions: &[".parquet", ".pq"],
        about: "a Parquet file",
        writer: Writer::Parquet,
    },
    Format {
        name: "arrow",
        aliases: &[],
        extensions: &[".arrow"],
        about: "an Arrow IPC stream",
        writer: Writer::ArrowIpc,
    },
];

/// The format called `name` (its name or an alias), or `None`.
pub fn named(name: &str) -> Option<&'static Format> {
    FORMATS.iter().find(|f| f.name == name || f.aliases.contains(&name))
}

/// The names of the formats `which` keeps, for a message: `csv, jsonl or
/// parquet`.
pub fn listed(which: impl Fn(&Format) -> bool) -> String {
    let names: Vec<&str> = FORMATS.iter().filter(|f| which(f)).map(|f| f.name).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = HashSet::new();
        for f in FORMATS {
            for name in std::iter::once(&f.name).chain(f.aliases) {
                assert!(seen.insert(*name), "'{name}' names two formats");
            }
        }
    }

    #[test]
    fn extensions_are_unique_lowercase_and_dotted() {
        let mut seen = HashSet::new();
        for f in FORMATS {
            assert!(!f.extensions.is_empty(), "{} has no file extension", f.name);
            for ext in f.extensions {
                assert!(seen.insert(*ext), "{ext} is the extension of two formats");
                assert!(ext.starts_with('.') && ext.len() > 1, "{ext}: an extension is a dot and a name");
                assert_eq!(*ext, ext.to_lowercase(), "extensions are stored lowercase");
            }
        }
    }

    #[test]
    fn every_writer_is_listed_and_writes_a_format() {
        for w in Writer::ALL {
            // A new writer makes this match fail to compile: add it here
            // and to Writer::ALL.
            match w {
                Writer::Text(TextEncoding::Csv | TextEncoding::Jsonl) | Writer::Parquet | Writer::ArrowIpc => {}
            }
            assert!(FORMATS.iter().any(|f| f.writer == w), "no format is written by {}", w.name());
        }
        let names: HashSet<_> = Writer::ALL.iter().map(|w| w.name()).collect();
        assert_eq!(names.len(), Writer::ALL.len(), "writer names are unique");
    }

    #[test]
    fn a_format_is_found_by_name_or_alias_only() {
        for f in FORMATS {
            assert_eq!(named(f.name), Some(f));
            for alias in f.aliases {
                assert_eq!(named(alias), Some(f));
            }
        }
        assert_eq!(named("xlsx"), None);
        assert_eq!(named(".csv"), None);
    }

    #[test]
    fn text_formats_are_the_core_encoders() {
        assert_eq!(named("csv").map(|f| f.writer), Some(Writer::Text(TextEncoding::Csv)));
        assert!(FORMATS.iter().all(|f| f.binary() != matches!(f.writer, Writer::Text(_))));
        assert_eq!(listed(|f| !f.binary()), "csv or jsonl");
        assert_eq!(listed(|_| true), "csv, jsonl, parquet or arrow");
    }
}
