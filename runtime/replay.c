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
 *   - what a program reads from outside is an input too: the result of scanf and its
 *     integer conversions, the text of the command-line arguments (each the decimal text
 *     of a value, "argv[i]") and the values of environment variables ("getenv(NAME)");
 *   - the results of atoi, atol, atoll, strtol, strtoll, strtoul and strtoull are computed
 *     by the C library and logged as observations ("=name width value"), so that the trace
 *     shows what the program parsed;
 *   - assumption functions end the execution normally (status 0) when their condition
 *     is false; abort() and exit() are the C library's: they are not errors.
 *
 * Where the values come from:
 *   - POLYFOCUS_BAKED_COUNT defined (standalone harness): the array
 *     polyfocus_baked_values[] defined before this text, strict mode; the command line is
 *     the one the harness is run with;
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

/* The C library's parsers under their internal names: the runtime defines strtol and its
 * kin for the program (to log what they return) and must not log its own parsing. */
extern long __strtol_internal(const char *, char **, int, int);
extern unsigned long __strtoul_internal(const char *, char **, int, int);
extern long long __strtoll_internal(const char *, char **, int, int);
extern unsigned long long __strtoull_internal(const char *, char **, int, int);
extern char **environ;

/* The value of an environment variable, read from `environ`: the runtime defines getenv
 * for the program. */
static const char *polyfocus_env(const char *name) {
    size_t n = strlen(name);
    char **e;
    for (e = environ; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static unsigned long long polyfocus_parse(const char *text, char **end) {
    if (text[0] == '-')
        return (unsigned long long)__strtoll_internal(text, end, 10, 0);
    return __strtoull_internal(text, end, 10, 0);
}

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
        v = polyfocus_parse(line, &end);
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
    const char *inputs = polyfocus_env("POLYFOCUS_REPLAY_INPUTS");
    const char *policy = polyfocus_env("POLYFOCUS_REPLAY_POLICY");
    const char *log = polyfocus_env("POLYFOCUS_REPLAY_LOG");
    const char *dict = polyfocus_env("POLYFOCUS_REPLAY_DICT");
    if (inputs && *inputs)
        polyfocus_values = polyfocus_read_values(inputs, &polyfocus_count);
    if (policy && strncmp(policy, "const:", 6) == 0) {
        polyfocus_policy = 1;
        polyfocus_const = polyfocus_parse(policy + 6, NULL);
    } else if (policy && strncmp(policy, "random:", 7) == 0) {
        polyfocus_policy = 2;
        polyfocus_rng ^= polyfocus_parse(policy + 7, NULL) * 0xbf58476d1ce4e5b9ULL;
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
    const char *parent = polyfocus_env("POLYFOCUS_REPLAY_PARENT");
    if (!parent || !*parent)
        return;
#ifndef POLYFOCUS_ASAN
    /* Not under the address sanitizer, whose shadow memory alone takes terabytes of address
     * space: its own limits stop the run instead (ASAN_OPTIONS). */
    struct rlimit lim;
    lim.rlim_cur = (rlim_t)2 << 30;
    lim.rlim_max = (rlim_t)2 << 30;
    setrlimit(RLIMIT_AS, &lim);
#endif
    prctl(POLYFOCUS_PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if ((long)getppid() != __strtol_internal(parent, NULL, 10, 0))
        raise(SIGKILL);
}
#endif

#ifdef POLYFOCUS_ASAN
/* The address sanitizer ends a run on a memory error (or a leak at exit) without flushing
 * stdio: the log of served values must be complete all the same, or the run would look as
 * if it had asked for no input. */
extern void __sanitizer_set_death_callback(void (*callback)(void));
static void polyfocus_flush_log(void) {
    if (polyfocus_log)
        fflush(polyfocus_log);
}
__attribute__((constructor)) static void polyfocus_flush_at_death(void) {
    __sanitizer_set_death_callback(polyfocus_flush_log);
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

/* A value the program computed from its inputs through the C library (what atoi parsed),
 * logged as "=name width value" for the trace; never served. */
static void polyfocus_observe(const char *name, unsigned width, unsigned long long v) {
    polyfocus_load();
    if (polyfocus_log)
        fprintf(polyfocus_log, "=%s %u %llu\n", name, width, polyfocus_mask(v, width));
}

/* The next input, or the value `fallback` when it is outside [lo, hi] (as signed values of
 * `width` bits); the value returned is the one logged, so that a strict replay of the log
 * serves exactly what this run used. */
static long long polyfocus_replay_next_in(const char *name, unsigned width, long long lo,
                                          long long hi, long long fallback) {
    unsigned long long bits;
    long long v;
    FILE *log = polyfocus_log;
    polyfocus_load();
    log = polyfocus_log;
    polyfocus_log = NULL;
    bits = polyfocus_replay_next(name, width);
    polyfocus_log = log;
    v = width >= 64 ? (long long)bits
                    : (long long)(bits << (64 - width)) >> (64 - width);
    if (v < lo || v > hi)
        v = fallback;
    if (polyfocus_log)
        fprintf(polyfocus_log, "%s %u %llu\n", name, width,
                polyfocus_mask((unsigned long long)v, width));
    return v;
}

/* The buffer a driver passes for a pointer parameter of an entry: `size` bytes between
 * 64 KiB guards, so that an access just outside it (an off-by-one, a negative index) faults
 * instead of reading another object, which would make the run an execution the program as
 * written does not have. Its contents are 64-bit inputs named `name`. */
#include <sys/mman.h>
void *polyfocus_entry_buffer(const char *name) {
    const unsigned long guard = 1UL << 16, size = 4096UL;
    unsigned long long *words;
    unsigned long i;
#ifdef POLYFOCUS_ASAN
    /* Under the address sanitizer a heap block: an access just outside it is reported as
     * the overflow it is, at the access. */
    (void)guard;
    words = (unsigned long long *)malloc(size);
    if (!words)
        abort();
#else
    unsigned char *base = (unsigned char *)mmap(0, 2 * guard + size, PROT_READ | PROT_WRITE,
                                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == (unsigned char *)MAP_FAILED || mprotect(base, guard, PROT_NONE) != 0 ||
        mprotect(base + guard + size, guard, PROT_NONE) != 0)
        abort();
    words = (unsigned long long *)(base + guard);
#endif
    for (i = 0; i < size / 8; i++)
        words[i] = polyfocus_replay_next(name, 64);
    return words;
}

#ifndef POLYFOCUS_BAKED_COUNT
/* The command line's arguments are inputs: run by polyfocus, each argument after the
 * program's path is replaced, before main runs, by the decimal text of the input "argv[i]"
 * (served in order, before any other input). glibc passes argc and argv to constructors.
 * A standalone harness is run with the arguments written out instead. */
__attribute__((constructor)) static void polyfocus_command_line(int argc, char **argv) {
    int i;
    if (!polyfocus_env("POLYFOCUS_REPLAY_INPUTS") || argc < 2 || !argv)
        return;
    for (i = 1; i < argc && argv[i]; i++) {
        char name[32], text[32];
        snprintf(name, sizeof name, "argv[%d]", i);
        snprintf(text, sizeof text, "%lld", (long long)polyfocus_replay_next(name, 64));
        argv[i] = strdup(text);
        if (!argv[i])
            abort();
    }
}
#endif

/* getenv: the value of every variable the program asks for is an input named
 * "getenv(NAME)": 0 is an unset variable (a null result), any other value its decimal text.
 * The runtime's own settings are read from `environ` (polyfocus_env). */
char *polyfocus_getenv(const char *name) __asm__("getenv");
char *polyfocus_getenv(const char *name) {
    static char texts[16][32];
    static unsigned next_text;
    char label[96];
    long long v;
    char *text;
    snprintf(label, sizeof label, "getenv(%.80s)", name ? name : "");
    v = (long long)polyfocus_replay_next(label, 64);
    if (v == 0)
        return NULL;
    text = texts[next_text++ % 16];
    snprintf(text, 32, "%lld", v);
    return text;
}

/* The C library's number parsers, computed by the C library and observed. */
long polyfocus_strtol(const char *s, char **end, int base) __asm__("strtol");
long polyfocus_strtol(const char *s, char **end, int base) {
    long v = __strtol_internal(s, end, base, 0);
    polyfocus_observe("strtol", 8 * sizeof(long), (unsigned long long)v);
    return v;
}
unsigned long polyfocus_strtoul(const char *s, char **end, int base) __asm__("strtoul");
unsigned long polyfocus_strtoul(const char *s, char **end, int base) {
    unsigned long v = __strtoul_internal(s, end, base, 0);
    polyfocus_observe("strtoul", 8 * sizeof(long), v);
    return v;
}
long long polyfocus_strtoll(const char *s, char **end, int base) __asm__("strtoll");
long long polyfocus_strtoll(const char *s, char **end, int base) {
    long long v = __strtoll_internal(s, end, base, 0);
    polyfocus_observe("strtoll", 64, (unsigned long long)v);
    return v;
}
unsigned long long polyfocus_strtoull(const char *s, char **end, int base) __asm__("strtoull");
unsigned long long polyfocus_strtoull(const char *s, char **end, int base) {
    unsigned long long v = __strtoull_internal(s, end, base, 0);
    polyfocus_observe("strtoull", 64, v);
    return v;
}
/* atoi and atol are strtol's value converted (glibc's definitions). */
int polyfocus_atoi(const char *s) __asm__("atoi");
int polyfocus_atoi(const char *s) {
    int v = (int)__strtol_internal(s, NULL, 10, 0);
    polyfocus_observe("atoi", 8 * sizeof(int), (unsigned long long)(long long)v);
    return v;
}
long polyfocus_atol(const char *s) __asm__("atol");
long polyfocus_atol(const char *s) {
    long v = __strtol_internal(s, NULL, 10, 0);
    polyfocus_observe("atol", 8 * sizeof(long), (unsigned long long)v);
    return v;
}
long long polyfocus_atoll(const char *s) __asm__("atoll");
long long polyfocus_atoll(const char *s) {
    long long v = __strtoll_internal(s, NULL, 10, 0);
    polyfocus_observe("atoll", 64, (unsigned long long)v);
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
 * -fsanitize=signed-integer-overflow,integer-divide-by-zero,shift-exponent,bounds (and
 * shift-base under --checks shift: a failed base is reported as "shift-base") and
 * -fno-sanitize-recover=all but linked WITHOUT the sanitizer runtime: the definitions below
 * are the handlers clang calls. Each prints the kind and the source location clang recorded
 * for the operation ("POLYFOCUS-RUNTIME-ERROR overflow t.c:3:13") and exits with status 96,
 * so that polyfocus can tell which operation misbehaved; no sanitizer runtime is needed,
 * for LP64 and ILP32 alike. The layouts are UBSan's stable ABI: every data record starts
 * with the source location, and a value of a type wider than a pointer is passed by
 * address. */
#define POLYFOCUS_EXIT_RUNTIME 96

/* Linked with the address sanitizer (POLYFOCUS_ASAN, --checks memory), whose runtime carries
 * UBSan's handlers too, the handlers below take names of their own, and polyfocus renames
 * the program's calls to them (objcopy --redefine-sym). The sanitizer reports a memory error
 * itself and exits with the same status 96. */
#ifdef POLYFOCUS_ASAN
#define POLYFOCUS_UBSAN(name) polyfocus_ubsan_handle_##name##_abort
#else
#define POLYFOCUS_UBSAN(name) __ubsan_handle_##name##_abort
#endif

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

void POLYFOCUS_UBSAN(add_overflow)(void *data, void *lhs, void *rhs) {
    polyfocus_runtime_error("overflow", data);
}
void POLYFOCUS_UBSAN(sub_overflow)(void *data, void *lhs, void *rhs) {
    polyfocus_runtime_error("overflow", data);
}
void POLYFOCUS_UBSAN(mul_overflow)(void *data, void *lhs, void *rhs) {
    polyfocus_runtime_error("overflow", data);
}
void POLYFOCUS_UBSAN(negate_overflow)(void *data, void *old) {
    polyfocus_runtime_error("overflow", data);
}
void POLYFOCUS_UBSAN(divrem_overflow)(void *data, void *lhs, void *rhs) {
    const struct polyfocus_overflow_data *d = (const struct polyfocus_overflow_data *)data;
    polyfocus_runtime_error(polyfocus_value_is_zero(d->type, rhs) ? "div" : "overflow", data);
}
struct polyfocus_shift_data {
    struct polyfocus_source_location loc;
    const struct polyfocus_type_descriptor *lhs_type;
    const struct polyfocus_type_descriptor *rhs_type;
};

/* Whether the shift amount `value` (of type `type`) is in range for a left operand of
 * `width` bits: not negative and below the width. Otherwise the amount failed its test;
 * when it is in range, the base did (clang tests the base only then). */
static int polyfocus_amount_in_range(const struct polyfocus_type_descriptor *type, void *value,
                                     unsigned width) {
    unsigned bits = 1u << (type->info >> 1);
    int is_signed = type->info & 1;
    unsigned long long v;
    if (bits <= 8 * sizeof(void *)) {
        v = (unsigned long long)(size_t)value;
        if (bits < 64)
            v &= (1ULL << bits) - 1;
    } else {
        /* Wider than a pointer, passed by address (little-endian): in range only when every
         * byte above the lowest is zero. */
        const unsigned char *p = (const unsigned char *)value;
        unsigned i;
        for (i = 1; i < bits / 8; i++)
            if (p[i])
                return 0;
        v = p[0];
    }
    if (is_signed && bits <= 64 && (v >> (bits - 1)) & 1)
        return 0;
    return v < width;
}

void POLYFOCUS_UBSAN(shift_out_of_bounds)(void *data, void *lhs, void *rhs) {
    const struct polyfocus_shift_data *d = (const struct polyfocus_shift_data *)data;
    unsigned width = 1u << (d->lhs_type->info >> 1);
    int base = polyfocus_amount_in_range(d->rhs_type, rhs, width);
    polyfocus_runtime_error(base ? "shift-base" : "shift", data);
}
void POLYFOCUS_UBSAN(out_of_bounds)(void *data, void *index) {
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

/* scanf: what a program reads from its standard input is inputs like nondet values, so
 * that a replay follows the analyzed path whatever the standard input holds. First the
 * result, served as "scanf": EOF (-1) or the number of values assigned, from 0 to the number
 * n of integer conversions the format has before any other (a value outside [-1, n] means
 * all n); then the value of each conversion up to that count, served as "scanf %d" (the
 * conversion as written). Integer conversions are d i u o x X c, with the length modifiers
 * hh h l ll j z t and assignment suppression `*`; at any other conversion (strings, floats,
 * pointers, %n) a real scanf may stop too, as when its input does not match. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* The next integer conversion of `*p` (just after a '%'): its width in bits, its text in
 * `name`, whether it assigns; 0 for another conversion. `*p` moves past it. */
static unsigned polyfocus_conversion(const char **p, char *name, size_t name_size,
                                     int *suppress) {
    const char *start = *p - 1, *q = *p;
    int length = 0; /* -2 hh, -1 h, 0 int, 1 l, 2 ll, 3 j, 4 z, 5 t */
    unsigned width;
    size_t n;
    *suppress = 0;
    if (*q == '*') {
        *suppress = 1;
        q++;
    }
    while (*q >= '0' && *q <= '9')
        q++;
    if (q[0] == 'h' && q[1] == 'h') {
        length = -2;
        q += 2;
    } else if (q[0] == 'h') {
        length = -1;
        q++;
    } else if (q[0] == 'l' && q[1] == 'l') {
        length = 2;
        q += 2;
    } else if (q[0] == 'l' || q[0] == 'L' || q[0] == 'q') {
        length = 1;
        q++;
    } else if (q[0] == 'j') {
        length = 3;
        q++;
    } else if (q[0] == 'z') {
        length = 4;
        q++;
    } else if (q[0] == 't') {
        length = 5;
        q++;
    }
    switch (*q) {
    case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': case 'c':
        break;
    default:
        *p = q;
        return 0;
    }
    if (*q == 'c' || length == -2)
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
    q++;
    n = (size_t)(q - start) < name_size - 7 ? (size_t)(q - start) : name_size - 7;
    memcpy(name, "scanf ", 6);
    memcpy(name + 6, start, n);
    name[6 + n] = 0;
    *p = q;
    return width;
}

static int polyfocus_vscanf(const char *format, va_list ap) {
    int assignable = 0, assigned = 0, suppress;
    long long result;
    char name[40];
    const char *p = format;
    /* How many values the format can assign before a conversion that is not served. */
    while (*p) {
        if (*p++ != '%')
            continue;
        if (*p == '%') {
            p++;
            continue;
        }
        if (!polyfocus_conversion(&p, name, sizeof name, &suppress))
            break;
        assignable += !suppress;
    }
    result = polyfocus_replay_next_in("scanf", 8 * (unsigned)sizeof(int), -1, assignable,
                                      assignable);
    if (result <= 0)
        return (int)result;
    p = format;
    while (*p && assigned < result) {
        unsigned width;
        unsigned long long v;
        if (*p++ != '%')
            continue;
        if (*p == '%') {
            p++;
            continue;
        }
        width = polyfocus_conversion(&p, name, sizeof name, &suppress);
        if (!width)
            break;
        v = polyfocus_replay_next(name, width);
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
    }
    return (int)result;
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
