/* Calls of the C library are known code: no warning, and what the standard guarantees of
   their results and writes. `helper_not_given` is the program's own code in another
   translation unit (c_library_helper.c, linked only natively): its call keeps the warning. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int helper_not_given(int);

int main(void) {
  int x = 5;
  int *p = &x;
  char buf[16];
  printf("x=%d at %p\n", x, (void *)p);  /* a constant format without %n writes nothing */
  assert(x == 5);                        // holds, proved
  int r = rand();
  assert(r >= 0);                        // holds, proved
  int c = getchar();
  assert(c >= -1 && c <= 255);           // holds, proved
  size_t w = fwrite("abcd", 1, 4, stdout);
  assert(w <= 4);                        // holds, proved
  int s = snprintf(buf, sizeof buf, "%d", x);
  size_t len = strnlen(buf, 3);
  assert(len <= 3);                      // holds, proved
  int written = 0;
  printf("ab%n\n", &written);            /* %n writes through its argument */
  assert(written == 2);                  // holds, unknown because a load from memory
  return helper_not_given(s) - s;
}
