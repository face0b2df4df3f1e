/* The screen console (console=tty0): text on the loader's linear
 * framebuffer drawn with the built-in 8x16 font (kernel/font.h), or in VGA
 * text memory on BIOS boots. kernel/console.c chooses it, kernel/conout.c
 * feeds it. */
#ifndef FB_H
#define FB_H
#include <stddef.h>
#include "kernel/boot_info.h"

/* Take the screen fb describes (a BOOT_FB_RGB framebuffer of 24 or 32 bits
 * per pixel, 8 a colour, mapped uncached; or BOOT_FB_TEXT), what: where fb
 * came from ("UEFI GOP"); or with vga and no framebuffer VGA text mode at
 * 0xb8000 (80x25) when its memory answers. Clears it. Returns 0, or -1
 * with the reason for fb_describe. After paging_init. */
int fb_init(const struct boot_fb *fb, int vga, const char *what);
/* One line for the boot report, after "console: tty0 ": what the screen
 * is and its size in characters, or why there is none. */
void fb_describe(char *buf, size_t len);
/* Show n bytes: printable ASCII, CR, LF, BS, TAB, and of the VT100
 * sequences the line editor and the shell send CSI n C and CSI n D (cursor
 * right, left), CSI K (erase to the end of the line), CSI J (erase below),
 * CSI H (home); other escape sequences and bytes are skipped. Text scrolls
 * up a line at the bottom. */
void fb_write(const char *s, size_t n);
/* Lines scrolled since boot, and the TSC cycles fb_write spent (bench). */
void fb_cost(uint64_t *lines, uint64_t *cycles);
#endif
