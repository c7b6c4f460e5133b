//! Programs for the unit tests of modules below the compiler (`program`,
//! `engine`), compiled from the sketch text form, so those modules' tests
//! need not reach up into `compile` themselves.

use crate::compile::{compile, sketch, CompileOptions};
use crate::program::Program;

/// The program of the sketch `src`, compiled with the default options.
pub(crate) fn compile_sketch(src: &str) -> Program {
    compile(&sketch::parse(src).unwrap(), &CompileOptions::default()).unwrap()
}
