/* An extension module's function: the share of 1000 for `n - 7` parts, a division by zero
 * when the interpreter passes 7. */
#include "fakepy.h"

PyObject *ext_share(PyObject *self, PyObject *arg) {
    (void)self;
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred())
        return 0;
    if (n > 1000) {
        PyErr_SetString(PyExc_ValueError, "too many parts");
        return 0;
    }
    long share = 1000 / (n - 7);
    return PyLong_FromLong(share);
}
