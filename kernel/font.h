/* The screen console's font: 8x16 glyphs for the bytes 0x20..0x7e, row 0
 * first, bit 7 the leftmost pixel. Generated at build time from a Debian
 * console font (tools/psf2c.py; build/gen/font8x16.c). */
#ifndef KERNEL_FONT_H
#define KERNEL_FONT_H
#include <stdint.h>

#define FONT_FIRST 0x20
#define FONT_GLYPHS (0x7f - FONT_FIRST)
#define FONT_W 8
#define FONT_H 16

extern const uint8_t font8x16[FONT_GLYPHS][16];
#endif
