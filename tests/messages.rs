//! What a newcomer reads: reasons in the user's terms, notes that agree with the verdict,
//! the C library as known code, a clear error for C++, and floats under ILP32.
//!
//! The programs are in `tests/programs/messages`, annotated as `tests/common/annotations.rs`
//! describes (the run `default`). Each program is also built natively and run, so that an
//! annotation is checked against the real program, not only against polyfocus.

mod common;

use common::annotations::annotated;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn program(name: &str) -> PathBuf {
    common::program(&format!("messages/{name}"))
}

fn polyfocus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .args(args)
        .output()
        .expect("polyfocus runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every annotated assertion of `report` has its annotated verdict (the run `default`).
#[track_caller]
fn assert_annotations(name: &str, report: &Value) {
    let program = annotated(&program(name));
    assert!(
        !program.annotations.is_empty(),
        "{name} has no annotated assertion"
    );
    program.assert_runs_known(&["default"]);
    let failures = program.disagreements(report, "default");
    assert!(failures.is_empty(), "{name}: {}", failures.join("\n"));
}

/// Builds `sources` natively with clang-19 and `flags` and runs the program with
/// `arguments` and an empty standard input: whether it ended normally (status 0).
#[track_caller]
fn runs_cleanly(sources: &[PathBuf], flags: &[&str], arguments: &[&str]) -> bool {
    let dir = tempfile::tempdir().expect("temporary directory");
    let exe = dir.path().join("native");
    let built = Command::new("clang-19")
        .args(flags)
        .args(["-O0", "-w"])
        .args(sources)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("clang-19 runs");
    assert!(
        built.status.success(),
        "native build of {sources:?} with {flags:?}: {}",
        text(&built.stderr)
    );
    let run = Command::new(&exe)
        .args(arguments)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the native program runs");
    run.status.success()
}

#[test]
fn argc_is_at_least_one_in_main() {
    let source = program("argc_at_least_one.c");
    for arguments in [&[][..], &["a"][..], &["a", "b", "c"][..]] {
        assert!(runs_cleanly(std::slice::from_ref(&source), &[], arguments));
    }
    let report = common::check_json(&source, &["--timeout", "30"]);
    assert_annotations("argc_at_least_one.c", &report);

    let more = program("argc_more.c");
    assert!(!runs_cleanly(std::slice::from_ref(&more), &[], &[]));
    assert!(runs_cleanly(std::slice::from_ref(&more), &[], &["a"]));
    let report = common::check_json(&more, &["--timeout", "30"]);
    assert_annotations("argc_more.c", &report);
}

/// A `main` that the program calls itself may get any `argc`: nothing is assumed.
#[test]
fn argc_of_a_main_the_program_calls_is_any_value() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let source = dir.path().join("again.c");
    std::fs::write(
        &source,
        "#include <assert.h>\n\
         int main(int argc, char **argv) {\n\
         \x20 if (argc > 3) return main(argc - 5, argv);\n\
         \x20 assert(argc >= 1);\n\
         \x20 return 0;\n\
         }\n",
    )
    .expect("writing the program");
    // Natively: `again a b c` calls main(-1, argv), which fails the assertion.
    assert!(!runs_cleanly(
        std::slice::from_ref(&source),
        &[],
        &["a", "b", "c"]
    ));
    let report = common::check_json(&source, &["--timeout", "30"]);
    let check = common::check_at_line(&report, 4).expect("the assertion");
    assert_ne!(check["verdict"], "proved", "{check}");
}

/// A budget that stops an analysis is named with its function and its size, in the reason
/// of each assertion and in `polyfocus invariants`, which never says `no loops` then.
#[test]
fn budget_reasons_name_the_function_and_the_budget() {
    let source = program("two_loops.c");
    assert!(runs_cleanly(
        &[source.clone(), program("native_inputs.c")],
        &[],
        &[]
    ));
    let report = common::check_json(&source, &["--timeout", "30"]);
    assert_annotations("two_loops.c", &report);

    // A budget of work stops path focusing at the same point on any machine (and the classic
    // engine, which would otherwise finish the function, is off).
    let stop = ["-Z", "focus-work=1000", "-Z", "classic-after-focus=off"];
    let mut args = vec!["--timeout", "30"];
    args.extend(stop);
    let report = common::check_json(&source, &args);
    let check = common::check_at_line(&report, 12).expect("the assertion");
    assert_eq!(check["verdict"], "unknown", "{check}");
    assert_eq!(
        check["reason"],
        "budget: analysis of `main` stopped at its budget of solver work (a query or a stage \
         reached its limit)",
        "{check}"
    );

    let mut args = vec!["invariants"];
    args.extend(stop);
    args.push(source.to_str().unwrap());
    let out = polyfocus(&args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(!stdout.contains("no loops"), "{stdout}");
    assert!(
        stdout.contains(
            "[main] no invariants: analysis of `main` stopped at its budget of solver work"
        ),
        "{stdout}"
    );

    // A time budget too short for the engine: the reason gives it in seconds (the interval
    // stage, which runs first within a budget of work, may have given invariants).
    let out = polyfocus(&["invariants", "--timeout", "0.001", source.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("[main] ")
            && stdout.contains("analysis of `main` did not finish within its time budget of "),
        "{stdout}"
    );
    assert!(!stdout.contains("no loops"), "{stdout}");

    // Without a budget in the way, the loops are there.
    let out = polyfocus(&["invariants", source.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches("loop at line").count(), 2, "{stdout}");
}

/// Calls of the C library are known code: no warning that their body is missing (the
/// program's own missing function keeps it), results within what the standard says, and
/// writes only through their pointer arguments.
#[test]
fn the_c_library_is_known_code() {
    let source = program("c_library.c");
    let helper = program("c_library_helper.c");
    assert!(runs_cleanly(&[source.clone(), helper], &[], &[]));
    let out = polyfocus(&["check", "--timeout", "30", source.to_str().unwrap()]);
    let printed = text(&out.stdout) + &text(&out.stderr);
    let warnings: Vec<&str> = printed
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    for library in ["printf", "rand", "getchar", "fwrite", "snprintf", "strnlen"] {
        assert!(
            !warnings.iter().any(|w| w.contains(&format!("`{library}`"))),
            "a warning names `{library}`:\n{printed}"
        );
    }
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("call of undefined function `helper_not_given`: result arbitrary")),
        "{printed}"
    );
    let report = common::check_json(&source, &["--timeout", "30"]);
    assert_annotations("c_library.c", &report);
}

/// C++ is refused with one clear error (exit 3), by extension or by content.
#[test]
fn cplusplus_input_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let with_header = "#include <cassert>\nint main() { assert(1 + 1 == 2); return 0; }\n";
    let with_class = "class Counter { public: int n; };\n\
                      int main() { Counter c; c.n = 0; return c.n; }\n";
    let cases = [
        ("header.c", with_header, "C++ header <cassert>"),
        ("class.c", with_class, "compiles it as C++"),
        ("main.cpp", with_header, "by its extension"),
        ("main.cc", with_class, "by its extension"),
    ];
    for (file, source, evidence) in cases {
        let path = dir.path().join(file);
        std::fs::write(&path, source).expect("writing the program");
        let out = polyfocus(&["check", path.to_str().unwrap()]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{file}: {stderr}");
        assert!(stderr.contains("C++ is not supported"), "{file}: {stderr}");
        assert!(stderr.contains(evidence), "{file}: {stderr}");
        assert!(!stderr.contains("file not found"), "{file}: {stderr}");
    }
    // Broken C stays a C compilation error.
    let path = dir.path().join("broken.c");
    std::fs::write(&path, "int main(void) { return missing; }\n").expect("writing");
    let out = polyfocus(&["check", path.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(!stderr.contains("C++"), "{stderr}");
    assert!(stderr.contains("compilation failed"), "{stderr}");
}

/// Under ILP32 a plain build evaluates floats with the x87's extended precision: a float
/// assertion proved for SSE arithmetic is not proved for it; with the SSE flags it is.
#[test]
fn ilp32_floats_follow_the_users_floating_point_unit() {
    let holds = program("float_x87_holds.c");
    let rounding = program("float_x87_rounding.c");
    let x87 = ["-m32"];
    let sse = ["-m32", "-msse2", "-mfpmath=sse"];
    // The truth natively: 1e16 + 1 - 1e16 is 1 on the x87, 0 with SSE.
    assert!(runs_cleanly(std::slice::from_ref(&holds), &x87, &[]));
    assert!(runs_cleanly(std::slice::from_ref(&holds), &sse, &[]));
    assert!(!runs_cleanly(std::slice::from_ref(&rounding), &x87, &[]));
    assert!(runs_cleanly(std::slice::from_ref(&rounding), &sse, &[]));

    let verdict = |path: &Path, args: &[&str]| -> (String, String) {
        let mut all = vec!["--timeout", "30"];
        all.extend(args);
        let report = common::check_json(path, &all);
        let check = &report["checks"][0];
        (
            check["verdict"].as_str().unwrap_or("?").to_string(),
            check["reason"].as_str().unwrap_or("").to_string(),
        )
    };
    let ilp32 = ["--data-model", "ILP32"];
    let ilp32_sse = ["--data-model", "ILP32", "--cflags=-msse2 -mfpmath=sse"];
    for args in [&[][..], &ilp32_sse[..]] {
        assert_eq!(verdict(&holds, args).0, "proved", "{args:?}");
        assert_eq!(verdict(&rounding, args).0, "proved", "{args:?}");
    }
    let (v, reason) = verdict(&holds, &ilp32);
    assert_eq!(v, "unknown", "{reason}");
    assert!(
        reason.contains("x87's extended precision") && reason.contains("-msse2 -mfpmath=sse"),
        "{reason}"
    );
    // The x87 build fails it: the native replay, built like the user's program, shows it.
    assert_eq!(verdict(&rounding, &ilp32).0, "violated");
}
