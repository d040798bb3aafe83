/* An entry with float and double parameters: the driver passes them like integers. */
#include <assert.h>

int bucket(float weight, int count, double scale) {
    if (count > 10 && weight > 2.0f && scale < 100.0) {
        assert(count != 11);
    }
    return count;
}
