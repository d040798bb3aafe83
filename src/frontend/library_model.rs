//! What a call of a C library or POSIX function does, as far as the analysis needs it: what
//! it may write of the program's memory and what its result can be.
//!
//! Each model over-approximates the real function (glibc on Linux, the platform of the
//! native replay): a model says where the function *may* write, and the result is bounded
//! only by what the standard (C or POSIX) guarantees, with glibc's values for what the
//! standard leaves to the implementation (`EOF` is -1, `RAND_MAX` is 2^31 - 1). What a
//! function writes is arbitrary afterwards. A library function without a model is a call of
//! code without a body: it may write everything other code may reach, and its result is any
//! value of its type. Either way the call is known code: no warning says its body is missing.
//!
//! Writes are those of the call itself: a function that keeps a pointer and writes through
//! it later (`setvbuf`'s buffer, `strtok`'s string) or that calls back the program has no
//! model. The objects of the library (streams, its internal state, the buffers of
//! `localtime` or `strerror`) are not the program's memory.
//!
//! The functions whose results are inputs of a program (`scanf`, `atoi`, `strtol`, `getenv`,
//! ...) are modeled elsewhere (the counterexample search serves them) and have no model here.

/// The effect of one library function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Model {
    /// What it may write of the program's memory.
    pub writes: Writes,
    /// What its result can be.
    pub result: ResultRange,
}

/// What a library function may write of the program's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writes {
    /// Nothing: it reads its arguments, or writes objects of the library only.
    Nothing,
    /// The objects its arguments at these positions point to, each within its object.
    Arguments(&'static [u32]),
    /// A `printf`-like function whose format is the argument at `format`: the objects of the
    /// arguments at `buffers`, and, unless the format is a constant string without a `%n`
    /// conversion, the objects of every pointer argument after the format (`%n` writes
    /// through one).
    Formatted {
        /// The position of the format.
        format: u32,
        /// The positions of the buffers it writes (`sprintf`'s first argument).
        buffers: &'static [u32],
    },
}

/// What a library function's integer result can be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultRange {
    /// Any value of its type.
    Any,
    /// Between `lo` and `hi` (both included), read as signed.
    Signed(i64, i64),
    /// At most the argument at this position, both read as unsigned (`fread`'s count).
    AtMostArgument(u32),
}

/// glibc's `EOF`.
const EOF: i64 = -1;
/// glibc's `RAND_MAX`.
const RAND_MAX: i64 = 2_147_483_647;
/// The largest `int`.
const INT_MAX: i64 = 2_147_483_647;

/// The model of the library function `name`, if it has one (only for a function the program
/// does not define: a program's own `strlen` is its code).
pub fn model(name: &str) -> Option<Model> {
    use ResultRange::{Any, AtMostArgument, Signed};
    use Writes::{Arguments, Formatted, Nothing};
    let (writes, result) = match name {
        // Reading strings and memory.
        "strlen" | "strcmp" | "strncmp" | "strcasecmp" | "strncasecmp" | "memcmp" | "bcmp"
        | "strcoll" | "strspn" | "strcspn" | "strchr" | "strrchr" | "strstr" | "memchr"
        | "memrchr" | "strpbrk" | "strdup" | "strndup" => (Nothing, Any),
        "strnlen" => (Nothing, AtMostArgument(1)),
        // Characters.
        "isalnum" | "isalpha" | "isascii" | "isblank" | "iscntrl" | "isdigit" | "isgraph"
        | "islower" | "isprint" | "ispunct" | "isspace" | "isupper" | "isxdigit" | "tolower"
        | "toupper" | "abs" | "labs" | "llabs" => (Nothing, Any),
        // Writing strings and memory into the first argument's object.
        "strcpy" | "strncpy" | "strcat" | "strncat" | "stpcpy" | "stpncpy" | "memcpy"
        | "memmove" | "memset" | "bzero" | "strxfrm" | "strftime" | "getcwd" | "mkstemp" => {
            (Arguments(&[0]), Any)
        }
        "bcopy" => (Arguments(&[1]), Any),
        // Formatted output.
        "printf" => (
            Formatted {
                format: 0,
                buffers: &[],
            },
            Any,
        ),
        "fprintf" | "dprintf" => (
            Formatted {
                format: 1,
                buffers: &[],
            },
            Any,
        ),
        "sprintf" | "asprintf" => (
            Formatted {
                format: 1,
                buffers: &[0],
            },
            Any,
        ),
        "snprintf" => (
            Formatted {
                format: 2,
                buffers: &[0],
            },
            Any,
        ),
        // Streams (the `FILE` objects are the library's).
        "putchar" | "fputc" | "putc" | "putchar_unlocked" | "putc_unlocked" | "fgetc" | "getc"
        | "getchar" | "getc_unlocked" | "getchar_unlocked" | "ungetc" => {
            (Nothing, Signed(EOF, 255))
        }
        "puts" | "fputs" | "fputs_unlocked" => (Nothing, Signed(EOF, INT_MAX)),
        "fclose" | "fflush" | "fseek" | "fseeko" => (Nothing, Signed(EOF, 0)),
        "fwrite" | "fwrite_unlocked" => (Nothing, AtMostArgument(2)),
        "fread" => (Arguments(&[0]), AtMostArgument(2)),
        "fgets" | "gets" => (Arguments(&[0]), Any),
        "feof" | "ferror" | "clearerr" | "fileno" | "ftell" | "ftello" | "rewind" | "fopen"
        | "fopen64" | "fdopen" | "freopen" | "tmpfile" | "perror" => (Nothing, Any),
        // Files and processes (POSIX: 0 on success, -1 on error).
        "remove" | "rename" | "unlink" | "rmdir" | "mkdir" | "chdir" | "access" | "usleep" => {
            (Nothing, Signed(-1, 0))
        }
        "close" | "dup" | "dup2" | "open" => (Nothing, Signed(-1, INT_MAX)),
        "write" | "lseek" => (Nothing, Signed(-1, i64::MAX)),
        "read" => (Arguments(&[1]), Signed(-1, i64::MAX)),
        "isatty" => (Nothing, Signed(0, 1)),
        "stat" | "lstat" | "fstat" | "clock_gettime" | "nanosleep" => {
            (Arguments(&[1]), Signed(-1, 0))
        }
        "pipe" => (Arguments(&[0]), Signed(-1, 0)),
        "gettimeofday" => (Arguments(&[0, 1]), Signed(-1, 0)),
        "realpath" => (Arguments(&[1]), Any),
        "sleep" => (Nothing, AtMostArgument(0)),
        "getpid" | "getppid" | "getuid" | "geteuid" | "getgid" | "getegid" | "clock"
        | "difftime" | "system" | "setlocale" | "free" | "strerror" | "localtime" | "gmtime"
        | "ctime" | "asctime" => (Nothing, Any),
        "mktime" => (Arguments(&[0]), Any),
        "time" => (Arguments(&[0]), Any),
        "localtime_r" | "gmtime_r" | "ctime_r" | "asctime_r" | "strerror_r" => {
            (Arguments(&[1]), Any)
        }
        // Allocation: a fresh object (its contents and liveness are set by the lifter, see
        // `lift::memory::allocation`); nothing the program had is written or freed.
        "malloc" | "calloc" | "aligned_alloc" => (Nothing, Any),
        // Pseudo-random numbers (the generator's state is the library's).
        "rand" | "random" => (Nothing, Signed(0, RAND_MAX)),
        "rand_r" => (Arguments(&[0]), Signed(0, RAND_MAX)),
        "srand" | "srandom" => (Nothing, Any),
        // Threads: 0 or an error number. A lock, an unlock or a join synchronizes with
        // other threads, whose writes it may make visible: it has no model, so its call
        // clobbers everything other code may reach.
        "pthread_mutex_init" | "pthread_mutex_destroy" => (Arguments(&[0]), Signed(0, INT_MAX)),
        "pthread_self" => (Nothing, Any),
        _ => return None,
    };
    Some(Model { writes, result })
}

/// Whether `name` allocates or frees memory: C11 orders these calls in one total order in
/// which each deallocation synchronizes with the next allocation, so another thread's
/// writes may be seen after one.
pub fn orders_allocations(name: &str) -> bool {
    matches!(
        name,
        "malloc"
            | "calloc"
            | "realloc"
            | "reallocarray"
            | "aligned_alloc"
            | "posix_memalign"
            | "memalign"
            | "valloc"
            | "free"
            | "strdup"
            | "strndup"
    )
}

/// Whether a `printf` format may write through an argument: it has a `%n` conversion (any
/// length modifier). Flags, width, precision and length are skipped; `%%` is a percent sign.
pub fn format_writes(format: &[u8]) -> bool {
    let mut i = 0;
    while i < format.len() {
        if format[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        // Argument position (`%1$n`), flags, width, precision, length modifiers.
        while i < format.len() && b"0123456789$-+ #'.*hlLqjztI".contains(&format[i]) {
            i += 1;
        }
        match format.get(i) {
            Some(b'n') => return true,
            Some(_) => i += 1,
            None => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_that_write() {
        assert!(!format_writes(b"%d %s %5.2f %%n %lld\n"));
        assert!(format_writes(b"abc%n"));
        assert!(format_writes(b"%s%hhn"));
        assert!(format_writes(b"%1$n"));
        assert!(!format_writes(b"100%"));
    }

    #[test]
    fn input_functions_have_no_model_here() {
        for name in [
            "scanf",
            "__isoc99_scanf",
            "atoi",
            "strtol",
            "strtoul",
            "getenv",
        ] {
            assert_eq!(model(name), None, "{name}");
        }
        assert_eq!(model("printf").map(|m| m.result), Some(ResultRange::Any));
        assert_eq!(
            model("getchar").map(|m| m.result),
            Some(ResultRange::Signed(-1, 255))
        );
    }

    #[test]
    fn every_model_is_of_a_library_function() {
        let names = [
            "strlen",
            "strnlen",
            "memcpy",
            "printf",
            "snprintf",
            "fread",
            "putchar",
            "puts",
            "rand",
            "time",
            "sleep",
            "pthread_self",
            "localtime_r",
            "isatty",
        ];
        for name in names {
            assert!(model(name).is_some(), "{name}");
            assert!(super::super::library::is_library_function(name), "{name}");
        }
    }
}
