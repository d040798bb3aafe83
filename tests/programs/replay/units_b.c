/* The other unit: a `static` function of the same name as one of `units_a.c`. */
static int twin(int x) {
  return 1000 / (x - 13);
}

int use_b(int x) {
  return twin(x);
}
