/* PS/2 keyboard through the i8042 controller, polled: the screen
 * console's input (kernel/console.c). */
#ifndef KBD_H
#define KBD_H
#include <stddef.h>

/* Find the i8042 (its status port does not read 0xff), flush it and turn
 * its interrupts off (polled), translation to scan code set 1 and the
 * keyboard port on (8042 command byte). 0, or -1 when there is none. */
int kbd_init(void);
/* One byte of what was typed, as a VT100 terminal sends it (arrows as
 * ESC [ A..D, Home ESC [ H, End ESC [ F, Delete ESC [ 3 ~, Ctrl-letter
 * as 1..26), or -1 when nothing waits. */
int kbd_getc(void);
#endif
