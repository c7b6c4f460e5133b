//! Argument matching: which parameter each argument of a call fills, the
//! one rule for every call — a library node's (the compiler's resolve pass,
//! and the DSL frontend, which also names arguments) and a module's (the
//! DSL frontend) — with the one wording of every mismatch.
//!
//! Positional arguments fill the parameters in order, skipping those an
//! argument names; once the last parameter is variadic, it takes every
//! further argument (positional, or named by it). A parameter without a
//! default that no argument fills is missing.

/// One parameter, as matching sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param<'a> {
    /// The parameter's name (what a named argument gives).
    pub name: &'a str,
    /// It takes zero or more arguments (only the last parameter may).
    pub variadic: bool,
    /// It may be left out: it has a default.
    pub optional: bool,
}

/// Where the arguments of a call went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Matched {
    /// Per parameter: the index of the argument that fills it (`None`: no
    /// argument does, or the parameter is the variadic one).
    pub given: Vec<Option<usize>>,
    /// The arguments the variadic parameter takes, in order.
    pub extra: Vec<usize>,
    /// The parameters no argument fills that have no default, in order:
    /// each is a [`Mismatch::Missing`] when the caller reports it.
    pub missing: Vec<usize>,
}

/// Why the arguments of a call do not fit its parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// Argument `arg` is positional past the last parameter.
    TooMany {
        /// The first argument too many.
        arg: usize,
        /// The number of parameters.
        count: usize,
        /// The number of arguments given.
        given: usize,
    },
    /// Argument `arg` names no parameter.
    UnknownName {
        /// The argument.
        arg: usize,
        /// The name it gives.
        name: String,
        /// The closest parameter name, if one is close.
        closest: Option<String>,
    },
    /// Argument `arg` names a parameter another argument already fills.
    GivenTwice {
        /// The argument.
        arg: usize,
        /// The parameter's name.
        name: String,
    },
    /// No argument fills parameter `param`, which has no default.
    Missing {
        /// The parameter's index.
        param: usize,
        /// The parameter's name.
        name: String,
    },
}

impl Mismatch {
    /// The message, for a call of `what` (as the message shows the callee:
    /// `'mod'`, `module 'm'`).
    pub fn message(&self, what: &str) -> String {
        match self {
            Mismatch::TooMany { count, given, .. } => {
                let s = if *count == 1 { "" } else { "s" };
                format!("{what} takes {count} argument{s} but {given} were given")
            }
            Mismatch::UnknownName { name, .. } => format!("{what} has no parameter named '{name}'"),
            Mismatch::GivenTwice { name, .. } => format!("parameter '{name}' of {what} is given twice"),
            Mismatch::Missing { name, .. } => format!("missing argument '{name}' for {what}"),
        }
    }

    /// The hint, for a callee whose signature reads `signature`.
    pub fn hint(&self, signature: &str) -> Option<String> {
        match self {
            Mismatch::UnknownName { closest: Some(name), .. } => Some(format!("did you mean '{name}'?")),
            Mismatch::GivenTwice { .. } => None,
            _ => Some(format!("signature: {signature}")),
        }
    }

    /// The argument at fault (`None`: the call itself, for a missing one).
    pub fn argument(&self) -> Option<usize> {
        match self {
            Mismatch::TooMany { arg, .. } | Mismatch::UnknownName { arg, .. } | Mismatch::GivenTwice { arg, .. } => {
                Some(*arg)
            }
            Mismatch::Missing { .. } => None,
        }
    }
}

/// Matches the arguments `args` of a call (each its name, `None` for a
/// positional one) to `params`. The first argument that fits no parameter
/// is the error; missing parameters are listed in [`Matched::missing`], for
/// the caller to report in its own order.
pub fn match_arguments(params: &[Param<'_>], args: &[Option<&str>]) -> Result<Matched, Mismatch> {
    let variadic = params.last().filter(|p| p.variadic).map(|_| params.len() - 1);
    let mut given: Vec<Option<usize>> = vec![None; params.len()];
    let mut extra = Vec::new();
    let mut cursor = 0;
    for (arg, name) in args.iter().enumerate() {
        if let Some(name) = name {
            let Some(index) = params.iter().position(|p| p.name == *name) else {
                let closest = crate::suggest::closest(name, params.iter().map(|p| p.name)).map(str::to_string);
                return Err(Mismatch::UnknownName { arg, name: name.to_string(), closest });
            };
            if Some(index) == variadic {
                extra.push(arg);
            } else if given[index].is_some() {
                return Err(Mismatch::GivenTwice { arg, name: name.to_string() });
            } else {
                given[index] = Some(arg);
            }
            continue;
        }
        while cursor < params.len() && given[cursor].is_some() && Some(cursor) != variadic {
            cursor += 1;
        }
        if Some(cursor) == variadic {
            extra.push(arg);
        } else if cursor >= params.len() {
            return Err(Mismatch::TooMany { arg, count: params.len(), given: args.len() });
        } else {
            given[cursor] = Some(arg);
            cursor += 1;
        }
    }
    let missing =
        (0..params.len()).filter(|&i| given[i].is_none() && Some(i) != variadic && !params[i].optional).collect();
    Ok(Matched { given, extra, missing })
}

impl Matched {
    /// The first missing parameter as an error (see [`Matched::missing`]).
    pub fn missing_error(&self, params: &[Param<'_>], param: usize) -> Mismatch {
        Mismatch::Missing { param, name: params[param].name.to_string() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> Param<'_> {
        Param { name, variadic: false, optional: false }
    }

    #[test]
    fn positional_and_named_arguments_fill_parameters_in_order() {
        let params = [p("a"), p("b"), p("c")];
        let m = match_arguments(&params, &[Some("b"), None, None]).unwrap();
        assert_eq!(m.given, [Some(1), Some(0), Some(2)]);
        let m = match_arguments(&params, &[None, Some("c")]).unwrap();
        assert_eq!((m.given, m.missing), (vec![Some(0), None, Some(1)], vec![1]));
    }

    #[test]
    fn a_variadic_last_parameter_takes_the_rest() {
        let params = [p("fmt"), Param { name: "args", variadic: true, optional: false }];
        let m = match_arguments(&params, &[None, None, Some("args"), None]).unwrap();
        assert_eq!((m.given, m.extra, m.missing), (vec![Some(0), None], vec![1, 2, 3], vec![]));
    }

    #[test]
    fn mismatches_say_what_is_wrong() {
        let params = [p("input"), Param { name: "modulus", variadic: false, optional: true }];
        let err = match_arguments(&params, &[None, None, None]).unwrap_err();
        assert_eq!(err.message("'mod'"), "'mod' takes 2 arguments but 3 were given");
        assert_eq!(err.argument(), Some(2));
        let err = match_arguments(&params, &[Some("modulo")]).unwrap_err();
        assert_eq!(err.message("'mod'"), "'mod' has no parameter named 'modulo'");
        assert_eq!(err.hint("sig").as_deref(), Some("did you mean 'modulus'?"));
        let err = match_arguments(&params, &[None, Some("input")]).unwrap_err();
        assert_eq!(err.message("'mod'"), "parameter 'input' of 'mod' is given twice");
        assert_eq!(err.hint("sig"), None);
        let one = [p("x")];
        let err = match_arguments(&one, &[None, None]).unwrap_err();
        assert_eq!(err.message("'hash'"), "'hash' takes 1 argument but 2 were given");
        let m = match_arguments(&params, &[Some("modulus")]).unwrap();
        assert_eq!(m.missing_error(&params, m.missing[0]).message("'mod'"), "missing argument 'input' for 'mod'");
    }
}
