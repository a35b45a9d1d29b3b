/* The command shell of the ARM9 interpreter kit program: commands are registered at run time by name
 * with their handler, then looked up by the first word of a line. */
#ifndef KIT_SHELL_H
#define KIT_SHELL_H
typedef int (*command_fn)(int argc, char **argv);
int register_cmd(const char *name, command_fn handler);
int shell_exec(const char *line);
int shell_count(void);
void commands_register(void);
void debug_commands_register(void);
extern struct cpu machine;
extern unsigned char machine_ram[65536];
#endif
