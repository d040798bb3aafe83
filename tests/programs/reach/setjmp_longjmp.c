/* setjmp returns twice: after longjmp, g is 1. */
// reason: which returns twice
#include <setjmp.h>
extern void reach_error(void);
static jmp_buf env;
int g;
int main(void) {
  if (setjmp(env)) {
    if (g == 1) reach_error(); // fails
    return 0;
  }
  g = 1;
  longjmp(env, 1);
}
