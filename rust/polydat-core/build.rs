//! Builds the longjmp catch of the native tier: a few lines of C that own
//! the `setjmp` frame (Rust cannot declare a returns-twice function); see
//! `src/engine/p3/catch.rs` for the safety argument.

fn main() {
    println!("cargo:rerun-if-changed=src/engine/p3/catch.c");
    cc::Build::new().file("src/engine/p3/catch.c").opt_level(2).compile("polydat_catch");
}
