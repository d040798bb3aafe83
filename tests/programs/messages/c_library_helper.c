/* The translation unit of c_library.c's own missing function, linked only natively. */
int helper_not_given(int v) { return v; }
