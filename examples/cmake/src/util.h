/* A tiny library shared by the two programs of the example. */
#ifndef UTIL_H
#define UTIL_H

int clamp(int x, int lo, int hi);
int count_down(int n);

#endif
