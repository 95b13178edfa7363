/* comply run [SCENE] [-o DIR] [--duration T] [--steps N] [--checkpoint-every N] [--restart FILE]
 *            [--quiet]
 *
 * load (or build the demo) -> compile -> apply overrides -> open outputs -> step loop writing
 * frames at step 0, every opt.output_every steps and the last step -> summary.json.
 *
 * Checkpoints (docs/outputs.md): with --checkpoint-every N, DIR/checkpoint.bin is written
 * atomically after the frame of every step that is a multiple of N and after the last step; on
 * SIGINT/SIGTERM it is always written (after the frame of the step just finished). With
 * --restart FILE the data start from the checkpoint at step S instead of the initial state, the
 * files in DIR are cut after the last regular frame <= S (S itself when it is a frame step of an
 * uninterrupted run, i.e. a multiple of output_every or the last step; else the frame before)
 * and appended to, so that they end up byte for byte the files of an uninterrupted run. A scene
 * whose fingerprint (cm_model_scene_fingerprint) is not the checkpoint's is refused there, and
 * goes on from the checkpoint's state with a warning into a folder without frames.
 *
 * Signals: SIGINT and SIGTERM handlers only set a flag (and reset themselves, so a second
 * signal ends the process the default way). The loop looks at the flag after every step: it
 * stops, writes the frame of the step just finished, writes summary.json with
 * "interrupted": true and exits 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
 * Writing happens in the main loop, never in the handler (stdio is not async-signal-safe). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static volatile sig_atomic_t g_signal = 0;

static void on_signal(int sig) {
  g_signal = sig;
}

static void install_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_RESETHAND; /* a second signal is fatal */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* past the file-size limit (ulimit -f) a write fails with EFBIG instead of killing the
   * process: the frame is cut back to complete rows and the run ends as a write failure */
  sa.sa_handler = SIG_IGN;
  sa.sa_flags = 0;
  sigaction(SIGXFSZ, &sa, NULL);
}

static void restore_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* ---- the built-in demo ---- */

/* Three bodies thrown straight up at 9.81 m/s from 0.5 m: they rise for 1 s, fall back past
 * their start height at t = 2 s, land on the ground at about 2.05 s and come to rest by 4 s
 * (area-compliant contact, ka = 5e10 N/m^3, friction 0.5). They fly in parallel 1 m apart. The
 * thin box spins about its intermediate axis (y, sizes 0.3 x 0.2 x 0.1) with a small
 * perturbation: the tennis-racket instability flips it within the flight. Landing spinning at
 * 10 m/s on a corner or an edge is chaotic: a change in the last digits anywhere (the solver's
 * starting point, say) decides whether the tumbler bounces once or three times, and it has
 * come to rest at 2.6 s or 3.1 s in two such runs; 4 s leaves it time either way. */
cmScene* cli_demo_scene(char* err, size_t errsz) {
  cmScene* s = cm_scene_new("demo");
  if (!s) {
    snprintf(err, errsz, "out of memory");
    return NULL;
  }
  s->opt.timestep = 1e-3;
  s->opt.duration = 4.0;
  s->opt.steps = 0;
  s->opt.gravity[0] = 0;
  s->opt.gravity[1] = 0;
  s->opt.gravity[2] = -9.81;
  s->opt.output_every = 10;

  cmBodyDef ground = cm_body_def_default();
  ground.name = "ground";
  ground.motion = CM_MOTION_FIXED;
  ground.geom.type = CM_GEOM_PLANE;
  ground.geom.normal[0] = 0;
  ground.geom.normal[1] = 0;
  ground.geom.normal[2] = 1;
  ground.geom.offset = 0;

  cmBodyDef ball = cm_body_def_default();
  ball.name = "ball";
  ball.geom.type = CM_GEOM_SPHERE;
  ball.geom.radius = 0.1;
  ball.geom.refine = 3;
  ball.density = 1000;
  ball.position[0] = -1;
  ball.position[2] = 0.5;
  ball.velocity[1] = 0.25;
  ball.velocity[2] = 9.81;
  ball.angular_velocity[2] = 5;

  cmBodyDef box = cm_body_def_default();
  box.name = "box";
  box.geom.type = CM_GEOM_BOX;
  box.geom.size[0] = box.geom.size[1] = box.geom.size[2] = 0.2;
  box.geom.divisions = 2;
  box.density = 500;
  box.position[2] = 0.5;
  box.velocity[2] = 9.81;
  box.angular_velocity[0] = 3;
  box.angular_velocity[1] = 1;

  cmBodyDef tumbler = cm_body_def_default();
  tumbler.name = "tumbler";
  tumbler.geom.type = CM_GEOM_BOX;
  tumbler.geom.size[0] = 0.3;
  tumbler.geom.size[1] = 0.2;
  tumbler.geom.size[2] = 0.1;
  tumbler.geom.divisions = 2;
  tumbler.density = 700;
  tumbler.position[0] = 1;
  tumbler.position[2] = 0.5;
  tumbler.velocity[2] = 9.81;
  tumbler.angular_velocity[0] = 0.05;
  tumbler.angular_velocity[1] = 20;
  tumbler.angular_velocity[2] = 0.05;

  const cmBodyDef* defs[] = {&ground, &ball, &box, &tumbler};
  for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
    if (cm_scene_add_body(s, defs[i], err, errsz) < 0) {
      cm_scene_free(s);
      return NULL;
    }
  }
  cmRuleDef rule = cm_rule_def_default();
  rule.law = CM_LAW_AREA_COMPLIANT;
  rule.friction = 0.5;
  rule.method = CM_METHOD_VERTEX_EDGE; /* box edges may meet their faces or edges */
  if (cm_scene_add_rule(s, &rule, err, errsz) < 0) {
    cm_scene_free(s);
    return NULL;
  }
  return s;
}

/* ---- the run ---- */

typedef struct Run {
  cmModel* m;
  cmData* d;
  cmOutput* out;
  const char* outdir;
  char* ckpt_path;     /* DIR/checkpoint.bin */
  long written;        /* step of the last frame written, -1 none */
  int io_errno;        /* errno of a failed write */
  char ckpt_err[1024]; /* message of a failed checkpoint write, "" none */
} Run;

static int write_frame(Run* r) {
  if (r->written == r->d->step) return 0;
  if (cm_output_frame(r->out, r->m, r->d) != CM_OK) {
    r->io_errno = errno;
    return -1;
  }
  r->written = r->d->step;
  return 0;
}

/* 1 if DIR/bodies.csv has a line after its header (a frame, maybe cut short) */
static int has_frames(const char* dir) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/bodies.csv", dir) >= (int)sizeof path) return 1;
  struct stat sb;
  if (stat(path, &sb) != 0) return 0;
  if (!S_ISREG(sb.st_mode)) return 1; /* (not opened: cm_output_resume says what it is) */
  FILE* f = fopen(path, "rb");
  if (!f) return 1;
  int c, lines = 0;
  while ((c = fgetc(f)) != EOF && lines == 0)
    if (c == '\n') lines++;
  int more = lines > 0 && c != EOF;
  fclose(f);
  return more;
}

/* DIR/checkpoint.bin of the current state; -1 (message in r->ckpt_err) on failure */
static int write_checkpoint(Run* r) {
  if (cm_checkpoint_write(r->m, r->d, r->ckpt_path, r->ckpt_err, sizeof r->ckpt_err) != CM_OK)
    return -1;
  return 0;
}

static void free_run(Run* r) {
  free(r->ckpt_path);
  cm_output_close(r->out);
  cm_data_free(r->d);
  cm_model_free(r->m);
}

/* ---- warnings: on stderr when a kind first occurs, and counted at the end ---- */

/* the first occurrence of each warning kind since the last call, with what it means */
static void report_new_warnings(const cmModel* m, const cmData* d, int* seen) {
  for (int w = 0; w < CM_WARN_COUNT; w++) {
    if (seen[w] || d->warning[w] == 0) continue;
    seen[w] = 1;
    fprintf(stderr, "comply: warning: %s from step %ld (t = %.6g s)", cm_warning_name((cmWarning)w),
            d->step, d->time);
    if (w == CM_WARN_ENERGY && d->energy_body >= 0 && d->energy_body < m->nbody)
      fprintf(stderr, ", body '%s', growth %.3g of the largest kinetic energy %.3g J",
              m->body_name[d->energy_body], d->energy_growth, d->energy_scale);
    if (w == CM_WARN_SOLVER) fprintf(stderr, ", residual %.3g", d->solver_max_residual);
    if (w == CM_WARN_TUNNEL && d->tunnel_body_a >= 0 && d->tunnel_body_b >= 0)
      fprintf(stderr,
              ", '%s' at %.3g m/s relative to '%s', thinner body %.3g m thick: the largest safe "
              "step is %.3g s",
              m->body_name[d->tunnel_body_a], d->tunnel_speed, m->body_name[d->tunnel_body_b],
              d->tunnel_thickness, d->tunnel_thickness / (2 * d->tunnel_speed));
    if (w == CM_WARN_DEEP && d->depth_body_a >= 0 && d->depth_body_b >= 0)
      fprintf(stderr, ", pair %s <-> %s, penetration %.3g of the thinner body",
              m->body_name[d->depth_body_a], m->body_name[d->depth_body_b], d->depth_ratio);
    fprintf(stderr, ": %s\n", cm_warning_help((cmWarning)w));
  }
}

/* the total and "kind count, ..." of the warnings of d plus those of the run itself (initial
 * overlaps, resting penetration estimates) */
static long warning_list(const cmData* d, int overlaps, int soft, int changed, char* buf,
                         size_t n) {
  long total = overlaps + soft + changed;
  size_t used = 0;
  buf[0] = 0;
  if (changed) used += (size_t)snprintf(buf, n, "scene_changed %d", changed);
  if (overlaps)
    used +=
        (size_t)snprintf(buf + used, n - used, "%sinitial_overlap %d", used ? ", " : "", overlaps);
  if (soft)
    used +=
        (size_t)snprintf(buf + used, n - used, "%sresting_penetration %d", used ? ", " : "", soft);
  for (int w = 0; w < CM_WARN_COUNT; w++) {
    if (!d->warning[w]) continue;
    total += d->warning[w];
    if (used < n)
      used += (size_t)snprintf(buf + used, n - used, "%s%s %d", used ? ", " : "",
                               cm_warning_name((cmWarning)w), d->warning[w]);
  }
  return total;
}

/* the initial overlaps, as warnings; CLI_USAGE if one would launch its pair faster than
 * CLI_OVERLAP_SPEED and the scene does not allow it. *count: the pairs */
static int check_overlaps(const cmModel* m, int* count) {
  cliOverlaps o;
  *count = 0;
  if (cli_initial_overlaps(m, NULL, "", 0, &o) != 0)
    return cli_error(CLI_FAILED, "out of memory checking the initial overlaps");
  if (!o.pairs && !o.contained) return CLI_OK;
  *count = o.pairs + o.contained;
  fprintf(stderr,
          "comply: warning: initial_overlap: %d body pairs overlap at t = 0 (deepest %.3g m), %d "
          "are nested or coincident; the elastic energy is released in the first steps:\n",
          o.pairs, o.deepest, o.contained);
  cli_initial_overlaps(m, stderr, "comply:   ", 10, &o);
  if (o.contained && !m->opt.allow_initial_overlap)
    return cli_error(CLI_USAGE,
                     "%s and %s start inside each other with no contact point (coincident or "
                     "nested): no contact force will separate them; check the positions (comply "
                     "check lists every overlap) or set scene.allow_initial_overlap: true",
                     m->body_name[o.contain[0]], m->body_name[o.contain[1]]);
  if (o.fastest > CLI_OVERLAP_SPEED && !m->opt.allow_initial_overlap)
    return cli_error(CLI_USAGE,
                     "the initial overlap of %s <-> %s would set the pair apart at %.3g m/s "
                     "(more than %g m/s): check the positions (comply check lists every "
                     "overlap) or set scene.allow_initial_overlap: true",
                     m->body_name[o.body[0]], m->body_name[o.body[1]], o.fastest,
                     CLI_OVERLAP_SPEED);
  return CLI_OK;
}

int cmd_run(int argc, char** argv) {
  cliRunArgs a;
  int rc = cli_run_parse(argc, argv, &a);
  if (rc < 0) return CLI_OK;
  if (rc != CLI_OK) return rc;

  /* scene and model */
  char err[2048];
  err[0] = '\0';
  cmScene* scene = NULL;
  if (a.scene) {
    if (cm_scene_load(a.scene, &scene, err, sizeof err) != CM_OK)
      return cli_error(CLI_USAGE, "%s", err);
  } else if (!(scene = cli_demo_scene(err, sizeof err))) {
    return cli_error(CLI_FAILED, "demo scene: %s", err);
  }
  Run r = {NULL, NULL, NULL, a.outdir, NULL, -1, 0, ""};
  cmStatus st = cm_model_compile(scene, &r.m, err, sizeof err);
  cm_scene_free(scene);
  if (st != CM_OK) return cli_error(st == CM_ERR_NOMEM ? CLI_FAILED : CLI_USAGE, "%s", err);
  cmModel* m = r.m;
  if (!a.quiet)
    for (int i = 0; i < m->nnote; i++)
      fprintf(stderr, "comply: note: %s\n", m->note[i]);

  /* overrides */
  double h = m->opt.timestep;
  if (a.has_steps) {
    if ((double)a.steps > CM_STEPS_MAX) {
      free_run(&r);
      return cli_usage_error("run", "--steps %ld is more than the limit of %g steps", a.steps,
                             CM_STEPS_MAX);
    }
    m->opt.steps = a.steps;
    m->opt.duration = (double)a.steps * h;
  } else if (a.has_duration) {
    double n = floor(a.duration / h + 0.5);
    if (!(n <= CM_STEPS_MAX)) {
      free_run(&r);
      return cli_usage_error("run",
                             "--duration %g s is %.4g steps of %g s, more than the limit of %g",
                             a.duration, n, h, CM_STEPS_MAX);
    }
    if (n == 0 && a.duration > 0) {
      free_run(&r);
      return cli_usage_error("run",
                             "--duration %g s is shorter than half a step of %g s, so no step "
                             "would run (give at least one step, or 0 for the initial state)",
                             a.duration, h);
    }
    m->opt.steps = (long)n;
    m->opt.duration = a.duration;
  }
  long total = m->opt.steps;
  long every = m->opt.output_every > 0 ? m->opt.output_every : 1;

  /* data (from the checkpoint on a restart) */
  size_t nd = strlen(a.outdir);
  r.ckpt_path = malloc(nd + 32);
  r.d = cm_data_new(m);
  if (!r.d || !r.ckpt_path) {
    free_run(&r);
    return cli_error(CLI_FAILED, "out of memory creating the simulation data");
  }
  snprintf(r.ckpt_path, nd + 32, "%s%scheckpoint.bin", a.outdir,
           nd && a.outdir[nd - 1] == '/' ? "" : "/");
  cmData* d = r.d;
  int overlaps = 0, changed = 0; /* changed: a restart from another version of the scene */
  if (!a.restart && (rc = check_overlaps(m, &overlaps)) != CLI_OK) {
    free_run(&r);
    return rc;
  }
  /* a restarted run counts the warnings of the scene's start as the run it continues did (the
   * final line and --strict the same as the uninterrupted run's; they were 0), without printing
   * them again */
  if (a.restart) {
    cliOverlaps o;
    if (cli_initial_overlaps(m, NULL, "", 0, &o) == 0) overlaps = o.pairs + o.contained;
  }
  int soft = cli_resting_estimates(m, NULL, "");
  if (a.restart && (overlaps || soft))
    fprintf(stderr,
            "comply: warning: the scene's start had %d initial_overlap and %d "
            "resting_penetration warning%s, counted again in this run (the run it continues "
            "printed them; comply check lists them)\n",
            overlaps, soft, overlaps + soft == 1 ? "" : "s");
  if (soft && !a.restart) {
    fprintf(stderr,
            "comply: warning: resting_penetration: %d bod%s would sink deeper than %g %% "
            "of their thickness under their weight:\n",
            soft, soft == 1 ? "y" : "ies", 100 * CM_DEEP_FRACTION);
    cli_resting_estimates(m, stderr, "comply:   ");
  }
  /* spheres meshed coarser than their resting contact: a note (as the scene's notes) */
  if (!a.quiet && !a.restart) cli_patch_notes(m, stderr, "comply: note: ");
  if (a.restart) {
    st = cm_checkpoint_read(m, d, a.restart, err, sizeof err);
    if (st != CM_OK) {
      free_run(&r);
      return cli_error(st == CM_ERR_NOMEM ? CLI_FAILED : CLI_USAGE, "%s", err);
    }
    if (d->step > total) {
      long s = d->step;
      free_run(&r);
      return cli_usage_error(
          "run", "--restart: the checkpoint is at step %ld, after the last step %ld", s, total);
    }
    /* a scene changed since the checkpoint (its laws, friction, joints, forces, motions, meshes:
     * what cm_model_scene_fingerprint covers): the run's own folder would hold two runs whose
     * rows look like one, so it is refused there; into a new folder it is a new run from the
     * checkpoint's state, said on the terminal */
    cmCheckpointInfo ci;
    st = cm_checkpoint_info(a.restart, &ci, err, sizeof err);
    if (st != CM_OK) {
      free_run(&r);
      return cli_error(st == CM_ERR_NOMEM ? CLI_FAILED : CLI_USAGE, "%s", err);
    }
    if (ci.scene_fingerprint != cm_model_scene_fingerprint(m)) {
      if (has_frames(a.outdir)) {
        free_run(&r);
        return cli_usage_error(
            "run",
            "--restart: checkpoint '%s' was written with another version of this scene (its "
            "interactions, joints, forces, motions, meshes or solver options differ; its bodies, "
            "masses and timestep are the same): continued in '%s', the files would hold two "
            "different runs as one. Run the scene the checkpoint was written with, or restart "
            "into an empty folder to go on from its state with this scene",
            a.restart, a.outdir);
      }
      changed = 1;
      fprintf(stderr,
              "comply: warning: scene_changed: checkpoint '%s' was written with another "
              "version of this scene (its interactions, joints, forces, motions, meshes or "
              "solver options differ): this run goes on from its state at step %ld with this "
              "scene's values, so its states are not those the run that wrote it would have "
              "reached\n",
              a.restart, ci.step);
    }
  }

  /* outputs: new files, or the files of the interrupted run cut after its last regular frame
   * at or before the checkpoint */
  if (a.restart) {
    long last = d->step % every == 0 || d->step == total ? d->step : d->step - 1;
    int fresh = !has_frames(a.outdir);
    st = cm_output_resume(m, a.outdir, last, &r.out, err, sizeof err);
    /* the checkpoint's frame is there already or is not a regular frame; into a folder without
     * frames (a new one), the checkpoint's state is the first frame, as step 0 is a run's */
    r.written = fresh ? -1 : d->step;
  } else {
    st = cm_output_open(m, a.outdir, &r.out, err, sizeof err);
  }
  if (st != CM_OK) {
    free_run(&r);
    return cli_error(CLI_USAGE, "%s", err);
  }

  /* the loop: stop at the end, on a failed step, or after the step in which a signal came */
  g_signal = 0;
  install_handlers();
  double t0 = cli_now();
  cliProgress pg;
  progress_start(&pg, total, !a.quiet && isatty(STDERR_FILENO));
  int io_failed = write_frame(&r) != 0, ckpt_failed = 0;
  long ck = a.checkpoint_every;
  cmStatus step_st = CM_OK;
  int seen[CM_WARN_COUNT] = {0};
  for (int w = 0; w < CM_WARN_COUNT; w++)
    seen[w] = d->warning[w] != 0; /* a restart: reported by the interrupted run */
  while (!io_failed && !ckpt_failed && d->step < total && !g_signal) {
    step_st = cm_step(m, d);
    report_new_warnings(m, d, seen);
    if (step_st != CM_OK) break;
    if (d->step % every == 0 || d->step == total) io_failed = write_frame(&r) != 0;
    if (!io_failed && ck > 0 && d->step % ck == 0 && d->step != total)
      ckpt_failed = write_checkpoint(&r) != 0;
    progress_update(&pg, d->step, d->time);
  }
  /* the last state reached (the last good one after a failure) is always written */
  if (!io_failed) io_failed = write_frame(&r) != 0;
  progress_end(&pg);
  int sig = g_signal;
  /* a final checkpoint: on a signal always, at the end with --checkpoint-every (not after a
   * failed step: the state is the last good one, but the run cannot continue from it) */
  if (!io_failed && !ckpt_failed && step_st == CM_OK && (sig || ck > 0))
    ckpt_failed = write_checkpoint(&r) != 0;

  /* summary */
  char msg[1600]; /* room for the longest message: a 1024-byte checkpoint error + context */
  cmRunInfo info = {cli_now() - t0, sig != 0, step_st != CM_OK || io_failed || ckpt_failed, NULL};
  if (step_st != CM_OK) {
    snprintf(msg, sizeof msg,
             "%s in step %ld (from t = %.9g s): %s; the files hold the last good state",
             cm_status_name(step_st), d->step + 1, d->time,
             d->message[0] ? d->message : "the state became non-finite");
    info.message = msg;
  } else if (io_failed) {
    snprintf(msg, sizeof msg, "cannot write the output files in '%s' at step %ld: %s", a.outdir,
             d->step, strerror(r.io_errno));
    info.message = msg;
  } else if (ckpt_failed) {
    snprintf(msg, sizeof msg, "at step %ld: %s", d->step, r.ckpt_err);
    info.message = msg;
  }
  int summary_failed = cm_output_summary(r.out, m, d, &info) != CM_OK;
  int summary_errno = errno;
  restore_handlers();

  /* report: warnings whatever the outcome, then the outcome */
  char list[512];
  long nwarn = warning_list(d, overlaps, soft, changed, list, sizeof list);
  if (nwarn)
    fprintf(stderr,
            "comply: warning: the run had %ld warning%s (%s): see the messages above and "
            "docs/outputs.md, \"Warnings\"\n",
            nwarn, nwarn == 1 ? "" : "s", list);
  /* a costly solve explained (not a warning: the solves converged) */
  cliPeriod per;
  if (!a.quiet && d->solver_solves > 0 &&
      (double)d->solver_total_iter / (double)d->solver_solves > CLI_SLOW_SOLVE_ITER &&
      cli_contact_period(m, &per) > 0) {
    fprintf(stderr,
            "comply: note: the implicit solve took %.3g Newton iterations per solve on "
            "average (comply check estimates why)\n",
            (double)d->solver_total_iter / (double)d->solver_solves);
    cli_contact_period_print(m, &per, stderr, "comply:   the contact period is ");
  }
  if (summary_failed) {
    if (info.message) cli_error(CLI_FAILED, "%s", info.message);
    cli_error(CLI_FAILED, "cannot write '%s/summary.json': %s", a.outdir, strerror(summary_errno));
    rc = CLI_FAILED;
  } else if (info.failed) {
    rc = cli_error(CLI_FAILED, "%s", info.message);
  } else if (sig) {
    rc = cli_error(128 + sig,
                   "interrupted by %s after step %ld (t = %.6g s); output in '%s' is complete up "
                   "to that step",
                   sig == SIGINT ? "SIGINT" : "SIGTERM", d->step, d->time, a.outdir);
  } else {
    if (!a.quiet) {
      printf("output in '%s': %ld steps, %.6g s simulated, %.3f s wall time, %ld warning%s%s%s%s",
             a.outdir, d->step, d->time, info.wall_time, nwarn, nwarn == 1 ? "" : "s",
             nwarn ? " (" : "", list, nwarn ? ")" : "");
      /* not a warning: those steps converged once split (docs/contact-laws.md, "Retried
       * steps") */
      if (d->solver_retries)
        printf("; %ld retr%s of a step in twice the sub-steps, where its solve did not converge",
               d->solver_retries, d->solver_retries == 1 ? "y" : "ies");
      /* the rule's choice, said with its size (docs/contact-laws.md, "Softened contacts:
       * min_period") */
      if (d->soft_rows)
        printf("; min_period softened %ld contact row%s over the sub-steps, the most to "
               "%.3g times its law's stiffness",
               d->soft_rows, d->soft_rows == 1 ? "" : "s", d->soft_factor);
      printf("\n");
    }
    rc = CLI_OK;
    if (nwarn && a.strict)
      rc = cli_error(CLI_FAILED,
                     "--strict: %ld warning%s; the output in '%s' is complete but "
                     "not to be trusted",
                     nwarn, nwarn == 1 ? "" : "s", a.outdir);
  }
  free_run(&r);
  return rc;
}
