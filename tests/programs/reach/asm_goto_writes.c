/* `asm goto` (LLVM's `callbr`, a terminator) writes memory like any inline assembly: through
 * its `"m"` operands and, with a `"memory"` clobber, whatever other code may reach. Lifted as
 * a mere choice of successor, both assertions were proved. */
extern void reach_error(void);
int g;
int main(void) {
  int local = 0;
  g = 0;
  __asm__ goto("movl $1, %0\n\tmovl $1, %1" : : "m"(g), "m"(local) : "memory" : out);
  if (g == 1) reach_error(); // fails
  if (local == 1) reach_error(); // fails
  return 0;
out:
  return 1;
}
