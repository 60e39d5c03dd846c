/**
 * The most one argument of a program may hold on Linux, its terminating NUL included (the kernel's
 * MAX_ARG_STRLEN: 32 pages of 4 KiB). A longer one fails the program's start with E2BIG.
 */
export const MAX_ARG_BYTES = 128 * 1024;
