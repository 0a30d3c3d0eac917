//! Compiles `csrc/long_double.c`: Rust has no `long double`, and Redis's
//! float increments are the C library's parse, sum and print of one.

fn main() {
    println!("cargo:rerun-if-changed=csrc/long_double.c");
    cc::Build::new()
        .file("csrc/long_double.c")
        .warnings(true)
        .compile("strata_long_double");
}
