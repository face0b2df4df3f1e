/* Serial shell: line editing by kernel/lineedit.c, one per console;
 * commands from .shell_cmds. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "kernel/console.h"
#include "kernel/lineedit.h"
#include "kernel/shell.h"
#include "kernel/smp.h"

#define MAX_ARGS 16
#define PROMPT "linerate> "
#define REDRAW_POLLS 20	/* shell polls (~1 ms each) of quiet before the prompt comes back */

extern const struct shell_cmd __shell_cmds_start[], __shell_cmds_end[];
static struct lineedit le[CONSOLE_MAX];	/* each console's line being typed */
static int started;	/* the first prompt is out: messages go around it */
static int shown;	/* the prompt lines (and what is typed) are on screen */
static int redraw_in;	/* polls until the prompt is printed again, 0: none due */
static int held;	/* shell_prompt_hold: no prompt between messages */

/* The line editor's echo, to the console it reads (ctx: its index). */
static void le_out(const char *s, size_t n, void *ctx)
{
	console_out_raw((int)(intptr_t)ctx, s, n);
}

/* On every console the prompt and the half-typed line, cursor where it was. */
static void prompt(void)
{
	for (int i = 0; i < console_count(); i++) {
		console_out_raw(i, PROMPT, strlen(PROMPT));
		le_redraw(&le[i]);
	}
	shown = 1;
	redraw_in = 0;
}

void shell_init(void)
{
	for (int i = 0; i < console_count(); i++)
		le_init(&le[i], le_out, (void *)(intptr_t)i);
	started = 1;
	prompt();
}

/* "commands: a b c" and tail, one line. */
static void list_commands(const char *tail)
{
	printf("commands:");
	for (const struct shell_cmd *c = __shell_cmds_start; c < __shell_cmds_end; c++)
		printf(" %s", c->name);
	printf("%s\n", tail);
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
		printf("unknown command '%s'; ", argv[0]);
		list_commands(" (help shows their forms)");
		return -1;
	}
	return c->fn(argc, argv);
}

static int reply_to = CONSOLE_ALL;	/* a line from this console is being run: its output goes there */

/* Run the line console i's editor finished; its output goes to console i. */
static void run_line(int i)
{
	reply_to = i;
	if (le[i].cut)
		printf("line longer than %d bytes (%zu more): not run\n", LE_LINE_MAX, le[i].cut);
	else
		shell_run(le[i].line);
	fflush(stdout);
	reply_to = CONSOLE_ALL;
	if (held)
		shown = 0;
	else
		console_out_raw(i, PROMPT, strlen(PROMPT));
}

void shell_poll(void)
{
	int queued = console_drain();

	if (redraw_in && !held && !--redraw_in) {
		if (queued)
			redraw_in = 1;	/* the message is still going out: the prompt after it */
		else
			prompt();
	}
	for (int i = 0; i < console_count(); i++)
		for (int ch; (ch = console_getc(i)) >= 0;) {
			if (!shown)
				prompt();	/* before the echo of what is typed */
			if (le_feed(&le[i], (unsigned char)ch))
				run_line(i);
		}
}

void console_write(const char *s, size_t n)
{
	if (cpu_id() != 0 || !started) {
		console_out(CONSOLE_ALL, s, n);
		return;
	}
	if (reply_to != CONSOLE_ALL) {
		console_out(reply_to, s, n);
		return;
	}
	if (shown)
		console_queue("\r\033[K", 4);	/* VT100 EL: erase the prompt line */
	shown = 0;
	console_queue(s, n);	/* a core that forwards does not wait for the line */
	redraw_in = REDRAW_POLLS;
}

static void help_line(const struct shell_cmd *c)
{
	if (strlen(c->usage) < 25)
		printf("  %-24s %s\n", c->usage, c->help);
	else	/* a long usage gets a line of its own */
		printf("  %s\n  %-24s %s\n", c->usage, "", c->help);
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 2) {
		printf("usage: help [command]\n");
		return -1;
	}
	if (argc == 2) {
		const struct shell_cmd *c = cmd_find(argv[1]);
		if (!c) {
			printf("help: no command '%s'; ", argv[1]);
			list_commands("");
			return -1;
		}
		help_line(c);
		return 0;
	}
	for (const struct shell_cmd *c = __shell_cmds_start; c < __shell_cmds_end; c++)
		help_line(c);
	return 0;
}
void shell_prompt_hold(int hold)
{
	held = hold;
	if (!hold && !shown)
		redraw_in = 1;
}

SHELL_CMD(help, "help", "help [command]", "list commands, or one command's forms", cmd_help);

static int cmd_quit(int argc, char **argv)
{
	(void)argc;
	printf("%s: the appliance runs until it is switched off; `reboot` resets it. Under QEMU, Ctrl-A X "
	       "quits QEMU (Ctrl-A C: its monitor)\n", argv[0]);
	return 0;
}
SHELL_CMD(quit, "quit", "quit", "how to leave (Ctrl-A X under QEMU)", cmd_quit);
SHELL_CMD(exit, "exit", "exit", "the same as quit", cmd_quit);
