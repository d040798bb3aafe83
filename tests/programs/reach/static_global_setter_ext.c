/* The other translation unit of static_global_setter.c (native run only). */
void set_flag(int);
void ext(void) { set_flag(3); set_flag(0); }
