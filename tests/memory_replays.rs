//! Native replays of memory checks: the program built with the address sanitizer, run, and
//! its report read back (`cex::asan`) as the kind of error and the place in the program's
//! code, which must be the line the program marks. The build is the replay's own
//! (`cex::build`), so this also checks that the sanitizer's runtime links with the replay
//! runtime (whose UBSan handlers keep their reports) for LP64 and ILP32, and that the
//! symbolizer is found.

mod common;

use common::program;
use polyfocus::cex::asan::MemoryError;
use polyfocus::cex::replay::{
    BuildSpec, CommandLine, NativeProgram, Policy, RunStatus, RuntimeError,
};
use polyfocus::frontend::{DataModel, EntrySelection, FrontendConfig, FrontendOptions};
use polyfocus::ir::{CheckClass, CheckSelection};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

fn memory_build(data_model: DataModel) -> NativeProgram {
    let config = FrontendConfig {
        inputs: vec![program("memory/errors.c")],
        cflags: vec![],
        data_model,
        entry: EntrySelection::Default,
        inline_limit: 2000,
        inline_caller_limit: 10000,
        lift_limit: 50000,
        checks: CheckSelection::of(&[CheckClass::Memory]),
        options: FrontendOptions::DEFAULT,
    };
    let spec = BuildSpec {
        entry: "main".into(),
        file: None,
        named: false,
        nondet: BTreeMap::new(),
        unknown_calls: BTreeMap::new(),
        dictionary: vec![],
    };
    let built = NativeProgram::build(&config, &spec, Instant::now() + Duration::from_secs(300));
    match built {
        Ok(p) => p,
        Err(e) => panic!("the replay with the address sanitizer does not build: {e}"),
    }
}

/// The line of `errors.c` that carries `/* marker */`.
fn marked_line(marker: &str) -> u32 {
    let text = std::fs::read_to_string(program("memory/errors.c")).unwrap();
    let pattern = format!("/* {marker} */");
    let index = text
        .lines()
        .position(|l| l.contains(&pattern))
        .unwrap_or_else(|| panic!("no line marked {marker}"));
    index as u32 + 1
}

/// Runs the program with input `x` and returns where it stopped.
fn stop(program: &NativeProgram, x: u128) -> RuntimeError {
    let run = program.run(
        CommandLine::PLAIN,
        &[x],
        &Policy::Strict,
        &[],
        Duration::from_secs(60),
    );
    assert_eq!(
        run.status,
        RunStatus::RuntimeError,
        "input {x}: {}",
        run.stderr
    );
    // The log of served values is complete although the sanitizer ends the run.
    assert_eq!(run.served.len(), 1, "input {x}: {:?}", run.served);
    RuntimeError::of_run(&run).unwrap_or_else(|| panic!("input {x}: no report in {}", run.stderr))
}

fn check_every_kind(data_model: DataModel) {
    let program = memory_build(data_model);
    assert!(program.sanitizes_memory);
    let cases = [
        (1, MemoryError::Overflow, "heap-overflow"),
        (2, MemoryError::Overflow, "stack-overflow"),
        (3, MemoryError::Overflow, "global-overflow"),
        (4, MemoryError::NullDeref, "null-deref"),
        (5, MemoryError::UseAfterFree, "use-after-free"),
        (6, MemoryError::DoubleFree, "double-free"),
        (7, MemoryError::BadFree, "bad-free"),
        // `memset` is the sanitizer's interceptor: the frame is the call's.
        (8, MemoryError::Overflow, "memset-overflow"),
    ];
    for (x, kind, marker) in cases {
        let error = stop(&program, x);
        assert_eq!(
            error.memory,
            Some(kind),
            "{data_model:?} input {x}: {error:?}"
        );
        assert_eq!(
            error.line,
            marked_line(marker),
            "{data_model:?} {marker}: {error:?}"
        );
        assert!(error.file.ends_with("errors.c"), "{error:?}");
        assert!(error.column > 0, "{error:?}");
    }
    // UBSan's handler of the replay runtime, renamed in the program's objects, still
    // reports the operation.
    let overflow = stop(&program, 9);
    assert_eq!(overflow.memory, None);
    assert_eq!(overflow.class, "overflow");
    assert_eq!(overflow.line, marked_line("overflow"));
    // A leak is reported at the end of `main`, with the allocation's place.
    let leak = stop(&program, 0);
    assert_eq!(leak.memory, Some(MemoryError::Leak), "{leak:?}");
    // A run without error ends normally.
    let clean = program.run(
        CommandLine::PLAIN,
        &[10],
        &Policy::Strict,
        &[],
        Duration::from_secs(60),
    );
    assert_eq!(clean.status, RunStatus::Exited(0), "{}", clean.stderr);
}

#[test]
fn the_sanitizer_names_each_memory_error_and_its_line_lp64() {
    check_every_kind(DataModel::Lp64);
}

#[test]
fn the_sanitizer_names_each_memory_error_and_its_line_ilp32() {
    check_every_kind(DataModel::Ilp32);
}

/// `polyfocus svcomp --property valid-memsafety.prp` on tasks of `../shared/bench3`: the
/// answer is one of SV-COMP's, and never contradicts the task's verdict (a `FALSE` names
/// the task's own subproperty; `TRUE` only for a safe task, whose leak checks then prove
/// every object freed, which `valid-memcleanup` asks too).
#[test]
fn svcomp_answers_bench3_tasks_soundly() {
    let Some(bench) = common::shared_bench_or_skip(
        common::SharedSet::Bench3,
        "svcomp_answers_bench3_tasks_soundly",
    ) else {
        return;
    };
    let property = bench.join("properties/valid-memsafety.prp");
    let tasks = [
        ("c/memsafety/test-0232-3.yml", Some("valid-free")),
        ("c/memsafety/960521-1-1.yml", Some("valid-free")),
        ("c/array-memsafety/cstrlen_unsafe.yml", Some("valid-deref")),
        ("c/memsafety/960521-1-2.yml", None),
        ("c/array-memsafety/cstrlen-alloca-2.yml", None),
    ];
    let mut refuted = 0;
    for (task, violated) in tasks {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_polyfocus"))
            // Format 1.0 task files name no data model: these programs are ILP32. The
            // budget is the one `docs/bench3.md` measures with (CPU time: load-independent).
            .args([
                "svcomp",
                "--data-model",
                "ILP32",
                "--timeout",
                "10",
                "--property",
            ])
            .arg(&property)
            .arg(bench.join("sv-benchmarks").join(task))
            .output()
            .expect("polyfocus runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(out.status.code(), Some(0), "{task}: {stdout}");
        let answer = *lines.last().expect("an answer");
        match (answer, violated) {
            ("UNKNOWN", _) => assert!(
                lines.len() >= 2 && lines[lines.len() - 2].starts_with("reason: "),
                "{task}: {stdout}"
            ),
            (a, Some(sub)) => {
                assert_eq!(a, format!("FALSE({sub})"), "{task}: {stdout}");
                refuted += 1;
            }
            (a, None) => assert_eq!(a, "TRUE", "{task} is safe: {stdout}"),
        }
    }
    // Meaningful: some unsafe task is refuted (each takes seconds).
    assert!(refuted > 0, "no unsafe task was refuted");
}

/// The memory check at the line of `program` marked `/* marker */` is violated with a
/// replayed counterexample, and refutes `subproperty`.
fn assert_replayed_violation(name: &str, marker: &str, subproperty: &str) {
    let path = program(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains(&format!("/* {marker} */")))
        .expect("a marked line") as u64
        + 1;
    let report = common::check_json(&path, &["--checks", "memory", "--timeout", "60"]);
    let checks = report["checks"].as_array().expect("checks");
    let violated: Vec<&serde_json::Value> = checks
        .iter()
        .filter(|c| c["verdict"] == "violated")
        .collect();
    assert!(
        violated
            .iter()
            .any(|c| common::line_of(c) == Some(line as u32)
                && c["subproperty"] == subproperty
                && c["counterexample"]["confirmed_by"]
                    .as_str()
                    .is_some_and(|t| t.contains("replayed natively"))),
        "{name}: no replayed violation at line {line}: {report:#}"
    );
    // Nothing else is violated: a replay stops at its own access only.
    assert!(
        violated
            .iter()
            .all(|c| common::line_of(c) == Some(line as u32)),
        "{name}: {report:#}"
    );
}

#[test]
fn a_heap_overflow_in_a_loop_is_replayed() {
    assert_replayed_violation("memory/replayed_overflow.c", "out-of-bounds", "valid-deref");
}

#[test]
fn a_double_free_is_replayed() {
    assert_replayed_violation(
        "memory/replayed_double_free.c",
        "invalid-free",
        "valid-free",
    );
}
