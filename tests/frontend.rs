//! Front end: compiles small C programs with clang-19, loads bitcode and textual IR, and
//! checks the lifted program; bad inputs give one clear error; every benchmark task loads.

mod common;

use std::path::{Path, PathBuf};

use polyfocus::frontend::{self, DataModel, EntrySelection, FrontendConfig, FrontendError};
use polyfocus::ir::{self, CheckKind, HavocReason, Inst, Terminator};

fn config(inputs: Vec<PathBuf>) -> FrontendConfig {
    FrontendConfig {
        inputs,
        cflags: vec![],
        data_model: DataModel::Lp64,
        entry: EntrySelection::Default,
        inline_limit: polyfocus::frontend::INLINE_LIMIT,
        inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
        lift_limit: polyfocus::frontend::LIFT_LIMIT,
        checks: polyfocus::ir::CheckSelection::ASSERT,
        options: polyfocus::frontend::FrontendOptions::DEFAULT,
    }
}

/// Writes `src` as `name` in a fresh temp dir.
fn write(dir: &tempfile::TempDir, name: &str, contents: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[track_caller]
fn lift_c(src: &str) -> ir::Module {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "t.c", src.as_bytes());
    let module = frontend::load(&config(vec![path])).unwrap_or_else(|e| panic!("load failed: {e}"));
    assert_verifies(&module);
    module
}

#[track_caller]
fn load_err(cfg: &FrontendConfig) -> String {
    match frontend::load(cfg) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[track_caller]
fn assert_verifies(module: &ir::Module) {
    for f in &module.functions {
        let errors = ir::verify(f);
        assert!(
            errors.is_empty(),
            "{} does not verify: {:?}\n{}",
            f.name,
            errors,
            f
        );
    }
}

fn insts(f: &ir::Function) -> impl Iterator<Item = &Inst> {
    f.blocks.iter().flat_map(|b| b.insts.iter())
}

fn count_terms(f: &ir::Function, pred: impl Fn(&Terminator) -> bool) -> usize {
    f.blocks.iter().filter(|b| pred(&b.term)).count()
}

fn func<'m>(module: &'m ir::Module, name: &str) -> &'m ir::Function {
    module
        .functions
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

const SV_HEADER: &str = r#"
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *) __attribute__ ((__noreturn__));
void reach_error() { __assert_fail("0", "t.c", 3, "reach_error"); }
void __VERIFIER_assert(int cond) { if (!(cond)) { ERROR: {reach_error();abort();} } return; }
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);
"#;

#[test]
fn loop_phis_become_moves_on_edges() {
    let src = format!(
        "{SV_HEADER}
int main() {{
  int n = __VERIFIER_nondet_int();
  int i = 0, s = 0;
  while (i < n) {{ s = s + 2; i = i + 1; }}
  __VERIFIER_assert(s >= 0);
  return 0;
}}"
    );
    let module = lift_c(&src);
    assert_eq!(module.functions.len(), 1, "only main is an entry");
    let main = func(&module, "main");
    assert_eq!(module.checks.len(), 1);
    assert!(
        matches!(module.checks[0].kind, CheckKind::ErrorCall { ref function } if function == "reach_error")
    );
    let loc = module.checks[0].loc.as_ref().expect("check location");
    assert_eq!(
        loc.line, 13,
        "location of the __VERIFIER_assert call, not of reach_error"
    );
    assert!(loc.file.ends_with("t.c"));
    // Two loop-carried phis (i, s) defined by moves on the entry and back edges.
    let n_moves: usize = main
        .blocks
        .iter()
        .flat_map(|b| b.term.edges())
        .map(|e| e.moves.len())
        .sum();
    assert!(n_moves >= 4, "{main}");
    assert!(insts(main).any(|i| matches!(i, Inst::Havoc { reason: HavocReason::Nondet { function }, .. } if function == "__VERIFIER_nondet_int")));
    assert_eq!(main.checks(), vec![ir::CheckId(0)]);
    // Source names survive.
    assert!(
        main.values
            .iter()
            .any(|v| v.source_name.as_deref() == Some("s")),
        "{main}"
    );
}

#[test]
fn snapshot_of_a_small_loop() {
    let src = "extern unsigned int __VERIFIER_nondet_uint(void);
extern void __VERIFIER_error(void);
int main() {
  unsigned int x = __VERIFIER_nondet_uint();
  while (x < 10) x++;
  if (x != 10) __VERIFIER_error();
  return 0;
}
";
    let module = lift_c(src);
    let main = func(&module, "main");
    let expected = "\
function main() entry bb0
  bb0: ; entry
    v0: i32 = havoc (nondet __VERIFIER_nondet_uint)  ; x  @4
    jump bb1 [v1 := v0]  @5
  bb1: ; while.cond
    v2: i1 = icmp ult v1, 10:i32  @5
    branch v2 ? bb2 : bb3  @5
  bb2: ; while.body
    v3: i32 = add v1, 1:i32  ; x  @5
    jump bb1 [v1 := v3]  @5
  bb3: ; while.end
    v4: i1 = icmp ne v1, 10:i32  @6
    branch v4 ? bb4 : bb5  @6
  bb4: ; if.then
    error check0  @6
  bb5: ; if.end
    return  @7
";
    assert_eq!(main.to_string(), expected, "got:\n{main}");
}

#[test]
fn snapshot_of_assume_and_assert() {
    let src = "#include <polyfocus.h>
int main() {
  int x = polyfocus_nondet_int();
  polyfocus_assume(x > 0);
  polyfocus_assert(x != 0);
  return x;
}
";
    let module = lift_c(src);
    let expected = "\
function main() entry bb0
  bb0: ; entry
    v0: i32 = havoc (nondet polyfocus_nondet_int)  ; x  @3
    v1: i1 = icmp sgt v0, 0:i32  @4
    v2: i32 = zext v1  @4
    assume v1  @4
    v3: i1 = icmp ne v0, 0:i32  @5
    v4: i32 = zext v3  @5
    branch v3 ? bb2 : bb1  @5
  bb1: ; entry.assert1.fail
    error check0  @5
  bb2: ; entry.assert1.ok
    return  @6
";
    let main = func(&module, "main");
    assert_eq!(main.to_string(), expected, "got:\n{main}");
}

#[test]
fn unsigned_add_wraps_and_signed_add_is_nsw() {
    let src = "extern unsigned int __VERIFIER_nondet_uint(void);
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_error(void);
int main() {
  unsigned int u = __VERIFIER_nondet_uint();
  int s = __VERIFIER_nondet_int();
  unsigned int u2 = u + 1;
  int s2 = s + 1;
  if (u2 == 0 && s2 > s) __VERIFIER_error();
  return 0;
}
";
    let module = lift_c(src);
    let main = func(&module, "main");
    let adds: Vec<ir::ArithFlags> = insts(main)
        .filter_map(|i| match i {
            Inst::Assign {
                expr:
                    ir::Expr::Binary {
                        op: ir::BinOp::Add,
                        flags,
                        ..
                    },
                ..
            } => Some(*flags),
            _ => None,
        })
        .collect();
    assert_eq!(adds.len(), 2, "{main}");
    assert!(!adds[0].nsw && !adds[0].nuw, "unsigned add wraps: {main}");
    assert!(adds[1].nsw, "signed add is nsw: {main}");
}

#[test]
fn switch_is_lifted_with_cases() {
    let src = "extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_error(void);
int main() {
  int x = __VERIFIER_nondet_int(), y = 0;
  switch (x) {
    case 1: y = __VERIFIER_nondet_int(); break;
    case 7: y = __VERIFIER_nondet_int() + 1; break;
    default: y = 1;
  }
  if (y == 0) __VERIFIER_error();
  return y;
}
";
    let module = lift_c(src);
    let main = func(&module, "main");
    let switch = main.blocks.iter().find_map(|b| match &b.term {
        Terminator::Switch { cases, .. } => Some(cases.len()),
        _ => None,
    });
    assert_eq!(switch, Some(2), "{main}");
}

#[test]
fn nested_loops() {
    let src = format!(
        "{SV_HEADER}
int main() {{
  int n = __VERIFIER_nondet_int(), c = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      c++;
  __VERIFIER_assert(c >= 0);
  return 0;
}}"
    );
    let module = lift_c(&src);
    let main = func(&module, "main");
    // Two loop headers, each with phis: at least two blocks receive moves on two edges.
    let mut targets_with_moves = std::collections::BTreeSet::new();
    for b in &main.blocks {
        for e in b.term.edges() {
            if !e.moves.is_empty() {
                targets_with_moves.insert(e.target);
            }
        }
    }
    assert!(targets_with_moves.len() >= 2, "{main}");
    assert_eq!(module.checks.len(), 1);
}

#[test]
fn inlined_callee_with_assertion() {
    let src = format!(
        "{SV_HEADER}
static int step(int x) {{ __VERIFIER_assert(x < 100); return x + 1; }}
int main() {{
  int x = 0;
  while (__VERIFIER_nondet_int() && x < 50) x = step(x);
  return 0;
}}"
    );
    let module = lift_c(&src);
    assert_eq!(module.functions.len(), 1, "step is inlined into main");
    assert_eq!(module.checks.len(), 1);
    assert_eq!(module.checks[0].function, "main");
    assert_eq!(
        module.checks[0].loc.as_ref().unwrap().line,
        9,
        "inside step"
    );
}

#[test]
fn recursive_function_with_assertion_is_an_extra_entry() {
    let src = format!(
        "{SV_HEADER}
int f(int n) {{ __VERIFIER_assert(n >= 0); if (n == 0) return 0; return f(n - 1); }}
int main() {{ int n = __VERIFIER_nondet_int(); if (n < 0) return 0; return f(n); }}"
    );
    let module = lift_c(&src);
    let names: Vec<&str> = module.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, vec!["main", "f"]);
    let f = func(&module, "f");
    assert_eq!(f.params.len(), 1);
    let main = func(&module, "main");
    assert!(insts(main).any(|i| matches!(i, Inst::Havoc { reason: HavocReason::UnknownCall { function }, .. } if function == "f")));
}

#[test]
fn uninitialised_local_is_undef() {
    let src = "extern void __VERIFIER_error(void);
int main() {
  int x;
  if (x > 0) __VERIFIER_error();
  return 0;
}
";
    let module = lift_c(src);
    let main = func(&module, "main");
    let text = main.to_string();
    assert!(text.contains("undef"), "{text}");
}

#[test]
fn library_without_main_has_every_external_function_as_entry() {
    let src = "extern void __ikos_assert(int);
int f(int a) { __ikos_assert(a != 5); return a; }
int g(int a, int *p) { return a + *p; }
static int h(int a) { return a; }
int k(void) { return h(3); }
";
    let module = lift_c(src);
    let names: Vec<&str> = module.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, vec!["f", "g", "k"]);
    assert_eq!(
        func(&module, "g").params.len(),
        1,
        "pointer parameters are not values"
    );
    // `*p` reads what the caller left at offset 0 of `p`'s object: an input.
    assert!(insts(func(&module, "g")).any(|i| matches!(
        i,
        Inst::Havoc {
            reason: HavocReason::FieldParam { param, offset: 0 },
            ..
        } if param == "p"
    )));
}

#[test]
fn assert_calls_split_the_block() {
    let src = "#include <polyfocus.h>
extern void __ikos_assert(int);
int main() {
  int x = polyfocus_nondet_int();
  polyfocus_assume(x > 0);
  polyfocus_assert(x != 0);
  __ikos_assert(x > -1);
  return x;
}
";
    let module = lift_c(src);
    let main = func(&module, "main");
    assert_eq!(module.checks.len(), 2);
    assert!(
        matches!(module.checks[0].kind, CheckKind::AssertCall { ref function } if function == "polyfocus_assert")
    );
    assert!(
        matches!(module.checks[1].kind, CheckKind::AssertCall { ref function } if function == "__ikos_assert")
    );
    assert_eq!(module.checks[0].loc.as_ref().unwrap().line, 6);
    assert_eq!(module.checks[1].loc.as_ref().unwrap().line, 7);
    assert_eq!(count_terms(main, |t| matches!(t, Terminator::Error(_))), 2);
    assert_eq!(
        count_terms(main, |t| matches!(t, Terminator::Branch { .. })),
        2,
        "{main}"
    );
    assert_eq!(
        insts(main)
            .filter(|i| matches!(i, Inst::Assume { .. }))
            .count(),
        1
    );
}

#[test]
fn verifier_assume_and_abort() {
    let src = "extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
extern void abort(void);
extern void reach_error(void);
int main() {
  int x = __VERIFIER_nondet_int();
  __VERIFIER_assume(x >= 0);
  if (x > 100) abort();
  if (x == 50) reach_error();
  return 0;
}
";
    let module = lift_c(src);
    let main = func(&module, "main");
    assert_eq!(
        insts(main)
            .filter(|i| matches!(i, Inst::Assume { .. }))
            .count(),
        1,
        "{main}"
    );
    assert_eq!(
        count_terms(main, |t| matches!(t, Terminator::Stop)),
        1,
        "{main}"
    );
    assert_eq!(
        count_terms(main, |t| matches!(t, Terminator::Error(_))),
        1,
        "{main}"
    );
}

#[test]
fn globals_used_only_in_main_become_ssa() {
    let src = "extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_error(void);
int g = 5;
int main() {
  while (__VERIFIER_nondet_int()) g++;
  if (g < 5) __VERIFIER_error();
  return 0;
}
";
    let module = lift_c(src);
    let main = func(&module, "main");
    assert!(
        !insts(main).any(|i| matches!(
            i,
            Inst::Havoc {
                reason: HavocReason::Load,
                ..
            }
        )),
        "{main}"
    );
    assert!(main.to_string().contains("5:i32"), "{main}");
}

#[test]
fn ilp32_data_model() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "t.c", b"extern long __VERIFIER_nondet_long(void);\nextern void __VERIFIER_error(void);\nint main() { long x = __VERIFIER_nondet_long(); if (x + 1 < x) __VERIFIER_error(); return 0; }\n");
    let mut cfg = config(vec![path]);
    cfg.data_model = DataModel::Ilp32;
    let module = frontend::load(&cfg).unwrap();
    let main = func(&module, "main");
    assert_eq!(main.values[0].ty, ir::Ty::int(32), "{main}");
    cfg.data_model = DataModel::Lp64;
    let module = frontend::load(&cfg).unwrap();
    assert_eq!(func(&module, "main").values[0].ty, ir::Ty::int(64));
}

fn have(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn clang14_bitcode_and_textual_ir_and_linking() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(&dir, "a.c", b"extern void __VERIFIER_error(void);\nint twice(int x);\nint main() { int y = twice(3); if (y != 6) __VERIFIER_error(); return 0; }\n");
    let b = write(&dir, "b.c", b"int twice(int x) { return 2 * x; }\n");
    // Linking two C files: `twice` gets inlined into main.
    let module = frontend::load(&config(vec![a.clone(), b.clone()])).unwrap();
    assert_eq!(module.functions.len(), 1);
    let main = func(&module, "main");
    assert!(
        !insts(main).any(|i| matches!(
            i,
            Inst::Havoc {
                reason: HavocReason::UnknownCall { .. },
                ..
            }
        )),
        "{main}"
    );
    // Textual IR.
    let ll = dir.path().join("a.ll");
    let st = std::process::Command::new("clang-19")
        .args([
            "-S",
            "-emit-llvm",
            "-g",
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
        ])
        .arg(&a)
        .arg("-o")
        .arg(&ll)
        .status()
        .unwrap();
    assert!(st.success());
    let module = frontend::load(&config(vec![ll])).unwrap();
    assert_eq!(module.checks.len(), 1);
    // clang-14 bitcode.
    if !have("clang-14") {
        eprintln!("clang-14 not installed: skipping the old-bitcode part");
        return;
    }
    let bc = dir.path().join("a14.bc");
    let st = std::process::Command::new("clang-14")
        .args([
            "-c",
            "-emit-llvm",
            "-g",
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
        ])
        .arg(&a)
        .arg("-o")
        .arg(&bc)
        .status()
        .unwrap();
    assert!(st.success());
    let module = frontend::load(&config(vec![bc, b])).unwrap();
    assert_verifies(&module);
    assert_eq!(module.checks.len(), 1);
    assert_eq!(module.checks[0].loc.as_ref().unwrap().line, 3);
}

#[test]
fn named_entry() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "t.c", b"extern void __ikos_assert(int);\nint foo(int a) { __ikos_assert(a > 0); return a; }\nint main() { return 0; }\n");
    let mut cfg = config(vec![path]);
    cfg.entry = EntrySelection::Named("foo".into());
    let module = frontend::load(&cfg).unwrap();
    assert_eq!(module.functions.len(), 1);
    assert_eq!(module.functions[0].name, "foo");
    assert_eq!(module.checks.len(), 1);
    cfg.entry = EntrySelection::Named("nope".into());
    let msg = load_err(&cfg);
    assert!(
        msg.contains("unknown entry function `nope`") && msg.contains("foo, main"),
        "{msg}"
    );
}

// ---- bad inputs ----

#[test]
fn bad_inputs_give_one_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let msg = load_err(&config(vec![dir.path().join("missing.c")]));
    assert!(msg.ends_with("missing.c: no such file"), "{msg}");

    let msg = load_err(&config(vec![dir.path().to_path_buf()]));
    assert!(msg.contains("is a directory"), "{msg}");

    let empty = write(&dir, "empty.bc", b"");
    let msg = load_err(&config(vec![empty]));
    assert!(msg.contains("empty.bc: file is empty"), "{msg}");

    let garbage = write(&dir, "garbage.bc", b"this is not bitcode at all\n");
    let msg = load_err(&config(vec![garbage]));
    assert!(
        msg.contains("garbage.bc: not an LLVM bitcode file"),
        "{msg}"
    );

    // Starts like bitcode but is cut short, as LLVM 19 sees bitcode it cannot read.
    let mut bytes = b"BC\xC0\xDE".to_vec();
    bytes.extend_from_slice(&[
        0x35, 0x14, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x62, 0x0c, 0x30, 0x24,
    ]);
    let truncated = write(&dir, "newer.bc", &bytes);
    let msg = load_err(&config(vec![truncated]));
    assert!(
        msg.contains("newer.bc: LLVM 19 cannot read this bitcode"),
        "{msg}"
    );

    let bad_c = write(&dir, "bad.c", b"int main() { return x; }\n");
    let msg = load_err(&config(vec![bad_c]));
    assert!(
        msg.contains("bad.c: compilation failed")
            && msg.contains("use of undeclared identifier 'x'"),
        "{msg}"
    );

    let bad_ll = write(&dir, "bad.ll", b"define i32 @main() { ret i32 %x }\n");
    let msg = load_err(&config(vec![bad_ll]));
    assert!(msg.contains("bad.ll: invalid LLVM IR"), "{msg}");

    let txt = write(&dir, "prog.txt", b"int main() { return 0; }\n");
    let msg = load_err(&config(vec![txt]));
    assert!(msg.contains("prog.txt: unknown file type"), "{msg}");

    let ok = write(&dir, "ok.c", b"int main() { return 0; }\n");
    let mut cfg = config(vec![ok]);
    cfg.entry = EntrySelection::Named("start".into());
    let msg = load_err(&cfg);
    assert!(msg.contains("unknown entry function `start`"), "{msg}");

    let msg = load_err(&config(vec![]));
    assert_eq!(msg, "no input files");
}

#[test]
fn unreadable_bitcode_error_shows_llvm_message() {
    let dir = tempfile::tempdir().unwrap();
    // A real bitcode file cut short: LLVM's own reason follows the fixed part of the message.
    let src = write(&dir, "t.c", b"int main() { return 0; }\n");
    let bc = dir.path().join("t.bc");
    let st = std::process::Command::new("clang-19")
        .args(["-c", "-emit-llvm", "-g"])
        .arg(&src)
        .arg("-o")
        .arg(&bc)
        .status()
        .unwrap();
    assert!(st.success());
    let bytes = std::fs::read(&bc).unwrap();
    let cut = write(&dir, "cut.bc", &bytes[..bytes.len() / 3]);
    let err = frontend::load(&config(vec![cut])).unwrap_err();
    let FrontendError::BadBitcode { message, .. } = &err else {
        panic!("{err}")
    };
    assert!(!message.is_empty());
    assert!(err.to_string().contains(message.as_str()), "{err}");
}

// ---- the benchmark set ----

#[test]
fn every_benchmark_task_loads_and_verifies() {
    let Some(bench) = common::shared_bench_or_skip(
        common::SharedSet::Bench,
        "every_benchmark_task_loads_and_verifies",
    ) else {
        return;
    };
    let bench = bench.canonicalize().expect("the benchmark folder");
    let manifest = std::fs::read_to_string(bench.join("MANIFEST.tsv")).unwrap();
    let tasks: Vec<Vec<String>> = manifest
        .lines()
        .skip(1)
        .map(|line| line.split('\t').map(str::to_string).collect::<Vec<_>>())
        .filter(|cols| cols.len() >= 5)
        .collect();
    let n_tasks = tasks.len();
    let start = std::time::Instant::now();
    // Two workers: each load has its own LLVM context.
    let results: Vec<(Vec<String>, Vec<String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = tasks
            .chunks(n_tasks.div_ceil(2).max(1))
            .map(|chunk| {
                scope.spawn(|| {
                    chunk
                        .iter()
                        .map(|cols| check_task(&bench, cols))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let mut failures = Vec::new();
    let mut warning_counts: std::collections::BTreeMap<String, usize> = Default::default();
    for (task_failures, warnings) in results {
        failures.extend(task_failures);
        for message in warnings {
            *warning_counts.entry(message).or_default() += 1;
        }
    }
    eprintln!("{n_tasks} tasks loaded in {:?}", start.elapsed());
    for (message, n) in &warning_counts {
        eprintln!("{n:5}  {message}");
    }
    assert!(
        failures.is_empty(),
        "{} of {n_tasks} tasks fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Loads one MANIFEST row; returns its failures and its (deduplicated) warning messages.
fn check_task(bench: &Path, cols: &[String]) -> (Vec<String>, Vec<String>) {
    let (task, expected, entry, data_model, cflags) =
        (&cols[0], &cols[1], &cols[2], &cols[3], &cols[4]);
    let bench_str = bench.display().to_string();
    let cfg = FrontendConfig {
        inputs: vec![bench.join(task)],
        cflags: cflags
            .split_whitespace()
            .map(|f| f.replace("{bench}", &bench_str))
            .collect(),
        data_model: if data_model == "ILP32" {
            DataModel::Ilp32
        } else {
            DataModel::Lp64
        },
        entry: EntrySelection::Named(entry.to_string()),
        inline_limit: polyfocus::frontend::INLINE_LIMIT,
        inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
        lift_limit: polyfocus::frontend::LIFT_LIMIT,
        checks: polyfocus::ir::CheckSelection::ASSERT,
        options: polyfocus::frontend::FrontendOptions::DEFAULT,
    };
    let mut failures = Vec::new();
    let mut warnings = std::collections::BTreeSet::new();
    match frontend::load(&cfg) {
        Err(e) => failures.push(format!("{task}: {e}")),
        Ok(module) => {
            for f in &module.functions {
                let errors = ir::verify(f);
                if !errors.is_empty() {
                    failures.push(format!("{task}: {} does not verify: {errors:?}", f.name));
                }
            }
            if expected != "n/a" && module.checks.is_empty() {
                failures.push(format!("{task}: no assertion found"));
            }
            warnings.extend(module.warnings.iter().map(|w| w.message.clone()));
        }
    }
    (failures, warnings.into_iter().collect())
}

#[test]
fn callee_above_inline_limit_is_an_extra_entry() {
    let dir = tempfile::tempdir().unwrap();
    let src = "extern void __ikos_assert(int);
extern int __ikos_nondet_int(void);
int step(int x) { int y = x * 3 + 1; __ikos_assert(y != 7); return y; }
int unused(int x) { __ikos_assert(x != 9); return x; }
int main() { int x = __ikos_nondet_int(); return step(x); }
";
    let path = write(&dir, "t.c", src.as_bytes());
    let mut cfg = config(vec![path]);
    cfg.inline_limit = 3;
    let module = frontend::load(&cfg).unwrap();
    assert_verifies(&module);
    let names: Vec<&str> = module.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        vec!["main", "step"],
        "`unused` is never called from main"
    );
    // `unused`'s assertion is listed (never silently skipped), with no function
    // holding its error site: it holds.
    assert_eq!(module.checks.len(), 2);
    assert_eq!(module.checks[0].function, "step");
    assert_eq!(module.checks[1].function, "unused");
    assert_eq!(func(&module, "step").params.len(), 1);
}

#[test]
fn uninitialised_local_is_not_refined_by_llvm() {
    // SROA would fold `phi [3, ..], [undef, ..]` to 3; the local must stay arbitrary.
    let src = "#include <polyfocus.h>
int main(void) {
  int u;
  if (polyfocus_nondet_int()) u = 3;
  polyfocus_assert(u == 3);
  return 0;
}
";
    let module = lift_c(src);
    let main = func(&module, "main");
    let text = main.to_string();
    assert!(!text.contains("icmp eq 3:i32, 3:i32"), "{text}");
    assert!(text.contains("= undef:i32  ; u"), "{text}");
    assert_eq!(count_terms(main, |t| matches!(t, Terminator::Error(_))), 1);
}
