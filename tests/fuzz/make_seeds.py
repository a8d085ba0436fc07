#!/usr/bin/env python3
"""tests/fuzz/make_seeds.py — writes the seed corpora of tests/fuzz/corpus/
(run by hand from the repository root after `make`; the output is
committed).  Each harness gets a few small valid inputs and edge cases;
the safetensors and vocab seeds include a real checkpoint written by
./mixbench (a 4-wide char-level model) and the tokenizers it stores.
Keep the whole corpus small (well under 200 KB)."""
import json, os, shutil, struct, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(ROOT, "corpus")


def put(name, seed, data):
    d = os.path.join(CORPUS, name)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, seed), "wb") as f:
        f.write(data)


def safetensors(tensors, meta=None, pad=0):
    """tensors: name -> (shape, list of floats), written back to back."""
    header, blob = {}, b""
    if meta is not None:
        header["__metadata__"] = meta
    for name, (shape, values) in tensors.items():
        data = struct.pack("<%df" % len(values), *values)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [len(blob), len(blob) + len(data)]}
        blob += data
    text = json.dumps(header).encode() + b" " * pad
    return struct.pack("<Q", len(text)) + text + blob


def checkpoint(tmp, tokenizer, extra=()):
    """A tiny real checkpoint from ./mixbench run; returns its bytes."""
    db = os.path.join(tmp, "s.db")
    subprocess.run([os.path.abspath("mixbench"), "run", "--arch", "attention", "--task", "clm", "--data", "builtin:stories",
                    "tokenizer=" + tokenizer, "d=4", "layers=1", "heads=1", "n_ctx=4", "ffn_mult=1", "steps=1",
                    "batch=1", "--db", db, *extra], cwd=tmp, check=True, capture_output=True)
    ckpt = os.path.join(tmp, "s.ckpt", "run1.safetensors")   # the store's folder NAME.ckpt/
    data = open(ckpt, "rb").read()
    shutil.rmtree(os.path.join(tmp, "s.ckpt"))
    for f in os.listdir(tmp):
        if f.startswith("s.db"):
            os.remove(os.path.join(tmp, f))
    return data


def stored_tokenizer(ckpt):
    n = struct.unpack("<Q", ckpt[:8])[0]
    return json.loads(ckpt[8:8 + n])["__metadata__"]["tokenizer"]


def wire_seeds():
    """Payloads of the MPI sweep's messages (experiments/mpi_wire.h): the
    first byte picks the op (its number) or record (OP_COUNT + 0..2)."""
    OP_COUNT = 16
    i64 = lambda v: struct.pack("<q", v)
    f64 = lambda v: struct.pack("<d", v)
    s = lambda v: i64(-1) if v is None else i64(len(v)) + v.encode() + b"\0"
    run_info = b"".join(s(v) for v in ["r", "mixer", "clm", "builtin:stories", "char", "{}"]) + \
        b"".join(i64(v) for v in [100, 80, 10, 1, 1, 16, 2, 2, 8, 64, 0])
    metric = i64(3) + i64(96) + b"".join(f64(v) for v in [0.5, 4.1, 4.2, 1e-3, 0.9, 200.0])
    end = s("done") + s(None) + i64(10) + i64(320) + f64(1.5) + f64(213.0) + f64(12.0)
    need = b"".join(f64(v) for v in [1e6, 2e6, 1e6, 3e6, 1e5, 1e5, 7.2e6])
    put("wire", "unigram_get", bytes([0]) + s("builtin:stories") + s("char") + i64(64))
    put("wire", "run_create", bytes([2]) + run_info)
    put("wire", "metrics", bytes([4]) + i64(7) + i64(2) + metric + metric)
    put("wire", "metrics-too-many", bytes([4]) + i64(7) + i64(1 << 40) + metric)
    put("wire", "eval", bytes([5]) + i64(7) + i64(10) + s("valid") + f64(4.0) + f64(0.2) + f64(float("nan")) +
        i64(512) + f64(float("nan")))
    put("wire", "set_resume", bytes([6]) + i64(7) + i64(10) + s("run7-step10.ckpt") + i64(4096))
    put("wire", "finish", bytes([12]) + i64(7) + end)
    put("wire", "set_status", bytes([13]) + i64(7) + i64(3))
    put("wire", "memory_admit", bytes([14]) + need + f64(8e9) + s("MemAvailable"))
    put("wire", "job", bytes([OP_COUNT]) + i64(7) + s('{"arch":"mixer"}') + s(None) + i64(0) + s("id") + s("runs.db"))
    put("wire", "job_end", bytes([OP_COUNT + 1]) + i64(7) + i64(2) + i64(0) + s(""))
    put("wire", "reply", bytes([OP_COUNT + 2]) + i64(0) + s("") + f64(3.2) + i64(1) + i64(0))
    put("wire", "bad-string", bytes([OP_COUNT + 2]) + i64(0) + i64(5) + b"abc")


def main():
    if not os.access("./mixbench", os.X_OK):
        sys.exit("run from the repository root after make")
    shutil.rmtree(CORPUS, ignore_errors=True)
    tmp = tempfile.mkdtemp(prefix="mixbench-seeds-")
    try:
        char_ckpt = checkpoint(tmp, "char")
        word_ckpt = checkpoint(tmp, "word", ["vocab=24"])
    finally:
        shutil.rmtree(tmp)

    wire_seeds()

    # safetensors
    put("safetensors", "checkpoint-char", char_ckpt)
    put("safetensors", "two-tensors", safetensors({"a": ([2, 3], [1, 2, 3, 4, 5, 6]), "b": ([], [7])},
                                                   {"format": "mixbench", "step": "3"}))
    put("safetensors", "empty-tensor", safetensors({"z": ([0, 4], []), "s": ([1], [0.5])}))
    put("safetensors", "no-tensors", safetensors({}, {"k": "v"}))
    put("safetensors", "padded-header", safetensors({"x": ([1, 1, 1, 2], [1, 2])}, pad=7))
    put("safetensors", "truncated", safetensors({"a": ([4], [1, 2, 3, 4])})[:-5])
    put("safetensors", "header-only", struct.pack("<Q", 2) + b"{}")

    # checkpoint: real checkpoints (model keys, tokenizer, every tensor)
    put("checkpoint", "checkpoint-char", char_ckpt)
    put("checkpoint", "checkpoint-word", word_ckpt)

    # json
    put("json", "object", '{"a": 1, "b": [true, false, null], "c": "x\\u00e9\\ud83d\\ude00", "d": {"e": -2.5e3}}')
    put("json", "numbers", "[0, -0, 1e308, -1.5E-7, 123456789012345678, 0.1]")
    put("json", "escapes", '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001"')
    put("json", "nested", "[" * 20 + "]" * 20)
    put("json", "duplicate-keys", '{"k": 1, "k": 2, "": {}}')
    put("json", "utf8", '"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"'.encode("latin-1"))
    put("json", "bad", '{"a": [1, 2,, "\\ud800"]')

    # config: key=value lines, or a config JSON object
    put("config", "args", "arch=pairconnect\nlayers=4\nheads=2\nd=64\nlr=3e-4\nsteps=100\ntie=true\n")
    put("config", "variant", "variant fnet\nlayers=2\ndata=builtin:markov:states=8\n")
    put("config", "bad-values", "layers=0\nd=1.5\nact=tanh\nnot_a_key=1\n=x\nseed=99999999999999999999\n")
    put("config", "json", json.dumps({"arch": "mixer", "task": "mlm", "d": "32", "emb_std": "0", "dropout": "0.1",
                                      "data": "/some/where", "tokenizer": "bpe", "min_count": "2"}))
    put("config", "json-unknown", '{"arch": "fft", "future_key": "1", "steps": 5}')

    # sweep: argv words, one per line; "--data PATH" first gives --data
    for seed, spec in [("stories", "stories"), ("stories_seed", "stories:seed=3"),
                       ("markov", "markov:states=8,order=2,branch=3,smooth=0.05"),
                       ("mqar", "mqar:pairs=2,queries=1,vocab=16"), ("copy", "copy:length=3,vocab=10"),
                       ("selective", "selective-copy:length=2,vocab=12,seed=9007199254740991"),
                       ("markov_big", "markov:smooth=1e-9,states=65534"), ("bad_value", "mqar:pairs=x"),
                       ("unknown", "nosuch:a=1")]:
        put("builtin", seed, spec)
    put("sweep", "grid", "layers=1,2\nheads=1,2\narch=pairconnect,attention\nsteps=10\n")
    put("sweep", "zip", "(layers, heads)=(1, 1), (2, 4)\narch=mixer\nrepeats=2\nsteps=5\n")
    put("sweep", "preset", "pairconnect-hash\nsteps=7\n")
    put("sweep", "preset-paper", "autoencoder@paper\n")
    put("sweep", "data", "--data /tmp/corpus.txt\nmixer-vs-transformer\n")
    put("sweep", "variant", "variant=linear-mixer\nd=16,32\nlr=$MIXBENCH_DATA\n")
    put("sweep", "bad", "(a,b)=(1\nlayers=,,\nrepeats=0\n")

    # vocab: serialised tokenizers (checkpoint metadata)
    put("vocab", "word-checkpoint", stored_tokenizer(word_ckpt) + "the cat sat\n")
    put("vocab", "char", "mixbench-tokenizer 1\nkind char\nvocab 258\nhello, world\n")
    put("vocab", "ids", "mixbench-tokenizer 1\nkind ids\nvocab 100\n5 17 99 3\n")
    put("vocab", "word-escapes", "mixbench-tokenizer 1\nkind word\nvocab 8\nthe\n\\x5cx\na\\x20b\n\\xff\\xFE\nthe a\\x20b\n")
    put("vocab", "bpe", "mixbench-tokenizer 1\nkind bpe\nvocab 262\nmerges 4\n106 103\n258 110\n34 259\n260 260\nthe then hen\n")
    put("vocab", "bpe-bad", "mixbench-tokenizer 1\nkind bpe\nvocab 260\nmerges 2\n300 2\n2 2\n")

    # bpe_cache: the cache file read with key "fuzz-key" and vocabulary 320
    put("bpe_cache", "valid", "mixbench-bpe-merges 1\nkey fuzz-key\nvocab 320\nmerges 3\n118 106\n34 258\n258 103\nend\n")
    put("bpe_cache", "empty-merges", "mixbench-bpe-merges 1\nkey fuzz-key\nvocab 320\nmerges 0\nend\n")
    put("bpe_cache", "other-key", "mixbench-bpe-merges 1\nkey another\nvocab 320\nmerges 1\n2 3\nend\n")
    put("bpe_cache", "no-end", "mixbench-bpe-merges 1\nkey fuzz-key\nvocab 320\nmerges 2\n2 3\n258 4\n")

    # tokenizer: first byte = options (bits 0-1 kind word/char/bpe/word+min_count,
    # bit 2 folder of three splits separated by 0x1E, else one file)
    lines = "".join("line %d the cat sat on the mat\n" % i for i in range(24))
    put("tokenizer", "word-file", b"\x00" + lines.encode())
    put("tokenizer", "char-folder", b"\x05" + b"abc\ndef\n\x1eab\n\x1ed e f\n")
    put("tokenizer", "bpe-folder", b"\x26" + b"the then there\nthe hen\n\x1ethe\n\x1ethen\n")
    put("tokenizer", "word-capped", b"\xcc" + b"a b c d e f g a b c\n\x1ea z\n\x1e<unk> <eos>\n")
    put("tokenizer", "bpe-file", b"\x42" + lines.encode())

    # ids: bytes 0-1 vocabulary - 1 (little-endian), byte 2 bit 0 folder
    ids_lines = "".join("%d %d %d\n" % (i % 50, i, 2 + i % 7) for i in range(40))
    put("ids", "file", b"\x63\x00\x00" + ids_lines.encode())
    put("ids", "folder", b"\x09\x00\x01" + b"2 3 4\n5 6\n\x1e7 8 9\n\x1e2\n")
    put("ids", "out-of-range", b"\x09\x00\x01" + b"2 3 10\n\x1e2\n\x1e2\n")
    put("ids", "big-numbers", b"\xff\xff\x01" + b"65535 4294967296 99999999999999999999\n\x1e0\n\x1e1\n")
    put("ids", "not-numbers", b"\x09\x00\x01" + b"-1 +2 0x3 \t\r\n\x1e\x1e")


if __name__ == "__main__":
    main()
