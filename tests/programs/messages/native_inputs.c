/* The inputs of the programs in a native run (the analysis never reads this file). */
int __VERIFIER_nondet_int(void) { return 5; }
