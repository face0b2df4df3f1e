/* Unit tests for the screen console's framebuffer (kernel/fb.c) on a host
 * buffer: a depth it does not draw (8, 15, 16 bits a pixel, or colours not
 * 8 bits wide) is refused with its reason and the buffer is left as it
 * was, before and after text is written; a 32-bit one is cleared and 'A'
 * drawn in its first cell as the built-in font has it. */
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "kernel/fb.h"
#include "kernel/font.h"
#include "kernel/mem.h"

#define W 64
#define H 32
#define FILL 0x5a

static uint8_t screen[H * W * 4];
static int maps;

/* The kernel maps the framebuffer uncached; here it is memory already. */
int mmio_map(uint64_t phys, uint64_t len)
{
	(void)phys;
	(void)len;
	maps++;
	return 0;
}

static struct boot_fb rgb(uint8_t bpp, uint8_t r, uint8_t g, uint8_t b)
{
	return (struct boot_fb){ .addr = (uint64_t)screen, .pitch = W * ((bpp + 7) / 8u), .width = W, .height = H,
				 .type = BOOT_FB_RGB, .bpp = bpp, .red_pos = (uint8_t)(g + b), .red_size = r,
				 .green_pos = b, .green_size = g, .blue_pos = 0, .blue_size = b };
}

static int untouched(void)
{
	for (size_t i = 0; i < sizeof(screen); i++)
		if (screen[i] != FILL)
			return 0;
	return 1;
}

/* fb refused with reason why: nothing mapped, nothing drawn. */
static void refused(const struct boot_fb *fb, const char *why)
{
	char buf[160];

	memset(screen, FILL, sizeof(screen));
	maps = 0;
	assert_int_equal(fb_init(fb, 0, "Multiboot2 framebuffer tag"), -1);
	fb_describe(buf, sizeof(buf));
	assert_string_equal(buf, why);
	fb_write("linerate: ready\r\n", 17);
	assert_int_equal(maps, 0);
	assert_true(untouched());
}

static void test_depths_not_drawn(void **state)
{
	(void)state;
	struct boot_fb fb = rgb(16, 5, 6, 5);
	refused(&fb, "a framebuffer of 16 bits a pixel (5:6:5) is not supported (24 or 32, 8 bits a colour)");
	fb = rgb(15, 5, 5, 5);
	refused(&fb, "a framebuffer of 15 bits a pixel (5:5:5) is not supported (24 or 32, 8 bits a colour)");
	fb = rgb(8, 3, 3, 2);
	refused(&fb, "a framebuffer of 8 bits a pixel (3:3:2) is not supported (24 or 32, 8 bits a colour)");
	fb = rgb(32, 10, 10, 10);	/* 30-bit colour in 32-bit pixels */
	refused(&fb, "a framebuffer of 32 bits a pixel (10:10:10) is not supported (24 or 32, 8 bits a colour)");
	fb = rgb(16, 5, 6, 5);
	fb.type = BOOT_FB_OTHER;	/* Multiboot2 type 0: indexed, a palette */
	refused(&fb, "the Multiboot2 framebuffer tag has no direct-colour framebuffer (a palette, or none)");
	fb = rgb(32, 8, 8, 8);
	fb.pitch = W * 2;		/* shorter than a line of pixels */
	char why[96];
	snprintf(why, sizeof(why), "the framebuffer 64x32 (pitch 128) at %#lx is not usable", (uint64_t)screen);
	refused(&fb, why);
}

static void test_32bpp_drawn(void **state)
{
	(void)state;
	struct boot_fb fb = rgb(32, 8, 8, 8);
	const uint8_t *glyph = font8x16['A' - FONT_FIRST];
	char buf[160], want[160];

	memset(screen, FILL, sizeof(screen));
	maps = 0;
	assert_int_equal(fb_init(&fb, 0, "UEFI GOP"), 0);
	assert_int_equal(maps, 1);
	fb_describe(buf, sizeof(buf));
	snprintf(want, sizeof(want), "framebuffer 64x32 32 bpp at %#lx, 8x2 characters (from the UEFI GOP)",
		 (uint64_t)screen);
	assert_string_equal(buf, want);
	fb_write("A", 1);
	for (int y = 0; y < FONT_H; y++)
		for (int x = 0; x < W; x++) {
			uint32_t px;
			memcpy(&px, screen + (size_t)y * fb.pitch + 4 * x, 4);
			int lit = x < FONT_W ? glyph[y] & 0x80 >> x : 0;
			if (x >= FONT_W && x < 2 * FONT_W && y >= FONT_H - 2)
				lit = 1;	/* the cursor's underline in the next cell */
			assert_int_equal(px, lit ? 0xaaaaaau : 0);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_depths_not_drawn),
		cmocka_unit_test(test_32bpp_drawn),	/* last: fb.c's state stays set */
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
