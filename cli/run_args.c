/* The options of `comply run` (cli_run_parse, cli.h): parsed apart from the run itself so that
 * fuzz/fuzz_cli can reach them without simulating. */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "cli.h"

int cli_run_parse(int argc, char** argv, cliRunArgs* a) {
  memset(a, 0, sizeof *a);
  a->outdir = "out";
  int only_positional = 0;
  for (int i = 1; i < argc;) {
    const char* s = argv[i];
    if (!only_positional && s[0] == '-' && s[1]) {
      const char* v = NULL;
      int r;
      if (strcmp(s, "--") == 0) {
        only_positional = 1;
        i++;
      } else if (strcmp(s, "--quiet") == 0 || strcmp(s, "-q") == 0) {
        a->quiet = 1;
        i++;
      } else if (strcmp(s, "--strict") == 0) {
        a->strict = 1;
        i++;
      } else if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
        cli_help(stdout, "run");
        return -1;
      } else if ((r = cli_option("run", argc, argv, &i, "--output", "-o", &v)) != 0) {
        if (r < 0) return CLI_USAGE;
        if (!*v) return cli_usage_error("run", "-o: the output directory is empty");
        a->outdir = v;
      } else if ((r = cli_option("run", argc, argv, &i, "--steps", NULL, &v)) != 0) {
        if (r < 0) return CLI_USAGE;
        if (cli_parse_count(v, &a->steps) != 0)
          return cli_usage_error("run", "--steps: expected a non-negative integer, got '%s'", v);
        a->has_steps = 1;
      } else if ((r = cli_option("run", argc, argv, &i, "--duration", NULL, &v)) != 0) {
        if (r < 0) return CLI_USAGE;
        if (cli_parse_number(v, &a->duration) != 0 || a->duration < 0)
          return cli_usage_error(
              "run", "--duration: expected a finite number of seconds >= 0, got '%s'", v);
        a->has_duration = 1;
      } else if ((r = cli_option("run", argc, argv, &i, "--checkpoint-every", NULL, &v)) != 0) {
        if (r < 0) return CLI_USAGE;
        if (cli_parse_count(v, &a->checkpoint_every) != 0 || a->checkpoint_every < 1)
          return cli_usage_error("run", "--checkpoint-every: expected an integer >= 1, got '%s'",
                                 v);
      } else if ((r = cli_option("run", argc, argv, &i, "--restart", NULL, &v)) != 0) {
        if (r < 0) return CLI_USAGE;
        if (!*v) return cli_usage_error("run", "--restart: the checkpoint path is empty");
        a->restart = v;
      } else {
        return cli_usage_error("run", "unknown option '%s'", s);
      }
      continue;
    }
    if (a->scene) return cli_usage_error("run", "more than one scene: '%s' and '%s'", a->scene, s);
    a->scene = s;
    i++;
  }
  if (a->has_steps && a->has_duration)
    return cli_usage_error("run", "--steps and --duration exclude each other");
  return CLI_OK;
}
