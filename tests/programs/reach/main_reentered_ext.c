/* The other translation unit of main_reentered.c (native run only). */
int main(void);
void again(void) {
  static int done;
  if (!done) {
    done = 1;
    main();
  }
}
