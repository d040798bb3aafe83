#include "polyfocus.h"

/* One assertion proved, one violated, one unknown: i < n && <b>escaped</b> */
int main(void) {
    int n = polyfocus_int();
    polyfocus_assume(n >= 0);
    polyfocus_assume(n <= 100);
    int i = 0, sum = 0;
    while (i < n) {
        i++;
        sum += i;
    }
    polyfocus_assert(i == n);                 /* proved */
    polyfocus_assert(sum / (i + 1) <= 50);    /* unknown: sum / (i + 1) is i / 2 */
    polyfocus_assert(i != 3);                 /* violated when n == 3 */
    return 0;
}
