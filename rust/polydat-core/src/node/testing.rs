//! What the generated test suites need to know about a node beyond its
//! signature: which constants make sense for it, how many arguments its
//! variadic parameter takes, and whether the random program generator may
//! call it.
//!
//! The signature says a parameter is "a construction-constant f64"; it does
//! not say that `unfair_coin`'s `p` lies in [0, 1] or that `printf`'s format
//! decides how many arguments follow. A node says so in its own
//! [`NodeDef::testing`](crate::node::NodeDef::testing); the catalog exports
//! it (`catalog_json`'s `testing` entry) and the Python test helpers
//! (`polydat.testing`: the node-corner programs and the random-program
//! strategy) read it there. A node that leaves it at [`Testing::BASE`] gets
//! constants from the suites' per-type pools.

/// Values of one constant parameter, all of the parameter's type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Samples {
    /// `u64` values.
    U64(&'static [u64]),
    /// `f64` values.
    F64(&'static [f64]),
    /// String values. A value may name a file the test helpers ship through
    /// a placeholder: `{data}` stands for their fixture directory
    /// (`{data}/rows.csv`), `{tmp}` for the system's temporary directory.
    Str(&'static [&'static str]),
}

impl Samples {
    /// How many values there are.
    pub fn len(&self) -> usize {
        match self {
            Samples::U64(v) => v.len(),
            Samples::F64(v) => v.len(),
            Samples::Str(v) => v.len(),
        }
    }

    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values as literals, in order.
    pub fn lits(&self) -> Vec<crate::node::Lit> {
        use crate::node::Lit;
        match self {
            Samples::U64(v) => v.iter().map(|&x| Lit::U64(x)).collect(),
            Samples::F64(v) => v.iter().map(|&x| Lit::F64(x)).collect(),
            Samples::Str(v) => v.iter().map(|&x| Lit::Str(x)).collect(),
        }
    }
}

/// How many arguments a variadic parameter takes in generated calls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Variadic {
    /// The fewest arguments.
    pub min: usize,
    /// The most arguments.
    pub max: usize,
    /// Values a variadic constant parameter may take only as its last
    /// argument (`mixed_radix`'s radix 0, "the rest"); `None`: no such values.
    pub last_only: Option<Samples>,
}

/// The variadic wire count a constant decides (`printf`'s format: one wire
/// per placeholder).
#[derive(Clone, Copy, Debug)]
pub struct WiresFrom {
    /// The string constant parameter the count is read from.
    pub param: &'static str,
    /// The count for a value of that constant: the node's own rule.
    pub count: fn(&str) -> usize,
}

/// A node's testing metadata (see the module doc).
#[derive(Clone, Copy, Debug)]
pub struct Testing {
    /// Per constant parameter (by name), the values that make sense, the
    /// corner suite's choice first; a generated call takes its constants
    /// from these. A constant parameter not listed takes its type's pool.
    pub samples: &'static [(&'static str, Samples)],
    /// Bounds on the arguments of the node's variadic parameter; `None`: the
    /// suites' own defaults.
    pub variadic: Option<Variadic>,
    /// The variadic wire count as a rule over a constant; `None`: counts
    /// come from [`Testing::variadic`] or the suites' defaults.
    pub wires_from: Option<WiresFrom>,
    /// A hand-written corner-suite call replacing the synthesized one, in
    /// the DSL, over the suite's variables: `a b c` u64 coordinates, `x y z`
    /// f64 externs, `s t` string externs, `e` a u64 extern without default
    /// (for nodes whose wires no corner variable can feed, or whose
    /// constants must agree with each other).
    pub corner_call: Option<&'static str>,
    /// Whether the random program generator may call the node.
    pub random: bool,
    /// Whether the node can fail at evaluation (assertions are recognized by
    /// their category): the random generator then gives it a non-constant
    /// first argument, so that a failure happens while the program runs
    /// rather than while constants are folded.
    pub fallible: bool,
}

impl Testing {
    /// Nothing special: per-type constant pools, the suites' default
    /// variadic counts, a synthesized corner call, random use allowed, not
    /// fallible.
    pub const BASE: Testing =
        Testing { samples: &[], variadic: None, wires_from: None, corner_call: None, random: true, fallible: false };

    /// The samples of constant parameter `param`, if listed.
    pub fn samples_of(&self, param: &str) -> Option<&Samples> {
        self.samples.iter().find(|(name, _)| *name == param).map(|(_, s)| s)
    }
}
