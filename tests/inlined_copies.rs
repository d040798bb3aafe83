//! A check in code inlined into another function holds when the function the code comes
//! from proves it on its own (`driver/copies.rs`), on `tests/programs/copies/library.c`:
//! `jumpy` calls `setjmp`, so it is not analyzed, and holds copies of `scale` and `half`.
//! And which functions are inlined: within the size limit only, whatever the source's marks;
//! in a large program, leaves only.

mod common;

use std::path::Path;
use std::process::Command;

fn line_of(path: &Path, mark: &str) -> u32 {
    let text = std::fs::read_to_string(path).expect("the program");
    (1..)
        .zip(text.lines())
        .find(|(_, l)| l.contains(mark))
        .map(|(n, _)| n)
        .unwrap_or_else(|| panic!("no line marked {mark}"))
}

#[test]
fn a_copy_of_code_its_function_proves_holds_and_never_fails_natively() {
    let path = common::program("copies/library.c");
    let report = common::check_json(&path, &["--timeout", "10"]);
    let proved = line_of(&path, "proved on its own");
    let check = common::check_at_line(&report, proved).expect("the check");
    assert_eq!(check["verdict"], "proved", "{check}");
    let contexts: Vec<&str> = check["contexts"]
        .as_array()
        .expect("contexts")
        .iter()
        .map(|c| c["function"].as_str().unwrap_or(""))
        .collect();
    assert!(contexts.contains(&"jumpy"), "{check}");
    // A copy of code whose function does not prove it stays open.
    let open = line_of(&path, "not proved on its own");
    assert_eq!(common::verdict_at(&report, open), "unknown");
    // Natively, `jumpy` with arguments around every bound never fails the proved check.
    let dir = tempfile::tempdir().expect("temporary directory");
    let driver = dir.path().join("driver.c");
    std::fs::write(
        &driver,
        format!(
            "#include \"{}\"\nint main(void) {{\n  int v[] = {{-2147483647 - 1, -101, -1, 0, 1, 6, 8, 99, 100, 101, 2147483647}};\n  \
             for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) jumpy(v[i]);\n  return 0;\n}}\n",
            path.canonicalize().expect("the program").display()
        ),
    )
    .expect("the driver");
    let exe = dir.path().join("driver");
    let built = Command::new("clang-19")
        .args([
            "-w",
            "-O0",
            "-fsanitize=undefined",
            "-fno-sanitize-recover=all",
        ])
        .arg(&driver)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("clang-19 runs");
    assert!(built.success(), "the driver builds");
    let run = Command::new(&exe).output().expect("the driver runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// The functions a check was analyzed in, sorted.
fn context_functions(check: &serde_json::Value) -> Vec<String> {
    let mut names: Vec<String> = check["contexts"]
        .as_array()
        .expect("contexts")
        .iter()
        .map(|c| c["function"].as_str().unwrap_or("").to_string())
        .collect();
    names.sort();
    names
}

// A function the source marks `always_inline` is inlined within the size limit only: over
// it, its check is analyzed once, in the function itself; following the marks, it is
// analyzed in a copy per caller. Proved either way.
#[test]
fn a_large_function_marked_always_inline_is_analyzed_once() {
    let path = common::program("copies/marked.c");
    let line = line_of(&path, "the marked check");
    let contexts = |marked: &str| -> Vec<String> {
        let report = common::check_json(
            &path,
            &[
                "-Z",
                "inline-limit=10",
                "-Z",
                &format!("inline-marked={marked}"),
            ],
        );
        let check = common::check_at_line(&report, line).expect("the check");
        assert_eq!(check["verdict"], "proved", "{check}");
        context_functions(check)
    };
    assert_eq!(contexts("off"), ["clamp_sum"]);
    assert_eq!(contexts("on"), ["first", "second"]);
}

// In a small program a helper larger than a leaf is inlined into each caller, where its
// check is proved with the caller's argument; in a program over `-Z inline-program-limit`
// only leaves are inlined: the helper is analyzed once, on its own, and its check holds
// under a precondition on its parameter, which both calls meet (checked at the calls; without
// that, the check is `holds if`).
#[test]
fn a_helper_is_inlined_in_a_small_program_and_analyzed_once_in_a_large_one() {
    let path = common::program("copies/leaves.c");
    let line = line_of(&path, "the helper's check");
    let analyzed = |args: &[&str]| -> (String, Vec<String>) {
        let report = common::check_json(&path, args);
        let check = common::check_at_line(&report, line).expect("the check");
        let names = context_functions(check);
        let verdict = match check["verdict"].as_str().unwrap_or("") {
            "holds if" => format!("holds if {}", check["precondition"].as_str().unwrap_or("")),
            v => v.to_string(),
        };
        (verdict, names)
    };
    let (verdict, contexts) = analyzed(&[]);
    assert_eq!(verdict, "proved");
    assert_eq!(contexts, ["first", "second"]);
    let (verdict, contexts) = analyzed(&["-Z", "inline-program-limit=10"]);
    assert_eq!(verdict, "proved");
    assert_eq!(contexts, ["window_sum"]);
    let (verdict, contexts) = analyzed(&[
        "-Z",
        "inline-program-limit=10",
        "-Z",
        "call-site-preconditions=off",
    ]);
    assert_eq!(verdict, "holds if n <= 64");
    assert_eq!(contexts, ["window_sum"]);
}
