/*
 * commands.h — the subcommands of the mixbench binary.  Each takes the
 * arguments after its own name and returns the process exit code; each
 * prints its errors as one line on stderr.
 */
#ifndef MIXBENCH_COMMANDS_H
#define MIXBENCH_COMMANDS_H

int cmd_workbench(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_worker(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_pause(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_extend(int argc, char **argv);
int cmd_plot(int argc, char **argv);

#endif
