/* The shell of the ARM9 interpreter kit program (ARM): a table of registered commands, a line splitter
 * and the dispatch through the handler's pointer. */
#include "shell.h"
#include <stdio.h>
#include <string.h>

#define MAX_COMMANDS 96
static struct {
  const char *name;
  command_fn handler;
} commands[MAX_COMMANDS];
static int command_count;
static int shell_locked;

int register_cmd(const char *name, command_fn handler) {
  if (shell_locked || command_count >= MAX_COMMANDS) return -1;
  for (int i = 0; i < command_count; i++)
    if (strcmp(commands[i].name, name) == 0) {
      commands[i].handler = handler;
      return i;
    }
  commands[command_count].name = name;
  commands[command_count].handler = handler;
  return command_count++;
}

int shell_count(void) { return command_count; }

void shell_lock(void) { shell_locked = 1; }

static __attribute__((noinline)) int shell_unknown(const char *word) {
  printf("unknown command: %s\n", word);
  return -2;
}

int shell_exec(const char *line) {
  char buffer[128];
  char *argv[12];
  int argc = 0;
  strncpy(buffer, line, sizeof buffer - 1);
  buffer[sizeof buffer - 1] = 0;
  for (char *p = strtok(buffer, " \t"); p && argc < 12; p = strtok(0, " \t")) argv[argc++] = p;
  if (argc == 0) return 0;
  for (int i = 0; i < command_count; i++)
    if (strcmp(commands[i].name, argv[0]) == 0) return commands[i].handler(argc, argv);
  return shell_unknown(argv[0]);
}
