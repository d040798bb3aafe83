/* One unit of a library of two: a `static` function whose name only this unit knows, one
   whose name the other unit defines too, and an entry that reads a narrow signed
   parameter. Each divides by zero for one argument. */
static int only_here(int x) {
  return 1000 / (x - 7);
}

static int twin(int x) {
  return 1000 / (x - 11);
}

int narrow(signed char c) {
  return 1000 / (c + 101);
}

int use_a(int x) {
  return only_here(x) + twin(x);
}
