//! Prints the node catalog as JSON (the same text the Python frontend reads).
fn main() {
    println!("{}", polydat_core::nodes::catalog_json());
}
