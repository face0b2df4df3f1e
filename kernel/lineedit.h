/*
 * Line editor for the serial shell, fed one received byte at a time. It
 * keeps no pointers into the caller's data and writes only to its own
 * fixed buffers, so any byte stream (binary garbage included) is safe.
 * Echo and cursor moves go out through a callback as VT100/ANSI text.
 *
 * Keys: printable 0x20..0x7e insert at the cursor; CR or LF ends the line
 * (a CR LF or LF CR pair counts as one end); BS (0x08) and DEL (0x7f)
 * delete left of the cursor; Ctrl-U clears the line; Ctrl-C abandons it;
 * Ctrl-A / ESC[H / ESC[1~ / ESC OH go home, Ctrl-E / ESC[F / ESC[4~ /
 * ESC OF go to the end; ESC[D / ESC[C (or ESC OD / ESC OC) move left and
 * right; ESC[3~ deletes under the cursor; ESC[A / ESC[B (or ESC OA /
 * ESC OB) recall the previous / next line of history (non-empty lines
 * returned, without consecutive duplicates). Everything else is discarded
 * and counted in `ignored`.
 */
#ifndef KERNEL_LINEEDIT_H
#define KERNEL_LINEEDIT_H
#include <stddef.h>
#include <stdint.h>

#define LE_LINE_MAX 128		/* bytes in a line, excluding NUL */
#define LE_HISTORY 8		/* lines kept for ESC[A / ESC[B */
#define LE_ESC_MAX 8		/* longest escape sequence understood, ESC included */

struct lineedit {
	char line[LE_LINE_MAX + 1];	/* the finished line after le_feed returns 1 */
	char buf[LE_LINE_MAX + 1];	/* the line being edited, NUL-terminated */
	size_t len;			/* bytes in buf */
	size_t cur;			/* cursor: index into buf, 0..len */
	char esc[LE_ESC_MAX];		/* escape sequence so far, ESC included */
	size_t esclen;			/* bytes seen, 0 if none; LE_ESC_MAX + 1: too long */
	char hist[LE_HISTORY][LE_LINE_MAX + 1];	/* ring of returned lines */
	unsigned nhist;			/* lines in hist, 0..LE_HISTORY */
	unsigned hnext;			/* slot the next line goes into */
	int hpos;			/* line recalled: 0 newest, -1 none */
	char draft[LE_LINE_MAX + 1];	/* buf as it was before recalling */
	unsigned char last;		/* previous byte, to pair CR LF / LF CR */
	uint64_t overflow;	/* printable bytes refused, line full (each rings BEL) */
	size_t refused;		/* printable bytes refused on the line being edited */
	size_t cut;		/* after le_feed returns 1: bytes refused on le->line,
				   which is then not what was typed */
	uint64_t ignored;	/* discarded: control bytes, bytes >= 0x80, unknown
				   or too long escape sequences (one count each) */
	void (*out)(const char *s, size_t n, void *ctx);
	void *ctx;
};

/* Start with an empty line and history; out(s, n, ctx) receives all echo
 * (out may be NULL: no echo). */
void le_init(struct lineedit *le, void (*out)(const char *s, size_t n, void *ctx), void *ctx);

/* Echo the line being edited again, the cursor where it was (after
 * something else was printed over it). */
void le_redraw(struct lineedit *le);

/*
 * Feed one received byte. Returns 1 when a line is complete: le->line holds
 * it, NUL-terminated (possibly empty), and the echo already ended with
 * "\r\n"; le->cut > 0 says bytes typed beyond LE_LINE_MAX were refused, so
 * the line is not what was typed and must not be run. Ctrl-C abandons the
 * line: echoed "^C", it completes as an empty line (not in the history).
 * Otherwise returns 0.
 */
int le_feed(struct lineedit *le, unsigned char c);

#endif
