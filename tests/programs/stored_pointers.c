// Pointers stored in memory keep whether they are NULL: a struct field, an array of
// pointers and a global hold a word that is zero exactly when the pointer stored was
// NULL, so comparisons of the loaded pointers with NULL are decided.
#include <stddef.h>
#include "polyfocus.h"

struct node {
  int value;
  struct node *next;
};

int x;
int *slots[8];
struct node *chosen;

int main(void) {
  struct node a, b;
  a.next = &b;
  b.next = NULL;
  polyfocus_assert(a.next != NULL); // holds, proved
  polyfocus_assert(b.next == NULL); // holds, proved
  for (int i = 0; i < 8; i++)
    slots[i] = &x;
  int k = polyfocus_nondet_int();
  if (k >= 0 && k < 8)
    polyfocus_assert(slots[k] != NULL); // holds, proved
  chosen = polyfocus_nondet_int() ? &a : NULL;
  int seen = chosen != NULL;
  if (seen)
    polyfocus_assert(chosen != NULL); // holds, proved
  if (k >= 0 && k < 8)
    polyfocus_assert(slots[k] == NULL); // fails, violated
  return 0;
}
