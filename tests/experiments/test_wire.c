/*
 * test_wire.c — the MPI sweep's messages (experiments/mpi_wire.c) without
 * MPI: every op packed and unpacked gives back the arguments it was given
 * (records field by field, metric rows, NULL and empty strings), the op
 * table is whole, and short or malformed payloads are refused.
 */
#include "engine/common.h"
#include "experiments/mpi_wire.h"
#include "tests/check.h"

#include <string.h>

static int same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* Packs op with a, unpacks it into *out; 0 when the whole payload was read. */
static int round_trip(Op op, const OpArgs *a, OpArgs *out, Pack *p)
{
    *p = (Pack){0};
    op_pack(p, op, a);
    Unpack u = {p->bytes, p->len, 0, 0};
    return op_unpack(&u, op, out) || u.at != p->len ? -1 : 0;
}

static void test_table(void)
{
    for (int op = 0; op < OP_COUNT; op++) {
        const OpInfo *info = op_info(op);
        CHECK(info && info->name && info->args, "op %d has a row", op);
        if (!info) continue;
        CHECK(!info->on_job || info->args[0] == 'i', "%s: on_job ops start with the run id", info->name);
        CHECK(!info->ships || info->args[strlen(info->args) - 1] == 'i', "%s: a shipped file's size last", info->name);
    }
    CHECK(op_info(-1) == NULL && op_info(OP_COUNT) == NULL, "no row past the table");
}

static void test_records(void)
{
    RunInfo info = {"name", "mixer", "clm", "builtin:stories", "char", "{\"d\":16}", 1234, 1000, 50, -7, 3, 16, 2, 4,
                    64, 256, 20};
    OpArgs a = {.i = {42}, .info = info}, b;
    Pack p;
    CHECK(round_trip(OP_JOB_STARTED, &a, &b, &p) == 0, "job_started round trip");
    CHECK(b.i[0] == 42 && same_str(b.info.name, "name") && same_str(b.info.config_json, "{\"d\":16}") &&
              b.info.n_params == 1234 && b.info.seed == -7 && b.info.threads == 3 && b.info.vocab == 256 &&
              b.info.resumed_step == 20,
          "RunInfo fields");
    free(p.bytes);

    RunEnd end = {"failed", NULL, 9, 288, 1.25, 230.5, 17.0, 3.5, 0.75};
    a = (OpArgs){.i = {5}, .end = end};
    CHECK(round_trip(OP_FINISH, &a, &b, &p) == 0, "finish round trip");
    CHECK(same_str(b.end.status, "failed") && b.end.error == NULL && b.end.tokens_seen == 288 &&
              b.end.wall_seconds == 1.25 && b.end.peak_mem_mb == 17.0 && b.end.peak_run_mb == 3.5 &&
              b.end.train_cpu_seconds == 0.75,
          "RunEnd fields, NULL error kept");
    free(p.bytes);

    EvalRow e = {10, "valid", 4.5, 0.25, NAN, 512, NAN};
    a = (OpArgs){.i = {5}, .eval = e};
    CHECK(round_trip(OP_EVAL, &a, &b, &p) == 0, "eval round trip");
    CHECK(b.eval.step == 10 && same_str(b.eval.split, "valid") && b.eval.accuracy == 0.25 &&
              isnan(b.eval.bits_per_byte) && b.eval.n_tokens == 512,
          "EvalRow fields");
    free(p.bytes);

    MemoryNeed need = {1, 2, 3, 4, 5, 6, 21};
    a = (OpArgs){.need = need, .f = {8e9}, .s = {"MemAvailable"}};
    CHECK(round_trip(OP_MEMORY_ADMIT, &a, &b, &p) == 0, "memory_admit round trip");
    CHECK(b.need.activations == 4 && b.need.total == 21 && b.f[0] == 8e9 && same_str(b.s[0], "MemAvailable"),
          "MemoryNeed, available and source");
    free(p.bytes);

    WireJob job = {7, "{}", NULL, 0, "abc", "runs.db"}, job2;
    p = (Pack){0};
    wire_pack(&p, &WIRE_JOB, &job);
    Unpack u = {p.bytes, p.len, 0, 0};
    wire_unpack(&u, &WIRE_JOB, &job2);
    CHECK(!u.bad && u.at == p.len && job2.run_id == 7 && job2.resume_base == NULL && same_str(job2.store_name, "runs.db"),
          "WireJob");
    free(p.bytes);
}

static void test_metrics(void)
{
    MetricRow rows[3];
    for (int r = 0; r < 3; r++) rows[r] = (MetricRow){r + 1, 32 * (r + 1), 0.1 * r, 5.0 - r, 5.5 - r, 1e-3, 0.5, 100};
    OpArgs a = {.i = {9}, .rows = rows, .n_rows = 3}, b;
    Pack p;
    CHECK(round_trip(OP_METRICS, &a, &b, &p) == 0, "metrics round trip");
    CHECK(b.n_rows == 3 && b.rows && b.rows[2].step == 3 && b.rows[2].tokens == 96 && b.rows[1].train_loss == 4.0,
          "the rows come back");
    op_args_free(&b);
    CHECK(b.rows == NULL && b.n_rows == 0, "freed");
    /* a count beyond what the payload holds is refused, nothing allocated */
    int64_t *count = (int64_t *)(p.bytes + 8);
    *count = (int64_t)1 << 40;
    Unpack u = {p.bytes, p.len, 0, 0};
    CHECK(op_unpack(&u, OP_METRICS, &b) == -1 && b.owned_rows == NULL, "a huge count refused");
    free(p.bytes);
}

static void test_malformed(void)
{
    OpArgs a = {.i = {3, 2}}, b;
    Pack p = {0};
    op_pack(&p, OP_SET_STATUS, &a);
    for (size_t cut = 0; cut < p.len; cut++) {
        Unpack u = {p.bytes, cut, 0, 0};
        CHECK(op_unpack(&u, OP_SET_STATUS, &b) == -1, "a payload cut at %zu bytes is refused", cut);
    }
    free(p.bytes);
    /* a string whose length hides a NUL, or lacks its NUL */
    unsigned char bad[8 + 4] = {0};
    bad[0] = 3;   /* length 3 (little-endian int64), bytes "a\0b", then NUL */
    memcpy(bad + 8, "a\0b", 4);
    WireJobEnd e;
    unsigned char msg[3 * 8 + sizeof bad] = {0};   /* run id, status, rc, then the string */
    memcpy(msg + 24, bad, sizeof bad);
    Unpack u = {msg, sizeof msg, 0, 0};
    wire_unpack(&u, &WIRE_JOB_END, &e);
    CHECK(u.bad, "an embedded NUL is refused");
    msg[24 + 8 + 3] = 'x';
    msg[24 + 8 + 1] = 'z';
    u = (Unpack){msg, sizeof msg, 0, 0};
    wire_unpack(&u, &WIRE_JOB_END, &e);
    CHECK(u.bad, "a string without its NUL is refused");
    CHECK(op_unpack(&(Unpack){msg, sizeof msg, 0, 0}, (Op)OP_COUNT, &b) == -1, "an unknown op is refused");
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_table);
    RUN(test_records);
    RUN(test_metrics);
    RUN(test_malformed);
    return check_failures_ ? 1 : 0;
}
