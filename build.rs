fn main() {
    // Without this line cargo reruns the script, and so rebuilds the crate, whenever any file
    // of the package changes (a README edit cost a full rebuild).
    println!("cargo:rerun-if-changed=build.rs");
    // PPL (GPL) is linked only into the polyhedra benchmark, behind the `ppl` feature.
    if std::env::var("CARGO_FEATURE_PPL").is_ok() {
        for lib in ["ppl_c", "ppl", "gmpxx", "gmp", "stdc++"] {
            println!("cargo:rustc-link-lib=dylib={lib}");
        }
    }
}
