/* Calls of the C library do not write the program's globals: they stay localized. */
#include <stdio.h>
#include <string.h>
extern void reach_error(void);
int g;
int main(void) {
  char buf[8] = "abc";
  for (int i = 0; i < 3; i++) {
    g = g + 2;
    printf("%d\n", (int)strlen(buf));
  }
  if (g != 6) reach_error(); // holds, proved
  return 0;
}
