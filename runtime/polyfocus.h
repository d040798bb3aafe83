/* polyfocus.h: the annotations polyfocus understands.
 *
 * These are declarations only: polyfocus recognizes the calls by name in the
 * bitcode, so nothing needs to be linked. Include this header (polyfocus adds
 * its directory to the include path when it compiles C files itself).
 *
 *   polyfocus_assert(c)   an assertion: reaching it with c == 0 is an error
 *   polyfocus_assume(c)   executions where c == 0 end here, silently
 *   polyfocus_nondet_T()  an arbitrary value of type T (an input)
 */
#ifndef POLYFOCUS_H
#define POLYFOCUS_H

#ifdef __cplusplus
extern "C" {
#endif

extern void polyfocus_assert(int cond);
extern void polyfocus_assume(int cond);

extern int polyfocus_nondet_int(void);
extern unsigned int polyfocus_nondet_uint(void);
extern long polyfocus_nondet_long(void);
extern unsigned long polyfocus_nondet_ulong(void);
extern char polyfocus_nondet_char(void);
extern unsigned char polyfocus_nondet_uchar(void);
extern short polyfocus_nondet_short(void);
extern unsigned short polyfocus_nondet_ushort(void);
#ifdef __cplusplus
extern bool polyfocus_nondet_bool(void);
#else
extern _Bool polyfocus_nondet_bool(void);
#endif

#ifdef __cplusplus
}
#endif

#endif /* POLYFOCUS_H */
