/* A library with a table of static functions: a call of an entry that never calls through
   the table runs none of them; a call through the table, or of foreign code, may run each.
   The constructor runs when the program starts, during no call. */
extern void reach_error(void);
extern int plugin(int); /* another translation unit: foreign code */

static int twice(int x) {
  if (x == 5) reach_error(); /* check of twice */
  return 2 * x;
}

static int add_one(int x) {
  if (x == 7) reach_error(); /* check of add_one */
  return x + 1;
}

static int negate(int x) {
  if (x == 9) reach_error(); /* check of negate */
  return -x;
}

int (*operations[3])(int) = {twice, add_one, negate};

static int ready;

__attribute__((constructor)) static void init(void) {
  if (ready) reach_error(); /* check of init */
  ready = 1;
}

static int clamp(int x) {
  if (x < 0) return 0;
  if (x > 100) return 100;
  if (x == 50) reach_error(); /* check of clamp */
  return x;
}

int f(int x) {
  int y = clamp(x);
  if (y > 100) reach_error(); /* check of f */
  return y;
}

int g(int i, int x) {
  if (i < 0 || i > 2) return 0;
  return operations[i](x);
}

int h(int x) { return plugin(x); }

int k(int x) {
  if (x == 3) reach_error(); /* check of k */
  return x;
}
