/*
 * 82540EM registers beyond the shared set in drivers/net/e1000x/regs.h.
 * Intel PCI/PCI-X Family of Gigabit Ethernet Controllers Software
 * Developer's Manual (8254x), rev 4.0, section 13.
 */
#ifndef E1000_REGS_H
#define E1000_REGS_H

/* I/O BAR (13.2): a window onto the registers */
#define E1000_IOADDR	0x00	/* register offset IODATA reaches - RW */
#define E1000_IODATA	0x04	/* data of the register at IOADDR - RW */

#define E1000_RDBAL	0x02800	/* Receive Descriptor Base Address Low - RW */
#define E1000_RDBAH	0x02804	/* Receive Descriptor Base Address High - RW */
#define E1000_RDLEN	0x02808	/* Receive Descriptor Length - RW */
#define E1000_RDH	0x02810	/* Receive Descriptor Head - RW */
#define E1000_RDT	0x02818	/* Receive Descriptor Tail - RW */
#define E1000_RDTR	0x02820	/* Receive Delay Timer - RW */
#define E1000_RADV	0x0282c	/* Receive Interrupt Absolute Delay Timer - RW */
#define E1000_TDBAL	0x03800	/* Transmit Descriptor Base Address Low - RW */
#define E1000_TDBAH	0x03804	/* Transmit Descriptor Base Address High - RW */
#define E1000_TDLEN	0x03808	/* Transmit Descriptor Length - RW */
#define E1000_TDH	0x03810	/* Transmit Descriptor Head - RW */
#define E1000_TDT	0x03818	/* Transmit Descriptor Tail - RW */
#define E1000_TIDV	0x03820	/* Transmit Interrupt Delay Value - RW */
#define E1000_TADV	0x0382c	/* Transmit Absolute Interrupt Delay Value - RW */

#endif
