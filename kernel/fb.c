/*
 * The screen console. On a linear framebuffer (Multiboot2 framebuffer tag,
 * UEFI GOP) each character is drawn in its 8x16 cell with the built-in font;
 * in VGA text mode (0xb8000: 16-bit cells, character and attribute; IBM VGA
 * Technical Reference) the characters are stored, and the same font is
 * loaded into plane 2 first, so both screens look alike. A shadow of the
 * framebuffer's cells lets a scroll redraw only the cells that change,
 * never reading video memory (slow on real hardware).
 */
#include <stdio.h>
#include <string.h>
#include "kernel/cpu.h"
#include "kernel/fb.h"
#include "kernel/font.h"
#include "kernel/mem.h"

#define COLS_MAX 256
#define ROWS_MAX 128
#define VGA_TEXT 0xb8000	/* colour text mode's cells */
#define VGA_PLANE2 0xa0000	/* the font plane, while mapped there */
#define VGA_ATTR 0x07		/* light grey on black */
#define GREY 0xaa		/* VGA's light grey, per colour */
#define SEQ 0x3c4		/* sequencer index/data */
#define GC 0x3ce		/* graphics controller index/data */
#define CRTC 0x3d4		/* CRT controller (colour) index/data */
#define MISC_READ 0x3cc		/* miscellaneous output register, read */

static struct {
	enum { NONE, PIXELS, CELLS } kind;
	uint8_t *base;
	uint32_t pitch, bytespp;	/* bytes per line of pixels (CELLS: of cells); per pixel */
	uint32_t width, height, bpp;	/* pixels, for the report */
	uint32_t fg;		/* the text's pixel value */
	int cols, rows, x, y;	/* the text grid and the cursor */
	int esc;		/* 0, 1 after ESC, 2 inside CSI */
	int arg;		/* CSI's number so far, -1 none */
	const char *what;	/* where the screen came from */
	char why[96];		/* no screen: why */
	uint64_t lines, cycles;
} scr;
static uint8_t shadow[ROWS_MAX][COLS_MAX];	/* PIXELS: each cell's character */

/* Cell (x, y) of the framebuffer: character c, underlined if cursor. */
static void draw(int x, int y, uint8_t c, int cursor)
{
	const uint8_t *g = font8x16[c >= FONT_FIRST && c < FONT_FIRST + FONT_GLYPHS ? c - FONT_FIRST : 0];
	uint8_t *row = scr.base + (size_t)y * FONT_H * scr.pitch + (size_t)x * FONT_W * scr.bytespp;

	for (int r = 0; r < FONT_H; r++, row += scr.pitch) {
		uint8_t bits = g[r] | (cursor && r >= FONT_H - 2 ? 0xff : 0);
		for (int b = 0; b < FONT_W; b++) {
			uint32_t v = bits & (0x80 >> b) ? scr.fg : 0;
			if (scr.bytespp == 4) {
				((volatile uint32_t *)row)[b] = v;
			} else {
				volatile uint8_t *p = row + 3 * b;
				p[0] = (uint8_t)v;
				p[1] = (uint8_t)(v >> 8);
				p[2] = (uint8_t)(v >> 16);
			}
		}
	}
}

static void set_cell(int x, int y, uint8_t c)
{
	if (scr.kind == CELLS)
		((volatile uint16_t *)(scr.base + (size_t)y * scr.pitch))[x] = (uint16_t)(VGA_ATTR << 8 | c);
	else if (shadow[y][x] != c) {
		shadow[y][x] = c;
		draw(x, y, c, 0);
	}
}

static void clear_cells(int y, int from, int to)
{
	for (int x = from; x < to; x++)
		set_cell(x, y, ' ');
}

static void scroll(void)
{
	if (scr.kind == CELLS)
		memmove(scr.base, scr.base + scr.pitch, (size_t)(scr.rows - 1) * scr.pitch);
	else
		for (int y = 0; y + 1 < scr.rows; y++)
			for (int x = 0; x < scr.cols; x++)
				set_cell(x, y, shadow[y + 1][x]);
	clear_cells(scr.rows - 1, 0, scr.cols);
	scr.lines++;
}

static void line_feed(void)
{
	if (++scr.y == scr.rows) {
		scroll();
		scr.y = scr.rows - 1;
	}
}

/* The end of a CSI sequence: final byte f with its number. */
static void csi(char f, int n)
{
	int by = n > 0 ? n : 1;

	switch (f) {
	case 'C':
		scr.x = scr.x + by < scr.cols ? scr.x + by : scr.cols - 1;
		break;
	case 'D':
		scr.x = scr.x > by ? scr.x - by : 0;
		break;
	case 'K':
		clear_cells(scr.y, scr.x < scr.cols ? scr.x : scr.cols, scr.cols);
		break;
	case 'J':
		for (int y = n == 2 ? 0 : scr.y; y < scr.rows; y++)
			clear_cells(y, y == scr.y && n != 2 ? scr.x : 0, scr.cols);
		break;
	case 'H':
		scr.x = scr.y = 0;
		break;
	}
}

static void put(uint8_t c)
{
	if (scr.esc == 1) {
		scr.esc = c == '[' ? 2 : 0;
		scr.arg = -1;
		return;
	}
	if (scr.esc == 2) {
		if (c >= '0' && c <= '9')
			scr.arg = (scr.arg < 0 ? 0 : scr.arg) * 10 % 10000 + (c - '0');
		else if (c == ';')
			scr.arg = -1;
		else if (c >= 0x40 && c <= 0x7e) {
			csi((char)c, scr.arg);
			scr.esc = 0;
		}
		return;
	}
	switch (c) {
	case 0x1b:
		scr.esc = 1;
		break;
	case '\r':
		scr.x = 0;
		break;
	case '\n':
		line_feed();
		break;
	case '\b':
		if (scr.x > 0)
			scr.x--;
		break;
	case '\t':
		scr.x = (scr.x | 7) + 1 < scr.cols ? (scr.x | 7) + 1 : scr.cols - 1;
		break;
	default:
		if (c < 0x20 || c > 0x7e)
			break;
		if (scr.x >= scr.cols) {
			scr.x = 0;
			line_feed();
		}
		set_cell(scr.x++, scr.y, c);
	}
}

/* The cursor: an underline on the framebuffer, the VGA's own (CRTC
 * registers 0x0e, 0x0f: cursor location) in text mode. */
static void cursor(int show)
{
	int x = scr.x < scr.cols ? scr.x : scr.cols - 1;

	if (scr.kind == PIXELS) {
		draw(x, scr.y, shadow[scr.y][x], show);
	} else if (show && scr.base == (uint8_t *)VGA_TEXT) {
		uint16_t at = (uint16_t)(scr.y * scr.cols + x);
		outw(CRTC, (uint16_t)(0x0e | (at & 0xff00)));
		outw(CRTC, (uint16_t)(0x0f | at << 8));
	}
}

void fb_write(const char *s, size_t n)
{
	if (scr.kind == NONE || !n)
		return;
	uint64_t t0 = rdtsc();
	cursor(0);
	for (size_t i = 0; i < n; i++)
		put((uint8_t)s[i]);
	cursor(1);
	scr.cycles += rdtsc() - t0;
}

/* The font into VGA plane 2, where text mode reads its glyphs (32 bytes a
 * character), as Linux's vgacon loads one: plane 2 alone, mapped at
 * 0xa0000 without odd/even, then text mode's mapping back. */
static void vga_load_font(void)
{
	outw(SEQ, 0x0100);	/* synchronous reset */
	outw(SEQ, 0x0402);	/* map mask: plane 2 */
	outw(SEQ, 0x0704);	/* memory mode: sequential, extended memory */
	outw(SEQ, 0x0300);	/* reset off */
	outw(GC, 0x0204);	/* read map select: plane 2 */
	outw(GC, 0x0005);	/* graphics mode: odd/even off */
	outw(GC, 0x0406);	/* miscellaneous: 0xa0000, 64 KiB */
	for (int c = 0; c < FONT_GLYPHS; c++)
		memcpy((uint8_t *)VGA_PLANE2 + 32 * (FONT_FIRST + c), font8x16[c], FONT_H);
	outw(SEQ, 0x0100);
	outw(SEQ, 0x0302);	/* map mask: planes 0 and 1 */
	outw(SEQ, 0x0304);	/* memory mode: odd/even, extended memory */
	outw(SEQ, 0x0300);
	outw(GC, 0x0004);
	outw(GC, 0x1005);	/* graphics mode: odd/even */
	outw(GC, 0x0e06);	/* miscellaneous: 0xb8000, 32 KiB, chained */
}

/* VGA text cells at addr, cols x rows, pitch bytes a row, if a VGA
 * answers: its miscellaneous output register does not read 0xff (an empty
 * bus), and a written cell reads back. */
static int text(uint64_t addr, uint32_t cols, uint32_t rows, uint32_t pitch, const char *what)
{
	volatile uint16_t *last = (volatile uint16_t *)(addr + (uint64_t)(rows - 1) * pitch) + cols - 1;

	if (cols < 1 || rows < 1 || cols > COLS_MAX || rows > ROWS_MAX || pitch < 2 * cols) {
		snprintf(scr.why, sizeof(scr.why), "text mode %ux%u (pitch %u) is not used", cols, rows, pitch);
		return -1;
	}
	if (inb(MISC_READ) == 0xff) {
		snprintf(scr.why, sizeof(scr.why), "no VGA answers (its register at %#x reads 0xff)", MISC_READ);
		return -1;
	}
	*last = 0x5a5a;
	if (*last != 0x5a5a) {
		snprintf(scr.why, sizeof(scr.why), "no VGA text memory answers at %#lx", addr);
		return -1;
	}
	if (addr == VGA_TEXT)
		vga_load_font();
	scr.kind = CELLS;
	scr.base = (uint8_t *)addr;
	scr.pitch = pitch;
	scr.cols = (int)cols;
	scr.rows = (int)rows;
	scr.what = what;
	for (int y = 0; y < scr.rows; y++)
		clear_cells(y, 0, scr.cols);
	return 0;
}

/* A direct-colour framebuffer of 24 or 32 bits a pixel, 8 bits a colour. */
static int pixels(const struct boot_fb *fb, const char *what)
{
	if ((fb->bpp != 32 && fb->bpp != 24) || fb->red_size != 8 || fb->green_size != 8 || fb->blue_size != 8) {
		snprintf(scr.why, sizeof(scr.why), "a framebuffer of %u bits a pixel (%u:%u:%u) is not supported "
			 "(24 or 32, 8 bits a colour)", fb->bpp, fb->red_size, fb->green_size, fb->blue_size);
		return -1;
	}
	if (fb->width < FONT_W || fb->height < FONT_H || fb->pitch < fb->width * (fb->bpp / 8u) ||
	    mmio_map(fb->addr, (uint64_t)fb->pitch * fb->height) != 0) {
		snprintf(scr.why, sizeof(scr.why), "the framebuffer %ux%u (pitch %u) at %#lx is not usable",
			 fb->width, fb->height, fb->pitch, fb->addr);
		return -1;
	}
	scr.kind = PIXELS;
	scr.base = (uint8_t *)fb->addr;
	scr.pitch = fb->pitch;
	scr.bytespp = fb->bpp / 8u;
	scr.width = fb->width;
	scr.height = fb->height;
	scr.bpp = fb->bpp;
	scr.fg = (uint32_t)GREY << fb->red_pos | (uint32_t)GREY << fb->green_pos | (uint32_t)GREY << fb->blue_pos;
	scr.cols = (int)(fb->width / FONT_W < COLS_MAX ? fb->width / FONT_W : COLS_MAX);
	scr.rows = (int)(fb->height / FONT_H < ROWS_MAX ? fb->height / FONT_H : ROWS_MAX);
	scr.what = what;
	memset(scr.base, 0, (size_t)fb->pitch * fb->height);
	memset(shadow, ' ', sizeof(shadow));
	return 0;
}

int fb_init(const struct boot_fb *fb, int vga, const char *what)
{
	switch (fb->type) {
	case BOOT_FB_RGB:
		return pixels(fb, what);
	case BOOT_FB_TEXT:
		return text(fb->addr, fb->width, fb->height, fb->pitch, what);
	case BOOT_FB_OTHER:
		snprintf(scr.why, sizeof(scr.why), "the %s has no direct-colour framebuffer (a palette, or none)", what);
		return -1;
	}
	if (!vga) {
		snprintf(scr.why, sizeof(scr.why), "the loader set up no framebuffer");
		return -1;
	}
	return text(VGA_TEXT, 80, 25, 160, "VGA text mode");
}

void fb_describe(char *buf, size_t len)
{
	if (scr.kind == PIXELS)
		snprintf(buf, len, "framebuffer %ux%u %u bpp at %#lx, %dx%d characters (from the %s)", scr.width,
			 scr.height, scr.bpp, (uint64_t)scr.base, scr.cols, scr.rows, scr.what);
	else if (scr.kind == CELLS)
		snprintf(buf, len, "text %dx%d at %#lx (%s)", scr.cols, scr.rows, (uint64_t)scr.base, scr.what);
	else
		snprintf(buf, len, "%s", scr.why);
}

void fb_cost(uint64_t *lines, uint64_t *cycles)
{
	*lines = scr.lines;
	*cycles = scr.cycles;
}
