/*
 * Virtio 1.2 (OASIS, 2022) definitions for virtio-net over PCI: device
 * status (2.1), feature bits (6, 5.1.3), split virtqueues (2.7), the PCI
 * capabilities and common configuration (4.1.4), the net device's
 * configuration and header (5.1.4, 5.1.6). Little-endian everywhere (x86).
 */
#ifndef VIRTIO_REGS_H
#define VIRTIO_REGS_H
#include <stdint.h>

/* PCI IDs (4.1.2): 0x1000 transitional network device, 0x1040 + 1 modern. */
#define VIRTIO_PCI_VENDOR	0x1af4
#define VIRTIO_PCI_NET_TRANS	0x1000
#define VIRTIO_PCI_NET_MODERN	0x1041

/* Device status field (2.1). */
#define VIRTIO_STATUS_ACKNOWLEDGE	1
#define VIRTIO_STATUS_DRIVER		2
#define VIRTIO_STATUS_DRIVER_OK		4
#define VIRTIO_STATUS_FEATURES_OK	8
#define VIRTIO_STATUS_NEEDS_RESET	64
#define VIRTIO_STATUS_FAILED		128

/* Feature bits: device-independent (6), network device (5.1.3). */
#define VIRTIO_NET_F_CSUM		0	/* device takes partial checksums (TX) */
#define VIRTIO_NET_F_GUEST_CSUM		1	/* driver takes partial/validated checksums (RX) */
#define VIRTIO_NET_F_MTU		3
#define VIRTIO_NET_F_MAC		5
#define VIRTIO_NET_F_MRG_RXBUF		15	/* num_buffers; taken on the legacy interface for its 12-byte header */
#define VIRTIO_NET_F_STATUS		16
#define VIRTIO_NET_F_CTRL_VQ		17	/* control virtqueue */
#define VIRTIO_NET_F_CTRL_RX		18	/* RX mode and MAC filter commands */
#define VIRTIO_NET_F_MQ			22	/* several queue pairs, steered by the device */
#define VIRTIO_F_EVENT_IDX		29
#define VIRTIO_F_VERSION_1		32
#define VIRTIO_F_ACCESS_PLATFORM	33
#define VIRTIO_F_RING_PACKED		34	/* packed virtqueues (2.8) */
#define VIRTIO_F_IN_ORDER		35	/* buffers used in the order made available (2.7.9) */
#define VIRTIO_F_RING_RESET		40	/* the driver resets one queue (2.6.1, queue_reset) */
#define VIRTIO_NET_F_HASH_REPORT	57	/* the device's hash in each received frame's header */
#define VIRTIO_NET_F_RSS		60	/* receive-side scaling by the driver's table (5.1.6.5.7) */
#define VIRTIO_BIT(f)			(1ull << (f))

/* Vendor-specific PCI capability (4.1.4): struct virtio_pci_cap. */
#define VIRTIO_PCI_CAP_VNDR		0x09
#define VIRTIO_PCI_CAP_TYPE		3	/* u8 cfg_type */
#define VIRTIO_PCI_CAP_BAR		4	/* u8 bar */
#define VIRTIO_PCI_CAP_OFFSET		8	/* le32 offset within the BAR */
#define VIRTIO_PCI_CAP_LENGTH		12	/* le32 length */
#define VIRTIO_PCI_NOTIFY_MULT		16	/* le32 notify_off_multiplier (notify cap, 4.1.4.4) */
#define VIRTIO_PCI_CAP_COMMON_CFG	1
#define VIRTIO_PCI_CAP_NOTIFY_CFG	2
#define VIRTIO_PCI_CAP_ISR_CFG		3
#define VIRTIO_PCI_CAP_DEVICE_CFG	4

/* Common configuration structure (4.1.4.3): offsets. */
#define VIRTIO_COMMON_DFSELECT		0x00	/* le32 device_feature_select */
#define VIRTIO_COMMON_DF		0x04	/* le32 device_feature */
#define VIRTIO_COMMON_GFSELECT		0x08	/* le32 driver_feature_select */
#define VIRTIO_COMMON_GF		0x0c	/* le32 driver_feature */
#define VIRTIO_COMMON_MSIX		0x10	/* le16 config_msix_vector */
#define VIRTIO_COMMON_NUMQ		0x12	/* le16 num_queues */
#define VIRTIO_COMMON_STATUS		0x14	/* u8 device_status */
#define VIRTIO_COMMON_CFGGEN		0x15	/* u8 config_generation */
#define VIRTIO_COMMON_Q_SELECT		0x16	/* le16 queue_select */
#define VIRTIO_COMMON_Q_SIZE		0x18	/* le16 queue_size */
#define VIRTIO_COMMON_Q_MSIX		0x1a	/* le16 queue_msix_vector */
#define VIRTIO_COMMON_Q_ENABLE		0x1c	/* le16 queue_enable */
#define VIRTIO_COMMON_Q_NOFF		0x1e	/* le16 queue_notify_off */
#define VIRTIO_COMMON_Q_DESC		0x20	/* le64 queue_desc */
#define VIRTIO_COMMON_Q_AVAIL		0x28	/* le64 queue_driver */
#define VIRTIO_COMMON_Q_USED		0x30	/* le64 queue_device */
#define VIRTIO_COMMON_Q_RESET		0x3a	/* le16 queue_reset (VIRTIO_F_RING_RESET) */
#define VIRTIO_COMMON_RESET_LEN		0x3c	/* the structure's length with queue_reset */
#define VIRTIO_MSI_NO_VECTOR		0xffff

/* ISR status (4.1.4.5): read clears. */
#define VIRTIO_ISR_QUEUE		1
#define VIRTIO_ISR_CONFIG		2

/* Split virtqueue (2.7): descriptor table, driver (avail) and device (used) areas. */
struct vring_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};
#define VRING_DESC_F_NEXT		1
#define VRING_DESC_F_WRITE		2	/* device writes the buffer (RX) */

struct vring_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[];	/* then le16 used_event (VIRTIO_F_EVENT_IDX) */
};
#define VRING_AVAIL_F_NO_INTERRUPT	1

struct vring_used_elem {
	uint32_t id;		/* head of the descriptor chain */
	uint32_t len;		/* bytes written into it */
};

struct vring_used {
	uint16_t flags;
	uint16_t idx;
	struct vring_used_elem ring[];	/* then le16 avail_event */
};
#define VRING_USED_F_NO_NOTIFY		1

/* Packed virtqueue (2.8): one ring of descriptors both sides write, an
 * entry available when its AVAIL flag matches the driver's wrap counter
 * and USED does not, used when both match the device's (2.8.1). */
struct vring_packed_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t id;		/* buffer id, returned in the used descriptor */
	uint16_t flags;
};
#define VRING_PACKED_DESC_F_AVAIL	(1u << 7)
#define VRING_PACKED_DESC_F_USED	(1u << 15)

/* Event suppression structure (2.8.10): driver area and device area. */
struct vring_packed_event {
	uint16_t off_wrap;	/* descriptor offset, bit 15 its wrap counter (RING_EVENT_FLAGS_DESC) */
	uint16_t flags;
};
#define RING_EVENT_FLAGS_ENABLE		0
#define RING_EVENT_FLAGS_DISABLE	1
#define RING_EVENT_FLAGS_DESC		2	/* with VIRTIO_F_EVENT_IDX */

/* 2.7.10: does moving the index from old to new cross event? (vring_need_event) */
static inline int vring_need_event(uint16_t event, uint16_t new_idx, uint16_t old)
{
	return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old);
}

/* Network device configuration (5.1.4): offsets in the device cfg. */
#define VIRTIO_NET_CFG_MAC		0	/* u8 mac[6] */
#define VIRTIO_NET_CFG_STATUS		6	/* le16 status */
#define VIRTIO_NET_CFG_MAX_PAIRS	8	/* le16 max_virtqueue_pairs (MQ or RSS) */
#define VIRTIO_NET_CFG_MTU		10	/* le16 mtu */
#define VIRTIO_NET_CFG_RSS_KEY_MAX	17	/* u8 rss_max_key_size (RSS) */
#define VIRTIO_NET_CFG_RSS_TABLE_MAX	18	/* le16 rss_max_indirection_table_length */
#define VIRTIO_NET_CFG_HASH_TYPES	20	/* le32 supported_hash_types */
#define VIRTIO_NET_S_LINK_UP		1

/* Control virtqueue commands (5.1.6.5): class and command, data, then an
 * ack byte the device writes. */
#define VIRTIO_NET_OK			0
#define VIRTIO_NET_CTRL_RX		0
#define VIRTIO_NET_CTRL_RX_PROMISC	0	/* u8 on */
#define VIRTIO_NET_CTRL_RX_ALLMULTI	1	/* u8 on */
#define VIRTIO_NET_CTRL_MAC		1
#define VIRTIO_NET_CTRL_MAC_TABLE_SET	0	/* le32 n + n unicast MACs, le32 m + m multicast MACs */
#define VIRTIO_NET_CTRL_MQ		4
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET	0	/* le16 pairs in use (5.1.6.5.5) */
#define VIRTIO_NET_CTRL_MQ_RSS_CONFIG	1	/* struct virtio_net_rss_config (5.1.6.5.7.1) */

/* RSS hash types (5.1.6.4.3.1): the fields a hash covers. */
#define VIRTIO_NET_HASH_TYPE_IPv4	(1u << 0)
#define VIRTIO_NET_HASH_TYPE_TCPv4	(1u << 1)
#define VIRTIO_NET_HASH_TYPE_UDPv4	(1u << 2)
#define VIRTIO_NET_HASH_TYPE_IPv6	(1u << 3)
#define VIRTIO_NET_HASH_TYPE_TCPv6	(1u << 4)
#define VIRTIO_NET_HASH_TYPE_UDPv6	(1u << 5)

/* virtio_net_hdr (5.1.6): 12 bytes with VIRTIO_F_VERSION_1 (num_buffers
 * is always there), in front of every frame both ways. */
struct virtio_net_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;	/* checksum from this byte to the end ... */
	uint16_t csum_offset;	/* ... stored this far after csum_start */
	uint16_t num_buffers;
} __attribute__((packed));
#define VIRTIO_NET_HDR_LEN		12
#define VIRTIO_NET_HDR_F_NEEDS_CSUM	1	/* checksum to complete (partial) */
#define VIRTIO_NET_HDR_F_DATA_VALID	2	/* the device validated the checksums (RX) */
#define VIRTIO_NET_HDR_GSO_NONE		0
_Static_assert(sizeof(struct virtio_net_hdr) == VIRTIO_NET_HDR_LEN, "virtio_net_hdr of 5.1.6");

/* The header with VIRTIO_NET_F_HASH_REPORT (5.1.6, both ways): 20 bytes,
 * the hash and its type filled in by the device on receive (5.1.6.4.3). */
struct virtio_net_hdr_hash {
	struct virtio_net_hdr hdr;
	uint32_t hash_value;
	uint16_t hash_report;	/* VIRTIO_NET_HASH_REPORT_*: the fields hashed */
	uint16_t padding_reserved;
} __attribute__((packed));
#define VIRTIO_NET_HDR_HASH_LEN		20
#define VIRTIO_NET_HASH_REPORT_NONE	0	/* no hash: hash_value means nothing */
_Static_assert(sizeof(struct virtio_net_hdr_hash) == VIRTIO_NET_HDR_HASH_LEN, "virtio_net_hdr with hash of 5.1.6");
#endif
