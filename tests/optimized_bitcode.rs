//! Bitcode optimized before polyfocus sees it: `nsw` flags are no
//! assumption there, and an error function whose calls the optimizer deleted is reported.

use std::path::{Path, PathBuf};
use std::process::Command;

use polyfocus::frontend::{self, DataModel, EntrySelection, FrontendConfig};
use polyfocus::ir::{Expr, Inst};

/// Compiles `src` with clang-19 and `flags` to bitcode in `dir`.
fn bitcode(dir: &Path, src: &str, flags: &[&str]) -> PathBuf {
    let c = dir.join("t.c");
    std::fs::write(&c, src).expect("source written");
    let bc = dir.join("t.bc");
    let st = Command::new("clang-19")
        .args(["-c", "-emit-llvm", "-g"])
        .args(flags)
        .arg(&c)
        .arg("-o")
        .arg(&bc)
        .status()
        .expect("clang-19 runs");
    assert!(st.success());
    bc
}

fn load(input: PathBuf) -> polyfocus::ir::Module {
    frontend::load(&FrontendConfig {
        inputs: vec![input],
        cflags: vec![],
        data_model: DataModel::Lp64,
        entry: EntrySelection::Default,
        inline_limit: polyfocus::frontend::INLINE_LIMIT,
        inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
        lift_limit: polyfocus::frontend::LIFT_LIMIT,
        checks: polyfocus::ir::CheckSelection::ASSERT,
        options: polyfocus::frontend::FrontendOptions::DEFAULT,
    })
    .expect("loads")
}

/// How many lifted operations carry `nsw`.
fn nsw_count(module: &polyfocus::ir::Module) -> usize {
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| b.insts.iter()))
        .filter(|i| matches!(i, Inst::Assign { expr: Expr::Binary { flags, .. }, .. } if flags.nsw))
        .count()
}

const SPECULATED: &str = "extern int __VERIFIER_nondet_int(void);\n\
    extern void reach_error(void);\nextern void use(int);\n\
    int main(void) {\n  int x = __VERIFIER_nondet_int(), c = __VERIFIER_nondet_int();\n\
      int y = c ? x + 1 : 0;\n  use(y);\n  if (x == 2147483647) reach_error();\n  return 0;\n}\n";

#[test]
fn nsw_is_trusted_only_in_unoptimized_bitcode() {
    let dir = tempfile::tempdir().unwrap();
    // clang -O0 marks every function optnone: its nsw flags are C's signed overflow.
    let module = load(bitcode(dir.path(), SPECULATED, &["-O0"]));
    assert_eq!(nsw_count(&module), 1, "{:?}", module.functions);
    // At -O2 the add is speculated into a select: its flag must not be an assumption.
    let module = load(bitcode(dir.path(), SPECULATED, &["-O2"]));
    assert_eq!(nsw_count(&module), 0, "{:?}", module.functions);
    let out = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .args(["check", "--no-counterexamples"])
        .arg(dir.path().join("t.bc"))
        .output()
        .expect("polyfocus runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("proved [main]"), "{stdout}");
}

#[test]
fn uncalled_error_function_in_optimized_bitcode_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let src = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\n\
        int main(void) { if (__VERIFIER_nondet_int() > 5) reach_error(); return 0; }\n";
    let module = load(bitcode(dir.path(), src, &["-O2"]));
    assert!(module.checks.is_empty());
    assert!(
        module
            .warnings
            .iter()
            .any(|w| w.function == "reach_error" && w.message.contains("never called")),
        "{:?}",
        module.warnings
    );
    // Unoptimized, the call is there and nothing is reported.
    let module = load(bitcode(dir.path(), src, &["-O0"]));
    assert_eq!(module.checks.len(), 1);
    assert!(module.warnings.iter().all(|w| w.function != "reach_error"));
}
