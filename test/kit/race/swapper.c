// Swaps two directory entries atomically, over and over, until killed: renameat2(RENAME_EXCHANGE) has
// no Node binding. Used only by the output-directory race tests.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  for (;;) syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE);
}
