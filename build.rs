fn main() {
    // PPL (GPL) is linked only into the polyhedra benchmark, behind the `ppl` feature.
    if std::env::var("CARGO_FEATURE_PPL").is_ok() {
        for lib in ["ppl_c", "ppl", "gmpxx", "gmp", "stdc++"] {
            println!("cargo:rustc-link-lib=dylib={lib}");
        }
    }
}
