/* The mean of the numbers read: a division by zero at the end of an empty input. */
#include <stdio.h>

int main(void) {
    int n = 0, s = 0, x;
    while (scanf("%d", &x) == 1) {
        s += x;
        n++;
    }
    printf("%d\n", s / n);
    return 0;
}
