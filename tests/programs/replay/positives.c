/* The mean of the positive numbers among ten read: a division by zero when none is. */
#include <stdio.h>

int main(void) {
    int n = 0, s = 0, x = 0;
    for (int i = 0; i < 10; i++) {
        scanf("%d", &x);
        if (x > 0) {
            s += x;
            n++;
        }
    }
    printf("%d\n", s / n);
    return 0;
}
