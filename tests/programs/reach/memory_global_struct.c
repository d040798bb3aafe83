/* A struct global updated through a pointer in a loop: its fields are cells. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
struct point {
  int x;
  int y;
} pt;
static void move(struct point *p) {
  p->x += 1;
  p->y += 2;
}
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 100) return 0;
  for (int i = 0; i < n; i++) move(&pt);
  if (pt.y != 2 * pt.x) reach_error(); // holds, proved
  return 0;
}
