/* A field read twice through a pointer parameter of a library entry, with no store
   between: the same value. */
// entry: check_len
extern void reach_error(void);
struct buffer {
  int len;
  int cap;
};
int check_len(struct buffer *b) {
  if (b->len < 10) {
    if (!(b->len < 10)) reach_error(); // holds, proved
  }
  b->cap = 3;
  if (b->cap != 3) reach_error(); // holds, proved
  return 0;
}
int main(void) {
  struct buffer b = {3, 4};
  return check_len(&b);
}
