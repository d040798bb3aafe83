//! Names of the C standard library and POSIX, which a program cannot define in another
//! translation unit (they are reserved for the implementation).
//!
//! A call of an undefined function is either a call of the library or of code of the
//! program that was not given to polyfocus (another translation unit). The second may
//! write any global of the program with external linkage and call any of its externally
//! visible functions, by name; the library does neither, except through the pointers it is
//! passed (the functions whose address escapes are analyzed on their own, see `reach`) and
//! through the globals it owns (`optind`, `errno`, ...: [`is_library_global`]).
//! A function of [`INVOKES_CALLBACKS`] calls back program functions it was given, which
//! matters only when an error function itself escapes.

/// Whether `name` is a function of the C standard library or of POSIX (glibc's internal
/// names included), so that it cannot be program code from another translation unit.
pub fn is_library_function(name: &str) -> bool {
    LIBRARY.binary_search(&name).is_ok() || INVOKES_CALLBACKS.contains(&name) || is_math(name)
}

/// The range of the integer result of a call of the library function `name` with `n_args`
/// arguments, when the analysis knows one tighter than its type: the `scanf` family returns
/// `EOF` (-1) or the number of values it assigned, at most the number of pointers it was
/// given after its format (and its stream or string).
pub fn result_range(name: &str, n_args: usize) -> Option<(i128, i128)> {
    let fixed = match name {
        "scanf" | "__isoc99_scanf" => 1,
        "fscanf" | "__isoc99_fscanf" | "sscanf" | "__isoc99_sscanf" => 2,
        _ => return None,
    };
    Some((-1, n_args.saturating_sub(fixed) as i128))
}

/// Whether a library function may call a program function whose address it was given (or
/// registered earlier): `qsort`'s comparator, `atexit`'s handler, a signal handler, ...
pub fn invokes_callbacks(name: &str) -> bool {
    INVOKES_CALLBACKS.contains(&name)
}

/// Whether a global named `name` is one the library writes by name (`getopt` writes
/// `optind`): a program that defines it shares it with the library.
pub fn is_library_global(name: &str) -> bool {
    matches!(
        name,
        "optind"
            | "opterr"
            | "optopt"
            | "optarg"
            | "errno"
            | "environ"
            | "__environ"
            | "stdin"
            | "stdout"
            | "stderr"
            | "signgam"
            | "timezone"
            | "daylight"
            | "tzname"
            | "h_errno"
            | "program_invocation_name"
            | "program_invocation_short_name"
            | "__progname"
    )
}

/// Library functions that call program functions through pointers they are given.
pub const INVOKES_CALLBACKS: &[&str] = &[
    "qsort",
    "qsort_r",
    "bsearch",
    "lfind",
    "lsearch",
    "tsearch",
    "tfind",
    "tdelete",
    "twalk",
    "atexit",
    "at_quick_exit",
    "on_exit",
    "__cxa_atexit",
    "signal",
    "sigaction",
    "sigset",
    "bsd_signal",
    "raise",
    "kill",
    "pthread_create",
    "pthread_once",
    "pthread_atfork",
    "pthread_key_create",
    "thrd_create",
    "call_once",
    "ftw",
    "nftw",
    "scandir",
    "glob",
    "makecontext",
    "swapcontext",
    "setcontext",
    "dl_iterate_phdr",
    "fopencookie",
];

/// Math functions: the C names and their `f`/`l` variants.
pub(super) fn is_math(name: &str) -> bool {
    const MATH: &[&str] = &[
        "acos",
        "acosh",
        "asin",
        "asinh",
        "atan",
        "atan2",
        "atanh",
        "cbrt",
        "ceil",
        "copysign",
        "cos",
        "cosh",
        "erf",
        "erfc",
        "exp",
        "exp2",
        "expm1",
        "fabs",
        "fdim",
        "floor",
        "fma",
        "fmax",
        "fmin",
        "fmod",
        "frexp",
        "hypot",
        "ilogb",
        "ldexp",
        "lgamma",
        "llrint",
        "llround",
        "log",
        "log10",
        "log1p",
        "log2",
        "logb",
        "lrint",
        "lround",
        "modf",
        "nan",
        "nearbyint",
        "nextafter",
        "nexttoward",
        "pow",
        "remainder",
        "remquo",
        "rint",
        "round",
        "scalbln",
        "scalbn",
        "sin",
        "sinh",
        "sqrt",
        "tan",
        "tanh",
        "tgamma",
        "trunc",
    ];
    let base = |n: &str| MATH.contains(&n);
    base(name)
        || name.strip_suffix('f').is_some_and(base)
        || name.strip_suffix('l').is_some_and(base)
}

/// Sorted (checked by a test): [`is_library_function`] searches it.
const LIBRARY: &[&str] = &[
    "__ctype_b_loc",
    "__ctype_tolower_loc",
    "__ctype_toupper_loc",
    "__errno_location",
    "__isoc23_fscanf",
    "__isoc23_scanf",
    "__isoc23_sscanf",
    "__isoc23_strtol",
    "__isoc23_strtoll",
    "__isoc23_strtoul",
    "__isoc23_strtoull",
    "__isoc99_fscanf",
    "__isoc99_scanf",
    "__isoc99_sscanf",
    "__sigsetjmp",
    "__stack_chk_fail",
    "_longjmp",
    "_setjmp",
    "abs",
    "access",
    "aligned_alloc",
    "alloca",
    "asctime",
    "asctime_r",
    "asprintf",
    "atof",
    "atoi",
    "atol",
    "atoll",
    "bcmp",
    "bcopy",
    "bzero",
    "calloc",
    "chdir",
    "clearerr",
    "clock",
    "clock_gettime",
    "close",
    "ctime",
    "ctime_r",
    "difftime",
    "div",
    "dprintf",
    "dup",
    "dup2",
    "fclose",
    "fcntl",
    "fdopen",
    "feof",
    "ferror",
    "fflush",
    "fgetc",
    "fgets",
    "fileno",
    "fopen",
    "fopen64",
    "fork",
    "fprintf",
    "fputc",
    "fputs",
    "fputs_unlocked",
    "fread",
    "free",
    "freopen",
    "fscanf",
    "fseek",
    "fseeko",
    "fstat",
    "ftell",
    "ftello",
    "fwrite",
    "fwrite_unlocked",
    "getc",
    "getc_unlocked",
    "getchar",
    "getchar_unlocked",
    "getcwd",
    "getdelim",
    "getegid",
    "getenv",
    "geteuid",
    "getgid",
    "getline",
    "getopt",
    "getopt_long",
    "getpid",
    "getppid",
    "gets",
    "gettimeofday",
    "getuid",
    "gmtime",
    "gmtime_r",
    "isalnum",
    "isalpha",
    "isascii",
    "isatty",
    "isblank",
    "iscntrl",
    "isdigit",
    "isgraph",
    "islower",
    "isprint",
    "ispunct",
    "isspace",
    "isupper",
    "isxdigit",
    "labs",
    "ldiv",
    "llabs",
    "lldiv",
    "localtime",
    "localtime_r",
    "longjmp",
    "lseek",
    "lstat",
    "malloc",
    "memchr",
    "memcmp",
    "memcpy",
    "memmove",
    "memrchr",
    "memset",
    "mkdir",
    "mkstemp",
    "mktime",
    "nanosleep",
    "open",
    "perror",
    "pipe",
    "posix_memalign",
    "printf",
    "pthread_join",
    "pthread_mutex_destroy",
    "pthread_mutex_init",
    "pthread_mutex_lock",
    "pthread_mutex_unlock",
    "pthread_self",
    "putc",
    "putc_unlocked",
    "putchar",
    "putchar_unlocked",
    "puts",
    "rand",
    "rand_r",
    "random",
    "read",
    "realloc",
    "realpath",
    "remove",
    "rename",
    "rewind",
    "rmdir",
    "scanf",
    "setbuf",
    "setenv",
    "setjmp",
    "setlocale",
    "setvbuf",
    "siglongjmp",
    "sigsetjmp",
    "sleep",
    "snprintf",
    "sprintf",
    "srand",
    "srandom",
    "sscanf",
    "stat",
    "stpcpy",
    "stpncpy",
    "strcasecmp",
    "strcat",
    "strchr",
    "strcmp",
    "strcoll",
    "strcpy",
    "strcspn",
    "strdup",
    "strerror",
    "strerror_r",
    "strftime",
    "strlen",
    "strncasecmp",
    "strncat",
    "strncmp",
    "strncpy",
    "strndup",
    "strnlen",
    "strpbrk",
    "strrchr",
    "strsep",
    "strspn",
    "strstr",
    "strtod",
    "strtof",
    "strtoimax",
    "strtok",
    "strtok_r",
    "strtol",
    "strtold",
    "strtoll",
    "strtoul",
    "strtoull",
    "strtoumax",
    "strxfrm",
    "system",
    "time",
    "tmpfile",
    "tolower",
    "toupper",
    "ungetc",
    "unlink",
    "unsetenv",
    "usleep",
    "vasprintf",
    "vdprintf",
    "vfprintf",
    "vprintf",
    "vsnprintf",
    "vsprintf",
    "write",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scanf_returns_eof_or_at_most_its_pointers() {
        assert_eq!(result_range("__isoc99_scanf", 3), Some((-1, 2)));
        assert_eq!(result_range("sscanf", 3), Some((-1, 1)));
        assert_eq!(result_range("atoi", 1), None);
    }

    #[test]
    fn library_table_is_sorted() {
        assert!(
            LIBRARY.windows(2).all(|w| w[0] < w[1]),
            "LIBRARY must stay sorted"
        );
    }

    #[test]
    fn names() {
        assert!(is_library_function("printf"));
        assert!(is_library_function("sqrtf"));
        assert!(is_library_function("qsort"));
        assert!(invokes_callbacks("qsort"));
        assert!(!invokes_callbacks("printf"));
        assert!(!is_library_function("bump"));
        assert!(is_library_global("optind"));
    }
}
