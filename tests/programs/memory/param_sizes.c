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

struct config {
  int level;
  int window;
  long limit;
};

int setting(const struct config *c, int which) {
  switch (which) {
  case 1:
    return c->level; /* read of the first field */
  case 2:
    return c->window; /* read of the second field */
  default:
    return (int)c->limit; /* read of the third field */
  }
}
