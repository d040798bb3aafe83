/* An error function given to atexit: the library calls it after main returns. */
// reason: whose address escapes
#include <stdlib.h>
extern void reach_error(void);
int main(void) {
  atexit(reach_error); // fails
  return 0;
}
