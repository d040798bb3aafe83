/* The native oracle of `polyfocus soundness` (src/soundness/oracle.rs).
 *
 * Linked with a program rendered for the oracle, it runs the program once per valuation of
 * its inputs: a constructor that runs before main forks a child per valuation; the child
 * returns from the constructor and runs main (and the atexit handlers) normally; the parent
 * collects what the child reports through a pipe, picks the next valuation (depth first
 * over the sequence of input requests, each request with its own domain) and finally exits
 * without running main itself.
 *
 * A child reports, one line each: "I OFFSET DOMAIN" per input served, "P ID BITS" per probe
 * value, "F ID" when an assertion fails (then it exits), "M ERROR LINE" when the address
 * sanitizer reports a memory error (then it exits; only when built with
 * ORACLE_RECORD_MEMORY_ERRORS), "L LINE" per object LeakSanitizer finds leaked at the
 * normal end of the execution, allocated at LINE (same builds), and before "F" or "M", "H SLOT LINE ERROR" for each precondition
 * slot set at that moment (see below). The parent prints on stdout each distinct line but
 * "I" once, "S SIGNAL" when a child was killed by a signal (a sanitizer trap, a crash,
 * SIGALRM after ORACLE_RUN_SECONDS), "X" when a child asked for too many inputs, "T" when
 * the run count reached ORACLE_MAX_RUNS, and "E RUNS" at the end.
 *
 * Precondition slots (src/soundness/precondition.rs): the entry of a function evaluates a
 * precondition into its slot with oracle_enter, and a cleanup variable gives the slot back
 * its saved value with oracle_leave when the invocation returns, so a slot tells whether the
 * precondition held at the entry of the innermost active invocation.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Read by the address sanitizer when a program is built with it (the memory generators):
   a memory error aborts (SIGABRT, a rejection) instead of exiting with a status the parent
   would not see, unless the program records memory errors (its report callback ends the
   execution first). Leaks are not errors: LeakSanitizer never runs at exit on its own, only
   when a program that records memory errors asks it (oracle_leaks). Unused otherwise. */
const char *__asan_default_options(void) { return "abort_on_error=1:detect_leaks=1:leak_check_at_exit=0:hard_rss_limit_mb=2048"; }

/* The bytes from `p` to the end of its object, `size(p)` in a precondition: counted up to
   the first byte the address sanitizer poisons (a redzone, or freed memory); -1 without
   the sanitizer (the harness judges no such precondition then). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ORACLE_ASAN 1
#endif
#endif
#define ORACLE_MAX_OBJECT (1LL << 24)
long long oracle_object_size(const void *p) {
#ifdef ORACLE_ASAN
    int __asan_address_is_poisoned(void const volatile *addr);
    const char *c = (const char *)p;
    long long n = 0;
    if (!p)
        return 0;
    while (n < ORACLE_MAX_OBJECT && !__asan_address_is_poisoned(c + n))
        n++;
    return n;
#else
    (void)p;
    return -1;
#endif
}

#define ORACLE_MAX_INPUTS 64
#define ORACLE_MAX_SLOTS 1024
#define ORACLE_RUN_SECONDS 5
#define ORACLE_SEEN 16384

static int oracle_fd = -1;
static long long oracle_prefix[ORACLE_MAX_INPUTS];
static int oracle_prefix_len;
static int oracle_next;

static void oracle_emit(const char *text) {
    size_t n = strlen(text);
    while (n > 0) {
        ssize_t w = write(oracle_fd, text, n);
        if (w <= 0)
            _exit(120);
        text += w;
        n -= (size_t)w;
    }
}

long long oracle_input(long long lo, long long hi) {
    char line[80];
    int i = oracle_next++;
    long long offset;
    if (i >= ORACLE_MAX_INPUTS) {
        oracle_emit("X\n");
        _exit(121);
    }
    offset = i < oracle_prefix_len ? oracle_prefix[i] : 0;
    snprintf(line, sizeof line, "I %lld %lld\n", offset, hi - lo + 1);
    oracle_emit(line);
    return lo + offset;
}

void oracle_probe(int id, unsigned long long bits) {
    char line[64];
    snprintf(line, sizeof line, "P %d %llu\n", id, bits);
    oracle_emit(line);
}

static int oracle_slots[ORACLE_MAX_SLOTS];

struct oracle_scope {
    int slot;
    int saved;
};

/* Sets `slot` to `holds` and returns its previous value. */
int oracle_enter(int slot, int holds) {
    int saved;
    if (slot < 0 || slot >= ORACLE_MAX_SLOTS)
        return 0;
    saved = oracle_slots[slot];
    oracle_slots[slot] = holds;
    return saved;
}

void oracle_leave(struct oracle_scope *scope) {
    if (scope->slot >= 0 && scope->slot < ORACLE_MAX_SLOTS)
        oracle_slots[scope->slot] = scope->saved;
}

/* An error (a failed assertion, or a memory error) at `line`: the slots that hold. */
static void oracle_error_under_slots(unsigned line, const char *error) {
    char text[128];
    int k;
    for (k = 0; k < ORACLE_MAX_SLOTS; k++) {
        if (oracle_slots[k]) {
            snprintf(text, sizeof text, "H %d %u %s\n", k, line, error);
            oracle_emit(text);
        }
    }
}

void oracle_fail(int id, unsigned line) {
    char text[32];
    oracle_error_under_slots(line, "assert");
    snprintf(text, sizeof text, "F %d\n", id);
    oracle_emit(text);
    _exit(0);
}

#ifdef ORACLE_RECORD_MEMORY_ERRORS
void __asan_set_error_report_callback(void (*callback)(const char *));

/* The address sanitizer's report of the first memory error: its name (the word after
   "AddressSanitizer: ", "double-free", "bad-free" for a free of what malloc did not return,
   "null-dereference" for an access in the zero page) and the line of the innermost frame in
   the program (the oracle rendering names its file prog.c with #line). */
static void oracle_memory_error(const char *report) {
    static const char marker[] = "AddressSanitizer: ";
    const char *kind = strstr(report, marker);
    const char *at = strstr(report, "prog.c:");
    char name[64] = "unknown", text[128];
    unsigned line = at ? (unsigned)strtoul(at + strlen("prog.c:"), NULL, 10) : 0;
    if (kind) {
        kind += strlen(marker);
        if (strncmp(kind, "attempting double-free", 22) == 0)
            strcpy(name, "double-free");
        else if (strncmp(kind, "attempting free", 15) == 0)
            strcpy(name, "bad-free");
        else if (strncmp(kind, "SEGV", 4) == 0)
            strcpy(name, strstr(report, "zero page") ? "null-dereference" : "SEGV");
        else {
            size_t n = strcspn(kind, " \n");
            if (n >= sizeof name)
                n = sizeof name - 1;
            memcpy(name, kind, n);
            name[n] = 0;
        }
    }
    oracle_error_under_slots(line, name);
    snprintf(text, sizeof text, "M %s %u\n", name, line);
    oracle_emit(text);
    _exit(0);
}

void __ubsan_get_current_report_data(const char **kind, const char **message,
                                     const char **file, unsigned *line, unsigned *column,
                                     char **address);

/* UBSan's report of an index outside an array of known size (`-fsanitize=bounds`, not
   trapping): the address sanitizer misses some of these accesses (a constant index into a
   global array lands past its red zone), so they end the execution as memory errors too. */
void __ubsan_on_report(void) {
    const char *kind = "", *message = "", *file = "";
    unsigned line = 0, column = 0;
    char *address = NULL, text[128];
    __ubsan_get_current_report_data(&kind, &message, &file, &line, &column, &address);
    if (!file || !strstr(file, "prog.c"))
        line = 0;
    if (strcmp(kind, "out-of-bounds-index") != 0) {
        /* Every other UBSan check traps; should one report here, trap like them. */
        __builtin_trap();
    }
    oracle_error_under_slots(line, kind);
    snprintf(text, sizeof text, "M %s %u\n", kind, line);
    oracle_emit(text);
    _exit(0);
}

int __lsan_do_recoverable_leak_check(void);

/* At the normal end of an execution (main returned or exit was called; registered before
   main runs, so after the program's own handlers): "L LINE" for each leaked object,
   LINE the innermost frame in the program of its allocation stack, from LeakSanitizer's
   report, which goes to a temporary file standing in for standard error. */
static void oracle_leaks(void) {
    FILE *f = tmpfile();
    int saved;
    long size;
    char *report, *at;
    if (!f)
        return;
    fflush(stderr);
    saved = dup(2);
    dup2(fileno(f), 2);
    __lsan_do_recoverable_leak_check();
    dup2(saved, 2);
    close(saved);
    size = lseek(fileno(f), 0, SEEK_END);
    if (size <= 0 || (report = malloc((size_t)size + 1)) == NULL) {
        fclose(f);
        return;
    }
    if (pread(fileno(f), report, (size_t)size, 0) != size) {
        free(report);
        fclose(f);
        return;
    }
    report[size] = 0;
    fclose(f);
    for (at = strstr(report, "leak of "); at; ) {
        char *next = strstr(at + 1, "leak of ");
        char *frame = strstr(at, "prog.c:");
        if (frame && (!next || frame < next)) {
            char text[32];
            snprintf(text, sizeof text, "L %lu\n", strtoul(frame + strlen("prog.c:"), NULL, 10));
            oracle_emit(text);
        }
        at = next;
    }
    free(report);
}
#endif

void oracle_assume(int cond) {
    if (!cond)
        _exit(0);
}

/* Lines already printed by the parent (hash set of strings' hashes and texts). */
static char *oracle_seen[ORACLE_SEEN];

static void oracle_print_once(const char *text, size_t len) {
    unsigned long long h = 1469598103934665603ULL;
    size_t k;
    for (k = 0; k < len; k++)
        h = (h ^ (unsigned char)text[k]) * 1099511628211ULL;
    for (k = 0; k < ORACLE_SEEN; k++) {
        char **slot = &oracle_seen[(h + k) % ORACLE_SEEN];
        if (*slot == NULL) {
            *slot = strndup(text, len);
            break;
        }
        if (strlen(*slot) == len && memcmp(*slot, text, len) == 0)
            return;
    }
    fwrite(text, 1, len, stdout);
    fputc('\n', stdout);
}

__attribute__((constructor(101))) static void oracle_enumerate(void) {
    const char *max_text = getenv("ORACLE_MAX_RUNS");
    long long max_runs = max_text ? atoll(max_text) : 4096;
    long long runs = 0;
    static long long offsets[ORACLE_MAX_INPUTS], domains[ORACLE_MAX_INPUTS];
    for (;;) {
        int fds[2], status = 0, n_inputs = 0, k;
        pid_t pid;
        char *buf = NULL;
        size_t len = 0, cap = 0;
        char *line, *end;
        if (pipe(fds) != 0)
            _exit(122);
        fflush(NULL);
        pid = fork();
        if (pid < 0)
            _exit(123);
        if (pid == 0) {
            int null_fd = open("/dev/null", O_WRONLY);
            close(fds[0]);
            oracle_fd = fds[1];
            if (null_fd >= 0)
                dup2(null_fd, 1);
#ifdef ORACLE_RECORD_MEMORY_ERRORS
            __asan_set_error_report_callback(oracle_memory_error);
            atexit(oracle_leaks);
#endif
            alarm(ORACLE_RUN_SECONDS);
            return; /* on to main */
        }
        close(fds[1]);
        for (;;) {
            ssize_t r;
            if (cap - len < 4096) {
                cap = cap ? 2 * cap : 65536;
                buf = realloc(buf, cap);
                if (!buf)
                    _exit(124);
            }
            r = read(fds[0], buf + len, cap - len - 1);
            if (r <= 0)
                break;
            len += (size_t)r;
        }
        close(fds[0]);
        buf[len] = 0;
        while (waitpid(pid, &status, 0) < 0)
            ;
        runs++;
        for (line = buf; *line; line = end + 1) {
            end = strchr(line, '\n');
            if (!end)
                break;
            if (line[0] == 'I') {
                if (n_inputs < ORACLE_MAX_INPUTS &&
                    sscanf(line, "I %lld %lld", &offsets[n_inputs], &domains[n_inputs]) == 2)
                    n_inputs++;
            } else {
                oracle_print_once(line, (size_t)(end - line));
            }
        }
        free(buf);
        if (WIFSIGNALED(status))
            printf("S %d\n", WTERMSIG(status));
        /* The next valuation: the last request that has a next value gets it, the
           requests after it start again from their first value. */
        for (k = n_inputs - 1; k >= 0 && offsets[k] + 1 >= domains[k]; k--)
            ;
        if (k < 0)
            break;
        if (runs >= max_runs) {
            printf("T\n");
            break;
        }
        memcpy(oracle_prefix, offsets, sizeof(long long) * (size_t)k);
        oracle_prefix[k] = offsets[k] + 1;
        oracle_prefix_len = k + 1;
    }
    printf("E %lld\n", runs);
    fflush(stdout);
    _exit(0);
}
