/* Uninitialized array elements and struct fields hold any value. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
struct pair { int x, y; };
struct nest { char tag; struct { short s[3]; long long z; } in[2]; };
static void callee(int c) {
  int a[2];
  if (c) a[1] = 2;
  if (a[1] != 2) reach_error();                // fails
}
int main(void) {
  int a[2], c = __VERIFIER_nondet_int();
  struct pair s;
  struct nest n;
  int big[1000];
  if (c) { a[1] = 2; s.y = 5; n.in[1].s[2] = 7; big[3] = 4; }
  if (a[1] != 2) reach_error();                // fails
  if (s.y != 5) reach_error();                 // fails
  if (n.in[1].s[2] != 7) reach_error();        // fails
  if (big[3] != 4) reach_error();              // fails
  a[0] = 1;
  if (a[0] != 1) reach_error();                // holds, proved
  for (int i = 0; i < 3; i++) callee(i == 0);
  return 0;
}
