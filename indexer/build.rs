//! Declares what this crate's tests need beyond the repository (see the included file).
include!("../scripts/build/needs.rs");

fn main() {
    declare_test_needs();
}
