/* Serial shell: line editing by kernel/lineedit.c, commands from .shell_cmds. */
#include <stdio.h>
#include <string.h>
#include "kernel/lineedit.h"
#include "kernel/shell.h"
#include "kernel/smp.h"
#include "kernel/uart.h"

#define MAX_ARGS 16
#define PROMPT "linerate> "

extern const struct shell_cmd __shell_cmds_start[], __shell_cmds_end[];
static struct lineedit le;

static void le_out(const char *s, size_t n, void *ctx)
{
	(void)ctx;
	uart_write_raw(s, n);
}

void shell_init(void)
{
	le_init(&le, le_out, 0);
	uart_puts(PROMPT);
}

static const struct shell_cmd *cmd_find(const char *name)
{
	for (const struct shell_cmd *c = __shell_cmds_start; c < __shell_cmds_end; c++)
		if (!strcmp(c->name, name))
			return c;
	return 0;
}

int shell_run(char *line)
{
	char *argv[MAX_ARGS + 1];
	int argc = 0;
	for (char *tok = strtok(line, " \t"); tok; tok = strtok(0, " \t")) {
		if (argc == MAX_ARGS) {
			printf("too many words: at most %d\n", MAX_ARGS);
			return -1;
		}
		argv[argc++] = tok;
	}
	argv[argc] = 0;
	if (!argc)
		return 0;
	const struct shell_cmd *c = cmd_find(argv[0]);
	if (!c) {
		printf("unknown command '%s'; commands:", argv[0]);
		for (c = __shell_cmds_start; c < __shell_cmds_end; c++)
			printf(" %s", c->name);
		printf(" (help shows their forms)\n");
		return -1;
	}
	return c->fn(argc, argv);
}

static int in_cmd;	/* a line is being run: its output is the command's */
static int erased;	/* a message took the half-typed line's place */

void shell_poll(void)
{
	for (int ch; (ch = uart_getc()) >= 0;) {
		if (le_feed(&le, (unsigned char)ch)) {
			in_cmd = 1;
			if (le.cut)
				printf("line longer than %d bytes (%zu more): not run\n", LE_LINE_MAX, le.cut);
			else
				shell_run(le.line);
			fflush(stdout);
			in_cmd = 0;
			uart_puts(PROMPT);
		}
	}
}

void console_write(const char *s, size_t n)
{
	if (in_cmd || !le.len || cpu_id() != 0) {
		uart_write(s, n);
		return;
	}
	if (!erased)
		uart_write_raw("\r\033[K", 4);	/* VT100 EL: erase the prompt line */
	erased = 1;
	uart_write(s, n);
	if (n && s[n - 1] == '\n') {
		uart_puts(PROMPT);
		le_redraw(&le);
		erased = 0;
	}
}

static int cmd_help(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		printf("usage: help\n");
		return -1;
	}
	for (const struct shell_cmd *c = __shell_cmds_start; c < __shell_cmds_end; c++)
		if (strlen(c->usage) < 25)
			printf("  %-24s %s\n", c->usage, c->help);
		else	/* a long usage gets a line of its own */
			printf("  %s\n  %-24s %s\n", c->usage, "", c->help);
	return 0;
}
SHELL_CMD(help, "help", "help", "list commands", cmd_help);
