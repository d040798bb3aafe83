//! Code that runs but was never analyzed, and globals that were wrongly made local
//! (issue 12, classes 2 and 3), on programs in `tests/programs/reach`.
//!
//! Each program is run natively first (clang-19, with a `reach_error` that exits with a
//! known status): an assertion annotated `// fails` must really fail, so the test cannot
//! pass on a program that is wrong itself. polyfocus must then list every annotated
//! assertion, never prove a failing one, give each unknown one a reason, prove those
//! annotated `// holds` and refute (with a replayed counterexample) those annotated
//! `// violated` (which fail natively like `// fails`).
//!
//! Directives in the program's comments: `// entry: NAME` (the `--entry`), `// native-with:
//! FILE` (another translation unit, linked only natively: polyfocus is not given it),
//! `// reason: TEXT` (every unknown verdict's reason contains it).

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The exit status of the native `reach_error`.
const ERROR_STATUS: i32 = 97;

/// Defines the functions the programs declare: the error reports itself by the exit status.
const NATIVE_RUNTIME: &str = "#include <unistd.h>\n\
    void reach_error(void) { _exit(97); }\n\
    int __VERIFIER_nondet_int(void) { return 1; }\n";

#[derive(Debug, PartialEq)]
enum Expect {
    Fails,
    Holds,
    Violated,
}

struct Program {
    path: PathBuf,
    annotations: Vec<(u32, Expect)>,
    entry: Option<String>,
    native_with: Vec<PathBuf>,
    reason: Option<String>,
}

fn load(name: &str) -> Program {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "programs", "reach"]
        .iter()
        .collect();
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path).expect("test program readable");
    let mut program = Program {
        path: path.clone(),
        annotations: vec![],
        entry: None,
        native_with: vec![],
        reason: None,
    };
    for (i, line) in text.lines().enumerate() {
        let Some(idx) = line.find("// ") else {
            continue;
        };
        let note = line[idx + 3..].trim();
        let line_no = i as u32 + 1;
        if note == "fails" {
            program.annotations.push((line_no, Expect::Fails));
        } else if note == "violated" {
            program.annotations.push((line_no, Expect::Violated));
        } else if note == "holds" {
            program.annotations.push((line_no, Expect::Holds));
        } else if let Some(entry) = note.strip_prefix("entry: ") {
            program.entry = Some(entry.to_string());
        } else if let Some(other) = note.strip_prefix("native-with: ") {
            program.native_with.push(dir.join(other));
        } else if let Some(reason) = note.strip_prefix("reason: ") {
            program.reason = Some(reason.to_string());
        }
    }
    assert!(
        !program.annotations.is_empty(),
        "{name} has no annotated assertion"
    );
    program
}

/// Compiles and runs the program natively; whether it reached `reach_error`.
fn reaches_error_natively(program: &Program) -> bool {
    let dir = tempfile::tempdir().expect("temp dir");
    let runtime = dir.path().join("runtime.c");
    std::fs::write(&runtime, NATIVE_RUNTIME).expect("runtime written");
    let exe = dir.path().join("a.out");
    let out = Command::new(polyfocus::frontend::clang_program())
        .args(["-w", "-O0", "-pthread", "-o"])
        .arg(&exe)
        .arg(&program.path)
        .args(&program.native_with)
        .arg(&runtime)
        .output()
        .expect("clang runs");
    assert!(
        out.status.success(),
        "{}: native build failed: {}",
        program.path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("native program runs");
    run.status.code() == Some(ERROR_STATUS)
}

fn analyze(program: &Program) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_polyfocus"));
    cmd.args(["check", "--format", "json", "--timeout", "10"]);
    if let Some(entry) = &program.entry {
        cmd.args(["--entry", entry]);
    }
    let out = cmd.arg(&program.path).output().expect("polyfocus runs");
    let code = out.status.code().unwrap_or(-1);
    assert!(
        (0..=2).contains(&code),
        "{} exited {code}: {}",
        program.path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

fn line_of(check: &Value) -> Option<u32> {
    check["location"]
        .as_str()
        .and_then(|l| l.split(':').nth(1))
        .and_then(|l| l.parse::<u32>().ok())
}

#[track_caller]
fn check_program(name: &str) {
    let program = load(name);
    let fails = program
        .annotations
        .iter()
        .any(|(_, e)| matches!(e, Expect::Fails | Expect::Violated));
    assert_eq!(
        reaches_error_natively(&program),
        fails,
        "{name}: the native run does not match the annotations"
    );
    let report = analyze(&program);
    let checks = report["checks"].as_array().expect("checks array");
    for (line, expect) in &program.annotations {
        let found: Vec<&Value> = checks
            .iter()
            .filter(|c| line_of(c) == Some(*line))
            .collect();
        assert!(
            !found.is_empty(),
            "{name}:{line}: the assertion is not reported: {report}"
        );
        for check in found {
            let verdict = check["verdict"].as_str().unwrap_or("");
            match expect {
                Expect::Fails => assert_ne!(verdict, "proved", "{name}:{line}: WRONG proof"),
                Expect::Holds => assert_eq!(verdict, "proved", "{name}:{line}: not proved"),
                Expect::Violated => {
                    assert_eq!(verdict, "violated", "{name}:{line}: not refuted: {check}")
                }
            }
            if verdict == "unknown" {
                let reason = check["reason"].as_str().unwrap_or("");
                assert!(
                    !reason.is_empty(),
                    "{name}:{line}: unknown without a reason"
                );
                if let Some(expected) = &program.reason {
                    assert!(
                        reason.contains(expected.as_str()),
                        "{name}:{line}: reason `{reason}` does not say `{expected}`"
                    );
                }
            }
        }
    }
}

fn have_clang() -> bool {
    Command::new(polyfocus::frontend::clang_program())
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

macro_rules! programs {
    ($($test:ident => $file:literal,)*) => {$(
        #[test]
        fn $test() {
            assert!(have_clang(), "clang-19 is required (scripts/setup)");
            check_program($file);
        }
    )*};
}

programs! {
    // Class 2: code that runs but was not analyzed.
    atexit_handler_is_analyzed => "atexit_handler.c",
    signal_handler_is_analyzed => "signal_handler.c",
    qsort_comparator_and_its_callee_are_analyzed => "qsort_comparator.c",
    constructors_and_destructors_are_analyzed => "constructor.c",
    thread_start_routine_is_analyzed => "thread_routine.c",
    static_functions_in_tables_are_analyzed => "table_of_functions.c",
    indirect_call_of_error_function_is_an_error_site => "error_through_pointer.c",
    error_function_given_to_the_library_is_an_error_site => "error_registered.c",
    // Class 3: globals.
    named_entry_starts_from_arbitrary_globals => "global_named_entry.c",
    global_written_by_another_unit_is_not_local => "global_other_unit.c",
    foreign_code_calls_external_functions => "static_global_setter.c",
    global_the_library_writes_is_not_local => "library_global.c",
    setjmp_makes_assertions_unknown => "setjmp_longjmp.c",
    foreign_code_may_call_main_again => "main_reentered.c",
    library_calls_keep_globals_local => "globals_with_library_calls.c",
    assertions_of_functions_never_called_are_reported => "never_called.c",
    inline_assembly_keeps_globals_in_memory => "inline_asm_global.c",
    asm_goto_writes_memory => "asm_goto_writes.c",
    an_error_site_in_the_entry_block_is_reachable => "error_at_entry.c",
    r15_two_loads_of_a_summary_cell_read_two_elements => "memory_summary_two_elements.c",
    // Memory (issue 15).
    r15_pointer_parameters_may_alias => "memory_aliasing_parameters.c",
    r15_parameter_field_read_twice => "memory_parameter_read_twice.c",
    r15_global_struct_fields_through_a_pointer => "memory_global_struct.c",
    r15_global_array_written_in_a_loop => "memory_global_array_loop.c",
    r15_escaped_local_written_by_unknown_code => "memory_escaped_write.c",
    r15_out_parameters_and_escaped_locals => "memory_out_parameter.c",
    r15_arrays_initialized_by_loops => "memory_array_segments.c",
    r15_allocation_sites => "memory_array_heap.c",
    r15_copies_between_arrays => "memory_array_copies.c",
    r15_copies_that_skip_another_index_or_two => "memory_array_copy_skip_near.c",
    r15_properties_of_array_elements => "memory_array_properties.c",
    r15_properties_over_the_accesses_own_index => "memory_array_property_index.c",
    r15_property_root_that_does_not_fit_is_not_used => "memory_array_property_root_wrap.c",
    r15_tiles_with_a_short_circuit_property => "memory_array_tiles.c",
    r15_tiles_near_miss_is_refuted => "memory_array_tiles_near_miss.c",
    r15_pairs_of_arrays_written_together => "memory_array_pairs.c",
    r15_pairs_near_miss_one_array_written_is_refuted => "memory_array_pairs_lone_store.c",
    r15_pairs_near_miss_other_index_is_refuted => "memory_array_pairs_shifted.c",
    r15_pairs_near_miss_wrong_value_is_refuted => "memory_array_pairs_wrong_value.c",
    r15_pairs_through_parameters_that_may_alias => "memory_array_pairs_aliasing.c",
    r15_store_of_an_elements_own_value => "memory_array_store_of_itself.c",
    r15_store_of_an_elements_own_value_near_miss => "memory_array_store_of_itself_near_miss.c",
    r15_inputs_stored_when_not_zero => "memory_array_inputs_nonzero.c",
    r15_inputs_less_one_near_miss => "memory_array_inputs_nonzero_near_miss.c",
    r15_callee_through_a_pointer_refuted_from_main => "callee_through_pointer.c",
    r15_contents_polynomials_of_the_index => "memory_array_contents.c",
    r15_contents_of_int_elements => "memory_array_contents_int.c",
    r15_contents_off_by_one_is_refuted => "memory_array_contents_off_by_one.c",
    r15_contents_wrong_base_is_refuted => "memory_array_contents_base.c",
    r15_contents_from_recurrences => "memory_array_contents_recurrence.c",
    r15_contents_recurrence_with_a_wrong_base_is_refuted => "memory_array_contents_recurrence_base.c",
    r15_contents_recurrence_with_another_step_is_refuted => "memory_array_contents_recurrence_step.c",
}
