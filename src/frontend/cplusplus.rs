//! Telling C++ input apart, so that it gets one clear error instead of clang's C errors.
//!
//! polyfocus reads C only (the lifter knows C's conventions, the replay builds C). A file is
//! C++ by its extension (`.cpp`, `.cc`, `.cxx`, `.c++`, `.C`, ...), or, for a `.c` file that
//! clang rejects as C, when its diagnostics name a C++ standard header (`'cassert' file not
//! found`) or when clang accepts it as C++ (`-x c++ -fsyntax-only`). The second compile runs
//! only after a failed one, so C input pays nothing.

use std::path::Path;
use std::process::Command;

/// Whether `path`'s extension is one clang reads as C++ (or a C++ header's).
pub fn has_cplusplus_extension(path: &Path) -> bool {
    let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
        return false;
    };
    // `.C` (upper case) is C++ for clang and GCC; `.c` is C.
    ext == "C"
        || matches!(
            ext.to_ascii_lowercase().as_str(),
            "cpp"
                | "cc"
                | "cxx"
                | "c++"
                | "cp"
                | "hpp"
                | "hh"
                | "hxx"
                | "h++"
                | "ii"
                | "ixx"
                | "cppm"
                | "mm"
        )
}

/// What shows that `source`, which clang failed to compile as C with `flags` (its
/// diagnostics are `stderr`), is C++: a C++ standard header it includes, or a compilation
/// as C++ that succeeds. `None` when it looks like broken C.
pub fn evidence(clang: &str, flags: &[String], source: &Path, stderr: &str) -> Option<String> {
    if let Some(header) = missing_cplusplus_header(stderr) {
        return Some(format!("it includes the C++ header <{header}>"));
    }
    compiles_as_cplusplus(clang, flags, source)
        .then(|| "clang compiles it as C++ but not as C".to_string())
}

/// The first header of the C++ standard library that clang reports as not found.
fn missing_cplusplus_header(stderr: &str) -> Option<&str> {
    stderr.lines().find_map(|line| {
        let (_, rest) = line.split_once("fatal error: '")?;
        let (header, tail) = rest.split_once('\'')?;
        (tail.starts_with(" file not found") && CPLUSPLUS_HEADERS.contains(&header))
            .then_some(header)
    })
}

/// Whether clang accepts `source` as C++ with the user's flags (C-only ones dropped).
fn compiles_as_cplusplus(clang: &str, flags: &[String], source: &Path) -> bool {
    let flags = flags.iter().filter(|f| !is_c_only_flag(f));
    Command::new(clang)
        .args(["-x", "c++", "-fsyntax-only", "-w"])
        .args(flags)
        .arg(source)
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Flags that clang rejects or reads differently in C++ mode (`-std=c99`, `-x c`).
fn is_c_only_flag(flag: &str) -> bool {
    flag.starts_with("-std=") || flag.starts_with("-x") || flag == "-ansi"
}

/// The headers of the C++ standard library (C++23), which have no `.h`.
const CPLUSPLUS_HEADERS: &[&str] = &[
    "algorithm",
    "any",
    "array",
    "atomic",
    "barrier",
    "bit",
    "bitset",
    "cassert",
    "cctype",
    "cerrno",
    "cfenv",
    "cfloat",
    "charconv",
    "chrono",
    "cinttypes",
    "climits",
    "clocale",
    "cmath",
    "codecvt",
    "compare",
    "complex",
    "concepts",
    "condition_variable",
    "coroutine",
    "csetjmp",
    "csignal",
    "cstdarg",
    "cstddef",
    "cstdint",
    "cstdio",
    "cstdlib",
    "cstring",
    "ctime",
    "cuchar",
    "cwchar",
    "cwctype",
    "deque",
    "exception",
    "execution",
    "expected",
    "filesystem",
    "format",
    "forward_list",
    "fstream",
    "functional",
    "future",
    "initializer_list",
    "iomanip",
    "ios",
    "iosfwd",
    "iostream",
    "istream",
    "iterator",
    "latch",
    "limits",
    "list",
    "locale",
    "map",
    "memory",
    "memory_resource",
    "mutex",
    "new",
    "numbers",
    "numeric",
    "optional",
    "ostream",
    "print",
    "queue",
    "random",
    "ranges",
    "ratio",
    "regex",
    "scoped_allocator",
    "semaphore",
    "set",
    "shared_mutex",
    "source_location",
    "span",
    "sstream",
    "stack",
    "stdexcept",
    "stop_token",
    "streambuf",
    "string",
    "string_view",
    "syncstream",
    "system_error",
    "thread",
    "tuple",
    "type_traits",
    "typeindex",
    "typeinfo",
    "unordered_map",
    "unordered_set",
    "utility",
    "valarray",
    "variant",
    "vector",
    "version",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions() {
        for c_plus_plus in ["a.cpp", "a.cc", "a.CXX", "a.c++", "a.C", "a.hpp"] {
            assert!(
                has_cplusplus_extension(Path::new(c_plus_plus)),
                "{c_plus_plus}"
            );
        }
        for c in ["a.c", "a.i", "a.h", "a.bc", "a.ll", "a"] {
            assert!(!has_cplusplus_extension(Path::new(c)), "{c}");
        }
    }

    #[test]
    fn a_missing_cplusplus_header_is_evidence() {
        let stderr =
            "t.c:1:10: fatal error: 'cassert' file not found\n    1 | #include <cassert>\n";
        assert_eq!(missing_cplusplus_header(stderr), Some("cassert"));
        let c_header = "t.c:1:10: fatal error: 'mylib.h' file not found\n";
        assert_eq!(missing_cplusplus_header(c_header), None);
    }
}
