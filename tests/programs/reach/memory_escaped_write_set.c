/* The other translation unit of memory_escaped_write.c. */
void set_it(int *p) { *p = 6; }
