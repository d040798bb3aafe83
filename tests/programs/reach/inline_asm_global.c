/* Inline assembly writes a global by its symbol name, which LLVM does not see as a use:
 * with inline assembly in the program, no global becomes a local. */
extern void reach_error(void);
int g = 0;
int main(void) {
  __asm__ volatile("movl $5, g(%%rip)" ::: "memory");
  if (g == 5) reach_error(); // fails
  return 0;
}
