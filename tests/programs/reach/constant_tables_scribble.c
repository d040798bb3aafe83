/* The other translation unit of constant_tables.c. */
static unsigned char seen;
void look(const unsigned char *table) { seen = table[0]; }
void scribble(unsigned char *table) { table[1] = (unsigned char)(seen + 4); }
