/* replay.c: the replay runtime of polyfocus counterexamples.
 *
 * Linked with the ORIGINAL program (compiled natively), it defines every input and
 * error function of the conventions polyfocus understands, so that an execution chosen by
 * the analyzer can be run for real:
 *
 *   - nondet functions (__VERIFIER_nondet_*, polyfocus_nondet_*, __ikos_nondet_*, ...)
 *     serve the recorded values in order; in strict mode an extra request prints
 *     "POLYFOCUS-EXTRA-INPUT" and exits with status 98;
 *   - error functions (reach_error, __VERIFIER_error, __assert_fail, failed
 *     polyfocus_assert / __ikos_assert / __VERIFIER_assert ...) print
 *     "POLYFOCUS-ERROR-REACHED" and exit with status 97;
 *   - scanf's integer conversions are inputs too (served under the name "scanf");
 *   - assumption functions end the execution normally (status 0) when their condition
 *     is false; abort() and exit() are the C library's: they are not errors.
 *
 * Where the values come from:
 *   - POLYFOCUS_BAKED_COUNT defined (standalone harness): the array
 *     polyfocus_baked_values[] defined before this text, strict mode;
 *   - otherwise the environment: POLYFOCUS_REPLAY_INPUTS names a file of decimal values
 *     (two's complement bits, one per line); POLYFOCUS_REPLAY_POLICY is unset (strict),
 *     "const:V" (serve V once the recorded values are used up) or "random:SEED";
 *     POLYFOCUS_REPLAY_DICT is a file of interesting values for the random policy;
 *     POLYFOCUS_REPLAY_LOG names a file that receives "name width value" per served value.
 *
 * When a definition in the program has the name of an error function (SV-COMP tasks usually
 * define reach_error themselves), polyfocus weakens the program's symbol with objcopy so
 * that this one is used: calling it is the event. Every other function here is a convention
 * only when the program does not define it (nondet, assertion and assumption functions), so
 * it is weak here: the program's own definition is the program's function and wins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POLYFOCUS_EXIT_ERROR 97
#define POLYFOCUS_EXIT_EXTRA 98

#ifndef POLYFOCUS_BAKED_COUNT
static unsigned long long *polyfocus_values;
static size_t polyfocus_count;
#endif
static size_t polyfocus_next;
static int polyfocus_loaded;
static FILE *polyfocus_log;
static int polyfocus_policy; /* 0 strict, 1 const, 2 random */
static unsigned long long polyfocus_const;
static unsigned long long polyfocus_rng = 0x9e3779b97f4a7c15ULL;
static unsigned long long *polyfocus_dict;
static size_t polyfocus_dict_len;

static unsigned long long *polyfocus_read_values(const char *path, size_t *count) {
    unsigned long long *res = NULL;
    size_t n = 0, cap = 0;
    char line[128];
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    while (fgets(line, sizeof line, f)) {
        char *end;
        unsigned long long v;
        if (line[0] == '\n' || line[0] == '#')
            continue;
        if (line[0] == '-')
            v = (unsigned long long)strtoll(line, &end, 10);
        else
            v = strtoull(line, &end, 10);
        if (end == line)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            res = (unsigned long long *)realloc(res, cap * sizeof *res);
            if (!res)
                abort();
        }
        res[n++] = v;
    }
    fclose(f);
    *count = n;
    return res;
}

static void polyfocus_load(void) {
    if (polyfocus_loaded)
        return;
    polyfocus_loaded = 1;
#ifndef POLYFOCUS_BAKED_COUNT
    const char *inputs = getenv("POLYFOCUS_REPLAY_INPUTS");
    const char *policy = getenv("POLYFOCUS_REPLAY_POLICY");
    const char *log = getenv("POLYFOCUS_REPLAY_LOG");
    const char *dict = getenv("POLYFOCUS_REPLAY_DICT");
    if (inputs && *inputs)
        polyfocus_values = polyfocus_read_values(inputs, &polyfocus_count);
    if (policy && strncmp(policy, "const:", 6) == 0) {
        polyfocus_policy = 1;
        polyfocus_const = policy[6] == '-' ? (unsigned long long)strtoll(policy + 6, NULL, 10)
                                           : strtoull(policy + 6, NULL, 10);
    } else if (policy && strncmp(policy, "random:", 7) == 0) {
        polyfocus_policy = 2;
        polyfocus_rng ^= strtoull(policy + 7, NULL, 10) * 0xbf58476d1ce4e5b9ULL;
    }
    if (dict && *dict)
        polyfocus_dict = polyfocus_read_values(dict, &polyfocus_dict_len);
    if (log && *log)
        polyfocus_log = fopen(log, "w");
#endif
}

#ifndef POLYFOCUS_BAKED_COUNT
#include <signal.h>
#include <sys/resource.h>
/* Declared here: <sys/prctl.h> pulls in the kernel's <asm/types.h>, which the 32-bit
 * build (-m32) of Debian's headers does not have. */
extern int prctl(int option, ...);
#define POLYFOCUS_PR_SET_PDEATHSIG 1
/* Run by polyfocus (POLYFOCUS_REPLAY_PARENT names its pid), the replay limits its own
 * address space to 2 GiB, a guard against runaway allocation, and asks the kernel to kill
 * it when the thread that started it ends, so that a polyfocus killed by SIGKILL leaves no
 * replay running. polyfocus starts it with posix_spawn, which cannot run such a hook in the
 * child before exec (fork could, at the price of copying polyfocus's page tables). A parent
 * that died before the request was made is seen by the parent id, which then changed. */
__attribute__((constructor)) static void polyfocus_guard(void) {
    const char *parent = getenv("POLYFOCUS_REPLAY_PARENT");
    if (!parent || !*parent)
        return;
    struct rlimit lim;
    lim.rlim_cur = (rlim_t)2 << 30;
    lim.rlim_max = (rlim_t)2 << 30;
    setrlimit(RLIMIT_AS, &lim);
    prctl(POLYFOCUS_PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if ((long)getppid() != strtol(parent, NULL, 10))
        raise(SIGKILL);
}
#endif

static unsigned long long polyfocus_random(void) {
    /* splitmix64 */
    unsigned long long z = (polyfocus_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned long long polyfocus_invent(unsigned width) {
    static const long long boundary[] = {0, 1, -1, 2, 3, 4, 7, 8, 10, 16, 100, 127, 128, 255, 256,
                                         1000, 1024, 32767, 65535, 65536, 2147483647LL,
                                         -2147483647LL - 1, 4294967295LL};
    unsigned long long r;
    if (polyfocus_policy == 1)
        return polyfocus_const;
    r = polyfocus_random();
    switch (r % 8) {
    case 0:
    case 1:
        return (unsigned long long)((long long)((r >> 8) % 33) - 16);
    case 2:
    case 3:
        if (polyfocus_dict_len)
            return polyfocus_dict[(r >> 8) % polyfocus_dict_len];
        /* fall through */
    case 4:
        return (unsigned long long)boundary[(r >> 8) % (sizeof boundary / sizeof boundary[0])];
    case 5:
        return (r >> 8) % 2000;
    default:
        (void)width;
        return polyfocus_random();
    }
}

static unsigned long long polyfocus_mask(unsigned long long v, unsigned width) {
    return width >= 64 ? v : v & ((1ULL << width) - 1);
}

/* The next input value, as the low `width` bits of the result. */
unsigned long long polyfocus_replay_next(const char *name, unsigned width) {
    unsigned long long v;
    polyfocus_load();
#ifdef POLYFOCUS_BAKED_COUNT
    if (polyfocus_next < (size_t)POLYFOCUS_BAKED_COUNT) {
        v = polyfocus_baked_values[polyfocus_next++];
    }
#else
    if (polyfocus_next < polyfocus_count) {
        v = polyfocus_values[polyfocus_next++];
    }
#endif
    else if (polyfocus_policy == 0) {
        fprintf(stderr, "POLYFOCUS-EXTRA-INPUT: %s requested input #%lu beyond the recorded ones\n",
                name, (unsigned long)polyfocus_next + 1);
        fflush(NULL);
        _exit(POLYFOCUS_EXIT_EXTRA);
    } else {
        v = polyfocus_invent(width);
        polyfocus_next++;
    }
    v = polyfocus_mask(v, width);
    if (polyfocus_log)
        fprintf(polyfocus_log, "%s %u %llu\n", name, width, v);
    return v;
}

#if !defined(POLYFOCUS_BAKED_COUNT) && defined(__GLIBC__)
#include <execinfo.h>
#define POLYFOCUS_HAVE_BACKTRACE 1
#endif

/* Reaching an error site. Outside the standalone harness, the return addresses of the
 * calls on the stack follow ("POLYFOCUS-FRAME 0x..."), so that polyfocus can tell which
 * error site of the source was reached. */
void polyfocus_replay_error(const char *how) {
    if (polyfocus_log)
        fclose(polyfocus_log);
    polyfocus_log = NULL;
    fprintf(stderr, "POLYFOCUS-ERROR-REACHED (%s)\n", how);
#ifdef POLYFOCUS_HAVE_BACKTRACE
    {
        void *frames[64];
        int i, n = backtrace(frames, 64);
        for (i = 0; i < n; i++)
            fprintf(stderr, "POLYFOCUS-FRAME %p\n", frames[i]);
    }
#endif
    fflush(NULL);
    _exit(POLYFOCUS_EXIT_ERROR);
}

/* Runtime errors (polyfocus --checks overflow,div,shift). The program is compiled with
 * -fsanitize=signed-integer-overflow,integer-divide-by-zero,shift-exponent,bounds and
 * -fno-sanitize-recover=all but linked WITHOUT the sanitizer runtime: the definitions below
 * are the handlers clang calls. Each prints the kind and the source location clang recorded
 * for the operation ("POLYFOCUS-RUNTIME-ERROR overflow t.c:3:13") and exits with status 96,
 * so that polyfocus can tell which operation misbehaved; no sanitizer runtime is needed,
 * for LP64 and ILP32 alike. The layouts are UBSan's stable ABI: every data record starts
 * with the source location, and a value of a type wider than a pointer is passed by
 * address. */
#define POLYFOCUS_EXIT_RUNTIME 96

struct polyfocus_source_location {
    const char *file;
    unsigned int line;
    unsigned int column;
};

struct polyfocus_type_descriptor {
    unsigned short kind;
    unsigned short info;
    char name[1];
};

struct polyfocus_overflow_data {
    struct polyfocus_source_location loc;
    const struct polyfocus_type_descriptor *type;
};

static void polyfocus_runtime_error(const char *kind, const void *data) {
    const struct polyfocus_source_location *loc = (const struct polyfocus_source_location *)data;
    if (polyfocus_log)
        fclose(polyfocus_log);
    polyfocus_log = NULL;
    fprintf(stderr, "POLYFOCUS-RUNTIME-ERROR %s %s:%u:%u\n", kind,
            loc->file ? loc->file : "<unknown>", loc->line, loc->column);
    fflush(NULL);
    _exit(POLYFOCUS_EXIT_RUNTIME);
}

/* Whether the integer value handle `value` of type `type` is zero. */
static int polyfocus_value_is_zero(const struct polyfocus_type_descriptor *type, void *value) {
    unsigned bits = 1u << (type->info >> 1);
    if (bits <= 8 * sizeof(void *)) {
        unsigned long long v = (unsigned long long)(size_t)value;
        if (bits < 64)
            v &= (1ULL << bits) - 1;
        return v == 0;
    } else {
        const unsigned char *p = (const unsigned char *)value;
        unsigned i;
        for (i = 0; i < bits / 8; i++)
            if (p[i])
                return 0;
        return 1;
    }
}

void __ubsan_handle_add_overflow_abort(void *data, void *lhs, void *rhs) {
    polyfocus_runtime_error("overflow", data);
}
void __ubsan_handle_sub_overflow_abort(void *data, void *lhs, void *rhs) {
    polyfocus_runtime_error("overflow", data);
}
void __ubsan_handle_mul_overflow_abort(void *data, void *lhs, void *rhs) {
    polyfocus_runtime_error("overflow", data);
}
void __ubsan_handle_negate_overflow_abort(void *data, void *old) {
    polyfocus_runtime_error("overflow", data);
}
void __ubsan_handle_divrem_overflow_abort(void *data, void *lhs, void *rhs) {
    const struct polyfocus_overflow_data *d = (const struct polyfocus_overflow_data *)data;
    polyfocus_runtime_error(polyfocus_value_is_zero(d->type, rhs) ? "div" : "overflow", data);
}
void __ubsan_handle_shift_out_of_bounds_abort(void *data, void *lhs, void *rhs) {
    polyfocus_runtime_error("shift", data);
}
void __ubsan_handle_out_of_bounds_abort(void *data, void *index) {
    polyfocus_runtime_error("bounds", data);
}

/* A failed assumption: the execution ends without error. */
static void polyfocus_replay_stop(void) {
    if (polyfocus_log)
        fclose(polyfocus_log);
    polyfocus_log = NULL;
    fflush(NULL);
    _exit(0);
}

/* Error functions. */
void reach_error(void) { polyfocus_replay_error("reach_error"); }
void __VERIFIER_error(void) { polyfocus_replay_error("__VERIFIER_error"); }
/* The arguments are not read: some programs declare and call __assert_fail() without any
 * (PAGAI's header). */
void __assert_fail(const char *assertion, const char *file, unsigned int line,
                   const char *function) {
    (void)assertion, (void)file, (void)line, (void)function;
    polyfocus_replay_error("__assert_fail");
}
void __assert_perror_fail(int errnum, const char *file, unsigned int line, const char *function) {
    (void)errnum, (void)file, (void)line, (void)function;
    polyfocus_replay_error("__assert_perror_fail");
}
void __assert(const char *assertion, const char *file, int line) {
    (void)assertion, (void)file, (void)line;
    polyfocus_replay_error("__assert");
}
void __assert_rtn(const char *function, const char *file, int line, const char *assertion) {
    (void)function, (void)file, (void)line, (void)assertion;
    polyfocus_replay_error("__assert_rtn");
}

/* Assertion functions. */
__attribute__((weak)) void polyfocus_assert(int cond) {
    if (!cond)
        polyfocus_replay_error("polyfocus_assert");
}
__attribute__((weak)) void __ikos_assert(int cond) {
    if (!cond)
        polyfocus_replay_error("__ikos_assert");
}
__attribute__((weak)) void __VERIFIER_assert(int cond) {
    if (!cond)
        polyfocus_replay_error("__VERIFIER_assert");
}
__attribute__((weak)) void assert(int cond) {
    if (!cond)
        polyfocus_replay_error("assert");
}

/* Assumption functions. */
__attribute__((weak)) void __VERIFIER_assume(int cond) {
    if (!cond)
        polyfocus_replay_stop();
}
__attribute__((weak)) void polyfocus_assume(int cond) {
    if (!cond)
        polyfocus_replay_stop();
}
__attribute__((weak)) void assume(int cond) {
    if (!cond)
        polyfocus_replay_stop();
}
__attribute__((weak)) void assume_abort_if_not(int cond) {
    if (!cond)
        polyfocus_replay_stop();
}
__attribute__((weak)) void __VERIFIER_assume_abort_if_not(int cond) {
    if (!cond)
        polyfocus_replay_stop();
}

/* Ends of paths that are not C library functions. */
__attribute__((weak)) void __VERIFIER_silent_exit(int status) {
    (void)status;
    polyfocus_replay_stop();
}
__attribute__((weak)) void __assumption_declared(void) { polyfocus_replay_stop(); }

/* Nondet functions of integer types. */
#define POLYFOCUS_NONDET(type, name) \
    __attribute__((weak)) type name(void) { return (type)polyfocus_replay_next(#name, 8 * sizeof(type)); }
#define POLYFOCUS_NONDET_BOOL(name) \
    __attribute__((weak)) _Bool name(void) { return (_Bool)polyfocus_replay_next(#name, 1); }

POLYFOCUS_NONDET(int, __VERIFIER_nondet_int)
POLYFOCUS_NONDET(unsigned int, __VERIFIER_nondet_uint)
POLYFOCUS_NONDET(unsigned int, __VERIFIER_nondet_unsigned)
POLYFOCUS_NONDET(long, __VERIFIER_nondet_long)
POLYFOCUS_NONDET(unsigned long, __VERIFIER_nondet_ulong)
POLYFOCUS_NONDET(long long, __VERIFIER_nondet_longlong)
POLYFOCUS_NONDET(unsigned long long, __VERIFIER_nondet_ulonglong)
POLYFOCUS_NONDET(char, __VERIFIER_nondet_char)
POLYFOCUS_NONDET(unsigned char, __VERIFIER_nondet_uchar)
POLYFOCUS_NONDET(short, __VERIFIER_nondet_short)
POLYFOCUS_NONDET(unsigned short, __VERIFIER_nondet_ushort)
POLYFOCUS_NONDET(unsigned long, __VERIFIER_nondet_size_t)
POLYFOCUS_NONDET(unsigned int, __VERIFIER_nondet_u32)
POLYFOCUS_NONDET(unsigned short, __VERIFIER_nondet_u16)
POLYFOCUS_NONDET(unsigned char, __VERIFIER_nondet_u8)
POLYFOCUS_NONDET(long, __VERIFIER_nondet_loff_t)
POLYFOCUS_NONDET_BOOL(__VERIFIER_nondet_bool)
POLYFOCUS_NONDET(int, polyfocus_nondet_int)
POLYFOCUS_NONDET(unsigned int, polyfocus_nondet_uint)
POLYFOCUS_NONDET(long, polyfocus_nondet_long)
POLYFOCUS_NONDET(unsigned long, polyfocus_nondet_ulong)
POLYFOCUS_NONDET(char, polyfocus_nondet_char)
POLYFOCUS_NONDET(unsigned char, polyfocus_nondet_uchar)
POLYFOCUS_NONDET(short, polyfocus_nondet_short)
POLYFOCUS_NONDET(unsigned short, polyfocus_nondet_ushort)
POLYFOCUS_NONDET_BOOL(polyfocus_nondet_bool)
POLYFOCUS_NONDET(int, __ikos_nondet_int)
POLYFOCUS_NONDET(unsigned int, __ikos_nondet_uint)

/* scanf: the numbers a program reads from its standard input are inputs like nondet values
 * (served in order under the name "scanf"), so that a replay follows the analyzed path
 * whatever the standard input holds. Integer conversions (d i u o x X c, with the length
 * modifiers hh h l ll j z t, and assignment suppression `*`) are served; at any other
 * conversion (strings, floats, pointers, %n) it stops as a scanf whose input did not
 * match does, returning the number of values assigned so far. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
static int polyfocus_vscanf(const char *format, va_list ap) {
    int assigned = 0;
    const char *p = format;
    while (*p) {
        int suppress = 0, length = 0; /* -2 hh, -1 h, 0 int, 1 l, 2 ll, 3 j, 4 z, 5 t */
        unsigned long long v;
        if (*p != '%') {
            p++;
            continue;
        }
        p++;
        if (*p == '%') {
            p++;
            continue;
        }
        if (*p == '*') {
            suppress = 1;
            p++;
        }
        while (*p >= '0' && *p <= '9')
            p++;
        if (p[0] == 'h' && p[1] == 'h') {
            length = -2;
            p += 2;
        } else if (p[0] == 'h') {
            length = -1;
            p++;
        } else if (p[0] == 'l' && p[1] == 'l') {
            length = 2;
            p += 2;
        } else if (p[0] == 'l' || p[0] == 'L' || p[0] == 'q') {
            length = 1;
            p++;
        } else if (p[0] == 'j') {
            length = 3;
            p++;
        } else if (p[0] == 'z') {
            length = 4;
            p++;
        } else if (p[0] == 't') {
            length = 5;
            p++;
        }
        switch (*p) {
        case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': case 'c': {
            unsigned width;
            if (*p == 'c')
                width = 8 * (unsigned)sizeof(char);
            else if (length == -2)
                width = 8 * (unsigned)sizeof(char);
            else if (length == -1)
                width = 8 * (unsigned)sizeof(short);
            else if (length == 1)
                width = 8 * (unsigned)sizeof(long);
            else if (length == 2)
                width = 8 * (unsigned)sizeof(long long);
            else if (length == 3)
                width = 8 * (unsigned)sizeof(intmax_t);
            else if (length == 4)
                width = 8 * (unsigned)sizeof(size_t);
            else if (length == 5)
                width = 8 * (unsigned)sizeof(ptrdiff_t);
            else
                width = 8 * (unsigned)sizeof(int);
            v = polyfocus_replay_next("scanf", width);
            if (!suppress) {
                void *dest = va_arg(ap, void *);
                switch (width) {
                case 8: *(unsigned char *)dest = (unsigned char)v; break;
                case 16: *(unsigned short *)dest = (unsigned short)v; break;
                case 32: *(unsigned int *)dest = (unsigned int)v; break;
                default: *(unsigned long long *)dest = v; break;
                }
                assigned++;
            }
            p++;
            break;
        }
        default:
            return assigned;
        }
    }
    return assigned;
}
/* Both symbols, under names of our own: glibc's <stdio.h> maps `scanf` to
 * `__isoc99_scanf`, and a program compiled in another mode calls `scanf`. */
int polyfocus_scanf(const char *format, ...) __asm__("scanf");
int polyfocus_isoc99_scanf(const char *format, ...) __asm__("__isoc99_scanf");
int polyfocus_scanf(const char *format, ...) {
    va_list ap;
    int n;
    va_start(ap, format);
    n = polyfocus_vscanf(format, ap);
    va_end(ap);
    return n;
}
int polyfocus_isoc99_scanf(const char *format, ...) {
    va_list ap;
    int n;
    va_start(ap, format);
    n = polyfocus_vscanf(format, ap);
    va_end(ap);
    return n;
}

/* Nondet functions of other types: any value will do, none is recorded (the analysis does
 * not model them). */
__attribute__((weak)) float __VERIFIER_nondet_float(void) { return 0.0f; }
__attribute__((weak)) double __VERIFIER_nondet_double(void) { return 0.0; }
__attribute__((weak)) void *__VERIFIER_nondet_pointer(void) { return 0; }
