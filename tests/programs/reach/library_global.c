/* getopt writes optind: a program that defines it shares it with the library. */
#include <unistd.h>
extern void reach_error(void);
int optind = 1;
int main(void) {
  char *args[] = {"prog", "-x", 0};
  getopt(2, args, "x");
  if (optind == 2) reach_error(); // fails
  return 0;
}
