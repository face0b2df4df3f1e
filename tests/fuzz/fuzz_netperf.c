/* Fuzz apps/rr/netperf.c, netserver's parser of netperf's control
 * messages: the input is a message as the control connection delivers it
 * (any length). A request that parses names one of the six tests, with
 * sizes the test takes; the response and results built for it are whole
 * messages of netserver's type, whatever the request held. */
#include <assert.h>
#include <string.h>
#include "apps/rr/netperf.h"
#include "net/bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct np_request r;
	struct np_response rsp;
	uint8_t msg[NP_MSG_LEN];
	enum np_err e = np_parse_request(data, size, &r);
	if (size < NP_MSG_LEN) {
		assert(e == NP_SHORT);
		return 0;
	}
	if (e != NP_OK) {
		assert(e == NP_UNKNOWN || e == NP_BAD_SIZE);
		return 0;
	}
	assert(r.test < NP_TEST_N && get32(data) == NP_DO_OMNI);
	int udp = r.test == NP_UDP_STREAM || r.test == NP_UDP_RR;
	int32_t max = udp ? NP_UDP_MAX : NP_SIZE_MAX;
	if (r.test == NP_TCP_RR || r.test == NP_TCP_CRR || r.test == NP_UDP_RR)
		assert(r.request_size >= 1 && r.request_size <= max && r.response_size >= 1 && r.response_size <= max);
	if (r.test == NP_TCP_MAERTS)
		assert(r.send_size == -1 || (r.send_size >= 1 && r.send_size <= max));
	np_response_for(&r, 11680, 23360, 49152, &rsp);
	assert(rsp.data_port == 49152 && !(rsp.flags & ~(uint32_t)(NP_MEASURE_CPU | NP_NO_DELAY)));
	if (r.test == NP_TCP_MAERTS)	/* the send size netserver will use */
		assert(rsp.send_size >= 1 && rsp.send_size <= NP_SIZE_MAX);
	np_put_response(msg, &rsp);
	assert(get32(msg) == NP_OMNI_RESPONSE && get32(msg + 4) == 0);
	const struct np_results res = { .bytes_received = size, .elapsed_time = 1.0f };
	np_put_results(msg, &res);
	assert(get32(msg) == NP_OMNI_RESPONSE && get32(msg + 12) == size);
	return 0;
}
