//! What a user meets outside the happy path, through the real binary: budgets that would
//! overflow or mean nothing are refused with a clear message (exit 3), and interrupting
//! polyfocus during a native replay leaves neither the replay process nor its folder behind.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn polyfocus() -> Command {
    Command::new(env!("CARGO_BIN_EXE_polyfocus"))
}

fn write_program(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("program written");
    path
}

#[test]
fn budgets_that_would_overflow_or_mean_nothing_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let program = write_program(
        dir.path(),
        "ok.c",
        "extern void reach_error(void);\nint main(void){ return 0; }\n",
    );
    for bad in ["1e20", "inf", "nan", "0", "-1", "ten"] {
        for flag in ["--timeout", "--memory-per-function"] {
            let out = polyfocus()
                .arg("check")
                .arg(&program)
                .arg(format!("{flag}={bad}"))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(3), "{flag} {bad}: {stderr}");
            assert!(stderr.contains(flag), "{flag} {bad}: {stderr}");
            assert!(!stderr.contains("panicked"), "{flag} {bad}: {stderr}");
        }
    }
    let out = polyfocus()
        .args(["check", "--timeout", "0.5"])
        .arg(&program)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// `check --help` lists the user's flags only (at most 25 options); the internal options
/// are `-Z NAME=VALUE`, listed with their defaults by `-Z help` (exit 0), and an unknown
/// name, a bad value, an option that does not apply, or `-j 0` is refused (exit 3).
#[test]
fn internal_options_are_listed_apart_and_checked() {
    let help = polyfocus().args(["check", "--help"]).output().unwrap();
    assert_eq!(help.status.code(), Some(0));
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let options = help
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("--")
                || (l.starts_with('-') && l.chars().nth(1).is_some_and(|c| c.is_ascii_alphabetic()))
        })
        .count();
    assert!((15..=25).contains(&options), "{options} options:\n{help}");
    assert!(
        !help.contains("--engine") && !help.contains("--care-set"),
        "{help}"
    );
    assert!(help.contains("-Z help"), "{help}");

    let listed = polyfocus().args(["check", "-Z", "help"]).output().unwrap();
    assert_eq!(listed.status.code(), Some(0));
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    for option in [
        "engine=focus|classic",
        "care-set=on|off",
        "interval-work=N",
        "memory-model=on|off",
    ] {
        assert!(listed.contains(option), "{option} in {listed}");
    }

    let dir = tempfile::tempdir().unwrap();
    let program = write_program(dir.path(), "ok.c", "int main(void){ return 0; }\n");
    for (command, bad) in [
        ("check", vec!["-Z", "no-such-option=1"]),
        ("check", vec!["-Z", "care-set=maybe"]),
        ("check", vec!["-Z", "interval-work=-5"]),
        ("check", vec!["-j", "0"]),
        ("ir", vec!["-Z", "engine=classic"]),
    ] {
        let out = polyfocus()
            .arg(command)
            .arg(&program)
            .args(&bad)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{bad:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{bad:?}: {stderr}");
    }
    let out = polyfocus()
        .args(["check", "-Z", "engine=classic", "-Z", "domain=interval"])
        .arg(&program)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("classic + interval"));
}

/// The processes whose executable lies under `dir`.
fn processes_under(dir: &Path) -> Vec<u32> {
    let mut res = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(exe) = std::fs::read_link(entry.path().join("exe")) {
            if exe.starts_with(dir) {
                res.push(pid);
            }
        }
    }
    res
}

/// Starts `polyfocus check` on a program whose native replay runs for minutes, waits until
/// the replay runs, sends `signal`, and returns the private temporary folder it used.
fn interrupt_during_replay(signal: i32) -> tempfile::TempDir {
    let work = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // The volatile counter is arbitrary to the analysis, so the error is reachable; the
    // native replay counts to 10^11 before reaching it.
    let program = write_program(
        work.path(),
        "slow.c",
        "extern int __VERIFIER_nondet_int(void); extern void reach_error(void);\n\
         int main(void){ int x = __VERIFIER_nondet_int(); volatile unsigned long n = 0;\n\
         while (n < 100000000000UL) n++;\n\
         if (x == 7) reach_error(); return 0; }\n",
    );
    let mut child = polyfocus()
        .args(["check", "--timeout", "60"])
        .arg(&program)
        .env("TMPDIR", tmp.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while processes_under(tmp.path()).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the replay never started"
        );
        assert!(child.try_wait().unwrap().is_none(), "polyfocus ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe { libc::kill(child.id() as i32, signal) };
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    if signal != libc::SIGKILL {
        assert_eq!(status.code(), Some(128 + signal), "{status:?}");
    } else {
        assert_eq!(status.signal(), Some(libc::SIGKILL));
    }
    // The kernel delivers the replay's SIGKILL asynchronously: give it a moment.
    let start = Instant::now();
    while !processes_under(tmp.path()).is_empty() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = processes_under(tmp.path());
    for pid in &left {
        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
    }
    assert!(left.is_empty(), "replay processes left running: {left:?}");
    tmp
}

#[test]
fn an_interrupted_run_leaves_no_replay_and_no_folder() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let tmp = interrupt_during_replay(signal);
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().collect();
        assert!(left.is_empty(), "signal {signal}: left {left:?}");
    }
}

#[test]
fn a_killed_run_leaves_no_replay_running() {
    // SIGKILL runs no handler: the folder stays, but the kernel ends the replay.
    interrupt_during_replay(libc::SIGKILL);
}

#[test]
fn unwritable_outputs_fail_before_the_analysis() {
    let dir = tempfile::tempdir().unwrap();
    // A program that would not even compile: the output error must come first.
    let program = write_program(dir.path(), "broken.c", "int main(void) { return }\n");
    for flag in ["-o", "--harness", "--witness"] {
        let out = polyfocus()
            .arg("check")
            .arg(&program)
            .args([flag, "/nonexistent-dir/out"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{flag}: {stderr}");
        assert!(
            stderr.contains("cannot write /nonexistent-dir/out"),
            "{flag}: {stderr}"
        );
    }
}

#[test]
fn no_counterexample_to_write_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let program = write_program(
        dir.path(),
        "ok.c",
        "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\n\
         int main(void){ int x = __VERIFIER_nondet_int(); if (x > 0 && x < 0) reach_error(); return 0; }\n",
    );
    let harness = dir.path().join("cex.c");
    let out = polyfocus()
        .arg("check")
        .arg(&program)
        .arg("--harness")
        .arg(&harness)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!harness.exists());
    assert!(stderr.contains("no counterexample to write to"), "{stderr}");
}
