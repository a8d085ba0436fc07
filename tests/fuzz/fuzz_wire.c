/*
 * tests/fuzz/fuzz_wire.c — fuzzes the MPI sweep's message unpacking
 * (experiments/mpi_wire.c), what rank 0 does with every payload a rank
 * sends and a rank with rank 0's: the first byte picks one of the ops
 * (op_unpack) or one of the messages' records (WireJob, WireJobEnd,
 * WireReply: wire_unpack), the rest is the payload.  A payload is refused
 * or read; one that is read packs again into exactly the bytes it was read
 * from (so packing and unpacking agree, field by field and op by op).
 */
#include "engine/common.h"
#include "experiments/mpi_wire.h"
#include "tests/fuzz/fuzz.h"

/* The bytes consumed from the front of the payload pack back to the same. */
static void check_repacked(const Pack *p, const Unpack *u)
{
    FUZZ_CHECK(!p->oom);
    FUZZ_CHECK(p->len == u->at);
    FUZZ_CHECK(p->len == 0 || memcmp(p->bytes, u->bytes, p->len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int pick = data[0] % (OP_COUNT + 3);
    Unpack u = {data + 1, size - 1, 0, 0};
    Pack p = {0};
    if (pick < OP_COUNT) {
        OpArgs a;
        if (op_unpack(&u, (Op)pick, &a) == 0) {
            FUZZ_CHECK(a.n_rows >= 0);
            op_pack(&p, (Op)pick, &a);
            check_repacked(&p, &u);
            op_args_free(&a);
        }
    } else {
        const WireRecord *records[] = {&WIRE_JOB, &WIRE_JOB_END, &WIRE_REPLY};
        union {
            WireJob job;
            WireJobEnd end;
            WireReply reply;
        } record;
        wire_unpack(&u, records[pick - OP_COUNT], &record);
        if (!u.bad) {
            wire_pack(&p, records[pick - OP_COUNT], &record);
            check_repacked(&p, &u);
        }
    }
    free(p.bytes);
    return 0;
}
