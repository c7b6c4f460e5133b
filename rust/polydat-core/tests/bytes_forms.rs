//! Every library node that has a by-bytes form agrees with its P1 form: for
//! each node of the catalog, built with a few sets of constants and wire
//! types, over corner inputs of every wire type, the by-bytes form writes
//! exactly the bytes of the value the P1 form returns, and fails exactly
//! when the P1 form fails, with its message — also at the value size limit.
//! The buffer is reused from call to call, as the engines reuse a scratch
//! entry, so a form that leaves or reads stale bytes is caught.

use polydat_core::node::by_bytes::{Arg, Sink};
use polydat_core::node::kit::value_to_slot;
use polydat_core::node::limit::{max_value_bytes, set_max_value_bytes};
use polydat_core::node::{Args, BuildCtx, NodeDef, NodeEval, ParamKind, Ty};
use polydat_core::nodes::catalog;
use polydat_core::{PortType, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The value size limit is global: tests of this binary take turns.
static LIMIT: Mutex<()> = Mutex::new(());

const SCALARS: [PortType; 13] = [
    PortType::U64,
    PortType::I64,
    PortType::U32,
    PortType::I32,
    PortType::U16,
    PortType::I16,
    PortType::U8,
    PortType::I8,
    PortType::F64,
    PortType::F32,
    PortType::Bool,
    PortType::Timestamp,
    PortType::Date,
];
const REFS: [PortType; 4] = [PortType::Str, PortType::Bytes, PortType::Json, PortType::DECIMAL_SAMPLE];

/// Corner values of type `ty`.
fn corners(ty: PortType) -> Vec<Value> {
    let texts = [
        "",
        "a",
        "Hello, World",
        "straße ñ ΑΒΓ Σ",
        "ΌΣΟΣ",
        "  42 ",
        "-17",
        "3.25",
        "2024-02-29T12:34:56.789Z",
        "{}",
        "{\"a\": [1, 2, {\"b\": null}]}",
        "[1,2,3]",
        "\"quoted\"",
        "null",
        "a&b<c>d\"e'f",
        "x y%20z/?q=1",
        "SGVsbG8=",
        "48656c6c6f",
        "ab\ncd\tef",
    ];
    match ty {
        PortType::U64 => {
            [0, 1, 2, 3, 7, 9, 10, 42, 255, 1000, 65_535, 1 << 32, 1_700_000_000_000, 1 << 63, u64::MAX - 1, u64::MAX]
                .into_iter()
                .chain([0x9e37_79b9_7f4a_7c15, 0xdead_beef_cafe_f00d, 253_402_300_799_999])
                .map(Value::U64)
                .collect()
        }
        PortType::I64 => {
            [0, 1, -1, 42, -42, i64::MIN, i64::MAX, 1_700_000_000_000].into_iter().map(Value::I64).collect()
        }
        PortType::U32 => [0, 1, 7, u32::MAX].into_iter().map(Value::U32).collect(),
        PortType::I32 => [0, -1, 5, i32::MIN, i32::MAX].into_iter().map(Value::I32).collect(),
        PortType::U16 => [0, 1, 7, 255, 256, u16::MAX].into_iter().map(Value::U16).collect(),
        PortType::I16 => [0, -1, 5, -129, 128, i16::MIN, i16::MAX].into_iter().map(Value::I16).collect(),
        PortType::U8 => [0, 1, 7, 127, 128, u8::MAX].into_iter().map(Value::U8).collect(),
        PortType::I8 => [0, -1, 5, i8::MIN, i8::MAX].into_iter().map(Value::I8).collect(),
        PortType::F64 => [
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.1,
            2.5,
            1234.5678,
            1e-7,
            1e16,
            1e300,
            -1e-300,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]
        .into_iter()
        .map(Value::F64)
        .collect(),
        PortType::F32 => [0.0, -0.0, 1.5, f32::NAN, f32::INFINITY, f32::MAX].into_iter().map(Value::F32).collect(),
        PortType::F16 => [0.0, -0.0, 1.5, 65504.0, f32::NAN, f32::INFINITY]
            .into_iter()
            .map(|v| Value::F16(half::f16::from_f32(v)))
            .collect(),
        PortType::Bool => vec![Value::Bool(false), Value::Bool(true)],
        PortType::Timestamp => {
            [0, -1, 999, 1_700_000_000_123, 951_782_400_000, -62_135_596_800_000, -86_400_001, i64::MIN, i64::MAX]
                .into_iter()
                .map(Value::Timestamp)
                .collect()
        }
        PortType::Date => {
            [0, -1, 59, 11_016, 19_782, -719_162, -719_163, i32::MIN, i32::MAX].into_iter().map(Value::Date).collect()
        }
        PortType::Str => texts.iter().map(|&t| Value::str(t)).chain([Value::str("x".repeat(300))]).collect(),
        PortType::Json => texts.iter().map(|&t| Value::Json(Arc::from(t))).collect(),
        PortType::Bytes => [&b""[..], b"a", b"\xff\x00\x80", b"hello", b"SGVsbG8="]
            .into_iter()
            .map(|b| Value::Bytes(Arc::from(b)))
            .collect(),
        PortType::U128 => [0, 1, u128::from(u64::MAX) + 1, u128::MAX].into_iter().map(Value::u128).collect(),
        PortType::I128 => [0, -1, i128::MIN, i128::MAX, -(1 << 70)].into_iter().map(Value::i128).collect(),
        PortType::Decimal(d) => {
            [0, -1, 90_100, 10i128.pow(d.precision as u32) - 1, -(10i128.pow(d.precision as u32) - 1)]
                .into_iter()
                .map(|units| Value::Decimal(polydat_core::decimal::Decimal::new(units, d).expect("fits")))
                .collect()
        }
        PortType::Vector(t) => ["[]", "[0]", "[3, 9, 14, 20]", "[-1, 7, 7, 0]", "[2147483647, -2147483648]"]
            .into_iter()
            .map(|text| polydat_core::vector::parse(t, text).expect("a list of every element type"))
            .collect(),
    }
}

/// The bytes a by-reference value holds.
fn bytes_of(v: &Value) -> Option<&[u8]> {
    match v {
        Value::Str(s) | Value::Json(s) => Some(s.as_bytes()),
        Value::Bytes(b) => Some(b),
        _ => None,
    }
}

/// Sets of constants to build `def` with (a node whose constants these do
/// not fit fails to build with them and is built with the next).
fn const_sets(def: &NodeDef) -> Vec<Vec<Value>> {
    let s = |t: &str| Value::str(t);
    let named: Option<Vec<Vec<Value>>> = match def.name {
        "printf" => Some(
            [
                "{}",
                "{} + {} = {}",
                "[{:05}|{:8}|{:.2}|{:x}|{:X}|{:b}|{:o}]",
                "{{esc}} {:>5} {:06} }",
                "{:08.3}{:.0}",
                "{:4}{:.70000}",
                "just text",
                "{} and {} and {}",
                "abc {",
            ]
            .iter()
            .map(|f| vec![s(f)])
            .collect(),
        ),
        "tile_encode" => Some(
            [
                "json|value|||",
                "json|string|||",
                "json|value|str||",
                "json|value|bool||",
                "csv|text|||",
                "text|text||.2|",
                "text|text||x|",
                "text|text||08|",
                "text|text||<6|",
                "json|value|||r",
                "text|text|||c",
                "text|text||.70000|",
            ]
            .iter()
            .map(|f| vec![s(f)])
            .collect(),
        ),
        "tile_render" => Some(
            [
                r#"{"ops":[{"Static":"a="},{"Hole":{"Wire":0}}]}"#,
                r#"{"ops":[{"Branch":{"cond":{"Wire":0},"then":[{"Static":"yes"}],"otherwise":[{"Hole":{"Wire":0}}]}}]}"#,
                r#"{"ops":[{"Static":"only"}]}"#,
            ]
            .iter()
            .map(|f| vec![s(f)])
            .collect(),
        ),
        "one_of" => Some(vec![vec![s("x"), s("yy"), s("zzz")], vec![s("only")], vec![]]),
        "one_of_weighted" => Some(vec![vec![s("delivered:80,shipped:12,processing:5,cancelled:3")], vec![s("a:1")]]),
        "weighted_strings" => Some(vec![vec![s("alpha:0.3;beta:0.5;gamma:0.2")], vec![s("a:1")]]),
        "combinations" => Some(vec![vec![s("A-C;-;0-1")], vec![s("0-9a-f;0-9a-f")], vec![s("x;ab;;Q")]]),
        "char_buf" => Some(vec![vec![s("a-z")], vec![s("")], vec![s("αβγ0-9")]]),
        "format_datetime" => Some(vec![vec![s("%Y-%m-%d %H:%M:%S.%f %j %y %b %B %a %A %s %%")], vec![s("%F")]]),
        "format_u64" => {
            Some(vec![vec![Value::U64(10)], vec![Value::U64(16)], vec![Value::U64(8)], vec![Value::U64(2)]])
        }
        "format_f64" => {
            Some(vec![vec![Value::U64(2)], vec![Value::U64(0)], vec![Value::U64(17)], vec![Value::U64(70_000)]])
        }
        "zero_pad_u64" => {
            Some(vec![vec![Value::U64(10)], vec![Value::U64(0)], vec![Value::U64(25)], vec![Value::U64(1 << 20)]])
        }
        "lorem_sentence" => Some(vec![vec![Value::U64(4), Value::U64(12)], vec![Value::U64(0), Value::U64(1)]]),
        "lorem_paragraph" => Some(vec![vec![Value::U64(3), Value::U64(6)], vec![Value::U64(0), Value::U64(2)]]),
        _ => None,
    };
    if let Some(sets) = named {
        return sets;
    }
    // Defaults where there are, else a value of the parameter's type; a
    // string constant tries a few shapes (a key, a spec, a pattern).
    let mut sets = vec![Vec::new()];
    for p in def.const_params() {
        let options: Vec<Value> = match (p.default, p.ty) {
            _ if p.variadic => vec![],
            (Some(lit), _) => vec![lit.to_value()],
            (None, Ty::Is(PortType::Str)) => vec![s("a"), s("a:1;b:2"), s("(\\d+)"), s("x")],
            (None, Ty::Is(PortType::F64)) => vec![Value::F64(0.5)],
            (None, Ty::Is(PortType::Bool)) => vec![Value::Bool(true)],
            (None, _) => vec![Value::U64(3)],
        };
        if p.variadic {
            continue;
        }
        sets =
            sets.iter().flat_map(|set| options.iter().map(move |o| [set.clone(), vec![o.clone()]].concat())).collect();
    }
    sets
}

/// Wire type lists to build `def` with: declared types as they are; an
/// `any` wire or a variadic tail tries each type (variadic: 0 to 3 wires).
fn wire_type_sets(def: &NodeDef) -> Vec<Vec<PortType>> {
    let all: Vec<PortType> = SCALARS.iter().chain(REFS.iter()).copied().collect();
    let mut sets = vec![Vec::new()];
    for p in def.wire_params() {
        let choices: Vec<Vec<PortType>> = match (p.ty, p.variadic) {
            (Ty::Is(t), false) => vec![vec![t]],
            (Ty::Any, false) => all.iter().map(|&t| vec![t]).collect(),
            (Ty::Decimal, false) => vec![vec![PortType::DECIMAL_SAMPLE]],
            (ty, true) => {
                let one = |t: PortType| match ty {
                    Ty::Is(d) => d,
                    Ty::Any => t,
                    Ty::Decimal => PortType::DECIMAL_SAMPLE,
                };
                let mut tails = vec![vec![]];
                tails.extend(all.iter().map(|&t| vec![one(t)]));
                tails.extend(all.iter().map(|&t| vec![one(t), one(PortType::Str)]));
                tails.push(vec![one(PortType::U64), one(PortType::F64), one(PortType::Str)]);
                tails.push(vec![one(PortType::Str), one(PortType::U64), one(PortType::Bytes), one(PortType::Bool)]);
                tails
            }
        };
        sets = sets.iter().flat_map(|set| choices.iter().map(move |c| [set.clone(), c.clone()].concat())).collect();
    }
    sets
}

/// Input rows for wires of types `types`: every corner of each wire with
/// the others at a rotating corner (all pairs for up to two wires).
fn rows(types: &[PortType]) -> Vec<Vec<Value>> {
    let columns: Vec<Vec<Value>> = types.iter().map(|&t| corners(t)).collect();
    match columns.len() {
        0 => vec![vec![]],
        1 => columns[0].iter().map(|v| vec![v.clone()]).collect(),
        2 => columns[0].iter().flat_map(|a| columns[1].iter().map(move |b| vec![a.clone(), b.clone()])).collect(),
        _ => {
            let longest = columns.iter().map(Vec::len).max().unwrap_or(0);
            (0..longest * 3)
                .map(|r| {
                    columns.iter().enumerate().map(|(w, c)| c[(r + w * 5 + r / longest) % c.len()].clone()).collect()
                })
                .collect()
        }
    }
}

/// A P1 result or failure, and the by-bytes one, for comparison.
fn p1_outcome(node: &dyn NodeEval, ins: &[Value]) -> Result<Vec<u8>, String> {
    let iota: Vec<u32> = (0..ins.len() as u32).collect();
    let mut outs = [Value::None];
    match node.eval(&Args::new(ins, &iota), &mut outs) {
        Ok(()) => Ok(match &outs[0] {
            // A decimal's, u128's or i128's Ref slot holds its 16 bytes.
            v if v.sixteen_bytes().is_some() => v.sixteen_bytes().unwrap_or_default().to_vec(),
            v => bytes_of(v).map(<[u8]>::to_vec).unwrap_or_else(|| format!("a non-reference {v}").into_bytes()),
        }),
        Err(e) => Err(e.message().to_string()),
    }
}

/// The engines' reused output entries: a text one and a bytes one.
#[derive(Default)]
struct Entries {
    text: String,
    bytes: Vec<u8>,
}

fn bytes_outcome(node: &dyn NodeEval, ins: &[Value], out: PortType, buf: &mut Entries) -> Result<Vec<u8>, String> {
    // A decimal's, u128's or i128's Ref slot holds its 16 bytes.
    let decimals: Vec<[u8; 16]> = ins.iter().map(|v| v.sixteen_bytes().unwrap_or([0; 16])).collect();
    let args: Vec<Arg<'_>> = ins
        .iter()
        .zip(&decimals)
        .map(|(v, units)| match v {
            Value::Str(s) | Value::Json(s) => Arg::Text(s),
            Value::Bytes(b) => Arg::Bytes(b),
            v if v.sixteen_bytes().is_some() => Arg::Bytes(units),
            v => Arg::Word(value_to_slot(v).expect("a scalar")),
        })
        .collect();
    // The engines hand the form its output's entry emptied, capacity kept.
    buf.text.clear();
    buf.bytes.clear();
    let form = node.bytes_form().expect("a by-bytes form");
    let result = match out.is_text() {
        false => form.eval_bytes(&args, Sink::Bytes(&mut buf.bytes)).map(|()| buf.bytes.clone()),
        true => form.eval_bytes(&args, Sink::Text(&mut buf.text)).map(|()| buf.text.as_bytes().to_vec()),
    };
    result.map_err(|e| e.message().to_string())
}

/// What the sweep over the catalog found, per node: combinations compared
/// and how many failed in both forms.
#[derive(Default, Debug)]
struct Seen {
    compared: usize,
    failures: usize,
}

/// Compares both forms of every node of the catalog that builds with a
/// by-bytes form and a by-reference output; returns what each node saw.
fn sweep_catalog(mismatches: &mut Vec<String>) -> BTreeMap<&'static str, Seen> {
    let mut seen: BTreeMap<&'static str, Seen> = BTreeMap::new();
    let mut buf = Entries::default();
    for def in catalog() {
        for consts in const_sets(def) {
            for types in wire_type_sets(def) {
                let ctx = BuildCtx { consts: &consts, wire_types: &types };
                let Ok(node) = (def.build)(&ctx) else { continue };
                let outs = def.output_types(&consts, &types);
                if outs.len() != 1 || !outs[0].is_ref() || node.bytes_form().is_none() {
                    continue;
                }
                for ins in rows(&types) {
                    let want = p1_outcome(node.as_ref(), &ins);
                    let got = bytes_outcome(node.as_ref(), &ins, outs[0], &mut buf);
                    let entry = seen.entry(def.name).or_default();
                    entry.compared += 1;
                    entry.failures += usize::from(want.is_err());
                    if got != want && mismatches.len() < 20 {
                        let show = |r: &Result<Vec<u8>, String>| match r {
                            Ok(b) => format!("Ok({:?})", String::from_utf8_lossy(b)),
                            Err(e) => format!("Err({e:?})"),
                        };
                        mismatches.push(format!(
                            "{}({consts:?}; {types:?}) at {ins:?}: P1 {} but by bytes {}",
                            def.name,
                            show(&want),
                            show(&got)
                        ));
                    }
                }
            }
        }
    }
    seen
}

#[test]
fn every_by_bytes_form_agrees_with_its_p1_form_at_the_corners() {
    let _turn = LIMIT.lock().unwrap_or_else(|p| p.into_inner());
    let mut mismatches = Vec::new();
    let seen = sweep_catalog(&mut mismatches);
    assert!(mismatches.is_empty(), "{} mismatch(es):\n{}", mismatches.len(), mismatches.join("\n"));
    let total: usize = seen.values().map(|s| s.compared).sum();
    println!("{} nodes, {total} combinations compared: {:?}", seen.len(), seen.keys().collect::<Vec<_>>());
    // Every string node the examples and the standard library use has a
    // by-bytes form and was compared, failures included where it has them.
    for name in [
        "printf",
        "tile_encode",
        "tile_render",
        "str_concat",
        "str_lower",
        "str_upper",
        "one_of",
        "one_of_weighted",
        "weighted_strings",
        "first_names",
        "first_names_all",
        "last_names",
        "full_names",
        "city_names",
        "state_codes",
        "street_names",
        "street_suffixes",
        "company_words",
        "company_suffixes",
        "job_titles",
        "lorem_words",
        "lorem_sentence",
        "lorem_paragraph",
        "format_f64",
        "format_u64",
        "zero_pad_u64",
        "to_timestamp",
        "to_date",
        "format_datetime",
        "number_to_words",
        "hashed_uuid",
        "combinations",
        "char_buf",
        "select_str",
        "__u64_to_str",
        "__f64_to_str",
        "__timestamp_to_str",
        "__date_to_str",
    ] {
        let s = seen.get(name).unwrap_or_else(|| panic!("{name}: no by-bytes form was compared"));
        assert!(s.compared >= 8, "{name}: only {} combinations compared", s.compared);
    }
    for name in ["printf", "char_buf"] {
        assert!(seen[name].failures > 0, "{name}: no failing combination compared");
    }
    // Most of the catalog's by-reference nodes have the form.
    assert!(seen.len() >= 60, "only {} nodes compared: {:?}", seen.len(), seen.keys().collect::<Vec<_>>());
}

#[test]
fn by_bytes_forms_fail_at_the_value_size_limit_as_p1_does() {
    let _turn = LIMIT.lock().unwrap_or_else(|p| p.into_inner());
    let previous = max_value_bytes();
    set_max_value_bytes(12);
    let mut mismatches = Vec::new();
    let seen = sweep_catalog(&mut mismatches);
    set_max_value_bytes(previous);
    assert!(mismatches.is_empty(), "{} mismatch(es) at a 12-byte limit:\n{}", mismatches.len(), mismatches.join("\n"));
    for name in ["printf", "str_concat", "char_buf"] {
        assert!(seen[name].failures > 0, "{name}: nothing reached the limit");
    }
}

#[test]
fn every_const_param_kind_is_handled() {
    // The sweep's constant sets only know these kinds (a new kind needs a
    // case); the literal node's constant is its value, of any type.
    for def in catalog().iter().filter(|d| d.name != "__lit") {
        for p in def.params.iter().filter(|p| p.kind == ParamKind::Const) {
            assert!(
                matches!(p.ty, Ty::Is(PortType::Str | PortType::U64 | PortType::F64 | PortType::Bool)),
                "{}: constant {} of an unhandled type",
                def.name,
                p.name
            );
        }
    }
}
