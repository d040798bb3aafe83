/* Near misses of memory_array_copy_skip.c, none of which may be proved: the check excludes
   the wrong index, the element the copy skips is checked too, or the copy skips a second
   index. Each fails natively on its own (checked with the others disabled), where every
   input differs (the other unit's `input` counts). */
// native-with: memory_array_copy_skip_input.c
extern void reach_error(void);
extern int input(void);
int main(void) {
  int a[1000], b[1000];
  int z = 600;
  for (int i = 0; i < 1000; i++) {
    a[i] = input();
    b[i] = input();
  }
  for (int i = 0; i < 1000; i++)
    if (i != z)
      b[i] = a[i];
  for (int x = 0; x < 1000; x++)
    if (x != z + 1)
      if (a[x] != b[x]) reach_error(); // fails
  for (int x = 0; x < 1000; x++)
    if (a[x] != b[x]) reach_error(); // fails
  int c[1000];
  for (int i = 0; i < 1000; i++)
    c[i] = input();
  for (int i = 0; i < 1000; i++)
    if (i != z && i != z + 5)
      c[i] = a[i];
  for (int x = 0; x < 1000; x++)
    if (x != z)
      if (a[x] != c[x]) reach_error(); // fails
  return 0;
}
