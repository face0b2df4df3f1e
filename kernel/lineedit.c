/* Serial line editor; see lineedit.h. */
#include <stdio.h>
#include <string.h>
#include "kernel/lineedit.h"

#define ESC 0x1b

enum key { K_NONE, K_LEFT, K_RIGHT, K_HOME, K_END, K_UP, K_DOWN,
	   K_BACKSPACE, K_DELETE, K_KILL };

/* Escape sequences understood, without the leading ESC. */
static const struct {
	const char *seq;
	enum key key;
} escapes[] = {
	{ "[D", K_LEFT }, { "[C", K_RIGHT }, { "[A", K_UP }, { "[B", K_DOWN },
	{ "[H", K_HOME }, { "[F", K_END }, { "[1~", K_HOME }, { "[4~", K_END },
	{ "[3~", K_DELETE },
	{ "OD", K_LEFT }, { "OC", K_RIGHT }, { "OA", K_UP }, { "OB", K_DOWN },
	{ "OH", K_HOME }, { "OF", K_END },
};

static void put(struct lineedit *le, const char *s, size_t n)
{
	if (n > 0 && le->out != NULL)
		le->out(s, n, le->ctx);
}

/* Move the terminal cursor n columns: dir 'D' left, 'C' right. */
static void move(struct lineedit *le, size_t n, char dir)
{
	char s[32];

	if (n > 0)
		put(le, s, (size_t)snprintf(s, sizeof(s), "\x1b[%u%c", (unsigned)n, dir));
}

static void start_line(struct lineedit *le)
{
	le->refused = 0;
	le->buf[0] = '\0';
	le->len = 0;
	le->cur = 0;
	le->hpos = -1;
}

/* Replace the whole line with s (at most LE_LINE_MAX bytes), cursor at end. */
static void replace(struct lineedit *le, const char *s)
{
	move(le, le->cur, 'D');
	le->len = le->cur = strlen(s);
	memcpy(le->buf, s, le->len + 1);
	put(le, le->buf, le->len);
	put(le, "\x1b[K", 3);
}

static void insert(struct lineedit *le, char c)
{
	if (le->len == LE_LINE_MAX) {
		le->overflow++;
		le->refused++;
		put(le, "\a", 1);
		return;
	}
	memmove(&le->buf[le->cur + 1], &le->buf[le->cur], le->len - le->cur + 1);
	le->buf[le->cur] = c;
	le->len++;
	put(le, &le->buf[le->cur], le->len - le->cur);
	le->cur++;
	move(le, le->len - le->cur, 'D');
}

/* Delete the byte under the cursor and redraw the tail. */
static void delete_char(struct lineedit *le)
{
	if (le->cur == le->len)
		return;
	memmove(&le->buf[le->cur], &le->buf[le->cur + 1], le->len - le->cur);
	le->len--;
	put(le, &le->buf[le->cur], le->len - le->cur);
	put(le, "\x1b[K", 3);
	move(le, le->len - le->cur, 'D');
}

/* History line k back, 0 the newest. */
static const char *hist_line(const struct lineedit *le, unsigned k)
{
	return le->hist[(le->hnext + LE_HISTORY - 1 - k) % LE_HISTORY];
}

static void hist_add(struct lineedit *le)
{
	if (le->len == 0 || (le->nhist > 0 && strcmp(hist_line(le, 0), le->buf) == 0))
		return;
	memcpy(le->hist[le->hnext], le->buf, le->len + 1);
	le->hnext = (le->hnext + 1) % LE_HISTORY;
	if (le->nhist < LE_HISTORY)
		le->nhist++;
}

static void hist_up(struct lineedit *le)
{
	if ((unsigned)(le->hpos + 1) >= le->nhist)
		return;
	if (le->hpos < 0)
		memcpy(le->draft, le->buf, le->len + 1);
	le->hpos++;
	replace(le, hist_line(le, (unsigned)le->hpos));
}

static void hist_down(struct lineedit *le)
{
	if (le->hpos < 0)
		return;
	le->hpos--;
	replace(le, le->hpos < 0 ? le->draft : hist_line(le, (unsigned)le->hpos));
}

static void do_key(struct lineedit *le, enum key key)
{
	switch (key) {
	case K_NONE:
		le->ignored++;
		break;
	case K_LEFT:
		if (le->cur > 0) {
			move(le, 1, 'D');
			le->cur--;
		}
		break;
	case K_RIGHT:
		if (le->cur < le->len) {
			move(le, 1, 'C');
			le->cur++;
		}
		break;
	case K_HOME:
		move(le, le->cur, 'D');
		le->cur = 0;
		break;
	case K_END:
		move(le, le->len - le->cur, 'C');
		le->cur = le->len;
		break;
	case K_UP:
		hist_up(le);
		break;
	case K_DOWN:
		hist_down(le);
		break;
	case K_BACKSPACE:
		if (le->cur > 0) {
			do_key(le, K_LEFT);
			delete_char(le);
		}
		break;
	case K_DELETE:
		delete_char(le);
		break;
	case K_KILL:
		replace(le, "");
		le->refused = 0;
		break;
	}
}

static enum key control_key(unsigned char c)
{
	switch (c) {
	case 0x01:	/* Ctrl-A */
		return K_HOME;
	case 0x05:	/* Ctrl-E */
		return K_END;
	case 0x08:	/* BS */
	case 0x7f:	/* DEL */
		return K_BACKSPACE;
	case 0x15:	/* Ctrl-U */
		return K_KILL;
	default:
		return K_NONE;
	}
}

static enum key escape_key(const struct lineedit *le)
{
	size_t i;

	for (i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++)
		if (strlen(escapes[i].seq) == le->esclen - 1 &&
		    memcmp(escapes[i].seq, le->esc + 1, le->esclen - 1) == 0)
			return escapes[i].key;
	return K_NONE;
}

/*
 * One printable byte inside an escape sequence. A sequence ends with the
 * byte after ESC unless that is '[' (CSI: ends with a byte 0x40..0x7e) or
 * 'O' (SS3: ends with the next byte). Bytes past LE_ESC_MAX are not kept;
 * such a sequence is discarded when it ends.
 */
static void escape_byte(struct lineedit *le, unsigned char c)
{
	int done;

	if (le->esclen < LE_ESC_MAX)
		le->esc[le->esclen] = (char)c;
	if (le->esclen <= LE_ESC_MAX)
		le->esclen++;
	if (le->esclen == 2)
		done = c != '[' && c != 'O';
	else
		done = le->esc[1] == 'O' || (c >= 0x40 && c <= 0x7e);
	if (done) {
		do_key(le, le->esclen <= LE_ESC_MAX ? escape_key(le) : K_NONE);
		le->esclen = 0;
	}
}

static int end_line(struct lineedit *le)
{
	put(le, "\r\n", 2);
	memcpy(le->line, le->buf, le->len + 1);
	le->cut = le->refused;
	hist_add(le);
	start_line(le);
	return 1;
}

void le_redraw(struct lineedit *le)
{
	put(le, le->buf, le->len);
	move(le, le->len - le->cur, 'D');
}

void le_init(struct lineedit *le, void (*out)(const char *s, size_t n, void *ctx), void *ctx)
{
	memset(le, 0, sizeof(*le));
	le->hpos = -1;
	le->out = out;
	le->ctx = ctx;
}

int le_feed(struct lineedit *le, unsigned char c)
{
	unsigned char prev = le->last;
	int printable = c >= 0x20 && c < 0x7f;

	le->last = c;
	if (le->esclen > 0) {
		if (printable) {
			escape_byte(le, c);
			return 0;
		}
		le->esclen = 0;		/* a control byte cuts the sequence short */
		le->ignored++;
	}
	if (printable) {
		insert(le, (char)c);
	} else if (c == '\r' || c == '\n') {
		if ((prev == '\r' || prev == '\n') && prev != c) {
			le->last = 0;	/* second half of a CR LF or LF CR pair */
			return 0;
		}
		return end_line(le);
	} else if (c == 0x03) {	/* Ctrl-C: abandon the line (an empty one, so a new prompt) */
		put(le, "^C\r\n", 4);
		start_line(le);
		le->line[0] = '\0';
		le->cut = 0;
		return 1;
	} else if (c == ESC) {
		le->esc[0] = ESC;
		le->esclen = 1;
	} else {
		do_key(le, control_key(c));
	}
	return 0;
}
