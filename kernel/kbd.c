/*
 * PS/2 keyboard on the i8042, polled (IBM PC AT Technical Reference, the
 * 8042 keyboard controller: status port 0x64, data port 0x60, command
 * byte). With translation on, keys arrive as scan code set 1: a make code,
 * the same | 0x80 on release, 0xe0 before the extended keys. US layout.
 */
#include <stdint.h>
#include "kernel/cpu.h"
#include "kernel/kbd.h"

#define DATA 0x60
#define STATUS 0x64	/* read: status; write: command */
#define ST_OBF 0x01	/* output buffer full: a byte to read */
#define ST_IBF 0x02	/* input buffer full: the controller is busy */
#define ST_AUX 0x20	/* the byte is from the mouse port */
#define CMD_READ_CB 0x20	/* read the command byte */
#define CMD_WRITE_CB 0x60
#define CMD_AUX_OFF 0xa7
#define CMD_KBD_OFF 0xad
#define CMD_KBD_ON 0xae
#define CB_INTS 0x03	/* keyboard and mouse interrupts */
#define CB_KBD_CLOCK_OFF 0x10
#define CB_XLATE 0x40	/* translate to scan code set 1 */
#define WAIT 100000	/* status reads before the controller is given up */

/* Set 1 make codes 0x00..0x39 to characters, without and with Shift. */
static const char normal[] = "\0\x1b" "1234567890-=\x7f\t" "qwertyuiop[]\r\0" "asdfghjkl;'`\0\\"
			     "zxcvbnm,./\0*\0 ";
static const char shifted[] = "\0\x1b" "!@#$%^&*()_+\x7f\t" "QWERTYUIOP{}\r\0" "ASDFGHJKL:\"~\0|"
			      "ZXCVBNM<>?\0*\0 ";
#define SC_LCTRL 0x1d
#define SC_LSHIFT 0x2a
#define SC_RSHIFT 0x36
#define SC_CAPS 0x3a
#define SC_E0 0xe0

static struct {
	int present;
	int shift, ctrl, caps, e0;
	char out[4];	/* bytes of a key not yet returned */
	int nout, pos;
} kb;

static int wait_status(uint8_t mask, uint8_t want)
{
	for (int i = 0; i < WAIT; i++) {
		if ((inb(STATUS) & mask) == want)
			return 0;
		cpu_relax();
	}
	return -1;
}

static int command(uint8_t cmd)
{
	if (wait_status(ST_IBF, 0))
		return -1;
	outb(STATUS, cmd);
	return 0;
}

int kbd_init(void)
{
	if (inb(STATUS) == 0xff)
		return -1;
	if (command(CMD_KBD_OFF) || command(CMD_AUX_OFF))
		return -1;
	for (int i = 0; i < 64 && (inb(STATUS) & ST_OBF); i++)
		(void)inb(DATA);
	if (command(CMD_READ_CB) || wait_status(ST_OBF, ST_OBF))
		return -1;
	uint8_t cb = (uint8_t)((inb(DATA) & ~(CB_INTS | CB_KBD_CLOCK_OFF)) | CB_XLATE);
	if (command(CMD_WRITE_CB) || wait_status(ST_IBF, 0))
		return -1;
	outb(DATA, cb);
	if (command(CMD_KBD_ON))
		return -1;
	kb.present = 1;
	return 0;
}

static void emit(const char *s, int n)
{
	for (int i = 0; i < n; i++)
		kb.out[i] = s[i];
	kb.nout = n;
	kb.pos = 0;
}

/* The keys after 0xe0 that a line editor takes, as VT100 sequences. */
static void extended(uint8_t code)
{
	switch (code) {
	case 0x48: emit("\x1b[A", 3); break;	/* up */
	case 0x50: emit("\x1b[B", 3); break;	/* down */
	case 0x4d: emit("\x1b[C", 3); break;	/* right */
	case 0x4b: emit("\x1b[D", 3); break;	/* left */
	case 0x47: emit("\x1b[H", 3); break;	/* home */
	case 0x4f: emit("\x1b[F", 3); break;	/* end */
	case 0x53: emit("\x1b[3~", 4); break;	/* delete */
	case 0x1c: emit("\r", 1); break;	/* keypad enter */
	case 0x35: emit("/", 1); break;		/* keypad / */
	}
}

/* One scan code byte: modifier state, or a key's bytes into kb.out. */
static void scan(uint8_t sc)
{
	int up = sc & 0x80, e0 = kb.e0;
	uint8_t code = sc & 0x7f;

	kb.e0 = sc == SC_E0;
	if (sc == SC_E0)
		return;
	if (code == SC_LSHIFT || code == SC_RSHIFT)
		kb.shift = !up;
	else if (code == SC_LCTRL)
		kb.ctrl = !up;	/* right Ctrl: 0xe0 0x1d */
	else if (up)
		return;
	else if (e0)
		extended(code);
	else if (code == SC_CAPS)
		kb.caps = !kb.caps;
	else if (code < sizeof(normal) - 1 && normal[code]) {
		char c = normal[code];
		int letter = c >= 'a' && c <= 'z';
		if (kb.shift != (kb.caps && letter))
			c = shifted[code];
		if (kb.ctrl && letter)
			c = (char)(c & 0x1f);
		emit(&c, 1);
	}
}

int kbd_getc(void)
{
	for (int i = 0; kb.present && kb.pos == kb.nout && i < 16; i++) {
		uint8_t st = inb(STATUS);
		if (!(st & ST_OBF))
			break;
		uint8_t b = inb(DATA);
		if (!(st & ST_AUX))
			scan(b);
	}
	if (kb.pos == kb.nout)
		return -1;
	return (unsigned char)kb.out[kb.pos++];
}
