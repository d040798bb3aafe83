//! Code that runs but was never analyzed, and globals that were wrongly made local, on
//! programs in `tests/programs/reach`.
//!
//! Each program is run natively first (clang-19, with a `reach_error` that exits with a
//! known status): it must reach the error exactly when an assertion is annotated `fails`
//! (`tests/common/annotations.rs`), so the test cannot pass on a program that is wrong
//! itself. polyfocus must then report every annotated assertion, agree with the
//! annotations in its one run (`default`), and give each unknown verdict a reason.
//!
//! Directives in the program's comments: `// entry: NAME` (the `--entry`), `// native-with:
//! FILE` (another translation unit, linked only natively: polyfocus is not given it),
//! `// reason: TEXT` (every unknown verdict's reason contains it).

mod common;

use common::annotations::{annotated, AnnotatedProgram, ASSERT};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The exit status of the native `reach_error`.
const ERROR_STATUS: i32 = 97;

/// Defines the functions the programs declare: the error reports itself by the exit status.
const NATIVE_RUNTIME: &str = "#include <unistd.h>\n\
    void reach_error(void) { _exit(97); }\n\
    int __VERIFIER_nondet_int(void) { return 1; }\n";

struct Program {
    annotated: AnnotatedProgram,
    native_with: Vec<PathBuf>,
}

fn load(name: &str) -> Program {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "programs", "reach"]
        .iter()
        .collect();
    let annotated = annotated(&dir.join(name));
    assert!(
        annotated.of_kind(ASSERT).next().is_some(),
        "{name} has no annotated assertion"
    );
    annotated.assert_runs_known(&["default"]);
    let native_with = annotated
        .directives_of("native-with")
        .map(|other| dir.join(other))
        .collect();
    Program {
        annotated,
        native_with,
    }
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
        .arg(&program.annotated.path)
        .args(&program.native_with)
        .arg(&runtime)
        .output()
        .expect("clang runs");
    assert!(
        out.status.success(),
        "{}: native build failed: {}",
        program.annotated.path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("native program runs");
    run.status.code() == Some(ERROR_STATUS)
}

fn analyze(program: &Program) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_polyfocus"));
    cmd.args(["check", "--format", "json", "--timeout", "10"]);
    if let Some(entry) = program.annotated.directive("entry") {
        cmd.args(["--entry", entry]);
    }
    let out = cmd
        .arg(&program.annotated.path)
        .output()
        .expect("polyfocus runs");
    let code = out.status.code().unwrap_or(-1);
    assert!(
        (0..=2).contains(&code),
        "{} exited {code}: {}",
        program.annotated.path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

#[track_caller]
fn check_program(name: &str) {
    let program = load(name);
    let fails = !program.annotated.failing_assertions().is_empty();
    assert_eq!(
        reaches_error_natively(&program),
        fails,
        "{name}: the native run does not match the annotations"
    );
    let report = analyze(&program);
    let mut wrong = program.annotated.disagreements(&report, "default");
    let reason = program.annotated.directive("reason");
    for annotation in program.annotated.of_kind(ASSERT) {
        for check in common::annotations::checks_at(&report, annotation.line, ASSERT) {
            if check["verdict"] != "unknown" {
                continue;
            }
            let why = check["reason"].as_str().unwrap_or("");
            if why.is_empty() {
                wrong.push(format!(
                    "{name}:{}: unknown without a reason",
                    annotation.line
                ));
            } else if let Some(expected) = reason.filter(|r| !why.contains(r)) {
                wrong.push(format!(
                    "{name}:{}: reason `{why}` does not say `{expected}`",
                    annotation.line
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
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
    // Code that runs without a direct call: handlers, callbacks, tables of functions.
    atexit_handler_is_analyzed => "atexit_handler.c",
    signal_handler_is_analyzed => "signal_handler.c",
    qsort_comparator_and_its_callee_are_analyzed => "qsort_comparator.c",
    constructors_and_destructors_are_analyzed => "constructor.c",
    thread_start_routine_is_analyzed => "thread_routine.c",
    threads_see_writes_where_they_synchronize => "threads_synchronize.c",
    atomic_operations_synchronize => "atomics_synchronize.c",
    atomics_in_a_callee_synchronize_whatever_it_writes => "atomics_in_a_callee_synchronize.c",
    raise_runs_the_handler_before_it_returns => "raise_runs_the_handler.c",
    static_functions_in_tables_are_analyzed => "table_of_functions.c",
    indirect_call_of_error_function_is_an_error_site => "error_through_pointer.c",
    error_function_given_to_the_library_is_an_error_site => "error_registered.c",
    // Globals.
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
    two_loads_of_a_summary_cell_read_two_elements => "memory_summary_two_elements.c",
    lookup_tables_read_within_their_bounds => "memory_lookup_table_bounds.c",
    calls_clobber_only_what_the_callee_may_write => "call_memory_effects.c",
    bit_counts_are_within_the_width => "bit_counts.c",
    bit_counts_follow_their_operands_range => "bit_count_ranges.c",
    constant_tables_hold_their_initializer => "constant_tables.c",
    // Memory.
    pointer_parameters_may_alias => "memory_aliasing_parameters.c",
    parameter_field_read_twice => "memory_parameter_read_twice.c",
    global_struct_fields_through_a_pointer => "memory_global_struct.c",
    global_array_written_in_a_loop => "memory_global_array_loop.c",
    escaped_local_written_by_unknown_code => "memory_escaped_write.c",
    out_parameters_and_escaped_locals => "memory_out_parameter.c",
    arrays_initialized_by_loops => "memory_array_segments.c",
    allocation_sites_that_run_once_are_objects => "memory_array_heap.c",
    copies_between_arrays => "memory_array_copies.c",
    copies_that_skip_another_index_or_two => "memory_array_copy_skip_near.c",
    properties_of_array_elements => "memory_array_properties.c",
    properties_over_the_accesses_own_index => "memory_array_property_index.c",
    property_root_that_does_not_fit_is_not_used => "memory_array_property_root_wrap.c",
    tiles_with_a_short_circuit_property => "memory_array_tiles.c",
    tiles_near_miss_is_refuted => "memory_array_tiles_near_miss.c",
    pairs_of_arrays_written_together => "memory_array_pairs.c",
    pairs_near_miss_one_array_written_is_refuted => "memory_array_pairs_lone_store.c",
    pairs_near_miss_other_index_is_refuted => "memory_array_pairs_shifted.c",
    pairs_near_miss_wrong_value_is_refuted => "memory_array_pairs_wrong_value.c",
    pairs_through_parameters_that_may_alias => "memory_array_pairs_aliasing.c",
    store_of_an_elements_own_value => "memory_array_store_of_itself.c",
    store_of_an_elements_own_value_near_miss => "memory_array_store_of_itself_near_miss.c",
    inputs_stored_when_not_zero => "memory_array_inputs_nonzero.c",
    inputs_less_one_near_miss => "memory_array_inputs_nonzero_near_miss.c",
    callee_through_a_pointer_refuted_from_main => "callee_through_pointer.c",
    contents_polynomials_of_the_index => "memory_array_contents.c",
    contents_of_int_elements => "memory_array_contents_int.c",
    contents_off_by_one_is_refuted => "memory_array_contents_off_by_one.c",
    contents_wrong_base_is_refuted => "memory_array_contents_base.c",
    contents_from_recurrences => "memory_array_contents_recurrence.c",
    contents_recurrence_with_a_wrong_base_is_refuted => "memory_array_contents_recurrence_base.c",
    contents_recurrence_with_another_step_is_refuted => "memory_array_contents_recurrence_step.c",
}
