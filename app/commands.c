/*
 * commands.c — the table of mixbench's subcommands: each one's function,
 * its line in `mixbench help`, and its `--help` (usage, what it does, its
 * options, an example).  main.c dispatches through it and answers
 * `mixbench CMD --help` (or -h, anywhere among the arguments) and
 * `mixbench help CMD` from it, before the command parses anything.
 */
#include "app/commands.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* the --where paragraph of the organising commands */
#define WHERE_TEXT                                                                                         \
    "  RUN: a run id or name; --where EXPR picks the runs instead (the Runs screen's filter:\n"            \
    "  words, key=value, key>value, tag:NAME or #NAME, !term; docs/organising.md)\n"                      \
    "  --db FILE        the store (default mixbench.db)"

static const Command COMMANDS[] = {
    {"run", cmd_run, "train a model headless: --arch A --task T --data D [key=value ...] | --resume RUN",
     "mixbench run [--arch A] [--task T] [--data D] [--variant V] [key=value ...] [--db FILE]\n"
     "       mixbench run --resume RUN [key=value ...] [--db FILE]",
     "trains one model in this process and records it in the store: its config, metrics every\n"
     "log_every steps, evaluations, checkpoints, the end (under mpirun: one run over the ranks)\n"
     "  --arch A         attention, mixer, pairconnect, dispatcher, cumsum, fft, conv, linattn,\n"
     "                   mamba, hyena, gla, swa, ema (ema_span=S, 256; docs/mixers.md)\n"
     "                   (mamba's keys: state=N, 16; expand=E, 2; docs/mixers-ssm.md)\n"
     "  --task T         clm, mlm, bidir, autoencode, complete\n"
     "  --data D         builtin:stories|markov|copy|mqar|selective, a text file, a folder of splits\n"
     "  --variant V      a bundle of keys from the papers (linear-mixer, dispatcher-block, fnet)\n"
     "  key=value        any model or training key of the SPEC (--key value too): d, layers, heads,\n"
     "                   n_ctx, lr, batch, steps | tokens | seconds, seed, threads, eval_every, ...\n"
     "  init=gpt2|fan_in linear weights N(0, 0.02) (default) or N(0, 1/sqrt(fan_in))\n"
     "                   linattn: feature_map=elu1|taylor, feature_dim=D' (taylor; docs/mixers.md)\n"
     "                   gla: gate=fixed|data (data), gate_rank=R (data's, 16; docs/mixers.md)\n"
     "                   swa: window=W, keys i-W < j <= i (default 32; docs/mixers.md)\n"
     "  stop_accuracy=A  stop, done, once an evaluation's valid accuracy reaches A; patience=P:\n"
     "                   after P evaluations without a better valid loss (both need eval_every)\n"
     "  --init CKPT      start from a checkpoint's weights\n"
     "  --save PATH      also write the final checkpoint there\n"
     "  --name NAME      a label for the run\n"
     "  --resume RUN     continue an interrupted or paused run from its last checkpoint\n"
     "  --quiet          no progress lines\n"
     "  --db FILE        the store (default mixbench.db)",
     "mixbench run --arch mixer --data builtin:stories layers=4 d=128 steps=2000", 0},
    {"eval", cmd_eval, "evaluate a checkpoint: --ckpt CKPT --data D | --run RUN [--split test|valid|train] [--json]",
     "mixbench eval --ckpt CKPT --data D [--split S] [--json]\n"
     "       mixbench eval --run RUN [--data D] [--split S] [--json] [--db FILE]",
     "the loss, accuracy (and bits per byte on char data) of a model on a split, computed as\n"
     "training evaluates it\n"
     "  --ckpt CKPT      a checkpoint file (--data names its data)\n"
     "  --run RUN        a run of the store: its newest checkpoint, on its own data unless --data\n"
     "  --split S        test (default), valid or train\n"
     "  --task T, --tokenizer K, --batch B, --threads T   override the checkpoint's\n"
     "  --json           one JSON object\n"
     "  --db FILE        the store (default mixbench.db)",
     "mixbench eval --run 3 --split valid --json", 0},
    {"generate", cmd_generate, "sample text: --ckpt CKPT | --run RUN [--prompt TEXT] [-n N] [--temperature T] [--top-k K]",
     "mixbench generate --ckpt CKPT | --run RUN [--prompt TEXT] [-n N] [--temperature T] [--top-k K] [--seed S]",
     "samples text from a causal (clm) model, token by token\n"
     "  --ckpt CKPT | --run RUN   the model: a checkpoint file, or a run's newest checkpoint\n"
     "  --prompt TEXT    the text to continue (default: none)\n"
     "  -n N             tokens to sample (default 200)\n"
     "  --temperature T  default 0.8;  --top-k K  default 40;  --seed S  default 1\n"
     "  --stats          tokens/s and the decoding path on stderr\n"
     "  --db FILE        the store of --run (default mixbench.db)",
     "mixbench generate --run 3 --prompt \"once upon a time\" -n 50", 0},
    {"bench", cmd_bench, "training throughput vs sgemm: [--arch A] [--config S|P|M] [--task clm|mlm] [--threads T] [--json]",
     "mixbench bench [--arch A] [--config S|P|M] [--task clm|mlm] [--threads T] [--repeat R] [--seconds W]\n"
     "       [--json] [--inference] [--bf16]\n"
     "       mixbench bench --n LIST [--arch A] [--threads T] [--seconds W] [--json]",
     "the engine's speed: tokens/s of each architecture's training step, and its GFLOP/s as a share\n"
     "of this machine's sgemm rate measured in the same run (docs/speed.md; the FLOP count:\n"
     "docs/spec-choices.md, \"Bench FLOP rule\")\n"
     "  --arch A         one architecture (default: every one)\n"
     "  --config S|P|M   the model size: S (d 256, L 4, n 64, B 32, default), P (the presets'\n"
     "                   shape: d 128, L 4, h 4, n 64, V 4096, B 8), M (d 512, L 8, n 128, B 16)\n"
     "  --task T         clm (default) or mlm\n"
     "  --threads T      threads (default 1; 0: every core)\n"
     "  --repeat R       repeat the measurement R times (the median)\n"
     "  --seconds W      the timed window of each model (default 4)\n"
     "  --inference      batch-1 generation speed too\n"
     "  --bf16           each model in float32 and in precision=bf16, side by side\n"
     "  --n LIST         long context: lengths such as 512,2048,8192,32768, each architecture with\n"
     "                   a causal mode (or --arch) at d 128, L 2, h 4, batch 1, V 1000: training\n"
     "                   tokens/s, GFLOP/s, peak and estimated memory, and batch-1 generation's ms\n"
     "                   per token at that context; a length whose estimate does not fit in the\n"
     "                   memory available is refused before anything runs (without --arch: that\n"
     "                   line is skipped) (mixbench plot bench draws the --json; docs/speed.md,\n"
     "                   \"Long context\")\n"
     "  --json           one JSON object (with tokens per CPU-second)",
     "mixbench bench --arch mixer --config M --threads 2", 0},
    {"ls", cmd_ls, "list runs in the store [--where EXPR] [--trash] [--loss best|last] [--db FILE]",
     "mixbench ls [--db FILE] [--json] [--status S] [--arch A] [--where EXPR] [--trash] [--loss best|last]",
     "one line per run: id, status, arch, task, data, steps, train loss (smoothed) and its\n"
     "sparkline, valid and test loss, ANSWER ACC (the answer accuracy, when a run is on\n"
     "builtin:mqar, copy or selective-copy), training tokens/s, tags (* starred), creation time (UTC)\n"
     "  --loss best|last the VALID column: the last evaluation (last, the default) or the\n"
     "                   lowest with its step (best: column BEST VALID@STEP, 4.123@1200);\n"
     "                   --json always has valid_loss, best_valid_loss and best_valid_step\n"
     "  --status S       only runs with this status (done, running, queued, failed, ...)\n"
     "  --arch A         only this architecture\n"
     "  --where EXPR     the runs the filter expression picks (docs/organising.md)\n"
     "  --trash          the runs in the trash instead\n"
     "  --json           one JSON array\n"
     "  --db FILE        the store (default mixbench.db)",
     "mixbench ls --status done --arch mixer --loss best", 1},
    {"show", cmd_show, "one run's config, evaluations and loss curve [--db FILE]",
     "mixbench show RUN [--db FILE] [--json] [--log]",
     "RUN is a run id (or a name one run has); prints the config, parameter\n"
     "counts, evaluations, checkpoints and the train loss curve\n"
     "  --log            the curve on a log scale\n"
     "  --json           one JSON object\n"
     "  --db FILE        the store (default mixbench.db)",
     "mixbench show 3 --log", 1},
    {"sweep", cmd_sweep, "queue a preset, a grid or a random search: PRESET[@paper]|key=v1,v2 ... [--data D] [--dry-run]",
     "mixbench sweep PRESET[@paper] [key=value ...] [options]\n"
     "       mixbench sweep FILE.yaml[@paper] [key=value ...] [options]\n"
     "       mixbench sweep --continue ID [--max-hours H]\n"
     "       mixbench sweep key=v1,v2 ... [(k1,k2)=(a,b),(c,d)] [repeats=N] [options]\n"
     "       mixbench sweep key=log:LO..HI|uniform:LO..HI|choice:a,b ... --search random --trials N [options]",
     "queues the jobs of a preset (the seed papers' experiments, SPEC section 8; a built-in study),\n"
     "of a study file (FILE.yaml: docs/studies.md, `mixbench study`), of a grid\n"
     "(every combination of the values; a (k1,k2) tuple zips its keys) or of a random search (each\n"
     "trial draws every key=log:|uniform:|choice: value; crossed with the grid axes, repeats seeds per\n"
     "trial) after checking that their data loads and that they fit in memory; prints them with the\n"
     "time they take.  Alone, it lists the presets.\n"
     "  --search random  draw the distributions: a random search (search=random in the spec)\n"
     "  --trials N       its number of trials (trials=N)\n"
     "  --search-seed S  draws the trials (default 0; the same seed, the same trials; seed stays\n"
     "                   the training key)\n"
     "  --prune asha|median   stop hopeless trials: asha (keys prune_eta=E, default 3, prune_grace=F,\n"
     "                   default 0.1: rungs at 1/E^K..1 of the budget, the best 1/E go on) or median\n"
     "                   (prune_grace=F, prune_startup=N, default 3: above the earlier trials' median\n"
     "                   at the same step); a pruned run ends 'pruned', left out of verdicts\n"
     "  --data D         the dataset (replaces a preset's own corpus)\n"
     "  --tokenizer K    word, char, bpe or ids\n"
     "  --priority P     higher runs first (default 0)\n"
     "  --name NAME      the sweep's name (default: the preset's, or grid)\n"
     "  --dry-run        list the jobs, queue nothing\n"
     "  --until-conclusive   rounds of extensions and seeds until every claim is decided\n"
     "  --max-hours H    the cap of --until-conclusive, in CPU hours\n"
     "  --continue ID    sweep ID (--until-conclusive) goes on: the round it stopped in is judged\n"
     "                   again by today's claims and acts; with --max-hours H, under that larger cap\n"
     "  --db FILE        the store (default mixbench.db)",
     "mixbench sweep arch=mixer lr=log:1e-4..1e-2 steps=900 --search random --trials 9 --prune asha", 1},
    {"study", cmd_study, "a study file (axes, budget, claims): check FILE|NAME | new NAME | list",
     "mixbench study check FILE.yaml|NAME\n"
     "       mixbench study new NAME\n"
     "       mixbench study list",
     "a study is a YAML file holding a question's axes, budget, the paper's figures and its claims\n"
     "(docs/studies.md); `mixbench sweep FILE.yaml [key=value ...]` queues it and its claims are\n"
     "judged as a preset's (the presets are built-in studies).  check validates one (a file, or a\n"
     "built-in study by name) and prints its jobs, the time they take and each claim as the verdicts\n"
     "read it; nothing is queued.  new writes NAME.yaml, a commented skeleton that checks.  list\n"
     "names the built-in studies and those in ./studies.",
     "mixbench study new my-question && mixbench study check my-question.yaml", 1},
    {"worker", cmd_worker, "run queued jobs until the queue is empty [--jobs N] [--threads T]",
     "mixbench worker [--jobs N] [--threads T] [--verbose] [--db FILE]",
     "runs the store's queued jobs, N at a time, until the queue is empty; Ctrl-C checkpoints the\n"
     "running jobs and queues them again (under mpirun: a sweep over the launch's ranks)\n"
     "  --jobs N         jobs at a time (default: cores / threads)\n"
     "  --threads T      threads a job (default: the cores shared by the jobs)\n"
     "  --verbose        every job's progress lines\n"
     "  --db FILE        the store (default mixbench.db)",
     "mixbench worker --jobs 2 --threads 1", 0},
    {"queue", cmd_queue, "list queued, running and paused jobs [--tsv]",
     "mixbench queue [--tsv] [--db FILE]",
     "the jobs that are queued (in the order workers take them), running or paused, as a table\n"
     "  --tsv            tab-separated, every column, a header line (for scripts)\n"
     "  --db FILE        the store (default mixbench.db)",
     "mixbench queue --db runs.db", 1},
    {"pause", cmd_pause, "pause jobs: RUN...",
     "mixbench pause RUN... [--db FILE]",
     "a running job checkpoints and stops (within a second); a queued one waits; `resume` queues\n"
     "them again",
     "mixbench pause 4 5", 1},
    {"cancel", cmd_cancel, "cancel jobs: RUN...",
     "mixbench cancel RUN... [--db FILE]",
     "a running job stops and ends cancelled; a queued or paused one ends at once",
     "mixbench cancel 4", 1},
    {"resume", cmd_resume, "queue paused or interrupted jobs again: RUN...",
     "mixbench resume RUN... [--db FILE]",
     "a paused or interrupted job goes back to the queue and continues from its last checkpoint",
     "mixbench resume 4", 1},
    {"export", cmd_export, "results or curves: [--sweep S] [--where EXPR] --csv|--json [--curves] [--loss best|last]",
     "mixbench export --csv|--json [--sweep S] [--where EXPR] [--curves] [--loss best|last] [--db FILE]",
     "the results view (one row per run, answer_accuracy after it: the test accuracy of a run on\n"
     "builtin:mqar, copy or selective-copy, else empty) or, with --curves, every metric row, to stdout\n"
     "  --loss best|last where the results have valid_loss (the last evaluation: last, the\n"
     "                   default), best: best_valid_loss and best_valid_step (the lowest\n"
     "                   evaluation and its step) instead\n"
     "  --sweep S        one sweep's runs\n"
     "  --where EXPR     the runs the filter expression picks\n"
     "  --curves         the per-step metrics instead of the results\n"
     "  --db FILE        the store (default mixbench.db)",
     "mixbench export --sweep 2 --csv > sweep2.csv", 0},
    {"report", cmd_report, "the presets beside their papers, with verdicts: [PRESET ...|SWEEP ...] [--db FILE] [--md FILE]",
     "mixbench report [PRESET ...|SWEEP ...] [--md FILE [--figures DIR]] [--loss best|last] [--db FILE]",
     "SWEEP (an id, sweep:ID or a sweep's name): that sweep's report, whatever it was queued from\n"
     "(a grid: its points and which knob matters; a random search: its trials best first).\n"
     "for each preset with runs (or the ones named): our points, mean +- standard error over seeds,\n"
     "beside the paper's figures, a verdict on each of the paper's claims, and which knob\n"
     "matters: the share of the paper metric's variance over the sweep's grid that each axis\n"
     "and each pair of axes explains (functional ANOVA; docs/experiments.md, \"Which knob matters\")\n"
     "  --loss best|last best: the points' best_valid_loss and best_valid_step (each run's\n"
     "                   lowest valid evaluation and its step) in place of valid_loss (last)\n"
     "  --md FILE        write it as Markdown, each preset's figures (SVG) linked\n"
     "  --figures DIR    where they go, relative to FILE's folder (default figures)\n"
     "  --db FILE        the store (default mixbench.db)",
     "mixbench report autoencoder --md report.md", 1},
    {"stats-check", cmd_stats_check, "the verdicts' error rates on simulated seed groups: [--trials N] [--seed S] [--alpha A]",
     "mixbench stats-check [--trials N] [--seed S] [--alpha A]",
     "judges simulated seed groups of known truth with the claims' own code, for each claim kind\n"
     "(directional, equivalence, every point, flat, threshold): (a) no difference, (b) a true\n"
     "difference at the claim's margin, (c) 2 standard errors at 5 seeds; prints the rates of\n"
     "\"holds\" and \"does not hold\", the power, the wrong-decision rate of --until-conclusive's\n"
     "seed rounds on the same groups (seeds by power, alpha spent over its looks), and the\n"
     "worst false-decision rate over (a) and (b)\n"
     "(docs/statistics.md)\n"
     "  --trials N       trials per cell (default 10000)\n"
     "  --seed S         the simulation's seed (default 0): the same seed, the same table\n"
     "  --alpha A        the level of the verdicts (default 0.05)",
     "mixbench stats-check --trials 2000 --seed 1", 0},
    {"gc", cmd_gc, "remove checkpoints no run names: [--dry-run] [--keep last|best|none [--where EXPR]] [--db FILE]",
     "mixbench gc [--db FILE] [--dry-run] [--keep last|best|none [--where EXPR]]",
     "removes checkpoint files in the store's folder (NAME.ckpt/ beside NAME.db) that no run\n"
     "names; --keep also removes the older checkpoints of finished runs: all but the latest\n"
     "(last), all but the one at the lowest valid loss (best), or every one (none)\n"
     "  --where EXPR     --keep only for the runs EXPR chooses (the Runs filter; the trash too)\n"
     "  --dry-run        print what would go, remove nothing",
     "mixbench gc --db runs.db --keep none --where \"sweep<4 status=pruned\" --dry-run", 1},
    {"extend", cmd_extend, "continue a done or stopped decay=wsd run to a larger budget: RUN tokens=N|steps=N",
     "mixbench extend RUN tokens=N|steps=N [--db FILE]",
     "continues a done or stopped run with decay=wsd to a larger budget, from its checkpoint\n"
     "before the cool-down; it ends where a run trained with that budget from the start ends.\n"
     "The run is queued: `mixbench worker`, the workbench or `mixbench run --resume RUN` trains it.",
     "mixbench extend 3 tokens=2000000", 1},
    {"rename", cmd_rename, "rename a run or a sweep: RUN|sweep:S NEW",
     "mixbench rename RUN|sweep:S NEW [--db FILE]",
     "gives a run or a sweep a new name (a preset sweep keeps its preset: claims and the Grid\n"
     "still find it)\n"
     "  --db FILE        the store (default mixbench.db)",
     "mixbench rename sweep:2 \"hash sizes\"", 1},
    {"tag", cmd_tag, "tag runs: RUN... TAG | --where EXPR TAG",
     "mixbench tag RUN... TAG [--db FILE]\n       mixbench tag --where EXPR TAG [--db FILE]",
     "adds a tag to runs (the Runs screen's TAGS column; #TAG in a filter)\n     " WHERE_TEXT,
     "mixbench tag --where \"arch=mixer layers>2\" deep", 1},
    {"untag", cmd_untag, "untag runs: RUN... TAG | --where EXPR TAG",
     "mixbench untag RUN... TAG [--db FILE]\n       mixbench untag --where EXPR TAG [--db FILE]",
     "takes a tag off runs\n     " WHERE_TEXT,
     "mixbench untag 3 4 deep", 1},
    {"note", cmd_note, "a note on a run or sweep: RUN|sweep:S TEXT",
     "mixbench note RUN|sweep:S TEXT [--db FILE]\n       mixbench note --where EXPR TEXT [--db FILE]",
     "free text kept with a run or a sweep (\"\" clears it); shown by the Run screen and `show`\n     " WHERE_TEXT,
     "mixbench note 5 lr too high", 1},
    {"star", cmd_star, "star runs (protected from rm): RUN... | --where EXPR",
     "mixbench star RUN... [--db FILE]\n       mixbench star --where EXPR [--db FILE]",
     "stars runs: a starred run refuses rm until unstarred\n     " WHERE_TEXT,
     "mixbench star 3", 1},
    {"unstar", cmd_unstar, "unstar runs: RUN... | --where EXPR",
     "mixbench unstar RUN... [--db FILE]\n       mixbench unstar --where EXPR [--db FILE]",
     "takes the star off runs\n     " WHERE_TEXT,
     "mixbench unstar 3", 1},
    {"rm", cmd_rm, "move runs or sweeps to the trash: RUN...|sweep:S... | --where EXPR [--dry-run]",
     "mixbench rm RUN...|sweep:S... [--dry-run] [--db FILE]\n       mixbench rm --where EXPR [--dry-run] [--db FILE]",
     "moves runs (or a sweep with its runs) to the trash: they leave every screen, view and\n"
     "report but stay restorable until `purge`; a starred, queued or running run is refused\n"
     "  --dry-run        say what would go, move nothing\n     " WHERE_TEXT,
     "mixbench rm --where \"valid>6 !#keep\" --dry-run", 1},
    {"restore", cmd_restore, "take runs or sweeps out of the trash: RUN...|sweep:S... | --where EXPR",
     "mixbench restore RUN...|sweep:S... [--db FILE]\n       mixbench restore --where EXPR [--db FILE]",
     "takes runs (or a sweep with its runs) back from the trash (`ls --trash` lists it; --where\n"
     "picks among the runs in the trash)\n     " WHERE_TEXT,
     "mixbench restore 4", 1},
    {"purge", cmd_purge, "empty the trash for good, checkpoint files too [--dry-run]",
     "mixbench purge [--dry-run] [--db FILE]",
     "deletes the runs and sweeps in the trash for good (`mixbench ls --trash` lists them), with\n"
     "their metrics, evaluations and the checkpoint files that are the store's own\n"
     "  --dry-run        print what would go, delete nothing\n"
     "  --db FILE        the store (default mixbench.db)",
     "mixbench purge --dry-run", 1},
    {"plot", cmd_plot, "a figure as SVG, PDF or PNG: run RUN | compare RUN... | grid|ae|parallel [SWEEP] -o FILE",
     "mixbench plot run RUN [-o FILE] [--x steps|tokens|time] [--log] [--db FILE]\n"
     "       mixbench plot compare RUN... [--seeds pool|groups|runs] [--fits] [-o FILE] [--x ...] [--log] [--db FILE]\n"
     "       mixbench plot grid [SWEEP] [--metric M] [--rows KEY] [--cols KEY] [--at \"KEY=V ...\"] [-o FILE]\n"
     "       mixbench plot ae [SWEEP] [--valid] [--fits] [--log] [-o FILE] [--db FILE]\n"
     "       mixbench plot parallel [SWEEP] [--metric M] [--seeds groups|runs] [--range \"KEY=LO..HI ...\"] [-o FILE]\n"
     "       mixbench plot bench FILE.json... [-o FILE]",
     "writes a figure as SVG, PDF or PNG (by FILE's extension; default NAME.svg here):\n"
     "  run      the train loss (raw and smoothed), the valid evaluations, the unigram level\n"
     "  compare  several runs; the seeds of one point among them drawn as their mean with a\n"
     "           band of +- standard error (--seeds groups: each run as its whole seed group,\n"
     "           runs: every run on its own); the legend names the config keys that differ\n"
     "  grid     a sweep's metric as a heatmap over two axes, as the Grid screen opens it\n"
     "           (the first axis that varies down, the next across; seeds averaged, a zipped\n"
     "           axis follows its partner, the others at their first value; --at fixes\n"
     "           them, \"KEY=all\" averages one), the paper's figure in the cells, the\n"
     "           verdicts; a random search: its trials' parallel coordinates\n"
     "  ae       an autoencoder, bidirectional or completion sweep (or one with a job of task\n"
     "           autoencode, bidir or complete; default the newest): a panel per architecture\n"
     "  bench    the JSON of mixbench bench --n --json (several files: their lines together):\n"
     "           training tokens/s, peak memory and generation ms/token against n, log-log, a\n"
     "           line per architecture, where each overtakes attention's tokens/s marked\n"
     "--fits     (compare, ae) each curve's valid loss fitted, L = E + A t^-a, and drawn dashed\n"
     "           from its last evaluation to 10x it, an x where two fits cross; x: log tokens\n"
     "  parallel parallel coordinates: a vertical axis per axis of the sweep that varies (not\n"
     "           seed) and the metric's last, a line per seed group (its mean; --seeds runs: per\n"
     "           finished run) coloured worse to better; --range keeps the lines inside\n"
     "           ranges (KEY an axis or the metric, LO/HI its values or numbers, either may\n"
     "           be left out: \"lr=1e-3..1e-2 valid_loss=..5\"), the others drawn faint\n"
     "SWEEP is a sweep id or a preset name (its newest sweep); default the latest sweep (ae: of\n"
     "those presets).  M: test_loss, valid_loss, test_perplexity, test_accuracy, train_loss,\n"
     "tokens_per_s, test_loss_all, valid_loss_all, samples_per_s, best_valid_loss, ...",
     "mixbench plot parallel 2 --metric valid_loss --range \"layers=2..4\" -o par.pdf", 1},
};

int command_count(void)
{
    return (int)(sizeof COMMANDS / sizeof COMMANDS[0]);
}

const Command *command_at(int i)
{
    assert(i >= 0 && i < command_count());
    return &COMMANDS[i];
}

const Command *command_find(const char *name)
{
    for (int i = 0; name && i < command_count(); i++)
        if (!strcmp(COMMANDS[i].name, name)) return &COMMANDS[i];
    return NULL;
}

void command_help(const Command *c, FILE *f)
{
    assert(c && f);
    fprintf(f, "usage: %s\n%s\nexample: %s\n", c->usage, c->text, c->example);
}

const char WORKBENCH_USAGE[] = "mixbench [--db FILE] [--jobs N] [--threads T] [--no-mouse] [--fresh]";
const char WORKBENCH_TEXT[] =
    "  --db FILE        the store (default mixbench.db; made when it does not exist)\n"
    "  --jobs N         jobs trained at once in this process (default: one a core); 0 only\n"
    "                   watches a store that other processes train into\n"
    "  --threads T      the cores the jobs share (default: every core)\n"
    "  --no-mouse       leave clicks to the terminal (its own selection)\n"
    "  --fresh          open without the screen, picks, sort, filter and New sweep form the store\n"
    "                   remembers of the last launch (MIXBENCH_UI_FRESH set does the same)";
const char COMMANDS_NOTES[] = "  (run, worker and bench also run over MPI ranks under mpirun or srun: docs/scale.md)\n"
                              "Every model and training key of the SPEC is accepted as key=value or --key value.\n";

void commands_usage(FILE *f)
{
    fprintf(f,
            "usage: %s   the workbench\n"
            "       mixbench <command> [options]      (mixbench <command> --help: its options and an example)\n"
            "       mixbench --version\n",
            WORKBENCH_USAGE);
    for (int i = 0; i < command_count(); i++) fprintf(f, "  %-12s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fputs(COMMANDS_NOTES, f);
}
