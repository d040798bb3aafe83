/* Functions of a library without `main`: how many bytes a pointer parameter's object has
   from the pointer on is the caller's choice, so an access through it holds under a
   condition on that size, `size(p)`. */

int total(const int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += a[i]; /* read of a counted array */
  return s;
}

void fill(char *dst, unsigned len, char c) {
  for (unsigned i = 0; i < len; i++)
    dst[i] = c; /* write of a counted buffer */
}

int second(const int *p) {
  return p[1]; /* read of the second element */
}
