/* The part of an interpreter's C API an extension module uses: declared, never defined in
 * the module (the interpreter defines it when it loads the module). */
#ifndef FAKEPY_H
#define FAKEPY_H

typedef struct fakepy_object PyObject;

extern PyObject *PyExc_ValueError;
long PyLong_AsLong(PyObject *value);
PyObject *PyErr_Occurred(void);
void PyErr_SetString(PyObject *type, const char *message);
PyObject *PyLong_FromLong(long value);

#endif
