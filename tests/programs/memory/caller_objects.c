/* Functions of a library whose pointer parameters point into objects their callers own. A
   replay passes a buffer of its own for each pointer, a guess of the caller's object: an
   access past the guess, or through a pointer read from it, is no evidence against the
   function. An overflow of an object the function owns is. */
struct state {
  char table[300000];
  int level;
};

struct sink {
  char *out;
};

void set_level(struct state *s, int level) {
  s->level = level; /* field of a large object */
}

void put(struct sink *k, char c) {
  *k->out = c; /* through a pointer read from the object */
}

char peek(const char *p) {
  return p[4100]; /* past the replay's buffer */
}

int fill(const int *src, int i) {
  int a[4] = {0, 0, 0, 0};
  if (i >= 0 && i <= 4)
    a[i] = 7; /* past a local array */
  return a[0] + src[0];
}
