/* The input of memory_array_copy_skip_near.c when it runs natively: a new value each call. */
int input(void) {
  static int n;
  return n++;
}
