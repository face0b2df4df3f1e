/* The serial shell: commands register themselves with SHELL_CMD. */
#ifndef SHELL_H
#define SHELL_H
#include <stddef.h>
#include "kernel/linkset.h"

/* A shell command: argv[0] is its name. Returns 0, or non-zero after
 * printing what was wrong and the accepted forms. */
struct shell_cmd {
	const char *name;
	const char *usage;	/* accepted forms, e.g. "reboot" */
	const char *help;	/* one line */
	int (*fn)(int argc, char **argv);
};

/* Register a command from any file: it lands in the .shell_cmds section. */
#define SHELL_CMD(id, name_, usage_, help_, fn_) \
	static const struct shell_cmd shell_cmd_##id \
	LINKSET_ENTRY __attribute__((section(".shell_cmds"))) = { name_, usage_, help_, fn_ }

/* Start the shell: prints the prompt. */
void shell_init(void);
/* Feed whatever the UART has received; runs complete lines. Never blocks. */
void shell_poll(void);
/* stdout and stderr (kernel/syscalls.c write): to every console, except
 * that a command's output goes only to the console it was typed on. A
 * message printed on core 0
 * while a line is half typed, outside a command, takes the prompt line's
 * place (CR, VT100 erase line) and the prompt and the half-typed line are
 * printed again after it, the cursor where it was. */
void console_write(const char *s, size_t n);
/* hold 1: the prompt stays away, also after the command that holds it, so
 * that a long output (the console's capture) is one stream without prompts
 * or VT100 erasures in it; typing brings it back. hold 0: it comes back at
 * the next poll. Core 0. */
void shell_prompt_hold(int hold);
/* Run one command line (also used by tests through selftest knobs). */
int shell_run(char *line);
#endif
