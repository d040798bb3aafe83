//! The address sanitizer's reports, read back: which memory error a native run stopped on,
//! and where in the program's code.
//!
//! A replay of memory checks (`--checks memory`) is built with `-fsanitize=address`
//! ([`super::build`]). The sanitizer stops the run at the first invalid access or free and
//! prints a report on standard error; LeakSanitizer prints one when the program ends with
//! allocated memory nothing points to. The run's options ([`asan_options`]) make it exit
//! with the runtime's status of a runtime error, so a report is read only from such a run.
//!
//! A report names its error kind on its `ERROR:` line and then the stack of the faulty
//! access, innermost first, symbolized by `llvm-symbolizer` (`#0 0x4c5a3e in main t.c:5:10`).
//! The access's place is the first frame of the program's own code: frames of the
//! sanitizer's interceptors (`memcpy`, `strlen`, `free`) and of the C library carry no
//! source location of the program, and are skipped. For a leak the stack is where the
//! object was allocated, not where it was lost: LeakSanitizer lists every leaked object's
//! allocation stack (`Direct leak of ...`, `Indirect leak of ...`), and a leak check is
//! confirmed by a leaked object allocated at the check's place, the allocation site.

use crate::ir::CheckKind;
use std::path::PathBuf;

/// The kind of memory error a sanitizer report names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryError {
    /// An access next to an object, in its red zone (`heap-buffer-overflow`,
    /// `stack-buffer-overflow`, `global-buffer-overflow`, `stack-buffer-underflow`,
    /// `dynamic-stack-buffer-overflow`): outside the object the pointer points into.
    Overflow,
    /// A fault at an address in the zero page: a dereference of a null pointer (plus a
    /// small offset, a field or an element).
    NullDeref,
    /// A fault at an unmapped address outside the zero page: far outside any object.
    WildDeref,
    /// An access to a freed heap object (`heap-use-after-free`).
    UseAfterFree,
    /// A second `free` of one object (`attempting double-free`).
    DoubleFree,
    /// A `free` of a pointer an allocator did not return (`attempting free on address which
    /// was not malloc()-ed`): an offset into an object, a stack or global object.
    BadFree,
    /// Memory left allocated and unreachable at the end of the program (LeakSanitizer).
    Leak,
}

impl MemoryError {
    /// Whether a run that stopped on this error violates a check of `kind` (at the same
    /// place, which the caller compares).
    pub fn confirms(self, kind: &CheckKind) -> bool {
        matches!(
            (self, kind),
            (
                MemoryError::Overflow | MemoryError::WildDeref,
                CheckKind::OutOfBounds { .. }
            ) | (MemoryError::NullDeref, CheckKind::NullDeref { .. })
                // The replay's pattern for uninitialized pointers faults, in the zero page
                // once an offset wraps it around.
                | (
                    MemoryError::NullDeref | MemoryError::WildDeref,
                    CheckKind::UninitPointer { .. }
                )
                | (MemoryError::UseAfterFree, CheckKind::UseAfterFree { .. })
                | (
                    MemoryError::DoubleFree | MemoryError::BadFree,
                    CheckKind::InvalidFree
                )
                | (MemoryError::Leak, CheckKind::Leak)
        )
    }

    /// The report's name for the error, for people.
    pub fn name(self) -> &'static str {
        match self {
            MemoryError::Overflow => "buffer overflow",
            MemoryError::NullDeref => "null dereference",
            MemoryError::WildDeref => "invalid address",
            MemoryError::UseAfterFree => "use after free",
            MemoryError::DoubleFree => "double free",
            MemoryError::BadFree => "free of a pointer not allocated",
            MemoryError::Leak => "memory leak",
        }
    }
}

/// A source place of a stack frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The file as the debug information names it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, 0 when the symbolizer gave none.
    pub column: u32,
}

/// A sanitizer report: the error and the first frame of the program's code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SanitizerReport {
    /// The error.
    pub error: MemoryError,
    /// Where the program's code made the faulty access or free (for a leak, where the
    /// first object was allocated); `None` when no frame has a source place of the program.
    pub frame: Option<Frame>,
    /// For a leak, where each leaked object was allocated (the first frame of the program's
    /// code of each allocation stack); empty for other errors.
    pub leaks: Vec<Frame>,
    /// Whether the overflowed object is a buffer the replay's driver passed for a pointer
    /// parameter (allocated by `polyfocus_entry_buffer`), not an object of the program.
    pub in_entry_buffer: bool,
}

/// The report in a run's standard error, if there is one of a kind a memory check knows.
/// Other reports (a stack overflow, a fault on a write to read-only memory...) are `None`.
pub fn parse_report(stderr: &str) -> Option<SanitizerReport> {
    let mut lines = stderr.lines();
    let error = lines.by_ref().find_map(error_of_line)?;
    let error = match error {
        Some(e) => e,
        // A fault: the zero page or not, from the address on the `SEGV` line.
        None => {
            let line = stderr
                .lines()
                .find(|l| l.contains("SEGV on unknown address"))?;
            let address = line
                .split("unknown address ")
                .nth(1)?
                .split_whitespace()
                .next()?;
            // A non-canonical address (x86-64) faults without one: the report names none
            // and hints at "a dereference of a high value address".
            let value = match u64::from_str_radix(address.trim_start_matches("0x"), 16) {
                Ok(v) => v,
                Err(_) if stderr.contains("dereference of a high value address") => u64::MAX,
                Err(_) => return None,
            };
            if value < ZERO_PAGE {
                MemoryError::NullDeref
            } else {
                MemoryError::WildDeref
            }
        }
    };
    // The accessed object's allocation stack names the driver's buffer function.
    let in_entry_buffer =
        error == MemoryError::Overflow && stderr.contains(" in polyfocus_entry_buffer");
    if error == MemoryError::Leak {
        let leaks = leak_sites(lines);
        let frame = leaks.first().cloned();
        return Some(SanitizerReport {
            error,
            frame,
            leaks,
            in_entry_buffer,
        });
    }
    // The first stack after the error line: frames until the first line that is not one.
    let mut frame = None;
    let mut seen_frames = false;
    for line in lines {
        let trimmed = line.trim_start();
        if !trimmed.starts_with('#') {
            if seen_frames {
                break;
            }
            continue;
        }
        seen_frames = true;
        if let Some(f) = program_frame(trimmed) {
            frame = Some(f);
            break;
        }
    }
    Some(SanitizerReport {
        error,
        frame,
        leaks: vec![],
        in_entry_buffer,
    })
}

/// The allocation place of each leaked object of a LeakSanitizer report: the first frame of
/// the program's code of each stack after a `Direct leak` or `Indirect leak` line.
fn leak_sites<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<Frame> {
    let mut sites = Vec::new();
    let mut in_stack = false;
    for line in lines {
        let trimmed = line.trim_start();
        if trimmed.starts_with("Direct leak of") || trimmed.starts_with("Indirect leak of") {
            in_stack = true;
            continue;
        }
        if !in_stack || !trimmed.starts_with('#') {
            continue;
        }
        if let Some(f) = program_frame(trimmed) {
            sites.push(f);
            in_stack = false;
        }
    }
    sites
}

/// Addresses below this are in the zero page: a null pointer plus a small offset.
const ZERO_PAGE: u64 = 4096;

/// The error kind an `ERROR:` line names: `Some(Some(kind))`, or `Some(None)` for a fault
/// whose address decides; `None` for another line or another report.
fn error_of_line(line: &str) -> Option<Option<MemoryError>> {
    if line.contains("ERROR: LeakSanitizer: detected memory leaks") {
        return Some(Some(MemoryError::Leak));
    }
    let rest = line.split("ERROR: AddressSanitizer: ").nth(1)?;
    let kind = rest.split_whitespace().next()?;
    Some(match kind {
        "heap-buffer-overflow"
        | "stack-buffer-overflow"
        | "global-buffer-overflow"
        | "stack-buffer-underflow"
        | "dynamic-stack-buffer-overflow" => Some(MemoryError::Overflow),
        "heap-use-after-free" => Some(MemoryError::UseAfterFree),
        "SEGV" => None,
        "attempting" if rest.starts_with("attempting double-free") => Some(MemoryError::DoubleFree),
        "attempting"
            if rest.starts_with("attempting free on address which was not malloc()-ed") =>
        {
            Some(MemoryError::BadFree)
        }
        _ => return None,
    })
}

/// The source place of a frame line (`#0 0x4c5a3e in main /d/t.c:5:10`), when it is code
/// of the program: not the sanitizer's runtime, not the C library.
fn program_frame(line: &str) -> Option<Frame> {
    let (_, after_in) = line.split_once(" in ")?;
    let (function, place) = after_in.split_once(' ')?;
    const RUNTIME_PREFIXES: [&str; 6] = [
        "__interceptor_",
        "__asan",
        "__lsan",
        "__sanitizer",
        "__ubsan",
        "__libc_",
    ];
    if RUNTIME_PREFIXES.iter().any(|p| function.starts_with(p)) {
        return None;
    }
    let place = place.trim();
    // `(module+0x...)`: no source place.
    if place.starts_with('(') {
        return None;
    }
    let mut parts = place.rsplitn(3, ':');
    let (last, middle, first) = (parts.next()?, parts.next()?, parts.next());
    let (file, line, column) = match (first, middle.parse::<u32>(), last.parse::<u32>()) {
        (Some(file), Ok(line), Ok(column)) => (file.to_string(), line, column),
        // `file:line` without a column.
        _ => {
            let file = first.map_or(middle.to_string(), |f| format!("{f}:{middle}"));
            (file, last.parse().ok()?, 0)
        }
    };
    if SYSTEM_PATHS.iter().any(|p| file.contains(p)) {
        return None;
    }
    Some(Frame { file, line, column })
}

/// Parts of the paths of the C library's and the sanitizer runtime's sources.
const SYSTEM_PATHS: [&str; 4] = ["sysdeps/", "csu/", "compiler-rt/", "sanitizer_common/"];

/// The symbolizer the sanitizer runs for its stacks: `llvm-symbolizer-19` on the `PATH`,
/// else LLVM 19's own copy, else `llvm-symbolizer`.
pub fn symbolizer() -> PathBuf {
    let on_path = |name: &str| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
    };
    on_path("llvm-symbolizer-19")
        .or_else(|| {
            let p = PathBuf::from("/usr/lib/llvm-19/bin/llvm-symbolizer");
            p.is_file().then_some(p)
        })
        .or_else(|| on_path("llvm-symbolizer"))
        .unwrap_or_else(|| PathBuf::from("llvm-symbolizer-19"))
}

/// The sanitizer's options of a replay: stop at the first error with the runtime's status
/// of a runtime error (`exit_status`), look for leaks at the end, stop a run at an
/// allocation over 2 GiB or when its resident memory passes 2 GiB (the guard the runtime's
/// address-space limit is without the sanitizer), and no legend after the report. An
/// allocation that fails ends the run with a report of its own, no memory error: the
/// analysis assumes that `malloc` succeeds, so a run where it returns null is no
/// counterexample.
pub fn asan_options(exit_status: i32) -> String {
    format!(
        "exitcode={exit_status}:detect_leaks=1:allocator_may_return_null=0:\
         max_allocation_size_mb=2048:hard_rss_limit_mb=2048:print_legend=0:symbolize=1:\
         detect_stack_use_after_return=0:handle_abort=0"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_an_overflow_and_its_first_program_frame() {
        let text = "=================================================================\n\
==27785==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x502000000020 at pc 0x561360c7bac2 bp 0x7ffca5c49190 sp 0x7ffca5c49188\n\
WRITE of size 4 at 0x502000000020 thread T0\n\
    #0 0x561360c7bac1 in main /tmp/t/oob.c:5:10\n\
    #1 0x7fd810c5d249 in __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16\n\
\n\
allocated by thread T0 here:\n\
    #0 0x561360c3b5cf in malloc (/tmp/t/oob+0xcb5cf) (BuildId: c7718878)\n\
    #1 0x561360c7ba68 in main /tmp/t/oob.c:3:12\n";
        let r = parse_report(text).unwrap();
        assert_eq!(r.error, MemoryError::Overflow);
        assert_eq!(
            r.frame,
            Some(Frame {
                file: "/tmp/t/oob.c".into(),
                line: 5,
                column: 10
            })
        );
    }

    /// The replay's own buffer for a pointer parameter may be smaller than the object the
    /// function expects: the report says whose object overflowed.
    #[test]
    fn an_overflow_of_a_replay_buffer_is_told_apart() {
        let text = "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x5\n\
WRITE of size 16384 at 0x5 thread T0\n\
    #0 0x1 in __asan_memset (/tmp/t/prog+0x1)\n\
    #1 0x2 in LZ4_resetStream_fast /tmp/t/lz4.c:880:13\n\
\n\
allocated by thread T0 here:\n\
    #0 0x3 in malloc (/tmp/t/prog+0x3)\n\
    #1 0x4 in polyfocus_entry_buffer /tmp/t/replay.c:293:35\n";
        let report = parse_report(text).expect("an overflow");
        assert!(report.in_entry_buffer);
        assert_eq!(report.frame.map(|f| f.line), Some(880));
    }

    #[test]
    fn skips_interceptor_frames_and_reads_faults() {
        let text = "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x5\n\
    #0 0x000000441ef2 in strlen (/tmp/t/leak+0x441ef2) (BuildId: cf88)\n\
    #1 0x000000509d1d in main /tmp/t/leak.c:14:24\n";
        let r = parse_report(text).unwrap();
        assert_eq!(r.frame.unwrap().line, 14);
        let text = "==2==ERROR: AddressSanitizer: SEGV on unknown address 0x00000000 (pc 0x08142794 bp 0xfff411a8 sp 0xfff41120 T0)\n\
==2==Hint: address points to the zero page.\n\
    #0 0x08142794 in main /tmp/t/leak.c:11:32\n";
        assert_eq!(parse_report(text).unwrap().error, MemoryError::NullDeref);
        let text = "==2==ERROR: AddressSanitizer: SEGV on unknown address 0x7f0000001000 (pc 0x1 T0)\n    #0 0x1 in f /t.c:2:3\n";
        assert_eq!(parse_report(text).unwrap().error, MemoryError::WildDeref);
        let text = "==4==ERROR: AddressSanitizer: SEGV on unknown address (pc 0x1 bp 0x2 sp 0x3 T0)\n\
==4==Hint: this fault was caused by a dereference of a high value address (see register values below).\n\
    #0 0x1 in length /t.c:8:12\n";
        assert_eq!(parse_report(text).unwrap().error, MemoryError::WildDeref);
        assert_eq!(
            parse_report("==3==ERROR: AddressSanitizer: stack-overflow on address 0x1\n"),
            None
        );
        assert_eq!(parse_report("no report\n"), None);
    }

    #[test]
    fn reads_every_leaked_object_allocation_place() {
        let text = "==9==ERROR: LeakSanitizer: detected memory leaks\n\
\n\
Direct leak of 24 byte(s) in 1 object(s) allocated from:\n\
    #0 0x4c0 in malloc (/tmp/t/l+0x4c0) (BuildId: 12)\n\
    #1 0x4d0 in make /tmp/t/l.c:4:10\n\
    #2 0x4e0 in main /tmp/t/l.c:9:3\n\
\n\
Indirect leak of 8 byte(s) in 1 object(s) allocated from:\n\
    #0 0x4c0 in malloc (/tmp/t/l+0x4c0) (BuildId: 12)\n\
    #1 0x4f0 in main /tmp/t/l.c:11:12\n\
\n\
SUMMARY: AddressSanitizer: 32 byte(s) leaked in 2 allocation(s).\n";
        let r = parse_report(text).unwrap();
        assert_eq!(r.error, MemoryError::Leak);
        let lines: Vec<u32> = r.leaks.iter().map(|f| f.line).collect();
        assert_eq!(lines, [4, 11]);
        assert_eq!(r.frame.unwrap().line, 4);
    }

    #[test]
    fn kinds_confirm_their_checks_only() {
        let oob = CheckKind::OutOfBounds {
            access: "read of 4 bytes".into(),
        };
        assert!(MemoryError::Overflow.confirms(&oob));
        assert!(!MemoryError::UseAfterFree.confirms(&oob));
        assert!(MemoryError::DoubleFree.confirms(&CheckKind::InvalidFree));
        assert!(!MemoryError::Leak.confirms(&CheckKind::InvalidFree));
        assert!(MemoryError::Leak.confirms(&CheckKind::Leak));
        let uninit = CheckKind::UninitPointer {
            access: "read of 1 byte".into(),
        };
        assert!(MemoryError::WildDeref.confirms(&uninit));
        assert!(!MemoryError::Overflow.confirms(&uninit));
    }
}
