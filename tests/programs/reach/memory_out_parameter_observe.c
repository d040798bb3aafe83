/* The other translation unit of memory_out_parameter.c. */
void observe(const int *p) { (void)p; }
