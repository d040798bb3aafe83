//! Native replays of programs a newcomer brings: a library whose internal functions are
//! `static inline` in a header, an extension module calling an API it does not define, an
//! entry with `float` and `double` parameters, programs reading `scanf`, their arguments and
//! their environment. Each program of `tests/programs/replay` is first built and run
//! natively by the test to know the truth (the bug is real); polyfocus must then report it
//! violated with a counterexample replayed natively, whose inputs and steps are those of the
//! replayed run, and its reasons and notes never name the tools of the replay's build.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn program(name: &str) -> PathBuf {
    common::program(&format!("replay/{name}"))
}

/// `polyfocus check --timeout 40` in text: its standard output, the harness written (if any)
/// in `dir`.
fn check_text(source: &Path, args: &[&str], dir: &Path) -> String {
    check_text_within(source, "40", args, dir)
}

/// `polyfocus check` with this budget in text.
fn check_text_within(source: &Path, timeout: &str, args: &[&str], dir: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .arg("check")
        .arg(source)
        .args(["--timeout", timeout, "--harness"])
        .arg(dir.join("harness.c"))
        .args(args)
        .output()
        .expect("polyfocus runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        matches!(out.status.code(), Some(0..=2)),
        "polyfocus failed: {text}\n{stderr}"
    );
    format!("{text}\n{stderr}")
}

/// Builds `sources` natively (with `main_text` as one more unit when given) and runs the
/// result with `args`, `env` and an empty standard input.
fn native_run(
    sources: &[PathBuf],
    main_text: Option<&str>,
    args: &[&str],
    env: &[(&str, &str)],
) -> Output {
    let dir = tempfile::tempdir().expect("temporary directory");
    let exe = dir.path().join("native");
    let mut cmd = Command::new("clang-19");
    cmd.args(["-w", "-O0", "-g"]).args(sources);
    if let Some(text) = main_text {
        let main = dir.path().join("main.c");
        std::fs::write(&main, text).expect("main written");
        cmd.arg(&main);
        cmd.arg(format!("-I{}", program("").display()));
    }
    let status = cmd.arg("-o").arg(&exe).status().expect("clang-19 runs");
    assert!(status.success(), "the native build failed");
    let mut run = Command::new(&exe);
    run.args(args).stdin(Stdio::null());
    for (k, v) in env {
        run.env(k, v);
    }
    run.output().expect("the native program runs")
}

/// The signal that ended a native run, if any.
fn signal(out: &Output) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    out.status.signal()
}

const SIGABRT: i32 = 6;
const SIGFPE: i32 = 8;

/// The report's check on source line `line` whose verdict is violated, with its
/// counterexample.
#[track_caller]
fn violated_at<'r>(report: &'r Value, line: u32) -> &'r Value {
    let checks = report["checks"].as_array().expect("checks");
    checks
        .iter()
        .find(|c| {
            c["verdict"] == "violated"
                && c["location"]
                    .as_str()
                    .and_then(|l| l.split(':').nth(1))
                    .and_then(|l| l.parse::<u32>().ok())
                    == Some(line)
        })
        .unwrap_or_else(|| panic!("no violated check on line {line}: {report:#}"))
}

fn inputs(cex: &Value) -> Vec<(String, i128)> {
    cex["inputs"]
        .as_array()
        .expect("inputs")
        .iter()
        .map(|i| {
            (
                i["function"].as_str().unwrap().to_string(),
                i["value"].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect()
}

/// What every report must not say: the tools run inside a replay's build.
#[track_caller]
fn assert_no_plumbing(text: &str) {
    for word in [
        "clang",
        "objcopy",
        "polyfocus_replay",
        "polyfocus_stubs",
        "conflicting types",
    ] {
        assert!(!text.contains(word), "`{word}` in the output:\n{text}");
    }
}

/// Runs the recipe of the harness written in `dir` (compile, objcopy, link, run) and
/// returns the run's exit status.
#[track_caller]
fn harness_status(dir: &Path) -> Option<i32> {
    common::native::run_harness(dir).status.code()
}

// A library written like xxHash: `minihash_wide` leaves tails of up to seven bytes, which
// the `static inline` `mh_tail` of the header asserts never happens. Natively,
// `minihash_wide(buf, 4, 0)` aborts. The replay compiles and links: the public entry, and
// the `static inline` function analyzed on its own when it is not inlined (a library without
// `main`: every function is where executions may start), are both replayed.
#[test]
fn a_library_with_static_inline_functions_in_a_header_replays() {
    let truth = native_run(
        &[program("minihash.c")],
        Some(
            "#include \"minihash.h\"\nint main(void) { unsigned char b[16] = {0}; return (int)minihash_wide(b, 4, 0); }\n",
        ),
        &[],
        &[],
    );
    assert_eq!(signal(&truth), Some(SIGABRT), "the bug is real");

    // Replays from arbitrary arguments, without preconditions (`holds if`).
    let report = common::check_json(
        &program("minihash.c"),
        &["--timeout", "40", "-Z", "precondition-work=0"],
    );
    let check = violated_at(&report, 27);
    assert_eq!(check["function"], "minihash_wide", "{report:#}");
    let args = check["counterexample"]["args"].as_array().unwrap();
    let len = args.iter().find(|a| a["function"] == "len").expect("len");
    let len: u64 = len["value"].as_str().unwrap().parse().unwrap();
    assert!((4..8).contains(&(len % 8)), "{report:#}");
    assert_no_plumbing(&report.to_string());

    // The `static` function itself, not inlined and named as the entry: its driver calls it
    // by name, made global in the replay's copy of its unit. Its `size_t` argument is shown
    // unsigned.
    let dir = tempfile::tempdir().unwrap();
    let text = check_text(
        &program("minihash.c"),
        &[
            "--entry",
            "mh_tail",
            "-Z",
            "inline-limit=1",
            "-Z",
            "precondition-work=0",
        ],
        dir.path(),
    );
    assert!(text.contains(": violated [mh_tail]"), "{text}");
    assert!(!text.contains("rem=-"), "{text}");
    assert_no_plumbing(&text);
    assert_eq!(harness_status(dir.path()), Some(97), "{text}");
}

// A library of two units, each function dividing by zero for one argument: a `static`
// function only its unit names, two `static` functions of one name in the two units, and an
// external entry with a `signed char` parameter (its driver is compiled inside its unit: the
// ABI has the caller sign-extend it). Executions of a library start at its external
// functions: a `static` one is replayed only when named with `--entry` (its driver calls it
// made global in the replay's copy of its unit, and each of the two of one name runs the one
// its check is in). Natively, `use_b(13)` divides by zero in the second unit's function.
#[test]
fn static_functions_of_two_units_replay_only_when_named_as_entries() {
    let truth = native_run(
        &[program("units_a.c"), program("units_b.c")],
        Some("int use_b(int);\nint main(void) { return use_b(13); }\n"),
        &[],
        &[],
    );
    assert_eq!(signal(&truth), Some(SIGFPE), "the bug is real");

    let a = program("units_a.c");
    let args = |entries: Option<&str>| {
        let mut args = vec![
            a.to_str().unwrap().to_string(),
            "--checks".into(),
            "div".into(),
            "--timeout".into(),
            "40".into(),
            "-Z".into(),
            "inline-limit=1".into(),
            "-Z".into(),
            "precondition-work=0".into(),
        ];
        if let Some(e) = entries {
            args.extend(["--entry".to_string(), e.to_string()]);
        }
        args
    };
    let check_of = |report: &Value, file: &str, line: u32| -> Value {
        report["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .find(|c| {
                c["location"]
                    .as_str()
                    .is_some_and(|l| l.contains(&format!("{file}:{line}:")))
            })
            .unwrap_or_else(|| panic!("no check at {file}:{line}: {report:#}"))
            .clone()
    };
    let argument = |check: &Value, name: &str| -> i128 {
        assert_eq!(check["verdict"], "violated", "{check:#}");
        let args = check["counterexample"]["args"].as_array().expect("args");
        let arg = args.iter().find(|a| a["function"] == name).expect(name);
        arg["value"].as_str().unwrap().parse().unwrap()
    };

    let library = args(None);
    let library: Vec<&str> = library.iter().map(String::as_str).collect();
    let report = common::check_json(&program("units_b.c"), &library);
    assert_eq!(argument(&check_of(&report, "units_a.c", 13), "c"), -101);
    for (file, line) in [("units_a.c", 5), ("units_a.c", 9), ("units_b.c", 3)] {
        let check = check_of(&report, file, line);
        assert_ne!(check["verdict"], "violated", "{check:#}");
    }

    let named = args(Some("only_here,twin,twin.1,narrow"));
    let named: Vec<&str> = named.iter().map(String::as_str).collect();
    let report = common::check_json(&program("units_b.c"), &named);
    assert_eq!(argument(&check_of(&report, "units_a.c", 5), "x"), 7);
    assert_eq!(argument(&check_of(&report, "units_a.c", 9), "x"), 11);
    assert_eq!(argument(&check_of(&report, "units_a.c", 13), "c"), -101);
    assert_eq!(argument(&check_of(&report, "units_b.c", 3), "x"), 13);
    assert_no_plumbing(&report.to_string());
}

// An extension module calls its interpreter's API, which it does not define: the replay
// links with stubs made from the module's declarations, `PyLong_AsLong`'s result is an
// input, and the division by zero at 7 is found. Natively, with an interpreter that passes 7,
// the module divides by zero.
#[test]
fn an_extension_calling_an_api_it_does_not_define_replays() {
    let fake_interpreter = "#include \"fakepy.h\"
struct fakepy_object { int unused; };
static PyObject value_error;
PyObject *PyExc_ValueError = &value_error;
long PyLong_AsLong(PyObject *v) { (void)v; return 7; }
PyObject *PyErr_Occurred(void) { return 0; }
void PyErr_SetString(PyObject *t, const char *m) { (void)t; (void)m; }
PyObject *PyLong_FromLong(long v) { (void)v; return 0; }
PyObject *ext_share(PyObject *self, PyObject *arg);
int main(void) { ext_share(0, 0); return 0; }
";
    let truth = native_run(&[program("extension.c")], Some(fake_interpreter), &[], &[]);
    assert_eq!(signal(&truth), Some(SIGFPE), "the bug is real");

    let report = common::check_json(
        &program("extension.c"),
        &["--timeout", "40", "--checks", "div"],
    );
    let check = violated_at(&report, 14);
    assert_eq!(check["kind"], "div", "{report:#}");
    let cex = &check["counterexample"];
    assert!(
        inputs(cex).contains(&("PyLong_AsLong".to_string(), 7)),
        "{report:#}"
    );
    assert_no_plumbing(&report.to_string());
}

// An entry with `float` and `double` parameters gets them from the input stream like
// integers. Natively, `bucket(11.0f, 11, 11.0)` aborts.
#[test]
fn float_and_double_parameters_of_an_entry_are_served() {
    let truth = native_run(
        &[program("float_params.c")],
        Some(
            "int bucket(float, int, double);\nint main(void) { return bucket(11.0f, 11, 11.0); }\n",
        ),
        &[],
        &[],
    );
    assert_eq!(signal(&truth), Some(SIGABRT), "the bug is real");

    let dir = tempfile::tempdir().unwrap();
    let text = check_text(
        &program("float_params.c"),
        &["-Z", "precondition-work=0"],
        dir.path(),
    );
    assert!(text.contains(": violated [bucket]"), "{text}");
    assert!(text.contains("argument count = 11"), "{text}");
    assert!(!text.contains("parameter of type"), "{text}");
    assert_no_plumbing(&text);
    assert_eq!(harness_status(dir.path()), Some(97), "{text}");
}

// `while (scanf("%d", &x) == 1) ...; s / n`: on an empty input `scanf` returns EOF at once
// and `n` is 0. Natively, with an empty standard input, the program divides by zero. The
// counterexample's input is scanf's result, and its steps have `n = 0`.
#[test]
fn scanf_at_end_of_input_gives_the_division_by_zero() {
    let truth = native_run(&[program("mean.c")], None, &[], &[]);
    assert_eq!(signal(&truth), Some(SIGFPE), "the bug is real");

    let report = common::check_json(&program("mean.c"), &["--timeout", "40", "--checks", "div"]);
    let check = violated_at(&report, 10);
    let cex = &check["counterexample"];
    let read = inputs(cex);
    assert!(
        matches!(read.as_slice(), [(f, r)] if f == "scanf" && *r <= 0),
        "{report:#}"
    );
    let steps = cex["steps"].as_array().unwrap();
    let last = steps.last().expect("steps");
    assert!(
        last["location"].as_str().unwrap().contains("mean.c:10"),
        "{report:#}"
    );
    assert!(
        last["values"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v[0] == "n" && v[1] == "0"),
        "{report:#}"
    );
}

// Ten numbers read, none positive: the division by zero comes after ten `scanf` calls, and
// the steps are the ten iterations of the replayed run (`i` counting up, `n` staying 0), not
// a path the interpretation invented.
#[test]
fn the_steps_of_a_scanf_loop_are_those_of_the_run() {
    let truth = native_run(&[program("positives.c")], None, &[], &[]);
    assert_eq!(signal(&truth), Some(SIGFPE), "the bug is real");

    let report = common::check_json(
        &program("positives.c"),
        &["--timeout", "40", "--checks", "div"],
    );
    let check = violated_at(&report, 13);
    let cex = &check["counterexample"];
    let n_scanf = inputs(cex).iter().filter(|(f, _)| f == "scanf").count();
    assert_eq!(n_scanf, 10, "{report:#}");
    let steps = cex["steps"].as_array().unwrap();
    let value = |step: &Value, name: &str| -> Option<String> {
        step["values"]
            .as_array()?
            .iter()
            .find(|v| v[0] == name)
            .map(|v| v[1].as_str().unwrap().to_string())
    };
    let is: Vec<String> = steps.iter().filter_map(|s| value(s, "i")).collect();
    assert!(is.contains(&"9".to_string()), "{report:#}");
    assert!(
        steps.iter().filter_map(|s| value(s, "n")).all(|n| n == "0"),
        "{report:#}"
    );
    let last = steps.last().unwrap();
    assert!(
        last["location"]
            .as_str()
            .unwrap()
            .contains("positives.c:13"),
        "{report:#}"
    );
}

// `int n = atoi(argv[1]); assert(n < 100);`: the text of the argument is an input of the
// search and of the replay. Natively, `parse_args 100` aborts; the harness runs the program
// with the argument written out.
#[test]
fn an_argument_parsed_with_atoi_gets_a_counterexample() {
    let truth = native_run(&[program("parse_args.c")], None, &["100"], &[]);
    assert_eq!(signal(&truth), Some(SIGABRT), "the bug is real");

    let dir = tempfile::tempdir().unwrap();
    let text = check_text(&program("parse_args.c"), &[], dir.path());
    assert!(text.contains(": violated [main]"), "{text}");
    let argument = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("input #1: argv[1] = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or_else(|| panic!("no argv[1] input: {text}"));
    let n: i64 = argument.parse().unwrap();
    assert!(n as i32 >= 100, "{text}");
    // The step at the assertion shows what atoi returned in the run.
    assert!(text.contains(&format!("n={}", n as i32)), "{text}");
    let harness = std::fs::read_to_string(dir.path().join("harness.c")).unwrap();
    assert!(harness.contains(&format!("./cex {argument};")), "{harness}");
    assert_eq!(harness_status(dir.path()), Some(97), "{harness}");
}

// A `size_t` near its maximum is shown unsigned in the trace, not as a negative number.
// Natively, `padded_len(SIZE_MAX)` aborts.
#[test]
fn unsigned_values_are_shown_unsigned() {
    let truth = native_run(
        &[program("unsigned_len.c")],
        Some("#include <stddef.h>\nsize_t padded_len(size_t);\nint main(void) { return (int)padded_len((size_t)-1); }\n"),
        &[],
        &[],
    );
    assert_eq!(signal(&truth), Some(SIGABRT), "the bug is real");

    let dir = tempfile::tempdir().unwrap();
    let text = check_text(
        &program("unsigned_len.c"),
        &["-Z", "precondition-work=0"],
        dir.path(),
    );
    assert!(text.contains(": violated [padded_len]"), "{text}");
    let len: u64 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("argument len = "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no unsigned `len` argument: {text}"));
    assert!(len >= u64::MAX - 16, "{text}");
    assert!(!text.contains("len=-"), "{text}");
}

// A limit read with `getenv` and `strtol`: the variable's value is an input. Natively,
// `LIMIT=1001` aborts.
#[test]
fn an_environment_variable_gets_a_counterexample() {
    let truth = native_run(&[program("environment.c")], None, &[], &[("LIMIT", "1001")]);
    assert_eq!(signal(&truth), Some(SIGABRT), "the bug is real");

    let report = common::check_json(&program("environment.c"), &["--timeout", "40"]);
    let check = violated_at(&report, 8);
    let read = inputs(&check["counterexample"]);
    assert!(
        read.iter().any(|(f, v)| f == "getenv(LIMIT)" && *v > 1000),
        "{report:#}"
    );
}

// With a budget too short to build the replay, the reason is said in the user's terms.
#[test]
fn a_replay_out_of_budget_is_said_in_the_users_terms() {
    let dir = tempfile::tempdir().unwrap();
    let text = check_text_within(
        &program("minihash.c"),
        "1",
        &["--entry", "minihash_wide"],
        dir.path(),
    );
    assert_no_plumbing(&text);
}
